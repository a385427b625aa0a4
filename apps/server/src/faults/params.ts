import {
  CalendarDate,
  DAY_MS,
  dayStartMs,
  type Endpoint,
  type EndpointId,
  IGNORED_PARAMS,
  PARAM_NAMES,
  type QueryEntry,
  type QueryParams,
  TAG_FILTER_PARAMS,
  utcDay,
} from '@tagtrack/core';
import type { ParamsLayer } from '../request.ts';
import type { FaultInfo } from './info.ts';

/**
 * Faults of the query parser: parameter rules of spec §6. Each wraps the clean
 * `ParamsLayer` (request.ts) and replaces the stage it breaks.
 */
export const PARAMS_FAULTS = [
  {
    name: 'end-day-exclusive',
    area: 'params',
    description: 'the `end` day itself is excluded from the window: off by one (spec §6)',
    detectedBy: ['REL-WINDOW-INCLUSIVE', 'REL-RANGE-SPLIT', 'REL-EVENTS-WINDOW'],
    wrap: {
      params: queryOf((_endpoint, query, _sent) => {
        // bug: `end` used as an exclusive bound, i.e. the window stops at the end day's midnight
        // (with start = end the window becomes empty: start after end selects no day)
        return query.end === undefined
          ? query
          : { ...query, end: utcDay(dayStartMs(query.end) - DAY_MS) };
      }),
    },
  },
  {
    name: 'ignore-is-opened',
    area: 'params',
    description: 'the isOpened filter is ignored (spec §6)',
    detectedBy: ['REL-FILTER-CONJUNCTION'],
    wrap: { params: queryOf((_endpoint, query) => ({ ...query, isOpened: false })) },
  },
  {
    name: 'bad-date-200',
    area: 'params',
    description:
      'invalid calendar dates such as 2024-02-30 are accepted and treated as absent (spec §6)',
    detectedBy: ['INPUT-400-BAD-DATE'],
    wrap: {
      params: inputOf((_endpoint, input) => {
        // bug: a shape check only; a YYYY-MM-DD that is not a calendar day is dropped silently
        return input.filter(
          ([name, value]) =>
            !(
              DATE_PARAMS.has(name) &&
              DATE_SHAPE.test(value) &&
              !CalendarDate.safeParse(value).success
            ),
        );
      }),
    },
  },
  {
    name: 'unknown-param-ignored',
    area: 'params',
    description: 'unknown query parameters are accepted silently (spec §6)',
    detectedBy: ['INPUT-400-UNKNOWN-PARAM'],
    wrap: {
      params: inputOf((endpoint, input) => {
        // bug: the parser only looks at the names it knows instead of rejecting the others
        const known = new Set<string>(endpoint.query);
        return input.filter(([name]) => known.has(name));
      }),
    },
  },
  {
    name: 'alias-ignores-type',
    area: 'params',
    description: '/teams/stats ignores the `type` parameter (spec §6)',
    detectedBy: ['REL-STATS-ALIAS'],
    wrap: {
      params: typeIgnored((endpoint) => endpoint.id === ('stats.teamAlias' satisfies EndpointId)),
    },
  },
  {
    name: 'next-param-rejected',
    area: 'params',
    description:
      'the `next` parameter is refused as unknown (400) instead of ignored (spec §5 Revision 2)',
    detectedBy: ['INPUT-NEXT-TOTAL-IGNORED'],
    wrap: {
      params: (p) => ({
        ...p,
        // bug: `next` is missing from the list of accepted parameters
        allowed: (endpoint) => p.allowed(endpoint).filter((name) => name !== 'next'),
      }),
    },
  },
  {
    name: 'cursor-unchecked-single',
    area: 'params',
    description:
      'cursor is not validated on the single-object endpoints: cursor=abc answers 200 (spec §5 Revision 2)',
    detectedBy: ['INPUT-400-BAD-CURSOR'],
    wrap: {
      params: inputOf((endpoint, input) => {
        // bug: endpoints that do not page never look at the cursor
        return endpoint.response === 'single' ? input.filter(([name]) => name !== 'cursor') : input;
      }),
    },
  },
  {
    name: 'empty-value-as-absent',
    area: 'params',
    description:
      'an empty value (type=) is read as an absent parameter, not a 400 (spec §6 Revision 2)',
    detectedBy: ['INPUT-400-EMPTY-VALUE'],
    wrap: {
      params: inputOf((_endpoint, input) => {
        // bug: `type=` is read like a missing parameter
        return input.filter(([, value]) => value !== '');
      }),
    },
  },
  {
    name: 'foreign-param-accepted',
    area: 'params',
    description:
      'a parameter of another endpoint (start on /contacts) is accepted and ignored, not a 400 (spec §6 Revision 2)',
    detectedBy: ['INPUT-400-UNKNOWN-PARAM'],
    wrap: {
      params: inputOf((endpoint, input) => {
        // bug: any parameter of the API passes, whichever endpoint it belongs to
        const own = new Set<string>(endpoint.query);
        return input.filter(([name]) => own.has(name) || !API_PARAMS.has(name));
      }),
    },
  },
  {
    name: 'repeated-param-last-wins',
    area: 'params',
    description:
      'a repeated parameter (rtn=json&rtn=text) is not refused: its last value wins (spec §6 Revision 2)',
    detectedBy: ['INPUT-400-REPEATED-PARAM'],
    wrap: {
      params: inputOf((_endpoint, input) => {
        // bug: the query is read into a map, so a repeated parameter's last value wins
        const last = new Map<string, number>();
        input.forEach(([name], i) => {
          last.set(name, i);
        });
        return input.filter(([name], i) => IGNORED_PARAMS.has(name) || last.get(name) === i);
      }),
    },
  },
  {
    name: 'daily-date-rolls-over',
    area: 'params',
    description:
      '/tags/daily/{tagID} reads `date` with Date.UTC: 2024-02-30 rolls over into 2024-03-01 instead of a 400; the other endpoints refuse it (spec §6 Revision 2: the same rules on every endpoint)',
    detectedBy: ['INPUT-400-BAD-DATE'],
    wrap: {
      params: inputOf((endpoint, input) => {
        if (endpoint.id !== ('tags.daily' satisfies EndpointId)) return input;
        // bug: the day is read with Date.UTC, which rolls 2024-02-30 over into 2024-03-01
        return input.map(([name, value]): [string, string] => [
          name,
          name === 'date' ? rollOver(value) : value,
        ]);
      }),
    },
  },
  {
    name: 'events-start-after-end-empty',
    area: 'params',
    description:
      '/clicks and /opens never compare start and end: start after end answers an empty list instead of a 400 (spec §6)',
    detectedBy: ['INPUT-400-START-AFTER-END'],
    wrap: {
      params: (p) => ({
        ...p,
        parse: (endpoint, input, allowed) => {
          if (endpoint.id !== 'clicks.list' && endpoint.id !== 'opens.list') {
            return p.parse(endpoint, input, allowed);
          }
          // bug: the event handlers never compare the bounds; start after end selects nothing
          const start = input.find(([name]) => name === 'start')?.[1];
          const end = input.find(([name]) => name === 'end')?.[1];
          const reversed =
            start !== undefined &&
            end !== undefined &&
            start > end &&
            CalendarDate.safeParse(start).success &&
            CalendarDate.safeParse(end).success;
          if (!reversed) return p.parse(endpoint, input, allowed);
          const query = p.parse(
            endpoint,
            input.filter(([name]) => name !== 'end'),
            allowed,
          );
          return { ...query, end };
        },
      }),
    },
  },
  {
    name: 'member-tags-lenient-boolean',
    area: 'params',
    description:
      '/teams/member/{memberID}/tags reads a tag filter other than true/false/1/0 (isOpened=yes) as false instead of a 400 (spec §6 Revision 2: the same rules on every endpoint)',
    detectedBy: ['INPUT-400-BAD-BOOLEAN'],
    wrap: {
      params: inputOf((endpoint, input) => {
        if (endpoint.id !== 'teams.memberTags') return input;
        // bug: this handler reads its filters as `value === 'true' || value === '1'`
        const filters = new Set<string>(TAG_FILTER_PARAMS);
        return input.map(([name, value]): [string, string] => [
          name,
          filters.has(name) && !/^(true|false|1|0)$/i.test(value) ? 'false' : value,
        ]);
      }),
    },
  },
  {
    name: 'stats-type-any-case',
    area: 'params',
    description:
      "the stats endpoints lower-case `type` before validating it: type=Admin answers the admins' stats instead of a 400 (spec §6 Revision 2: type is case-sensitive)",
    detectedBy: ['INPUT-400-BAD-ENUM'],
    wrap: {
      params: inputOf((endpoint, input) => {
        if (!endpoint.id.startsWith('stats.')) return input;
        // bug: the stats handlers lower-case `type` before validating it
        return input.map(([name, value]): [string, string] => [
          name,
          name === 'type' ? value.toLowerCase() : value,
        ]);
      }),
    },
  },
  {
    name: 'group-type-ignored',
    area: 'params',
    description:
      '/teams/group/{group} ignores `type`: type=manager lists every member of the group (spec §6)',
    detectedBy: ['SCOPE-TYPE-FILTER'],
    wrap: { params: typeIgnored((endpoint) => endpoint.id === 'teams.group') },
  },
  {
    name: 'cursor-leading-zeros-rejected',
    area: 'params',
    description:
      'cursor is validated as /^(0|[1-9][0-9]*)$/: cursor=000 answers 400 instead of the first page (spec §5 Revision 2: [0-9]+, leading zeros allowed)',
    detectedBy: ['INPUT-400-BAD-CURSOR'],
    // bug: the cursor is validated as /^(0|[1-9][0-9]*)$/ instead of [0-9]+
    wrap: { params: cursorRefused((value) => /^0[0-9]/.test(value)) },
  },
  {
    name: 'huge-cursor-rejected',
    area: 'params',
    description:
      'a cursor beyond 2^53 - 1 answers 400 instead of a page past the end (spec §5 Revision 2: no size limit)',
    detectedBy: ['INPUT-400-BAD-CURSOR'],
    // bug: the cursor is validated with Number.isSafeInteger instead of [0-9]+ without a size limit
    wrap: { params: cursorRefused((value) => !Number.isSafeInteger(Number(value))) },
  },
  {
    name: 'false-filter-negates',
    area: 'params',
    description:
      'a tag filter set to false selects its opposite: isOpened=false (any spelling) keeps only the unopened tags, isClicked=false only the unclicked, and back (spec §6 Revision 3: false means absent)',
    detectedBy: ['REL-BOOLEAN-SPELLINGS'],
    wrap: {
      params: queryOf((_endpoint, query, sent) => {
        // bug: a filter sent as false is read as "not opened", "not clicked"
        const sentNames = new Set(sent.map(([name]) => name));
        const out = { ...query };
        for (const name of TAG_FILTER_PARAMS) {
          if (!sentNames.has(name) || !(name in OPPOSITE_FILTER)) continue;
          const filter = name as keyof typeof OPPOSITE_FILTER;
          if (out[filter] === false) out[OPPOSITE_FILTER[filter]] = true;
        }
        return out;
      }),
    },
  },
  {
    name: 'aggregate-false-aggregates',
    area: 'params',
    description:
      'aggregateData is read by presence: aggregateData=false (or 0, False) answers the aggregated record instead of the per-day records (spec §6 Revision 3: false means absent)',
    detectedBy: ['REL-BOOLEAN-SPELLINGS'],
    wrap: {
      params: queryOf((_endpoint, query, sent) => {
        // bug: `if (params.has('aggregateData'))`
        return sent.some(([name]) => name === 'aggregateData')
          ? { ...query, aggregateData: true }
          : query;
      }),
    },
  },
  {
    name: 'stats-type-ignored',
    area: 'params',
    description:
      '/stats ignores `type`: type=user answers the stats of every visible sender (spec §6 Revision 3: type keeps the tags sent by members of that type)',
    detectedBy: ['REL-STATS-TYPES-MERGE', 'SCOPE-TYPE-FILTER', 'REL-STATS-ALIAS'],
    wrap: { params: typeIgnored((endpoint) => endpoint.id === 'stats.team') },
  },
  {
    name: 'group-stats-type-ignored',
    area: 'params',
    description:
      '/teams/stats/group/{group} ignores `type`: type=user answers the stats of the whole group (spec §6 Revision 3)',
    detectedBy: ['REL-STATS-TYPES-MERGE', 'SCOPE-TYPE-FILTER'],
    wrap: { params: typeIgnored((endpoint) => endpoint.id === 'stats.group') },
  },
  {
    name: 'stats-type-per-day-ignored',
    area: 'params',
    description:
      'the stats endpoints apply `type` only to the aggregated record: with aggregateData=false the per-day records count every sender (spec §6 Revision 3)',
    detectedBy: ['REL-STATS-TYPES-MERGE'],
    wrap: {
      params: typeIgnored(
        (endpoint, query) => endpoint.id.startsWith('stats.') && !query.aggregateData,
      ),
    },
  },
] as const satisfies readonly FaultInfo[];

const DATE_PARAMS = new Set(['start', 'end', 'date']);
const API_PARAMS: ReadonlySet<string> = new Set(PARAM_NAMES);
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/** The tag filter of the opposite meaning (fault `false-filter-negates`). */
const OPPOSITE_FILTER = {
  isOpened: 'isUnopened',
  isUnopened: 'isOpened',
  isClicked: 'isUnclicked',
  isUnclicked: 'isClicked',
} as const;

/** A wrapper changing the parameters `parse` reads. */
function inputOf(
  change: (endpoint: Endpoint, input: readonly QueryEntry[]) => readonly QueryEntry[],
): (p: ParamsLayer) => ParamsLayer {
  return (p) => ({ ...p, input: (endpoint, sent) => change(endpoint, p.input(endpoint, sent)) });
}

/** A wrapper changing the parsed parameters. */
function queryOf(
  change: (endpoint: Endpoint, query: QueryParams, sent: readonly QueryEntry[]) => QueryParams,
): (p: ParamsLayer) => ParamsLayer {
  return (p) => ({
    ...p,
    query: (endpoint, query, sent) => change(endpoint, p.query(endpoint, query, sent), sent),
  });
}

/** A wrapper dropping the parsed `type` where `when` holds (the handler never reads it). */
function typeIgnored(
  when: (endpoint: Endpoint, query: QueryParams) => boolean,
): (p: ParamsLayer) => ParamsLayer {
  return queryOf((endpoint, query) => {
    if (!when(endpoint, query)) return query;
    const { type: _type, ...rest } = query;
    return rest;
  });
}

/**
 * A wrapper refusing a `[0-9]+` cursor that `refused` matches (it is made invalid, so core
 * answers its 400), as a validator stricter than spec §5 Revision 2 would.
 */
function cursorRefused(refused: (value: string) => boolean): (p: ParamsLayer) => ParamsLayer {
  return inputOf((_endpoint, input) =>
    input.map(([name, value]): [string, string] => [
      name,
      name === 'cursor' && /^[0-9]+$/.test(value) && refused(value) ? `${value}?` : value,
    ]),
  );
}

/**
 * Fault `daily-date-rolls-over`: a `YYYY-MM-DD` whose day is past the end of its month (a
 * real month, day 29 to 31) as `Date.UTC` reads it, rolled into the next month; any other
 * value unchanged.
 */
function rollOver(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (m === null || CalendarDate.safeParse(value).success) return value;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1000 || month < 1 || month > 12 || day < 29 || day > 31) return value;
  return utcDay(Date.UTC(year, month - 1, day));
}
