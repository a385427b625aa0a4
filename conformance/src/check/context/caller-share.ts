/**
 * A check run once per caller (blind mode, `callers.ts`): the caller's share of the run
 * (`CallerShare`), the cases of a fixed list it takes, and its failures named `as LABEL: …`.
 */
import type { HttpClient } from '../../http/client.ts';
import type { Failure, ViolationDetails } from '../failure.ts';
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

/** `CheckContext.callerShare` (see there): the items of `items` that `share` takes. */
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
