import type { RunServices } from '../check/context.ts';
import {
  type Check,
  type CheckEnv,
  priorityOf,
  readsWholeLists,
  runsAlone,
} from '../check/define.ts';
import type { CheckCause } from '../check/outcome.ts';
import type { Exchange } from '../http/client.ts';
import type { DataWatch } from './attempt.ts';
import { errorText, notRunOutcome, type Outcome, runCheck } from './check.ts';
import type { ConfigError } from './errors.ts';
import { INTERRUPT_GRACE_MS, type RunGuard } from './guard.ts';
import type { RunOptions } from './options.ts';
import { type CheckResult, isBad, type RunEvent, resultOf } from './result.ts';

/** What the scheduler keeps of a check that ended (or was reported as not run). */
export interface Done {
  readonly result: CheckResult;
  /** Ids of the exchanges of its log (the exchanges, whole bodies, are not held to the end). */
  readonly exchanges: readonly { readonly id: number }[];
  /** Requests of its log answered with a 5xx it reported (see `Outcome.serverErrors`). */
  readonly serverErrors: number;
}

/** What {@link schedule} needs of the run. */
export interface ScheduleInput {
  /** The selected checks, in catalogue order. */
  readonly selected: readonly Check[];
  readonly services: RunServices;
  readonly env: CheckEnv;
  readonly guard: RunGuard;
  readonly watch: DataWatch;
  /** Checks run at the same time (>= 1). */
  readonly concurrency: number;
  /** The expected-failures file's reason by check id (`''` without one). */
  readonly expected: ReadonlyMap<string, string>;
  /** The preflight's misconfiguration: no check runs, each an error "not run: …". */
  readonly misconfigured: ConfigError | undefined;
  readonly options: Pick<RunOptions, 'bail' | 'maxFailures' | 'maxRequests'>;
  readonly seed: number;
  readonly onEvent: (event: RunEvent) => void;
}

/**
 * Runs the checks and resolves what each gave, by id (every selected check has an entry).
 * One scheduler: checks start by priority (catalogue order among equals, `priorityOf`), up
 * to `concurrency` at a time, a check that runs alone (`runsAlone`) with nothing beside it,
 * one check reading whole event lists (`readsWholeLists`) at a time;
 * every request goes through the one HttpClient, whose pacer keeps to the rate whatever runs
 * at once. A failing check goes through the data watch (attempt.ts). The run halts on a
 * misconfiguration, a stop (deadline, signal), a spent budget, or after `maxFailures` bad
 * checks (`bail`: 1); running checks get {@link INTERRUPT_GRACE_MS} to end after a stop.
 * What did not run (or did not end) is reported with why (see {@link notRunCause}).
 */
export async function schedule(input: ScheduleInput): Promise<Map<string, Done>> {
  const { selected, services, env, guard, watch, concurrency, expected, misconfigured } = input;
  const { options, onEvent } = input;
  onEvent({ type: 'start', checks: selected });
  const ordered = selected
    .map((check, index) => ({ check, index }))
    .sort((a, b) => priorityOf(a.check) - priorityOf(b.check) || a.index - b.index)
    .map((x) => x.check);
  const done = new Map<string, Done>();
  const running = new Set<Promise<void>>();
  /** The check reading whole event lists that runs now (see `readsWholeLists`). */
  let wholeListsRunning: Promise<void> | undefined;
  let bailed = false;
  let failedChecks = 0;
  const maxFailures = options.maxFailures ?? (options.bail ? 1 : undefined);
  const halted = () =>
    misconfigured !== undefined || bailed || guard.interrupted !== undefined || guard.budgetSpent;
  const launch = (check: Check): Promise<void> => {
    const epoch = watch.epoch;
    const p: Promise<void> = runCheck(check, services, env, guard)
      .then((first) => watch.settle(first, epoch, (fresh) => runCheck(check, fresh, env, guard)))
      // a suite bug outside the check's own code is that check's error, not a lost result
      .catch((e: unknown) => ({
        outcome: notRunOutcome({ kind: 'errored', error: errorText(e) }, 0),
        exchanges: [] as readonly Exchange[],
      }))
      .then(({ outcome, exchanges }) => {
        if (done.has(check.id)) return;
        const result = resultOf(check, outcome, expected.get(check.id));
        done.set(check.id, {
          result,
          exchanges: exchanges.map(({ id }) => ({ id })),
          serverErrors: outcome.serverErrors,
        });
        onEvent({ type: 'check', result });
        if (isBad(result) && maxFailures !== undefined && ++failedChecks >= maxFailures)
          bailed = true;
      })
      .finally(() => running.delete(p));
    running.add(p);
    return p;
  };
  const settle = () =>
    Promise.race([Promise.allSettled([...running]), guard.graceAfterStop(INTERRUPT_GRACE_MS)]);
  if (!halted()) {
    for (const check of ordered) {
      if (runsAlone(check)) {
        await settle();
        if (halted()) break;
        await Promise.race([launch(check), guard.graceAfterStop(INTERRUPT_GRACE_MS)]);
        continue;
      }
      while (running.size >= concurrency && !halted()) await Promise.race(running);
      // one check reading whole event lists at a time (the others wait for it, in order). The
      // race includes that check itself: it leaves `running` a few ticks before it settles and
      // clears `wholeListsRunning`, and a race over an empty set would never settle.
      if (readsWholeLists(check))
        while (wholeListsRunning !== undefined && !halted())
          await Promise.race([...running, wholeListsRunning]);
      if (halted()) break;
      const p = launch(check);
      if (readsWholeLists(check)) {
        wholeListsRunning = p;
        void p.finally(() => {
          if (wholeListsRunning === p) wholeListsRunning = undefined;
        });
      }
    }
  }
  await settle();
  guard.dispose();

  // what did not run (or did not end): in catalogue order, with why
  for (const check of selected) {
    if (done.has(check.id)) continue;
    const outcome: Outcome = notRunOutcome(notRunCause(check, input), input.seed);
    const result = resultOf(check, outcome, expected.get(check.id));
    done.set(check.id, { result, exchanges: [], serverErrors: 0 });
    onEvent({ type: 'check', result });
  }
  return done;
}

/**
 * Why a check did not run (or did not end): the preflight's misconfiguration (an error "not
 * run: …"); else a check that does not apply says so, whatever stopped the run; else one
 * still running when the grace ended, or never started, is an error of the interrupted run;
 * else the spent budget, `--max-failures` or `--bail` (skips "not run: …").
 */
function notRunCause(
  check: Check,
  { env, guard, misconfigured, options }: ScheduleInput,
): CheckCause {
  if (misconfigured !== undefined)
    return { kind: 'errored', error: `not run: ${misconfigured.message}` };
  const notApplicable = check.skipIf?.(env);
  if (notApplicable !== undefined) return { kind: 'skipped', reason: notApplicable };
  if (guard.interrupted !== undefined) return { kind: 'interrupted', reason: guard.interrupted };
  if (guard.budgetSpent)
    return { kind: 'budget-spent', budget: options.maxRequests, started: false, failed: false };
  const n = options.maxFailures;
  return {
    kind: 'skipped',
    reason:
      n === undefined
        ? 'not run: an earlier check failed and --bail is set'
        : `not run: ${n} check${n === 1 ? '' : 's'} failed (--max-failures ${n})`,
  };
}
