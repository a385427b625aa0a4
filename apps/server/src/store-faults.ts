import {
  type Answer,
  type Caller,
  compareStrings,
  DAY_MS,
  type Dataset,
  type DatasetEvent,
  type EndpointRequest,
  normaliseEmail,
  parseTimestampMs,
  type ReportingIndex,
  type Tag,
  utcDay,
} from '@tagtrack/core';
import type { FaultName, FaultSet } from './faults/index.ts';

/**
 * Store faults about days, windows, order, defaults and spellings (decisions §3, §4, §9):
 * each rewrites the request the index answers, or the answer it gives, the way a real bug in
 * a store would. Kept apart from `store.ts`, which holds the counter and scoping faults.
 */

/** The query pairs of a request as received (decoded, in request order). */
export type RawQuery = readonly (readonly [string, string])[];

/** The faults of this module that depend on the raw query or on `rtn` (the store's cache key must then keep them). */
export const RAW_QUERY_FAULTS = [
  'aggregate-absent-true',
  'member-tags-digit-false',
  'tables-ignore-window',
] as const satisfies readonly FaultName[];

/** Every fault of this module. */
export const WINDOW_FAULTS = [
  ...RAW_QUERY_FAULTS,
  'start-day-exclusive',
  'days-cut-utc-plus-2',
  'tags-filtered-oldest-first',
  'windowed-events-newest-first',
  'daily-no-events-404',
  'order-hidden-subsecond',
  'members-by-firstname',
  'contacts-by-name',
  'event-groups-by-tag-id',
  'stats-days-newest-first',
] as const satisfies readonly FaultName[];

/** The offset of the time zone fault `days-cut-utc-plus-2`: UTC+2. */
const LOCAL_OFFSET_MS = 2 * 60 * 60 * 1000;

const TAG_LISTS = new Set(['teams.tags', 'teams.memberTags']);
const EVENT_LISTS = new Set(['opens.list', 'clicks.list']);
const STATS_LISTS = new Set(['stats.team', 'stats.teamAlias', 'stats.group', 'stats.member']);
const TAG_FILTERS = ['isOpened', 'isUnopened', 'isClicked', 'isUnclicked'] as const;

/** The store faults of this module over one index (see {@link WINDOW_FAULTS}). */
export class WindowFaults {
  readonly #eventsByTag = new Map<string, { opens: DatasetEvent[]; clicks: DatasetEvent[] }>();
  /** Fault `order-hidden-subsecond`: each tag's hidden sub-second part, in ms (by storage order). */
  readonly #hiddenMs = new Map<string, number>();

  constructor(
    readonly index: ReportingIndex,
    readonly faults: FaultSet,
  ) {
    if (faults.hasAny(['days-cut-utc-plus-2', 'daily-no-events-404']))
      indexEvents(index.dataset, this.#eventsByTag);
    if (faults.has('order-hidden-subsecond')) {
      const tags = index.dataset.tags;
      tags.forEach((t, i) => {
        this.#hiddenMs.set(t.tagID, (999 * i) / tags.length);
      });
    }
  }

  /** Whether any fault of this module is on. */
  get active(): boolean {
    return this.faults.hasAny(WINDOW_FAULTS);
  }

  /**
   * The request as the faulty handler reads it: `start` a day late (`start-day-exclusive`),
   * no window for text and html (`tables-ignore-window`), aggregateData absent read as true
   * (`aggregate-absent-true`), a tag filter spelled `1` read as false on endpoint 4
   * (`member-tags-digit-false`).
   */
  requestIn(request: EndpointRequest, raw: RawQuery): EndpointRequest {
    const f = this.faults;
    const q = { ...request.query };
    const sent = (name: string) => raw.some(([k]) => k === name);
    if (f.has('start-day-exclusive') && q.start !== undefined) {
      // bug: the day strings are compared with `>` instead of `>=`
      q.start = utcDay(parseTimestampMs(`${q.start}T00:00:00Z`) + DAY_MS);
    }
    if (f.has('tables-ignore-window') && q.rtn !== 'json') {
      // bug: the table export path builds its query without the window
      delete q.start;
      delete q.end;
    }
    if (
      f.has('aggregate-absent-true') &&
      request.endpoint.startsWith('stats.') &&
      !sent('aggregateData')
    ) {
      // bug: the stats handler defaults aggregateData to true
      q.aggregateData = true;
    }
    if (f.has('member-tags-digit-false') && request.endpoint === 'teams.memberTags') {
      // bug: endpoint 4's handler reads its filters with `value.toLowerCase() === 'true'`
      for (const name of TAG_FILTERS)
        if (raw.some(([k, v]) => k === name && v === '1')) q[name] = false;
    }
    return { ...request, query: q };
  }

  /**
   * The answer as the faulty store gives it: days cut at UTC+2 midnight
   * (`days-cut-utc-plus-2`), filtered or windowed tags oldest first
   * (`tags-filtered-oldest-first`), windowed events newest first
   * (`windowed-events-newest-first`), a day without events not found (`daily-no-events-404`),
   * tags ordered by a hidden sub-second part (`order-hidden-subsecond`).
   */
  answerOut(caller: Caller, request: EndpointRequest, answer: Answer): Answer {
    const f = this.faults;
    const q = request.query;
    const windowed = q.start !== undefined || q.end !== undefined;
    let out = answer;
    if (f.has('days-cut-utc-plus-2') && out.kind !== 'not_found')
      out = this.#localDays(caller, request, out);
    if (
      f.has('tags-filtered-oldest-first') &&
      out.kind === 'list' &&
      TAG_LISTS.has(request.endpoint) &&
      (windowed || TAG_FILTERS.some((name) => q[name]))
    ) {
      // bug: the filtered query path sorts with the default ascending comparator
      const key = (t: Tag) => parseTimestampMs(t.dateSent);
      out = {
        kind: 'list',
        records: [...(out.records as Tag[])].sort(
          (a, b) => key(a) - key(b) || compareStrings(a.tagID, b.tagID),
        ),
      };
    }
    if (f.has('order-hidden-subsecond') && out.kind === 'list' && TAG_LISTS.has(request.endpoint)) {
      // bug: the store keeps each send instant with a sub-second part it does not show (the
      // later a tag was stored, the later in its second) and sorts by the full value, so two
      // tags shown with the same dateSent come newest stored first, not in tagID order
      const key = (t: Tag) => parseTimestampMs(t.dateSent) + (this.#hiddenMs.get(t.tagID) ?? 0);
      out = {
        kind: 'list',
        records: [...(out.records as Tag[])].sort(
          (a, b) => key(b) - key(a) || compareStrings(a.tagID, b.tagID),
        ),
      };
    }
    if (
      f.has('windowed-events-newest-first') &&
      out.kind === 'list' &&
      EVENT_LISTS.has(request.endpoint) &&
      windowed
    ) {
      // bug: the windowed query scans the event index backwards from `end`
      out = {
        kind: 'list',
        records: (out.records as Record<string, unknown>[]).map((g) => {
          const k = 'opens' in g ? 'opens' : 'clicks';
          return { ...g, [k]: [...(g[k] as unknown[])].reverse() };
        }),
      };
    }
    if (out.kind === 'list') out = this.#listOrder(request, out.records);
    if (
      f.has('daily-no-events-404') &&
      out.kind === 'single' &&
      request.endpoint === 'tags.daily' &&
      q.date !== undefined
    ) {
      // bug: the daily counts come from a per-day map, and a missing day is "not found"
      const events = this.#eventsByTag.get(request.pathParams.tagID ?? '');
      const onDay = (e: DatasetEvent) => utcDay(parseTimestampMs(e.date)) === q.date;
      if (!events || ![...events.opens, ...events.clicks].some(onDay))
        out = {
          kind: 'not_found',
          message: `no daily counts for tag '${request.pathParams.tagID}' on ${q.date}`,
        };
    }
    return out;
  }

  /**
   * The order faults of lists other than tags (decisions §3): members by firstname first
   * (`members-by-firstname`), contacts by name (`contacts-by-name`), event groups by tagID
   * (`event-groups-by-tag-id`), per-day stats newest day first (`stats-days-newest-first`).
   */
  #listOrder(request: EndpointRequest, records: readonly unknown[]): Answer {
    const f = this.faults;
    const e = request.endpoint;
    type Rec = Record<string, string>;
    const sorted = (by: (a: Rec, b: Rec) => number): Answer => ({
      kind: 'list',
      records: [...(records as Rec[])].sort(by),
    });
    if (f.has('members-by-firstname') && (e === 'teams.list' || e === 'teams.group'))
      // bug: the comparator's keys are in the wrong order
      return sorted(
        (a, b) =>
          compareStrings(a.firstname!, b.firstname!) ||
          compareStrings(a.lastname!, b.lastname!) ||
          compareStrings(a.memberID!, b.memberID!),
      );
    if (f.has('contacts-by-name') && (e === 'contacts.list' || e === 'contacts.tag'))
      // bug: contacts sorted by their display name, not their normalised email
      return sorted(
        (a, b) =>
          compareStrings(a.name!, b.name!) ||
          compareStrings(normaliseEmail(a.email!), normaliseEmail(b.email!)),
      );
    if (f.has('event-groups-by-tag-id') && EVENT_LISTS.has(e))
      // bug: the groups come from a map keyed by tagID, iterated in key order
      return sorted((a, b) => compareStrings(a.tagID!, b.tagID!));
    if (f.has('stats-days-newest-first') && STATS_LISTS.has(e))
      // bug: the per-day records are read from a day index scanned backwards
      return { kind: 'list', records: [...records].reverse() };
    return { kind: 'list', records };
  }

  /** Fault `days-cut-utc-plus-2`: windows (2, 4, 9, 11) and daily counts (14) on UTC+2 days. */
  #localDays(caller: Caller, request: EndpointRequest, answer: Answer): Answer {
    const q = request.query;
    // bug: the day of an instant is taken in the server's local time zone, UTC+2
    const localDay = (ts: string) => utcDay(parseTimestampMs(ts) + LOCAL_OFFSET_MS);
    const inWindow = (ts: string) => {
      const day = localDay(ts);
      return (q.start === undefined || day >= q.start) && (q.end === undefined || day <= q.end);
    };
    if (request.endpoint === 'tags.daily' && answer.kind === 'single' && q.date !== undefined) {
      const events = this.#eventsByTag.get(request.pathParams.tagID ?? '');
      const distinct = (list: readonly DatasetEvent[] = []) =>
        new Set(list.filter((e) => localDay(e.date) === q.date).map((e) => normaliseEmail(e.email)))
          .size;
      return {
        kind: 'single',
        record: { opens: distinct(events?.opens), clicks: distinct(events?.clicks) },
      };
    }
    if (q.start === undefined && q.end === undefined) return answer;
    const { start: _s, end: _e, ...unwindowed } = q;
    const all = this.index.answer(caller, { ...request, query: unwindowed });
    if (all.kind !== 'list') return answer;
    if (TAG_LISTS.has(request.endpoint))
      return { kind: 'list', records: (all.records as Tag[]).filter((t) => inWindow(t.dateSent)) };
    if (EVENT_LISTS.has(request.endpoint)) {
      const records = (all.records as Record<string, unknown>[]).flatMap((g) => {
        const k = 'opens' in g ? 'opens' : 'clicks';
        const dateOf = (e: { details: Record<string, string> }) =>
          e.details[k === 'opens' ? 'openDate' : 'clickDate']!;
        const kept = (g[k] as { details: Record<string, string> }[]).filter((e) =>
          inWindow(dateOf(e)),
        );
        return kept.length === 0 ? [] : [{ ...g, [k]: kept }];
      });
      return { kind: 'list', records };
    }
    return answer;
  }
}

function indexEvents(
  dataset: Dataset,
  out: Map<string, { opens: DatasetEvent[]; clicks: DatasetEvent[] }>,
): void {
  for (const kind of ['opens', 'clicks'] as const) {
    for (const e of dataset[kind]) {
      let entry = out.get(e.tagID);
      if (entry === undefined) {
        entry = { opens: [], clicks: [] };
        out.set(e.tagID, entry);
      }
      entry[kind].push(e);
    }
  }
}
