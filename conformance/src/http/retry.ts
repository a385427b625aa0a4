import { type Clock, retryDelayMs, sleep } from '@tagtrack/core';

/*
 * Retrying a request whose transport failed (docs/spec.md §11, "Transport faults are not verdicts"): one
 * composable step over "one try" of a request, as tRPC's retryLink is over a link. A timeout,
 * a reset connection and a 502, 503 or 504 answer are transport faults: the request is sent
 * again after a backoff (or the server's `Retry-After`); any other answer, a 500 included, is
 * the answer and is returned as it came, as is a 502, 503 or 504 on the last try. Pure web-platform code (no Node module): the suite
 * may run in a browser bundle.
 */

/** Default retries of a request whose transport failed (`--retries`). */
export const DEFAULT_RETRIES = 2;

/** Default first backoff in ms, doubled on each retry up to {@link MAX_BACKOFF_MS}. */
export const DEFAULT_BACKOFF_MS = 250;

/** Longest backoff between two tries, in ms. */
export const MAX_BACKOFF_MS = 5000;

/** Longest wait a `Retry-After` header is honoured for, in ms (a longer one waits this long). */
export const MAX_RETRY_AFTER_MS = 30_000;

/** Statuses of a gateway whose service did not answer: retried (never a 500). */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** How a request is retried: `retries` more tries at most, the first after `backoffMs`. */
export interface RetryPolicy {
  /** Tries after the first one at most (>= 0); 0 sends each request once. */
  readonly retries: number;
  /** Wait before the first retry in ms, doubled on each further retry (at most {@link MAX_BACKOFF_MS}). */
  readonly backoffMs?: number | undefined;
}

/** One try that failed on the transport and was sent again (an exchange's `retries`). */
export interface RetriedTry {
  /** What went wrong, in words: `request timed out`, `ECONNRESET (…)`, `answered 503`. */
  readonly cause: string;
  /** How long the try took, in ms. */
  readonly durationMs: number;
  /** How long the suite waited before the next try, in ms (backoff or `Retry-After`). */
  readonly waitedMs: number;
}

/**
 * A transport fault of one try: `cause` in words; `retryAfterMs`, what the server asked to
 * wait (a 503's `Retry-After`); `reset`, the connection was reset.
 */
export interface TransportFault {
  readonly cause: string;
  readonly retryAfterMs?: number | undefined;
  /** The connection was reset or closed under the request (a reused one may have been idle). */
  readonly reset?: boolean | undefined;
}

/** Every try of a request failed on the transport: `tries`, each one's fault in order. */
export class RetriesExhausted extends Error {
  override readonly name = 'RetriesExhausted';
  constructor(
    readonly tries: readonly RetriedTry[],
    /** What the last try threw. */
    readonly last: unknown,
  ) {
    super(describeTries(tries));
  }
}

/** The causes of failed tries in words, e.g. `ECONNRESET, then request timed out (2 tries)`. */
export function describeTries(tries: readonly Pick<RetriedTry, 'cause'>[]): string {
  const causes = tries.map((t) => t.cause);
  const same = causes.every((c) => c === causes[0]);
  const n = tries.length;
  const what = same ? causes[0] : causes.join(', then ');
  return `${what} (${n === 1 ? 'its only try' : same ? `each of ${n} tries` : `${n} tries`})`;
}

/** What {@link withRetries} needs besides the try itself. */
export interface RetryStep<A> extends RetryPolicy {
  /** The fault of an answer (a 502, 503, 504), or undefined when it is the answer. */
  readonly faultOfAnswer: (answer: A) => TransportFault | undefined;
  /** The fault of what a try threw, or undefined when it is no transport fault (rethrown). */
  readonly faultOfError: (error: unknown) => TransportFault | undefined;
  /** Clock of the waits between tries. */
  readonly clock: Clock;
  /** Ends a wait between tries (the run's stop): the step then throws `onAbort()`. */
  readonly signal?: AbortSignal | undefined;
  readonly onAbort?: (() => Error) | undefined;
  /**
   * Tries more than `retries` that a fault may still earn: `extraTries(fault, tryIndex)`
   * (e.g. one retry of a reused connection the server closed as idle, which `retries: 0`
   * still makes); default none.
   */
  readonly extraTries?: ((fault: TransportFault, tryIndex: number) => number) | undefined;
}

/**
 * Runs `attempt` (one try of a request) until it gives an answer that is no transport fault,
 * at most `1 + retries` times, waiting between tries (backoff doubling from `backoffMs`, or
 * the fault's `retryAfterMs` up to {@link MAX_RETRY_AFTER_MS}). Resolves the answer and the
 * tries that failed before it; when the last try is answered with a fault status (a 503
 * every time), that answer is resolved as the answer. Throws {@link RetriesExhausted} when
 * every try got no answer (timed out, reset), and rethrows at once what `faultOfError` does
 * not call a transport fault.
 */
export async function withRetries<A>(
  attempt: (tryIndex: number) => Promise<A>,
  step: RetryStep<A>,
): Promise<{ readonly answer: A; readonly retries: readonly RetriedTry[] }> {
  const failed: { cause: string; durationMs: number; waitedMs: number }[] = [];
  let backoff = step.backoffMs ?? DEFAULT_BACKOFF_MS;
  for (let i = 0; ; i++) {
    const t0 = step.clock.now();
    let fault: TransportFault | undefined;
    let thrown: unknown;
    let answered: { readonly answer: A } | undefined;
    try {
      const answer = await attempt(i);
      answered = { answer };
      fault = step.faultOfAnswer(answer);
      if (fault === undefined) return { answer, retries: failed };
    } catch (e) {
      fault = step.faultOfError(e);
      if (fault === undefined) throw e;
      thrown = e;
    }
    const durationMs = Math.round(step.clock.now() - t0);
    const allowed = step.retries + (step.extraTries?.(fault, i) ?? 0);
    if (i >= allowed) {
      // the last try was answered (a 502, 503, 504): that answer is the answer, judged as
      // such (a 5xx fails the run); only tries that got no answer at all exhaust
      if (answered !== undefined) return { answer: answered.answer, retries: failed };
      failed.push({ cause: fault.cause, durationMs, waitedMs: 0 });
      throw new RetriesExhausted(failed, thrown);
    }
    const wait =
      fault.retryAfterMs === undefined
        ? backoff
        : Math.min(Math.max(fault.retryAfterMs, 0), MAX_RETRY_AFTER_MS);
    failed.push({ cause: fault.cause, durationMs, waitedMs: Math.round(wait) });
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    await sleep(step.clock, wait, step.signal, step.onAbort ?? (() => new Error('aborted')));
  }
}

/**
 * The fault of an answer of status `status` with headers `headers`: a 502, 503 or 504 is
 * one (`retryAfterMs` from its `Retry-After`, seconds or an HTTP date), any other status is
 * the answer (undefined).
 */
export function faultOfStatus(
  status: number,
  headers: Headers,
  nowMs: number,
): TransportFault | undefined {
  if (!RETRIED_STATUSES.has(status)) return undefined;
  const retryAfter = headers.get('retry-after');
  return {
    cause: `answered ${status}`,
    ...(retryAfter === null ? {} : { retryAfterMs: retryDelayMs(headers, nowMs, 0) }),
  };
}
