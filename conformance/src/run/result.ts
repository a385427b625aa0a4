import type { EndpointId } from '@tagtrack/core';
import type { Coverage } from '../check/coverage.ts';
import type { Check } from '../check/define.ts';
import type { Failure } from '../check/failure.ts';
import { type CheckStatus, checkVerdict, tallyOf } from '../check/outcome.ts';
import { specClause } from '../check/spec-clause.ts';
import type { Exchange } from '../http/client.ts';
import type { ConnectionError } from '../http/errors.ts';
import type { Rerun } from '../http/rerun.ts';
import type { RetriedRequest } from '../http/types.ts';
import type { Profile } from '../profile/profile.ts';
import type { DataReport } from './attempt.ts';
import type { Outcome } from './check.ts';
import type { ConfigError } from './errors.ts';

/** Progress of a run. */
export type RunEvent =
  | { readonly type: 'start'; readonly checks: readonly Check[] }
  | { readonly type: 'check'; readonly result: CheckResult }
  | { readonly type: 'end'; readonly result: RunResult };

/** The result of one check. */
export interface CheckResult {
  readonly id: string;
  readonly area: string;
  readonly title: string;
  readonly clause: string;
  readonly endpoints: readonly EndpointId[];
  readonly required: boolean;
  readonly status: CheckStatus;
  /** Why it was skipped, or the error message. */
  readonly reason?: string | undefined;
  readonly failures: readonly Failure[];
  /** Set when the expected-failures file lists the check (its reason, or ''). */
  readonly expectedFailure?: string | undefined;
  readonly seed: number;
  readonly requests: number;
  readonly durationMs: number;
  /**
   * Comparisons the check made (each assertion that held or failed, each case of a loop, each
   * property run): a check that compared nothing is never a pass.
   */
  readonly comparisons?: number | undefined;
  /** Ids of the exchanges the check relied on, in call order (walks and discoveries included). */
  readonly exchangeIds?: readonly number[] | undefined;
  /**
   * How many times the check ran, when it ran again because its data changed (spec §5
   * Revision 3); absent when it ran once. `requests` and `durationMs` add up every run.
   */
  readonly attempts?: number | undefined;
  /**
   * The requests it relied on that were answered only after retries (a timeout, a reset
   * connection, a 502/503/504 before; http/retry.ts): the check is marked as having retried, like
   * a test runner's "flaky". Its verdict rests on the answers it got. Absent when none.
   */
  readonly retried?: readonly RetriedRequest[] | undefined;
  /**
   * What it verified of the lists longer than the run's bound (`--sample-above`), which it
   * verified on a seeded sample: e.g. `{ subject: 'contacts', verified: 500, of: 48113,
   * sampled: true }` (coverage.ts). Absent when every record it read was verified.
   */
  readonly coverage?: readonly Coverage[] | undefined;
}

export type { Coverage } from '../check/coverage.ts';
export type { RetriedRequest } from '../http/types.ts';

/** The structured result of a run (what results.json holds, plus the exchanges). */
export interface RunResult {
  readonly suite: 'tagtrack-conformance';
  readonly profile: Profile;
  readonly mode: 'blind' | 'fixture';
  readonly baseUrl: string;
  readonly seed: number;
  readonly numRuns: number;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly requests: {
    readonly sent: number;
    readonly cacheHits: number;
    /** Requests answered only after retries (set by every run; see http/retry.ts). */
    readonly retried?: number | undefined;
    /** The run's retries of a request whose transport failed (`--retries`; set by every run). */
    readonly retries?: number | undefined;
  };
  readonly checks: readonly CheckResult[];
  /**
   * Checks by status; a check the expected-failures file lists that failed or errored counts
   * in `expectedFailures` only, never in `fail` or `error` (the counts add up to the checks).
   */
  readonly summary: Readonly<Record<Exclude<CheckStatus, 'inconclusive'>, number>> & {
    readonly expectedFailures: number;
    /** Checks whose data changed during every run (set by every run; optional for results built elsewhere). */
    readonly inconclusive?: number | undefined;
  };
  /** Expected-failure entries whose check passed: they make the run fail. */
  readonly staleExpectedFailures: readonly string[];
  /**
   * True when every required check passed (or failed as expected), no entry is stale, no
   * request was answered with a 5xx, the run was not interrupted and it met its gates
   * (`gateFailures`).
   */
  readonly ok: boolean;
  /** Checks run at the same time (set by every run; optional for results built elsewhere). */
  readonly concurrency?: number | undefined;
  /** Why the run stopped early (deadline, SIGINT, SIGTERM); absent when it ran to the end. */
  readonly interrupted?: string | undefined;
  /**
   * Why no check ran, one line: the preflight (preflight.ts) found a misconfiguration (no
   * Tag Tracking API at the base URL, a rejected credential, a profile option the
   * implementation did not choose) or the base URL did not answer. Every check is then an
   * error "not run: …" (or "interrupted: the base URL did not answer: …"), never a verdict.
   */
  readonly configError?: string | undefined;
  /**
   * The release-gate policies the run broke (gates.ts: `--max-inconclusive`, `--max-skipped`,
   * `--require` or the profile's fields), one sentence each naming the policy; absent when
   * it met them. Any fails the run.
   */
  readonly gateFailures?: readonly string[] | undefined;
  /**
   * What the preflight saw differ from the profile without proving it wrong, and each changed
   * rule the implementation passes only under the older revision its profile pins (one line each).
   */
  readonly warnings?: readonly string[] | undefined;
  /** How the run watched for data changing under it (set by every run; see attempt.ts). */
  readonly data?: DataReport | undefined;
  /** Where the run took its credentials, headers and TLS settings (no secret; see rerun.ts). */
  readonly rerun?: Rerun | undefined;
  readonly exchanges: readonly Exchange[];
}

/**
 * The one place a check's result is built: the check's data, its outcome (its status and
 * reason the verdict on its cause, verdict.ts) and the expected-failures file's reason when
 * the file lists it (`''` without a reason).
 */
export function resultOf(
  check: Check,
  outcome: Outcome,
  expectedFailure: string | undefined,
): CheckResult {
  const verdict = checkVerdict(outcome.cause, { expected: expectedFailure !== undefined });
  return {
    id: check.id,
    area: check.area,
    title: check.title,
    // as docs/spec.md numbers it: users have no decisions document
    clause: specClause(check.clause),
    endpoints: check.endpoints,
    required: check.required ?? true,
    status: verdict.status,
    reason: verdict.reason,
    failures: outcome.failures,
    seed: outcome.seed,
    requests: outcome.requests,
    durationMs: outcome.durationMs,
    comparisons: outcome.comparisons,
    exchangeIds: [],
    ...(outcome.attempts === undefined ? {} : { attempts: outcome.attempts }),
    ...(outcome.retried === undefined ? {} : { retried: outcome.retried }),
    ...(outcome.coverage === undefined ? {} : { coverage: outcome.coverage }),
    ...(expectedFailure === undefined ? {} : { expectedFailure }),
  };
}

/** A failed or errored required check not covered by the expected-failures file. */
export function isBad(r: CheckResult): boolean {
  return (
    (r.status === 'fail' || r.status === 'error') && r.required && r.expectedFailure === undefined
  );
}

/**
 * The run's `summary` (each check counted once, by {@link tallyOf}: a listed check that
 * failed or errored only in `expectedFailures`) and its stale expected-failure entries
 * (listed checks that passed), in the order of `results`.
 */
export function summaryOf(results: readonly CheckResult[]): {
  summary: RunResult['summary'];
  stale: string[];
} {
  const summary = { skip: 0, pass: 0, inconclusive: 0, fail: 0, error: 0, expectedFailures: 0 };
  for (const r of results) summary[tallyOf(r.status, r.expectedFailure !== undefined)]++;
  const stale = results.filter((r) => r.expectedFailure !== undefined && r.status === 'pass');
  return { summary, stale: stale.map((r) => r.id) };
}

/**
 * The preflight stopped the run before any check ran: the base URL did not answer (`cause` a
 * {@link ConnectionError}) or the implementation contradicts the options (`cause` a
 * {@link ConfigError}: a rejected credential, a profile option the implementation does not
 * have). `message` and `code` are the cause's; `result` is the run's result all the same,
 * every check an error naming the cause and `configError` set, so that callers still write
 * the reports.
 */
export class PreflightError extends Error {
  override readonly name = 'PreflightError';
  readonly code: ConnectionError['code'] | ConfigError['code'];
  constructor(
    readonly result: RunResult,
    override readonly cause: ConnectionError | ConfigError,
  ) {
    super(cause.message, { cause });
    this.code = cause.code;
  }
}
