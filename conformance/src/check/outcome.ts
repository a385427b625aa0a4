import type { Exchange } from '../http/client.ts';

/**
 * Check outcome, ordered skip < pass < inconclusive < fail < error (OCI distribution-spec
 * scale). `inconclusive`: the check failed only on data that changed during each of its runs
 * (spec §5 Revision 3, see attempt.ts): never a pass, never a fail.
 */
export type CheckStatus = 'skip' | 'pass' | 'inconclusive' | 'fail' | 'error';
export const STATUS_ORDER: readonly CheckStatus[] = [
  'skip',
  'pass',
  'inconclusive',
  'fail',
  'error',
];

/**
 * Why a check ended as it did, as the layer that knows tells it (run-check.ts, the run's
 * guard, attempt.ts, the scheduler), never read back from a message or a failure key:
 * - `passed`: it compared something and recorded no failure;
 * - `failed`: it recorded failures (`note`: the reason shown, e.g. the skip it asked for after
 *   failing, or the attempt's words);
 * - `server-error`: a request of its log was answered with a 5xx (`exchanges`, each one a
 *   failure of the check; docs/spec.md §8): a fail, whatever else the check did not fail on;
 * - `skipped`: it does not apply, asked to be skipped, compared nothing, or was not run
 *   (`--bail`, `--max-failures`);
 * - `errored`: an exception of its own (or of the suite around it), or a run whose preflight
 *   found a misconfiguration (`error`: the one line shown);
 * - `budget-spent`: the request budget (`--max-requests`, the guard's `BudgetSpent`) refused
 *   one of its requests (`started`) or it never started; a fail when it had failures already;
 * - `interrupted`: the run stopped (deadline, SIGINT, SIGTERM, base URL gone) under it;
 * - `data-moved`: it failed only on data that changed during each of its runs (attempt.ts):
 *   inconclusive.
 * `note`, where allowed, replaces the reason the verdict would give.
 */
export type CheckCause =
  | { readonly kind: 'passed'; readonly note?: string | undefined }
  | { readonly kind: 'failed'; readonly note?: string | undefined }
  | {
      readonly kind: 'server-error';
      readonly exchanges: readonly Pick<Exchange, 'id' | 'method' | 'target' | 'status'>[];
      readonly note?: string | undefined;
    }
  | { readonly kind: 'skipped'; readonly reason: string }
  | { readonly kind: 'errored'; readonly error: string }
  | {
      readonly kind: 'budget-spent';
      /** The budget (`maxRequests`), for the reason. */
      readonly budget: number | undefined;
      /** Whether the check ran (a request of its own was refused) or never started. */
      readonly started: boolean;
      /** Whether it had recorded failures when the budget stopped it. */
      readonly failed: boolean;
      readonly note?: string | undefined;
    }
  | { readonly kind: 'interrupted'; readonly reason: string }
  | { readonly kind: 'data-moved'; readonly reason: string };

/** What a check's summary count is: its status, or `expectedFailures` (see {@link tallyOf}). */
export type Tally = CheckStatus | 'expectedFailures';

/** The verdict on one check (see {@link checkVerdict}). */
export interface CheckVerdict {
  readonly status: CheckStatus;
  /** Why it was skipped, the error, or a note on a pass or fail; undefined when none. */
  readonly reason: string | undefined;
  /** Where the run's `summary` counts it (each check exactly once). */
  readonly tally: Tally;
  /** Listed in the expected-failures file and passed: a stale entry (it fails the run). */
  readonly stale: boolean;
  /** Failed or errored and not listed as expected: it fails the run when the check is required. */
  readonly counts: boolean;
}

/**
 * Where a check of status `status` is counted in a run's `summary`: a check the
 * expected-failures file lists (`expected`) that failed or errored is an expected failure,
 * counted apart, never also a failure or an error; anything else by its status (a listed
 * check that was inconclusive or skipped is counted as that).
 */
export function tallyOf(status: CheckStatus, expected: boolean): Tally {
  return expected && (status === 'fail' || status === 'error') ? 'expectedFailures' : status;
}

/**
 * The verdict on a check from its cause, and whether the expected-failures file lists it
 * (`expected`): a pure function, the one place a status and reason are decided.
 * passed → pass; failed, server-error → fail; skipped → skip; errored, interrupted → error
 * (`interrupted: …`); budget-spent → skip, or fail when the check had failures (`not
 * finished: request budget spent (--max-requests N)` / `not run: …` when it never started);
 * data-moved → inconclusive. A listed check that fails or errors is tallied as an expected
 * failure; listed and passed, a stale entry; listed and inconclusive or skipped, neither.
 */
export function checkVerdict(
  cause: CheckCause,
  { expected }: { readonly expected: boolean },
): CheckVerdict {
  const { status, reason } = statusOf(cause);
  return {
    status,
    reason,
    tally: tallyOf(status, expected),
    stale: expected && status === 'pass',
    counts: !expected && (status === 'fail' || status === 'error'),
  };
}

function statusOf(cause: CheckCause): { status: CheckStatus; reason: string | undefined } {
  switch (cause.kind) {
    case 'passed':
      return { status: 'pass', reason: cause.note };
    case 'failed':
    case 'server-error':
      return { status: 'fail', reason: cause.note };
    case 'skipped':
      return { status: 'skip', reason: cause.reason };
    case 'errored':
      return { status: 'error', reason: cause.error };
    case 'interrupted':
      return { status: 'error', reason: `interrupted: ${cause.reason}` };
    case 'budget-spent':
      return {
        status: cause.failed ? 'fail' : 'skip',
        reason:
          cause.note ??
          `${cause.started ? 'not finished' : 'not run'}: request budget spent (--max-requests ${cause.budget})`,
      };
    case 'data-moved':
      return { status: 'inconclusive', reason: cause.reason };
  }
}

/** `cause` with `note` as its reason, for the causes that take one (a pass or a fail). */
export function withNote(cause: CheckCause, note: string): CheckCause {
  switch (cause.kind) {
    case 'passed':
    case 'failed':
    case 'server-error':
    case 'budget-spent':
      return { ...cause, note };
    default:
      return cause;
  }
}
