import { type Coverage, DEFAULT_MAX_CALLERS } from '../coverage.ts';
import { CallerListTooLong } from '../failure.ts';
import type { SuiteCredential } from '../types.ts';
import { WALK_MAX_RECORDS } from '../walk.ts';
import type { RunServices } from './services.ts';

/**
 * Whole lists of the callers other than the primary, when a run samples callers (the suite's
 * policy, like `--sample-above`: docs/conformance.md "Several credentials in blind mode").
 *
 * A law that needs a list whole (a sum over every tag, a relation between two whole lists)
 * reads it once for the run's primary credential, shared by every check through the run's
 * caches. When a blind run declares more credentials than `--max-callers`, every other caller
 * reads whole only the lists of at most `--sample-above` records: a longer one would be walked
 * again by each check that needs it, so the cost of the run would grow with the data of every
 * sampled caller (a team's admin sees the whole team). A check that needs such a list whole
 * leaves that caller out ({@link CallerListTooLong}) and states it; the laws that hold record
 * by record still verify a seeded sample of the caller's long lists (`sampledList`), and a
 * discovery of that caller reads its long lists at seeded cursors.
 */

/**
 * Records of one list read whole as `credential` (`CheckContext.boundOf`): the run's
 * `sampleAbove` for a caller other than the primary credential of a blind run that declares
 * more credentials than its `maxCallers`, else {@link WALK_MAX_RECORDS}.
 */
export function wholeListBound(
  services: Pick<RunServices, 'env' | 'primary'>,
  sampleAbove: number,
  credential: SuiteCredential | null | undefined,
): number {
  const { env } = services;
  if (env.mode !== 'blind' || credential === null || credential === undefined)
    return WALK_MAX_RECORDS;
  if (env.credentials.length <= (env.maxCallers ?? DEFAULT_MAX_CALLERS)) return WALK_MAX_RECORDS;
  if (credential.label === services.primary.label) return WALK_MAX_RECORDS;
  return Math.min(sampleAbove, WALK_MAX_RECORDS);
}

/** The callers each check left out for a list too long to read whole as them, by check. */
const LEFT_OUT = new WeakMap<object, Set<string>>();

/** Records that the check of `owner` (its `CheckContext`) left out `e.caller`. */
export function leaveOut(owner: object, e: CallerListTooLong): void {
  const set = LEFT_OUT.get(owner) ?? new Set<string>();
  set.add(e.caller);
  LEFT_OUT.set(owner, set);
}

/**
 * Runs `fn`; when it throws a {@link CallerListTooLong}, records the caller as left out by the
 * check of `owner` and resolves `undefined`. Any other exception propagates.
 */
export async function unlessTooLong<T>(
  owner: object,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof CallerListTooLong)) throw e;
    leaveOut(owner, e);
    return undefined;
  }
}

/**
 * `''`, or why a check of `owner` that found no case may have found none: `; N callers left
 * out: …` (for its skip reason).
 */
export function leftOutWords(owner: object): string {
  const left = LEFT_OUT.get(owner)?.size ?? 0;
  return left === 0
    ? ''
    : `; ${left} caller${left === 1 ? '' : 's'} left out: a list longer than --sample-above is read whole only as the primary credential`;
}

/** What the check of `owner` verified of whole lists when it left callers out, else undefined. */
export function wholeListsCoverage(
  owner: object,
  callers: readonly Coverage[],
): Coverage | undefined {
  const left = LEFT_OUT.get(owner)?.size ?? 0;
  if (left === 0) return undefined;
  const judged = callers.find((c) => c.subject === 'callers')?.verified ?? left;
  return {
    subject: 'callers',
    verb: 'whole lists as',
    verified: Math.max(0, judged - left),
    of: Math.max(judged, left),
    sampled: true,
    detail: `${left} left out: a list longer than --sample-above is read whole only as the primary credential`,
  };
}
