/**
 * Per-credential rate limiting (spec §7, a profile option): a fixed window of
 * `windowMs` milliseconds per auth id allowing `limit` requests.
 */

/** A rate limit: `limit` requests per `windowMs` milliseconds per credential. */
export interface RateLimit {
  readonly limit: number;
  readonly windowMs: number;
}

/** The outcome of counting one request against its credential's window. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests left in the current window after this one (>= 0). */
  readonly remaining: number;
  /** Epoch seconds at which the window resets (`X-Rate-Limit-Reset`). */
  readonly resetEpochSeconds: number;
  /** Whole seconds until the window resets, >= 1 (`Retry-After`). */
  readonly retryAfterSeconds: number;
}

/**
 * Parses a CLI rate like `1/s`, `10/s`, `60/m` (also `N/sec`, `N/min`) into a
 * {@link RateLimit}. Throws an Error naming the expected form when it does not parse.
 */
export function parseRate(text: string): RateLimit {
  const m = /^\s*(\d{1,9})\s*\/\s*(s|sec|second|m|min|minute)\s*$/i.exec(text);
  const limit = m ? Number(m[1]) : 0;
  if (!m || limit < 1) {
    throw new Error(`invalid rate '${text}': expected N/s or N/m with N >= 1, e.g. 1/s`);
  }
  const unit = m[2]!.toLowerCase();
  return { limit, windowMs: unit.startsWith('s') ? 1000 : 60_000 };
}

interface Window {
  start: number;
  count: number;
}

/**
 * Fixed-window counters per key. `clock` returns epoch milliseconds (injectable for
 * tests). Windows are aligned to multiples of `windowMs`, so `X-Rate-Limit-Reset` is a
 * whole second for per-second and per-minute windows.
 */
export class RateLimiter {
  readonly #windows = new Map<string, Window>();
  constructor(
    readonly rate: RateLimit,
    readonly clock: () => number = Date.now,
  ) {}

  /** Counts one request of `key` and says whether it is allowed. */
  take(key: string): RateLimitDecision {
    const now = this.clock();
    const start = Math.floor(now / this.rate.windowMs) * this.rate.windowMs;
    let w = this.#windows.get(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.#windows.set(key, w);
      if (this.#windows.size > 10_000) this.#evict(start);
    }
    w.count++;
    const resetMs = start + this.rate.windowMs;
    return {
      allowed: w.count <= this.rate.limit,
      limit: this.rate.limit,
      remaining: Math.max(0, this.rate.limit - w.count),
      resetEpochSeconds: Math.ceil(resetMs / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
    };
  }

  #evict(currentStart: number): void {
    for (const [k, w] of this.#windows) if (w.start !== currentStart) this.#windows.delete(k);
  }
}
