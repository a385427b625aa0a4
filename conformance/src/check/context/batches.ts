import { TimeSlice } from '@tagtrack/core';
import { type CheckScope, type Failure, inScope, type LogEntry } from '../failure.ts';

/** The scope one item of a batched loop ran in, and the failures it left pending. */
export type ItemScope = CheckScope & { pending: Failure[] };

/**
 * `CheckContext.each` in batches of `size` items run at the same time. Each item runs in a
 * scope of its own; `take(item, scope, error)` is then called for the items of a batch in
 * item order (the context adds the comparisons, request log and failures, then applies
 * `stopAt`; it throws to end the loop), so the verdict is that of the sequential loop. A whole
 * batch is always sent, so the requests are the same for every run (a stop or an error cuts
 * the rest of its batch from the log, not from the wire). Between batches the loop lets the
 * event loop turn once `slice` (a core `TimeSlice`) is used up. Resolves how many items were
 * taken.
 */
export async function runInBatches<T>(
  all: readonly T[],
  fn: (item: T) => Promise<void> | void,
  size: number,
  take: (item: T, scope: ItemScope, error: unknown) => void,
  slice: TimeSlice = new TimeSlice({ stride: 16 }),
): Promise<number> {
  type Done = { scope: ItemScope; error?: unknown };
  const runItem = (item: T): Promise<Done> => {
    const scope = { comparisons: 0, log: [] as LogEntry[], pending: [] as Failure[] };
    return inScope(scope, async (): Promise<Done> => {
      try {
        await fn(item);
        return { scope };
      } catch (error) {
        return { scope, error };
      }
    });
  };
  let taken = 0;
  // batches whose items judge without a request resolve in microtasks: pause between batches
  // once a time slice of work is used up, so timers and I/O get in (core's TimeSlice)
  for (let start = 0; start < all.length; start += size) {
    const batch = all.slice(start, start + size);
    const outcomes = await Promise.all(batch.map(runItem));
    for (const [k, { scope, error }] of outcomes.entries()) {
      taken++;
      take(batch[k] as T, scope, error);
    }
    if (slice.step()) await slice.pause();
  }
  return taken;
}
