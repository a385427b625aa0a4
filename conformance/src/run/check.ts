import { runPerCaller } from '../check/callers.ts';
import { wholeListsCoverage } from '../check/context/caller-lists.ts';
import { CheckContext, type RunServices } from '../check/context.ts';
import { type Coverage, mergeCoverage } from '../check/coverage.ts';
import type { Check, CheckEnv } from '../check/define.ts';
import {
  type CheckScope,
  describe,
  type Failure,
  flattenLog,
  inScope,
  SkipCheck,
  StopCheck,
  Violation,
} from '../check/failure.ts';
import type { CheckCause } from '../check/outcome.ts';
import { ConnectionError, type Exchange } from '../http/client.ts';
import type { RetriedRequest } from '../http/types.ts';
import { isBudgetRefusal, type RunGuard } from './guard.ts';

/**
 * What running a check gave, before it becomes a `CheckResult` (run-result.ts): its typed
 * cause (verdict.ts decides its status and reason) and what it measured.
 */
export interface Outcome {
  readonly cause: CheckCause;
  readonly failures: readonly Failure[];
  readonly seed: number;
  readonly requests: number;
  readonly durationMs: number;
  readonly comparisons: number;
  /**
   * Requests of its log answered with a 5xx that it reports as failures of their own (those
   * none of its failures showed already): any fails the run whichever check sent it.
   */
  readonly serverErrors: number;
  /** Runs made, when the check ran again because its data changed (attempt.ts). */
  readonly attempts?: number | undefined;
  /** Requests of its log answered only after retries (http/retry.ts), in log order. */
  readonly retried?: readonly RetriedRequest[] | undefined;
  /**
   * What it verified of the lists it sampled (coverage.ts), entries of a subject added up;
   * absent when it sampled none (every record of every list verified).
   */
  readonly coverage?: readonly Coverage[] | undefined;
}

/**
 * The requests of `exchanges` that were answered only after one or more tries failed on the
 * transport (each once, by exchange id, in order).
 */
export function retriedRequests(exchanges: readonly Exchange[]): RetriedRequest[] {
  const seen = new Set<number>();
  const out: RetriedRequest[] = [];
  for (const ex of exchanges) {
    if (ex.retries === undefined || ex.retries.length === 0 || seen.has(ex.id)) continue;
    seen.add(ex.id);
    out.push({
      exchangeId: ex.id,
      method: ex.method,
      target: ex.target,
      tries: ex.retries.length + 1,
      causes: ex.retries.map((r) => r.cause),
    });
  }
  return out;
}

/** The outcome of a check that did not run (or ran none of its own code), of cause `cause`. */
export function notRunOutcome(cause: CheckCause, seed: number): Outcome {
  return { cause, failures: [], seed, requests: 0, durationMs: 0, comparisons: 0, serverErrors: 0 };
}

/**
 * Runs one check: `skipIf`, then `run` in a scope of its own (its comparisons and request
 * log). A {@link SkipCheck} skips it, a {@link StopCheck} ends it normally, an escaped
 * {@link Violation} is one more failure, any other exception is an error (its message and
 * the first stack line). Then:
 * - a 5xx answer to any request of its log is a failure naming the request (unless one of its
 *   failures already shows that exchange): a 5xx fails the run whichever check sent it;
 * - a pass that compared nothing is a skip, or an error when a discovery it used failed;
 * - stopped by the run: an error "interrupted: …", or for the request budget (the guard's
 *   typed refusal, {@link isBudgetRefusal}) a skip (a fail when it had failures already).
 * Fails when a failure was recorded. Resolves the outcome (its {@link CheckCause}) and the
 * log's exchanges.
 */
export async function runCheck(
  check: Check,
  services: RunServices,
  env: CheckEnv,
  guard: RunGuard,
): Promise<{ outcome: Outcome; exchanges: readonly Exchange[] }> {
  const reason = check.skipIf?.(env);
  const scope: CheckScope = { comparisons: 0, log: [] };
  const ctx = new CheckContext(check.id, services, scope);
  if (reason !== undefined)
    return { outcome: notRunOutcome({ kind: 'skipped', reason }, ctx.seed), exchanges: [] };
  const t0 = performance.now();
  let skip: string | undefined;
  let error: { readonly thrown: unknown; readonly text: string } | undefined;
  try {
    // relations and laws run as every distinct declared caller in blind mode (callers.ts)
    await inScope(scope, () => runPerCaller(check, ctx));
  } catch (e) {
    if (e instanceof SkipCheck) {
      skip = e.message;
    } else if (e instanceof Violation) {
      ctx.fail(e.message, e.details);
    } else if (!(e instanceof StopCheck)) {
      // an error's message may quote a body a server echoed a header in: no secret in reports
      error = { thrown: e, text: services.http.redactor.redact(errorText(e)) };
    }
  }
  const exchanges = flattenLog(scope.log);
  const shown = new Set(ctx.failures.map((f) => f.exchangeId));
  const fiveXx: Exchange[] = [];
  for (const ex of exchanges) {
    if (ex.status < 500 || shown.has(ex.id)) continue;
    shown.add(ex.id);
    fiveXx.push(ex);
    ctx.record(
      ctx.failureOf(
        `${describe(ex)} answered ${ex.status}${triesWords(ex)}: a 5xx fails the run, whichever check sent the request`,
        { kind: 'status', key: `5xx: ${ex.method} ${ex.target}`, exchange: ex },
      ),
    );
  }
  const failed = ctx.failures.length > 0;
  const retried = retriedRequests(exchanges);
  // callers left out for a list too long to read whole as them (caller-lists.ts), stated
  const whole = wholeListsCoverage(ctx, ctx.coverage);
  const coverage = mergeCoverage(whole === undefined ? ctx.coverage : [...ctx.coverage, whole]);
  let cause: CheckCause;
  if (error !== undefined && guard.interrupted !== undefined) {
    cause = { kind: 'interrupted', reason: guard.interrupted };
  } else if (error !== undefined && isBudgetRefusal(error.thrown)) {
    cause = { kind: 'budget-spent', budget: guard.budget, started: true, failed };
  } else if (error !== undefined) {
    cause = { kind: 'errored', error: error.text };
  } else if (fiveXx.length > 0) {
    cause = { kind: 'server-error', exchanges: fiveXx, note: skip };
  } else if (failed) {
    cause = { kind: 'failed', note: skip };
  } else if (skip !== undefined) {
    cause = { kind: 'skipped', reason: skip };
  } else if (ctx.comparisons === 0) {
    const problems = ctx.discoveryProblems;
    cause =
      problems.length > 0
        ? { kind: 'errored', error: `compared nothing: discovery failed: ${problems.join('; ')}` }
        : {
            kind: 'skipped',
            reason:
              'compared nothing: no case of this requirement in the data the implementation serves',
          };
  } else {
    cause = { kind: 'passed' };
  }
  return {
    outcome: {
      cause,
      failures: ctx.failures,
      seed: ctx.seed,
      requests: ctx.requests,
      durationMs: Math.round(performance.now() - t0),
      comparisons: ctx.comparisons,
      serverErrors: fiveXx.length,
      ...(retried.length === 0 ? {} : { retried }),
      ...(coverage.some((c) => c.sampled) ? { coverage } : {}),
    },
    exchanges,
  };
}

/** How often a request answered with a 5xx was tried, when more than once (`''`: once). */
function triesWords(ex: Exchange): string {
  const before = ex.retries;
  if (before === undefined) return '';
  const n = before.length + 1;
  return before.every((r) => r.cause === `answered ${ex.status}`)
    ? ` on each of ${n} tries`
    : ` on the last of ${n} tries (before: ${before.map((r) => r.cause).join(', ')})`;
}

/** An unexpected exception in words: a ConnectionError's message, else name, message and where. */
export function errorText(e: unknown): string {
  if (e instanceof ConnectionError) return e.message;
  const err = e as Error | undefined;
  const at = err?.stack ? ` (${err.stack.split('\n')[1]?.trim()})` : '';
  return `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}${at}`;
}
