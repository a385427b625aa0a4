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
  type QueryParams,
  type Tag,
  utcDay,
} from '@tagtrack/core';
import type { RawQuery } from '../store.ts';
import type { FaultInfo } from './info.ts';
import type { StoreLayer } from './store-layer.ts';

/**
 * Faults of the store about days, windows, order, defaults and spellings (spec §5, §6,
 * §9): each rewrites the request the index answers, or the answer it gives, the way a real
 * bug in a store would. Each wraps the `StoreLayer` (store.ts).
 */
export const STORE_WINDOW_FAULTS = [
  {
    name: 'start-day-exclusive',
    area: 'store',
    description:
      'start is an exclusive bound: the day strings are compared with > instead of >=, so the start day is left out (spec §6)',
    detectedBy: [
      'REL-WINDOW-INCLUSIVE',
      'REL-EVENTS-WINDOW',
      'ORACLE-TAGS',
      'ORACLE-STATS',
      'ORACLE-EVENTS',
    ],
    blind: ['REL-WINDOW-INCLUSIVE', 'REL-EVENTS-WINDOW'],
    wrap: {
      store: requestOf(false, (request) => {
        const q = request.query;
        if (q.start === undefined) return q;
        // bug: the day strings are compared with `>` instead of `>=`
        return { ...q, start: utcDay(parseTimestampMs(`${q.start}T00:00:00Z`) + DAY_MS) };
      }),
    },
  },
  {
    name: 'days-cut-utc-plus-2',
    area: 'store',
    description:
      "windows (2, 4, 9, 11) and daily counts (14) cut days at midnight UTC+2, the server's local time, instead of UTC (spec §6, §10)",
    detectedBy: [
      'REL-WINDOW-INCLUSIVE',
      'REL-EVENTS-WINDOW',
      'REL-DAILY-DISTINCT-RECIPIENTS',
      'ORACLE-TAGS',
      'ORACLE-EVENTS',
      'ORACLE-DAILY',
    ],
    blind: ['REL-WINDOW-INCLUSIVE', 'REL-EVENTS-WINDOW', 'REL-DAILY-DISTINCT-RECIPIENTS'],
    wrap: {
      store: (s) => {
        const eventsByTag = eventsPerTag(s.index.dataset);
        return answerOf((caller, request, answer) =>
          answer.kind === 'not_found' ? answer : localDays(s, eventsByTag, caller, request, answer),
        )(s);
      },
    },
  },
  {
    name: 'tags-filtered-oldest-first',
    area: 'store',
    description:
      'tag lists (2, 4) with a filter or a window come oldest dateSent first; only the default list is newest first (spec §5)',
    detectedBy: ['PAGE-ORDER-TAGS', 'REL-FILTER-CONJUNCTION'],
    wrap: {
      store: answerOf((_caller, request, answer) => {
        const q = request.query;
        const windowed = q.start !== undefined || q.end !== undefined;
        if (answer.kind !== 'list' || !TAG_LISTS.has(request.endpoint)) return answer;
        if (!windowed && !TAG_FILTERS.some((name) => q[name])) return answer;
        // bug: the filtered query path sorts with the default ascending comparator
        const key = (t: Tag) => parseTimestampMs(t.dateSent);
        return {
          kind: 'list',
          records: [...(answer.records as Tag[])].sort(
            (a, b) => key(a) - key(b) || compareStrings(a.tagID, b.tagID),
          ),
        };
      }),
    },
  },
  {
    name: 'windowed-events-newest-first',
    area: 'store',
    description:
      'with start or end, the events inside each group of /opens and /clicks come newest first (spec §5)',
    detectedBy: ['PAGE-ORDER-EVENTS'],
    wrap: {
      store: answerOf((_caller, request, answer) => {
        const q = request.query;
        const windowed = q.start !== undefined || q.end !== undefined;
        if (answer.kind !== 'list' || !EVENT_LISTS.has(request.endpoint) || !windowed)
          return answer;
        // bug: the windowed query scans the event index backwards from `end`
        return {
          kind: 'list',
          records: (answer.records as Record<string, unknown>[]).map((g) => {
            const k = 'opens' in g ? 'opens' : 'clicks';
            return { ...g, [k]: [...(g[k] as unknown[])].reverse() };
          }),
        };
      }),
    },
  },
  {
    name: 'daily-no-events-404',
    area: 'store',
    description:
      'daily counts of a day without any event of the tag answer 404 instead of zeros (spec §10)',
    detectedBy: ['AGG-DAILY-ZERO-BEFORE-SEND', 'REL-DAILY-DISTINCT-RECIPIENTS'],
    wrap: {
      store: (s) => {
        const eventsByTag = eventsPerTag(s.index.dataset);
        return answerOf((_caller, request, answer) => {
          const q = request.query;
          if (answer.kind !== 'single' || request.endpoint !== 'tags.daily' || q.date === undefined)
            return answer;
          // bug: the daily counts come from a per-day map, and a missing day is "not found"
          const events = eventsByTag.get(request.pathParams.tagID ?? '');
          const onDay = (e: DatasetEvent) => utcDay(parseTimestampMs(e.date)) === q.date;
          if (events && [...events.opens, ...events.clicks].some(onDay)) return answer;
          return {
            kind: 'not_found',
            message: `no daily counts for tag '${request.pathParams.tagID}' on ${q.date}`,
          };
        })(s);
      },
    },
  },
  {
    name: 'tables-ignore-window',
    area: 'store',
    description:
      'rtn=text and rtn=html answers are computed without start and end, so the tables list records outside the window (spec §8)',
    detectedBy: ['REL-FORMATS-AGREE'],
    wrap: {
      store: requestOf(true, (request) => {
        if (request.query.rtn === 'json') return request.query;
        // bug: the table export path builds its query without the window
        const { start: _start, end: _end, ...q } = request.query;
        return q;
      }),
    },
  },
  {
    name: 'aggregate-absent-true',
    area: 'store',
    description:
      'the stats endpoints (6, 7, 8, 13) default aggregateData to true: absent, they answer the aggregated record (spec §5 Revision 2)',
    detectedBy: ['REL-BOOLEAN-SPELLINGS', 'ORACLE-STATS'],
    blind: ['REL-BOOLEAN-SPELLINGS'],
    wrap: {
      store: requestOf(true, (request, raw) =>
        request.endpoint.startsWith('stats.') && !raw.some(([k]) => k === 'aggregateData')
          ? // bug: the stats handler defaults aggregateData to true
            { ...request.query, aggregateData: true }
          : request.query,
      ),
    },
  },
  {
    name: 'member-tags-digit-false',
    area: 'store',
    description:
      '/teams/member/{id}/tags reads a tag filter spelled 1 as false (spec §6: true, false, 1, 0 in any case)',
    detectedBy: ['REL-BOOLEAN-SPELLINGS'],
    wrap: {
      store: requestOf(true, (request, raw) => {
        if (request.endpoint !== 'teams.memberTags') return request.query;
        // bug: endpoint 4's handler reads its filters with `value.toLowerCase() === 'true'`
        const q = { ...request.query };
        for (const name of TAG_FILTERS)
          if (raw.some(([k, v]) => k === name && v === '1')) q[name] = false;
        return q;
      }),
    },
  },
  {
    name: 'order-hidden-subsecond',
    area: 'store',
    description:
      'tag lists (2, 4) are ordered by a sub-second part of dateSent the response does not show (storage order), so two tags shown with the same dateSent do not come in tagID order (spec §5 Revision 3); the fault matrix serves it the canonical dataset plus such a pair (conformance/test/revision3-dataset.ts)',
    detectedBy: ['PAGE-ORDER-TAGS'],
    wrap: {
      store: (s) => {
        // each tag's hidden sub-second part, in ms (by storage order)
        const tags = s.index.dataset.tags;
        const hiddenMs = new Map(tags.map((t, i) => [t.tagID, (999 * i) / tags.length]));
        return answerOf((_caller, request, answer) => {
          if (answer.kind !== 'list' || !TAG_LISTS.has(request.endpoint)) return answer;
          // bug: the store keeps each send instant with a sub-second part it does not show
          // (the later a tag was stored, the later in its second) and sorts by the full value,
          // so two tags shown with the same dateSent come newest stored first, not in tagID order
          const key = (t: Tag) => parseTimestampMs(t.dateSent) + (hiddenMs.get(t.tagID) ?? 0);
          return {
            kind: 'list',
            records: [...(answer.records as Tag[])].sort(
              (a, b) => key(b) - key(a) || compareStrings(a.tagID, b.tagID),
            ),
          };
        })(s);
      },
    },
  },
  {
    name: 'members-by-firstname',
    area: 'store',
    description:
      'member lists (1, 3) come by firstname, then lastname, then memberID, instead of lastname first (spec §5)',
    detectedBy: ['PAGE-ORDER-MEMBERS'],
    wrap: {
      store: listOrder(
        (e) => e === 'teams.list' || e === 'teams.group',
        // bug: the comparator's keys are in the wrong order
        (a, b) =>
          compareStrings(a.firstname!, b.firstname!) ||
          compareStrings(a.lastname!, b.lastname!) ||
          compareStrings(a.memberID!, b.memberID!),
      ),
    },
  },
  {
    name: 'contacts-by-name',
    area: 'store',
    description: 'contact lists (15, 17) come by name instead of normalised email (spec §5)',
    detectedBy: ['PAGE-ORDER-CONTACTS'],
    wrap: {
      store: listOrder(
        (e) => e === 'contacts.list' || e === 'contacts.tag',
        // bug: contacts sorted by their display name, not their normalised email
        (a, b) =>
          compareStrings(a.name!, b.name!) ||
          compareStrings(normaliseEmail(a.email!), normaliseEmail(b.email!)),
      ),
    },
  },
  {
    name: 'event-groups-by-tag-id',
    area: 'store',
    description:
      'the event groups of /opens and /clicks (9, 11) come by tagID instead of in the tag order, newest dateSent first (spec §5)',
    detectedBy: ['PAGE-ORDER-EVENT-GROUPS'],
    wrap: {
      // bug: the groups come from a map keyed by tagID, iterated in key order
      store: listOrder(
        (e) => EVENT_LISTS.has(e),
        (a, b) => compareStrings(a.tagID!, b.tagID!),
      ),
    },
  },
  {
    name: 'stats-days-newest-first',
    area: 'store',
    description:
      'per-day stats records (6, 7, 8, 13 with aggregateData=false) come newest day first (spec §5)',
    detectedBy: ['PAGE-ORDER-STATS-DAYS', 'REL-AGGREGATE-MERGE'],
    wrap: {
      store: answerOf((_caller, request, answer) =>
        answer.kind === 'list' && STATS_LISTS.has(request.endpoint)
          ? // bug: the per-day records are read from a day index scanned backwards
            { kind: 'list', records: [...answer.records].reverse() }
          : answer,
      ),
    },
  },
] as const satisfies readonly FaultInfo[];

/** The offset of the time zone fault `days-cut-utc-plus-2`: UTC+2. */
const LOCAL_OFFSET_MS = 2 * 60 * 60 * 1000;

const TAG_LISTS = new Set<string>(['teams.tags', 'teams.memberTags']);
const EVENT_LISTS = new Set<string>(['opens.list', 'clicks.list']);
const STATS_LISTS = new Set<string>([
  'stats.team',
  'stats.teamAlias',
  'stats.group',
  'stats.member',
]);
const TAG_FILTERS = ['isOpened', 'isUnopened', 'isClicked', 'isUnclicked'] as const;

/**
 * A wrapper reading the request as the faulty handler does: the query `change` gives (from
 * the parsed request and the raw query). `rawInKey`: the change reads the raw query or `rtn`,
 * which must then be part of the store's cache key.
 */
function requestOf(
  rawInKey: boolean,
  change: (request: EndpointRequest, raw: RawQuery) => QueryParams,
): (s: StoreLayer) => StoreLayer {
  return (s) => ({
    ...s,
    rawInKey: s.rawInKey || rawInKey,
    request: (request, raw) => {
      const inner = s.request(request, raw);
      return { ...inner, query: change(inner, raw) };
    },
  });
}

/** A wrapper passing each answer of the layer it wraps through `change`. */
function answerOf(
  change: (caller: Caller, request: EndpointRequest, answer: Answer) => Answer,
): (s: StoreLayer) => StoreLayer {
  return (s) => ({
    ...s,
    answer: (caller, request) => change(caller, request, s.answer(caller, request)),
  });
}

/** A wrapper sorting the lists of the endpoints `on` selects `by` another order (spec §5). */
function listOrder(
  on: (endpoint: string) => boolean,
  by: (a: Record<string, string>, b: Record<string, string>) => number,
): (s: StoreLayer) => StoreLayer {
  return answerOf((_caller, request, answer) =>
    answer.kind === 'list' && on(request.endpoint)
      ? { kind: 'list', records: [...(answer.records as Record<string, string>[])].sort(by) }
      : answer,
  );
}

type EventsByTag = Map<string, { opens: DatasetEvent[]; clicks: DatasetEvent[] }>;

function eventsPerTag(dataset: Dataset): EventsByTag {
  const out: EventsByTag = new Map();
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
  return out;
}

/** Fault `days-cut-utc-plus-2`: windows (2, 4, 9, 11) and daily counts (14) on UTC+2 days. */
function localDays(
  s: StoreLayer,
  eventsByTag: EventsByTag,
  caller: Caller,
  request: EndpointRequest,
  answer: Answer,
): Answer {
  const q = request.query;
  // bug: the day of an instant is taken in the server's local time zone, UTC+2
  const localDay = (ts: string) => utcDay(parseTimestampMs(ts) + LOCAL_OFFSET_MS);
  const inWindow = (ts: string) => {
    const day = localDay(ts);
    return (q.start === undefined || day >= q.start) && (q.end === undefined || day <= q.end);
  };
  if (request.endpoint === 'tags.daily' && answer.kind === 'single' && q.date !== undefined) {
    const events = eventsByTag.get(request.pathParams.tagID ?? '');
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
  const all = s.index.answer(caller, { ...request, query: unwindowed });
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
