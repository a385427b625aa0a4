/**
 * The failures a check recorded (`FailureLog`): deduplicated by key, a repeat counted on the
 * first failure of its key, and the number recorded in all.
 */
import type { Failure } from '../failure.ts';
import { STILL_FAILURES } from './services.ts';

/** A failure record as the log holds it (its `repeats` counted up). */
type Recorded = { -readonly [K in keyof Failure]: Failure[K] };

export class FailureLog {
  /** The failures, deduplicated (a repeated key counts on its first failure). */
  readonly recorded: Recorded[] = [];
  /** {@link recorded} by key: a repeated failure is found in one lookup, whatever their number. */
  private readonly byKey = new Map<string, Recorded>();
  /** How many failures were recorded, repeats included. */
  count = 0;

  /**
   * Adds `failure` (already redacted), or counts it as a repeat of its key; it stays marked as
   * read on still data when `unredacted` was.
   */
  add(failure: Failure, unredacted: Failure): void {
    this.count++;
    let same = this.byKey.get(failure.key);
    if (same === undefined) {
      same = { ...failure };
      this.recorded.push(same);
      this.byKey.set(failure.key, same);
    } else same.repeats = (same.repeats ?? 0) + 1;
    if (STILL_FAILURES.has(unredacted)) STILL_FAILURES.add(same);
  }
}
