import {
  type ClickDetails,
  type ClickGroup,
  type Contact,
  DAY_MS,
  ENDPOINT_LIST,
  type EndpointId,
  type EventRecipient,
  type OpenDetails,
  type OpenGroup,
  parseTimestampMs,
  runAtOnce,
  runInSlices,
  type StatsSummary,
  type Steps,
  type Tag,
  type TeamMember,
  TimeSlice,
  utcDay,
} from '@tagtrack/core';
import { sameLeaf } from './compare.ts';
import type { CheckContext, Discovery, EndpointCall } from './context.ts';
import { countComparison } from './failure.ts';

/** The records the checks read: core's record types (the envelope schemas validate them first). */
export type TagRecord = Tag;
export type MemberRecord = TeamMember;
export type ContactRecord = Contact;
/** One event of an endpoint 9 or 11 group: its group's `tagID`, and its own `date` (openDate or clickDate). */
export interface GroupedEvent {
  readonly tagID: string;
  readonly recipient: EventRecipient;
  readonly details: OpenDetails | ClickDetails;
  readonly date: string;
}

/** The events of endpoint 9 or 11 groups, one entry per event with its group's `tagID`. */
export function flattenEvents(groups: readonly (OpenGroup | ClickGroup)[]): GroupedEvent[] {
  return groups.flatMap((g): GroupedEvent[] =>
    'opens' in g
      ? g.opens.map((e) => ({ tagID: g.tagID, ...e, date: e.details.openDate }))
      : g.clicks.map((e) => ({ tagID: g.tagID, ...e, date: e.details.clickDate })),
  );
}

/**
 * The events of endpoint 9 or 11 groups one at a time, in {@link flattenEvents}' order: for a
 * loop that judges each once (`CheckContext.each` slices its time), with no array of them all.
 */
export function* eventsOf(groups: readonly (OpenGroup | ClickGroup)[]): Generator<GroupedEvent> {
  for (const g of groups) yield* flattenEvents([g]);
}

/**
 * {@link flattenEvents} in time slices (a step per group; the event loop turns between
 * slices): the same events in the same order, for lists of any length.
 */
export async function flattenEventsInSlices(
  groups: readonly (OpenGroup | ClickGroup)[],
  slice: TimeSlice = new TimeSlice(),
): Promise<GroupedEvent[]> {
  const out: GroupedEvent[] = [];
  for (const g of groups) {
    for (const e of flattenEvents([g])) out.push(e);
    if (slice.step()) await slice.pause();
  }
  return out;
}

/**
 * The distinct UTC days of the events of /opens and /clicks (endpoints 9 and 11), each list
 * walked whole (`ctx.walk`, opens first), sorted; in time slices, a step per group.
 */
export async function walkedEventDays(ctx: CheckContext): Promise<string[]> {
  const days = new Set<string>();
  const slice = new TimeSlice();
  for (const endpoint of ['opens.list', 'clicks.list'] as const) {
    for (const group of (await ctx.walk(endpoint)).records) {
      for (const e of flattenEvents([group])) days.add(dayOf(e.date));
      if (slice.step()) await slice.pause();
    }
  }
  return [...days].sort();
}

/** The UTC day of an RFC 3339 timestamp. */
export function dayOf(timestamp: string): string {
  return utcDay(Date.parse(timestamp));
}

/** `day` plus `n` days (`YYYY-MM-DD`). */
export function addDays(day: string, n: number): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);
}

/** The tag with the most events (a good subject for per-tag checks), or undefined. */
export function busiestTag(tags: readonly TagRecord[]): TagRecord | undefined {
  let best: TagRecord | undefined;
  let score = -1;
  for (const t of tags) {
    const s = (t.stats.totalOpens ?? 0) + (t.stats.totalClicks ?? 0);
    if (s > score) {
      best = t;
      score = s;
    }
  }
  return best;
}

/** A member that has tags visible to the caller, else the first member. */
export function busiestMember(d: Discovery): MemberRecord | undefined {
  const members = d.members;
  return members[0];
}

/** One query parameter as sent: `[name, value]`. */
export type Pair = readonly [string, string];

/** A representative request to one endpoint (see {@link sampleCalls}). */
export interface Sample {
  readonly endpoint: EndpointId;
  readonly call: EndpointCall;
}

/** `name=value&…` of pairs, for messages (not encoded). */
export function showPairs(pairs: readonly Pair[]): string {
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** `query` with the first `name` set to `value` (in place), or `[name, value]` appended. */
export function setParam(query: readonly Pair[], name: string, value: string): Pair[] {
  const i = query.findIndex(([k]) => k === name);
  if (i < 0) return [...query, [name, value]];
  return query.map((p, j): Pair => (j === i ? [name, value] : p));
}

/**
 * A representative call for each endpoint, built from discovered ids (the busiest tag, the
 * first member, group and contact). Endpoints whose ids could not be discovered are left out.
 */
export async function sampleCalls(ctx: CheckContext): Promise<Sample[]> {
  const d = await ctx.discover();
  const tag = busiestTag(d.tags);
  const member = d.members[0];
  const group = d.groups[0];
  const contact = d.contacts[0];
  const out: Sample[] = [];
  for (const e of ENDPOINT_LIST) {
    const pathParams: Record<string, string> = {};
    let ok = true;
    for (const p of e.pathParams) {
      const v =
        p === 'memberID'
          ? member?.memberID
          : p === 'group'
            ? group?.groupID
            : p === 'tagID'
              ? tag?.tagID
              : contact?.contactID;
      if (v === undefined) ok = false;
      else pathParams[p] = v;
    }
    if (!ok) continue;
    const query: [string, string][] = [];
    if (e.requiredQuery.includes('date') && tag !== undefined)
      query.push(['date', dayOf(tag.dateSent)]);
    out.push({ endpoint: e.id, call: { pathParams, query } });
  }
  return out;
}

/** The distinct UTC send days of `tags`, oldest first. */
export function sendDays(tags: readonly TagRecord[]): string[] {
  return [...new Set(tags.map((t) => dayOf(t.dateSent)))].sort();
}

/** A window of whole UTC days, both bounds inclusive (spec §6); an absent bound is open. */
export interface DayWindow {
  readonly start?: string | undefined;
  readonly end?: string | undefined;
}

/**
 * The timestamps nearest a UTC midnight, picked from the data: up to `n` with the latest time
 * of day (newest first among equals), then up to `n` with the earliest, each instant once.
 * Windows on their days (spec §6: whole UTC days, both bounds inclusive) catch an
 * implementation that cuts days in another time zone, or that excludes a bound, in every run
 * instead of by chance.
 */
export function nearMidnight(timestamps: readonly string[], n = 1): string[] {
  return runAtOnce(nearMidnightSteps(timestamps, n));
}

/** {@link nearMidnight} as steps (a step per timestamp): run in time slices with `sliced`. */
export function* nearMidnightSteps(timestamps: Iterable<string>, n = 1): Steps<string[]> {
  if (n <= 0) return [];
  // the n first and n last of the distinct timestamps ordered by time of day, then instant,
  // then first appearance (what a stable sort gives), kept in one pass: linear in the events
  type Entry = {
    readonly t: string;
    readonly tod: number;
    readonly ms: number;
    readonly i: number;
  };
  const before = (a: Entry, b: Entry) => a.tod - b.tod || a.ms - b.ms || a.i - b.i;
  const seen = new Set<string>();
  const low: Entry[] = []; // the n least, ascending
  const high: Entry[] = []; // the n greatest, ascending
  const keep = (list: Entry[], e: Entry, least: boolean) => {
    const full = list.length >= n;
    if (full && (least ? before(list[n - 1]!, e) < 0 : before(e, list[0]!) < 0)) return;
    let k = list.length;
    while (k > 0 && before(e, list[k - 1]!) < 0) k--;
    list.splice(k, 0, e);
    if (list.length > n) least ? list.pop() : list.shift();
  };
  for (const t of timestamps) {
    if (seen.has(t)) continue;
    seen.add(t);
    const ms = parseTimestampMs(t);
    const e = { t, ms, tod: ((ms % DAY_MS) + DAY_MS) % DAY_MS, i: seen.size };
    keep(low, e, true);
    keep(high, e, false);
    yield;
  }
  return [...new Set([...high.reverse().map((e) => e.t), ...low.map((e) => e.t)])];
}

/**
 * One-day windows (`start` = `end`) on the UTC days of the {@link nearMidnight} timestamps,
 * each day once: a timestamp in the last (first) hours of its day must be selected by its own
 * day, so a shifted day boundary or an exclusive bound shows in every run.
 */
export function boundaryWindows(
  timestamps: readonly string[],
  n = 1,
): { start: string; end: string }[] {
  return windowsOfDays(nearMidnight(timestamps, n));
}

/** {@link boundaryWindows} in time slices (a step per timestamp), for lists of any length. */
export async function boundaryWindowsInSlices(
  timestamps: Iterable<string>,
  n = 1,
): Promise<{ start: string; end: string }[]> {
  return windowsOfDays(await runInSlices(nearMidnightSteps(timestamps, n), new TimeSlice()));
}

/** One-day windows on the days of `timestamps`, each day once, in their order. */
function windowsOfDays(timestamps: readonly string[]): { start: string; end: string }[] {
  const days = [...new Set(timestamps.map(dayOf))];
  return days.map((d) => ({ start: d, end: d }));
}

/**
 * The middle third of the sorted `days` as a window (from the day at one third to the day
 * before two thirds, `start` <= `end`): a window that leaves out days on both sides.
 * `undefined` with fewer than 3 days.
 */
export function middleWindow(days: readonly string[]): { start: string; end: string } | undefined {
  const n = days.length;
  if (n < 3) return undefined;
  return { start: days[Math.floor(n / 3)]!, end: days[Math.ceil((2 * n) / 3) - 1]! };
}

/**
 * Options of `ctx.property` that try every one of `examples` (picks from the data) first,
 * then random cases up to `runs` in all (default the run's `numRuns`). fast-check counts
 * examples within `numRuns` and drops those beyond it, so the total is at least the number
 * of picks: a pick always runs, and random cases only fill the remaining budget.
 */
export function withPicks<T>(
  ctx: { readonly numRuns: number },
  examples: readonly T[],
  runs = ctx.numRuns,
): { examples: readonly T[]; numRuns: number } {
  return { examples, numRuns: Math.max(runs, examples.length) };
}

/** Window query pairs for optional bounds, in the order start, end. */
export function windowQuery(start?: string, end?: string): [string, string][] {
  const q: [string, string][] = [];
  if (start !== undefined) q.push(['start', start]);
  if (end !== undefined) q.push(['end', end]);
  return q;
}

/** Stats without the `date` field, with `dateLastSent` compared as an instant. */
export function statsKey(r: StatsSummary): string {
  return JSON.stringify([
    r.totalSent,
    r.totalOpens,
    r.totalClicks,
    r.uniqueOpens,
    r.uniqueClicks,
    r.dateLastSent === null ? null : Date.parse(r.dateLastSent),
  ]);
}

/** `totalSent 3, totalOpens 5, …` for messages. */
export function showStats(r: StatsSummary): string {
  return `{totalSent ${r.totalSent}, totalOpens ${r.totalOpens}, uniqueOpens ${r.uniqueOpens}, totalClicks ${r.totalClicks}, uniqueClicks ${r.uniqueClicks}, dateLastSent ${r.dateLastSent}}`;
}

/**
 * The first place two JSON values differ, as `path: expected X, got Y`, or undefined.
 * Compares meaning (spec introduction; §9 Revision 2): timestamps as
 * instants, and fields only `actual` has are ignored (records may carry extra fields).
 * Arrays are compared in order; pass both sides through `comparable` (compare.ts) first
 * where the profile leaves an order or an id free.
 */
export function firstDifference(expected: unknown, actual: unknown, path = ''): string | undefined {
  if (path === '') countComparison();
  return differenceAt(expected, actual, path);
}

/**
 * `firstDifference(a, b) ?? firstDifference(b, a)`: the first place `a` and `b` differ in
 * either direction (a missing or an extra field counts), or undefined when they mean the
 * same. Same result and same comparisons counted (two when alike, one when `a` differs from
 * `b`), but two values alike (the usual case) are walked once, not twice.
 */
export function differenceEitherWay(a: unknown, b: unknown): string | undefined {
  return runAtOnce(differenceEitherWaySteps(a, b));
}

/**
 * {@link differenceEitherWay} as {@link Steps}: two lists of records are walked record by
 * record, yielding after each. Same result, same comparisons counted.
 */
export function* differenceEitherWaySteps(a: unknown, b: unknown): Steps<string | undefined> {
  if (yield* alikeSteps(a, b)) {
    countComparison(2);
    return undefined;
  }
  return firstDifference(a, b) ?? firstDifference(b, a);
}

/** {@link alike} as {@link Steps}: two arrays item by item, yielding after each item. */
function* alikeSteps(a: unknown, b: unknown): Steps<boolean> {
  if (!Array.isArray(a) || !Array.isArray(b) || sameLeaf(a, b)) return alike(a, b);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (!alike(a[i], b[i])) return false;
    yield;
  }
  return true;
}

/**
 * Whether `differenceAt` finds no difference in either direction, decided in one walk: the
 * same leaf, or arrays of one length alike item by item, or plain objects with the same own
 * keys alike field by field. `false` also when unsure (an empty key, which
 * {@link firstDifference} counts as a comparison of its own at the top; other shapes): the
 * caller then takes the two-way path.
 */
function alike(a: unknown, b: unknown): boolean {
  if (sameLeaf(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!alike(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  // own keys counted by for-in (no array made per object); an inherited one means unsure
  let n = 0;
  for (const k in x) {
    if (k === '' || !Object.hasOwn(x, k) || !Object.hasOwn(y, k) || !alike(x[k], y[k]))
      return false;
    n++;
  }
  for (const k in y) {
    if (!Object.hasOwn(y, k)) return false;
    n--;
  }
  return n === 0;
}

/**
 * {@link firstDifference} of two lists of records, in time slices (the event loop turns
 * between them): the same result and the same one comparison counted, for lists of any
 * length.
 */
export async function firstDifferenceInSlices(
  expected: readonly unknown[],
  actual: readonly unknown[],
): Promise<string | undefined> {
  countComparison();
  const slice = new TimeSlice();
  const n = Math.min(expected.length, actual.length);
  for (let i = 0; i < n; i++) {
    if (!sameLeaf(expected[i], actual[i])) {
      const d = differenceAt(expected[i], actual[i], `[${i}]`);
      if (d !== undefined) return d;
    }
    if (slice.step()) await slice.pause();
  }
  return expected.length === actual.length
    ? undefined
    : `(list): expected ${expected.length} records, got ${actual.length}`;
}

/**
 * {@link firstDifference} below the top: the path of a child is built only when the child is
 * not the same leaf on both sides (most fields of most records are).
 */
function differenceAt(expected: unknown, actual: unknown, path: string): string | undefined {
  if (sameLeaf(expected, actual)) return undefined;
  if (
    typeof expected !== 'object' ||
    typeof actual !== 'object' ||
    expected === null ||
    actual === null ||
    Array.isArray(expected) !== Array.isArray(actual)
  ) {
    return `${path || '(value)'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const n = Math.min(expected.length, actual.length);
    for (let i = 0; i < n; i++) {
      if (sameLeaf(expected[i], actual[i])) continue;
      const d = differenceAt(expected[i], actual[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    if (expected.length !== actual.length) {
      return `${path || '(list)'}: expected ${expected.length} records, got ${actual.length}`;
    }
    return undefined;
  }
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  for (const k of Object.keys(e)) {
    const present = k in a;
    // the path is built for a missing or differing field only; an empty one (an empty key at
    // the top) starts a comparison of its own, as firstDifference does
    if (present && sameLeaf(e[k], a[k]) && (path !== '' || k !== '')) continue;
    const p = path === '' ? k : `${path}.${k}`;
    if (!present) return `${p}: missing (expected ${JSON.stringify(e[k])})`;
    const d = p === '' ? firstDifference(e[k], a[k], p) : differenceAt(e[k], a[k], p);
    if (d !== undefined) return d;
  }
  return undefined;
}

/** A human label of a record: its id field when it has one. */
export function recordLabel(record: unknown): string {
  const r = record as Record<string, unknown>;
  for (const k of ['tagID', 'memberID', 'contactID', 'email', 'date']) {
    if (typeof r?.[k] === 'string') return `${k} ${r[k]}`;
  }
  return 'record';
}
