/**
 * A check run once per caller (blind mode, `callers.ts`): the caller's share of the run
 * (`CallerShare`), the cases of a fixed list it takes, and its failures named `as LABEL: …`.
 */
import type { HttpClient } from '../../http/client.ts';
import { type Failure, SkipCheck, Violation, type ViolationDetails } from '../failure.ts';
import type { SuiteCredential } from '../types.ts';
import { failureOf, STILL_DETAILS } from './services.ts';

/**
 * A caller a check runs as, once per distinct declared caller in blind mode (`callers.ts`):
 * its credential, its share of the run's property budget and what it adds to the check's
 * seed (0 for the first caller, so one caller alone draws what the run drew before).
 */
export interface CallerShare {
  readonly credential: SuiteCredential;
  readonly numRuns: number;
  readonly seedOffset: number;
  /** Its place among the callers the check runs as (0: the primary), and how many they are. */
  readonly index: number;
  readonly of: number;
}

/**
 * `CheckContext.callerShare`: the items of `items` that `share` takes.
 * The cases of a fixed list this caller takes, when a check runs once per caller (see
 * {@link asCaller}): the primary (and a check run once) takes every item; the other callers
 * share the items out, each about `1 / (callers - 1)` of them, the split turned by the run's
 * seed, so every item is tried as the primary and as one other caller. For lists whose cost
 * grows with the callers and not the property budget (every endpoint in every format, say).
 */
export function itemsOfCaller<T>(
  items: readonly T[],
  share: CallerShare | undefined,
  baseSeed: number,
): T[] {
  if (share === undefined || share.index === 0 || share.of < 2) return [...items];
  const others = share.of - 1;
  const turn = ((baseSeed % others) + others) % others;
  return items.filter((_, i) => (i + turn) % others === share.index - 1);
}

/**
 * A failure record of `message` and `details` (see `failureOf`), its message and key starting
 * with `as LABEL: ` when the check runs as the caller `label`.
 */
export function failureAsCaller(
  label: string | undefined,
  message: string,
  details: ViolationDetails,
  http: HttpClient,
): Failure {
  if (label === undefined) return failureOf(message, details, http);
  const as = `as ${label}: `;
  let named = details;
  if (details.key !== undefined) {
    named = { ...details, key: `${as}${details.key}` };
    // a violation read on still data stays one under its caller's key
    if (STILL_DETAILS.has(details)) STILL_DETAILS.add(named);
  }
  return failureOf(`${as}${message}`, named, http);
}

/**
 * `CheckContext.asCaller`: runs `fn` with `share` set (`set(share)`, then `set(undefined)`);
 * a {@link Violation} escaping `fn` goes to `fail`, a {@link SkipCheck} resolves
 * `{ skipped: reason }`, any other exception propagates; `{}` when `fn` returned.
 */
export async function runAsCaller(
  share: CallerShare,
  fn: () => Promise<void>,
  set: (share: CallerShare | undefined) => void,
  fail: (violation: Violation) => void,
): Promise<{ skipped?: string }> {
  set(share);
  try {
    await fn();
    return {};
  } catch (e) {
    if (e instanceof SkipCheck) return { skipped: e.message };
    if (!(e instanceof Violation)) throw e;
    fail(e);
    return {};
  } finally {
    set(undefined);
  }
}
