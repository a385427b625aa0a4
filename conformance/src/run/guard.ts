import type { FetchLike } from '../http/client.ts';

/** What stops a run: the run options `maxRequests`, `maxDurationMs` (ms) and `signal`. */
export interface GuardLimits {
  readonly maxRequests?: number | undefined;
  readonly maxDurationMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** How long running checks get to end once the run is stopped, in ms. */
export const INTERRUPT_GRACE_MS = 2000;

/**
 * Thrown by the guarded fetch once the run is stopped (`code` `run_interrupted`: deadline,
 * outside signal, base URL gone) or its request budget is spent (`budget_spent`). The HTTP
 * client wraps it in a `ConnectionError` whose `cause` it is (see {@link isBudgetRefusal}).
 */
export class RunStopped extends Error {
  override readonly name = 'RunStopped';
  constructor(
    readonly code: 'run_interrupted' | 'budget_spent',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whether `e`, or an error it wraps (its `cause`, as a `ConnectionError` wraps what the
 * transport threw), is the guarded fetch's refusal for the spent request budget.
 */
export function isBudgetRefusal(e: unknown): boolean {
  for (let at = e, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++)
    if (at instanceof RunStopped) return at.code === 'budget_spent';
  return false;
}

/**
 * What stops a run early: the deadline (`maxDurationMs`), an outside signal (SIGINT,
 * SIGTERM) and the request budget (`maxRequests`). Its {@link fetch} wraps the transport:
 * refuses requests once stopped or over budget, and ends those in flight on a stop (which
 * the HTTP client aborts through {@link signal}).
 */
export class RunGuard {
  /** Requests handed to the transport (what `requests.sent` reports). */
  sent = 0;
  /** Set when a request was refused because the budget was spent. */
  budgetSpent = false;
  /** The request budget (`maxRequests`), if any. */
  get budget(): number | undefined {
    return this.options.maxRequests;
  }
  private readonly controller = new AbortController();
  private readonly stopped: Promise<never>;
  /**
   * What ends each request in flight on a stop, removed once it is answered: a plain set, not
   * a listener per request on {@link signal} (Node warns past ten listeners on one signal).
   */
  private readonly inFlight = new Set<(stop: RunStopped) => void>();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onOutside: (() => void) | undefined;

  constructor(private readonly options: GuardLimits) {
    this.stopped = new Promise<never>((_, reject) => {
      this.controller.signal.addEventListener(
        'abort',
        () => {
          reject(new RunStopped('run_interrupted', `interrupted: ${this.interrupted}`));
          for (const end of this.inFlight)
            end(new RunStopped('run_interrupted', `interrupted: ${this.interrupted}`));
          this.inFlight.clear();
        },
        { once: true },
      );
    });
    this.stopped.catch(() => {});
    const outside = options.signal;
    if (outside !== undefined) {
      this.onOutside = () => this.stop(reasonText(outside.reason));
      if (outside.aborted) this.onOutside();
      else outside.addEventListener('abort', this.onOutside, { once: true });
    }
    if (options.maxDurationMs !== undefined) {
      const ms = options.maxDurationMs;
      this.timer = setTimeout(() => this.stop(`--max-duration ${ms / 1000} s reached`), ms);
      this.timer.unref?.();
    }
  }

  /** Aborts when the run stops (its reason the stop's): the HTTP client aborts what is in flight. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the run stopped, or undefined while it goes on. */
  get interrupted(): string | undefined {
    return this.controller.signal.aborted ? String(this.controller.signal.reason) : undefined;
  }

  stop(reason: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** Resolves `ms` after the run is stopped (never when it is not). */
  graceAfterStop(ms: number): Promise<void> {
    return this.stopped.catch(() => new Promise<void>((r) => setTimeout(r, ms).unref?.()));
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.onOutside !== undefined)
      this.options.signal?.removeEventListener('abort', this.onOutside);
  }

  /** The transport, guarded (see the class). */
  fetch(inner: FetchLike | undefined): FetchLike {
    const send: FetchLike = inner ?? ((r) => fetch(r));
    return async (request) => {
      if (this.interrupted !== undefined)
        throw new RunStopped('run_interrupted', `interrupted: ${this.interrupted}`);
      const max = this.options.maxRequests;
      if (max !== undefined && this.sent >= max) {
        this.budgetSpent = true;
        throw new RunStopped('budget_spent', `request budget spent (--max-requests ${max})`);
      }
      this.sent++;
      // the request's signal already aborts on the run's stop (HttpClient's `signal`): no
      // clone of each request with a combined signal (AbortSignal.any)
      return this.untilStopped(send(request));
    };
  }

  /**
   * `answer`, or the run's stop if it comes first. Its entry in {@link inFlight} goes once
   * `answer` settles: a reaction left on the run-long {@link stopped} promise (`Promise.race`)
   * would hold every answer of the run, and what it references, until the run ends.
   */
  private untilStopped<T>(answer: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.interrupted !== undefined)
        reject(new RunStopped('run_interrupted', `interrupted: ${this.interrupted}`));
      else this.inFlight.add(reject);
      answer.then(resolve, reject).finally(() => this.inFlight.delete(reject));
    });
  }
}

/** An abort reason in words (a string as it is, an Error's message). */
function reasonText(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error) return reason.message;
  return 'interrupted';
}
