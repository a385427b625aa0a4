/**
 * Pacing and waiting (spec §7) on an injected clock: the pacer that spaces requests out,
 * an abortable sleep and the delay a 429 asks for. Pure web-platform code; tests pass a fake
 * clock and never wait for real.
 */

/** A source of time: pacing and retry waits go through it, never through timers directly. */
export interface Clock {
  /** Milliseconds since an arbitrary origin (monotonic enough for pacing). */
  now(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
}

/** The real wall clock: `Date.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A monotonic real clock: `performance.now()` and `setTimeout`. */
export const monotonicClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Resolves after `ms` on `clock`, or rejects with `onAbort()` as soon as `signal` aborts
 * (at once when it already has).
 */
export function sleep(
  clock: Clock,
  ms: number,
  signal: AbortSignal | undefined,
  onAbort: () => Error,
): Promise<void> {
  if (signal === undefined) return clock.sleep(ms);
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<void>((resolve, reject) => {
    const abort = () => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    clock.sleep(ms).then(
      () => {
        signal.removeEventListener('abort', abort);
        resolve();
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(e);
      },
    );
  });
}

/**
 * Reserves request slots at a fixed interval on a {@link Clock}; concurrent callers queue in
 * call order: a request goes out at `max(now, previous slot + intervalMs)`.
 */
export class Pacer {
  #nextAt = Number.NEGATIVE_INFINITY;
  constructor(
    /** Milliseconds between two requests; 0: no pacing. */
    readonly intervalMs: number,
    readonly clock: Clock,
  ) {}
  /** A pacer for `perSecond` requests per second (none for 0, negative or not finite). */
  static perSecond(perSecond: number | undefined, clock: Clock): Pacer {
    const ok = perSecond !== undefined && perSecond > 0 && Number.isFinite(perSecond);
    return new Pacer(ok ? 1000 / perSecond : 0, clock);
  }
  /** Waits until this request may go out (rejects with `onAbort()` when `signal` aborts). */
  async acquire(
    signal?: AbortSignal | undefined,
    onAbort: () => Error = () => new Error('aborted'),
  ): Promise<void> {
    const now = this.clock.now();
    const at = Math.max(now, this.#nextAt);
    if (this.intervalMs > 0) this.#nextAt = at + this.intervalMs;
    if (at > now) await sleep(this.clock, at - now, signal, onAbort);
  }
  /** Holds every request back until `at` (after a 429). */
  holdUntil(at: number): void {
    this.#nextAt = Math.max(this.#nextAt, at);
  }
}

/**
 * How long to wait after a 429, in ms (spec §7): `Retry-After` (seconds or an HTTP
 * date), else `X-Rate-Limit-Reset` (epoch seconds), else `fallbackMs`. Never negative.
 */
export function retryDelayMs(headers: Headers, nowMs: number, fallbackMs: number): number {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter !== undefined && retryAfter !== '') {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - Date.now());
  }
  const reset = headers.get('x-rate-limit-reset')?.trim();
  if (reset !== undefined && /^\d+(\.\d+)?$/.test(reset)) {
    return Math.max(0, Number(reset) * 1000 - nowMs);
  }
  return fallbackMs;
}
