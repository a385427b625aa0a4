/**
 * The loop of `CheckContext.each`: runs a check's cases in order (or in batches run at the
 * same time), records each Violation as a failure and goes on, lists the first failures and
 * sums up the others in one more failure.
 */
import { TimeSlice } from '@tagtrack/core';
import {
  CallerListTooLong,
  type CheckScope,
  type Failure,
  Violation,
  type ViolationDetails,
} from '../failure.ts';
import { runInBatches } from './batches.ts';
import { DEFAULT_EACH_CONCURRENCY, type EachOptions, MAX_LISTED } from './calls.ts';

/** What the loop needs of its context (see `CheckContext`). */
export interface EachHost {
  /** The scope calls are counted in now (read when an item is taken). */
  active(): CheckScope;
  fail(message: string, details: ViolationDetails): void;
  record(failure: Failure): void;
  stopAt(n: number): void;
  onStillData<T>(fn: (fresh: boolean) => Promise<T>): Promise<T>;
  /** Records a caller left out for a list too long to read whole as it (caller-lists.ts). */
  leaveOut(e: CallerListTooLong): void;
}

/**
 * `CheckContext.each`.
 * Runs `fn` on every item in order, recording each {@link Violation} it throws as a failure
 * (with `options.note(item)` appended) and going on: the one way a check loops over cases.
 * After `options.list` (default {@link MAX_LISTED}) failures of this loop, the others are
 * only counted, and one more failure (kind `summary`) says how many items failed in all.
 * With `options.stopAt`, ends the check once it has that many failures (checked after each
 * item). An item that needs a list too long to read whole as its caller
 * ({@link CallerListTooLong}) is passed over, its caller recorded as left out; when every item
 * is, the last such exception propagates (the check does not apply). Any other exception
 * propagates (an error of the check). Resolves the number of items that failed. Not for use inside a property predicate (a Violation there is the
 * property's counterexample).
 */
export async function runEach<T>(
  host: EachHost,
  items: Iterable<T>,
  fn: (item: T) => Promise<void> | void,
  options: EachOptions<T>,
): Promise<number> {
  const list = options.list ?? MAX_LISTED;
  if (options.readsOwn) {
    const own = fn;
    fn = (item) => host.onStillData(async () => own(item));
  }
  let failed = 0;
  let n = 0;
  let leftOut: CallerListTooLong | undefined;
  let judged = 0;
  /** Whether `e` left its item out (recorded), else false: the caller handles `e`. */
  const passedOver = (e: unknown): boolean => {
    if (!(e instanceof CallerListTooLong)) return false;
    leftOut = e;
    host.leaveOut(e);
    return true;
  };
  const onViolation = (item: T, e: Violation) => {
    failed++;
    if (failed <= list) host.fail(`${e.message}${options.note?.(item) ?? ''}`, e.details);
  };
  if ((options.concurrency ?? DEFAULT_EACH_CONCURRENCY) > 1) {
    n = await runInBatches(
      [...items],
      fn,
      options.concurrency ?? DEFAULT_EACH_CONCURRENCY,
      (item, scope, error) => {
        const parent = host.active();
        parent.comparisons += scope.comparisons;
        parent.log.push({ log: scope.log });
        for (const f of scope.pending) host.record(f);
        if (error === undefined || error instanceof Violation) judged++;
        if (error !== undefined && !passedOver(error)) {
          if (!(error instanceof Violation)) throw error;
          onViolation(item, error);
        }
        if (options.stopAt !== undefined) host.stopAt(options.stopAt);
      },
      options.slice,
    );
  } else {
    // items that judge without a request resolve in microtasks, which never let timers or
    // I/O in: the loop pauses once its time slice is used up (core's TimeSlice)
    const slice = options.slice ?? new TimeSlice();
    for (const item of items) {
      n++;
      try {
        await fn(item);
        judged++;
      } catch (e) {
        if (!passedOver(e)) {
          if (!(e instanceof Violation)) throw e;
          judged++;
          onViolation(item, e);
        }
      }
      if (options.stopAt !== undefined) host.stopAt(options.stopAt);
      if (slice.step()) await slice.pause();
    }
  }
  if (leftOut !== undefined && judged === 0) throw leftOut;
  if (failed > list)
    host.fail(`${failed} of ${n} cases failed; the first ${list} are listed above`, {
      kind: 'summary',
    });
  return failed;
}
