import { parseTimestampMs } from '../aggregate/time.ts';
import { runAtOnce, type Steps } from '../slices.ts';
import { STATS_COUNTER_FIELDS, type StatsSummary } from '../stats.ts';
import type { Tag } from '../tag.ts';
import type { Timestamp } from '../values.ts';
import type { CountedRecord, Law } from './types.ts';

/*
 * Shared wording and comparisons of the law predicates (internal to `laws/`).
 */

/** How a violation names a record: `tag t1`, `contact c1`, `the stats record of 2024-03-01`. */
export function labelOf(r: CountedRecord): string {
  if ('tagID' in r) return `tag ${r.tagID}`;
  if ('contactID' in r) return `contact ${r.contactID}`;
  return r.date === undefined ? 'the aggregated stats record' : `the stats record of ${r.date}`;
}

/** The counters a law reads: open and click totals and uniques, device counters when present. */
export type Counters = Pick<
  Tag['stats'],
  'totalOpens' | 'uniqueOpens' | 'totalClicks' | 'uniqueClicks'
> &
  Partial<Tag['stats']>;

/** The counters of a record: a tag's or contact's `stats`, a stats record itself. */
export function countersOf(r: CountedRecord): Counters {
  return 'stats' in r ? r.stats : r;
}

/** Opens and clicks, with the words their counters and violations use. */
export const KINDS = [
  { kind: 'opens', Kind: 'Opens', verb: 'opened' },
  { kind: 'clicks', Kind: 'Clicks', verb: 'clicked' },
] as const;

/** Whether two timestamps (or `null`s) name the same instant (spec §9 Revision 2). */
export function sameInstant(a: Timestamp | null, b: Timestamp | null): boolean {
  return a === null || b === null ? a === b : parseTimestampMs(a) === parseTimestampMs(b);
}

/** The first difference of `actual` from `expected`, e.g. `totalOpens 5, expected 7`. */
export function statsDifference(expected: StatsSummary, actual: StatsSummary): string | undefined {
  for (const k of STATS_COUNTER_FIELDS) {
    if (actual[k] !== expected[k]) return `${k} ${actual[k]}, expected ${expected[k]}`;
  }
  if (!sameInstant(actual.dateLastSent, expected.dateLastSent))
    return `dateLastSent ${actual.dateLastSent}, expected ${expected.dateLastSent}`;
  return undefined;
}

/** The first violation `f` finds among `items`, or `undefined`. */
export function firstOf<T>(
  items: Iterable<T>,
  f: (item: T) => string | undefined,
): string | undefined {
  for (const item of items) {
    const v = f(item);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** {@link firstOf} yielding after each item (`Steps`, slices.ts). */
export function* firstOfSteps<T>(
  items: Iterable<T>,
  f: (item: T) => string | undefined,
): Steps<string | undefined> {
  for (const item of items) {
    const v = f(item);
    if (v !== undefined) return v;
    yield;
  }
  return undefined;
}

/** A list law: `say` of the first adjacent pair not `inOrder` (`undefined`: all in order). */
export function outOfOrder<T>(
  list: readonly T[],
  inOrder: (a: T, b: T) => boolean,
  say: (a: T, b: T, i: number) => string,
): string | undefined {
  return runAtOnce(outOfOrderSteps(list, inOrder, say));
}

/** {@link outOfOrder} yielding after each pair (`Steps`, slices.ts). */
export function* outOfOrderSteps<T>(
  list: readonly T[],
  inOrder: (a: T, b: T) => boolean,
  say: (a: T, b: T, i: number) => string,
): Steps<string | undefined> {
  for (let i = 1; i < list.length; i++) {
    if (!inOrder(list[i - 1]!, list[i]!)) return say(list[i - 1]!, list[i]!, i);
    yield;
  }
  return undefined;
}

/**
 * A law of a whole list written once as {@link Steps}: its `check` runs them at once, its
 * `steps` hands them to the suite to run in slices (see `Law.steps`).
 */
export function steppedLaw<In>(
  law: Omit<Law<In>, 'check' | 'steps'> & {
    readonly steps: (input: In) => Steps<string | undefined>;
  },
): Law<In> {
  return { ...law, check: (input) => runAtOnce(law.steps(input)) };
}

/** The endpoints listing tags, stats records and contacts. */
export const TAG_ENDPOINTS = ['teams.tags', 'teams.memberTags'] as const;
export const STATS_ENDPOINTS = [
  'stats.team',
  'stats.teamAlias',
  'stats.group',
  'stats.member',
] as const;
export const CONTACT_ENDPOINTS = ['contacts.list', 'contacts.get', 'contacts.tag'] as const;
