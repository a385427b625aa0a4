import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ENDPOINT_IDS,
  ENDPOINT_LIST,
  ENDPOINTS,
  type EndpointId,
  endpointById,
  type ParsedQueryOf,
  type PathParamName,
  type PathParamsOf,
  type QueryOf,
  type RecordOf,
} from '../src/endpoints.ts';
import { QueryParamError } from '../src/errors.ts';
import { parseJsonExact } from '../src/json.ts';
import type { AccountType, TeamMember } from '../src/member.ts';
import {
  defaultOf,
  defaultQueryParams,
  IGNORED_PARAMS,
  PARAM_NAMES,
  type ParamName,
  parseQuery,
  QUERY_PARAMS,
  type QueryParams,
  type Rtn,
} from '../src/params.ts';
import type { StatsSummary } from '../src/stats.ts';
import type { Tag } from '../src/tag.ts';
import type { CalendarDate } from '../src/values.ts';

/**
 * Answers of the parser before the typed catalogue (PARAMS table and hand-written
 * QueryParams), recorded on 658 requests: each parameter alone at 26 values, every endpoint
 * with nothing sent, 300 sampled mixes of known, unknown, repeated and empty parameters.
 */
interface RecordedCase {
  readonly id: EndpointId;
  readonly entries: [string, string][];
  readonly result?: unknown;
  readonly error?: { code: string; parameter: string; message: string };
}
// read exactly: a huge cursor is recorded with all its digits (read as a bigint since the
// cursor arithmetic became exact; it was recorded as 2^53 - 1 before)
const RECORDED = parseJsonExact(
  readFileSync(new URL('./fixtures/parse-query-cases.json', import.meta.url), 'utf8'),
) as readonly RecordedCase[];

function outcome(
  id: EndpointId,
  entries: [string, string][],
): Omit<RecordedCase, 'id' | 'entries'> {
  const e = endpointById(id);
  try {
    return { result: parseQuery(entries, { allowed: e.query, required: e.requiredQuery }) };
  } catch (err) {
    if (!(err instanceof QueryParamError)) throw err;
    return { error: { code: err.code, parameter: err.parameter, message: err.message } };
  }
}

describe('parseQuery derived from the query schemas', () => {
  it('answers every recorded request exactly as the parser before the catalogue did', () => {
    expect(RECORDED.length).toBeGreaterThan(600);
    expect(RECORDED.filter((c) => c.error !== undefined).length).toBeGreaterThan(300);
    for (const c of RECORDED) {
      const { id, entries, ...expected } = c;
      expect(outcome(id, entries), `${id} ${JSON.stringify(entries)}`).toEqual(expected);
    }
  });

  it('the default of every parameter comes from its schema', () => {
    const defaults: Record<string, unknown> = defaultQueryParams();
    const withDefault = PARAM_NAMES.filter((name) => defaultOf(QUERY_PARAMS[name]) !== undefined);
    expect(withDefault).toHaveLength(7);
    expect(Object.keys(defaults).sort()).toEqual([...withDefault].sort());
    for (const name of withDefault) expect(defaults[name]).toBe(defaultOf(QUERY_PARAMS[name]));
    expect(defaultQueryParams({ type: 'user' }).type).toBe('user');
  });

  it('the ignored parameters are those of the IgnoredParam schema: total and next', () => {
    expect([...IGNORED_PARAMS]).toEqual(['total', 'next']);
  });
});

describe('the typed catalogue', () => {
  it('is keyed by id, in catalogue order, each entry carrying its id', () => {
    expect(Object.keys(ENDPOINTS)).toEqual([...ENDPOINT_IDS]);
    for (const id of ENDPOINT_IDS) expect(ENDPOINTS[id].id).toBe(id);
    expect(ENDPOINT_LIST.map((e) => e.id)).toEqual([...ENDPOINT_IDS]);
  });

  it("derives query, requiredQuery and pathParams from the entry's schema and path", () => {
    for (const e of ENDPOINT_LIST) {
      expect(Object.keys(e.querySchema.shape)).toEqual([...e.query]);
      expect(e.query.slice(-4)).toEqual(['rtn', 'cursor', 'total', 'next']);
      for (const name of e.query) expect(e.querySchema.shape[name]).toBe(QUERY_PARAMS[name]);
      expect(e.pathParams).toEqual([...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
    }
    expect(ENDPOINT_LIST.filter((e) => e.requiredQuery.length > 0).map((e) => e.id)).toEqual([
      'tags.daily',
    ]);
    expect(new Set(ENDPOINT_LIST.flatMap((e) => e.query))).toEqual(new Set(PARAM_NAMES));
  });

  it('a query schema parses the wire form into typed values with the defaults', () => {
    const tags = ENDPOINTS['teams.tags'].querySchema;
    expect(tags.parse({ isOpened: 'True', cursor: '007', start: '2024-01-01' })).toEqual({
      start: '2024-01-01',
      isClicked: false,
      isUnclicked: false,
      isOpened: true,
      isUnopened: false,
      rtn: 'json',
      cursor: 7,
    });
    expect(ENDPOINTS['tags.daily'].querySchema.safeParse({}).success).toBe(false);
  });
});

describe('types derived from the catalogue', () => {
  it('RecordOf is the record schema type', () => {
    expectTypeOf<RecordOf<'teams.tags'>>().toEqualTypeOf<Tag>();
    expectTypeOf<RecordOf<'teams.member'>>().toEqualTypeOf<TeamMember>();
    expectTypeOf<RecordOf<'stats.group'>>().toEqualTypeOf<StatsSummary>();
  });

  it('QueryOf is what a client sends: typed values, date required on tags.daily', () => {
    expectTypeOf<QueryOf<'tags.daily'>>().toEqualTypeOf<{
      readonly date: CalendarDate;
      readonly rtn?: Rtn | undefined;
      readonly cursor?: number | bigint | undefined;
      readonly total?: string | number | undefined;
      readonly next?: string | number | undefined;
    }>();
    // @ts-expect-error date is required
    const noDate: QueryOf<'tags.daily'> = {};
    expect(noDate).toEqual({});
    expectTypeOf<QueryOf<'stats.member'>>().toEqualTypeOf<{
      readonly start?: CalendarDate | undefined;
      readonly end?: CalendarDate | undefined;
      readonly aggregateData?: boolean | undefined;
      readonly rtn?: Rtn | undefined;
      readonly cursor?: number | bigint | undefined;
      readonly total?: string | number | undefined;
      readonly next?: string | number | undefined;
    }>();
    // @ts-expect-error type is not a parameter of stats.member
    const typed: QueryOf<'stats.member'> = { type: 'admin' };
    expect(typed).toBeDefined();
  });

  it('ParsedQueryOf has the defaults and leaves total and next out', () => {
    expectTypeOf<ParsedQueryOf<'teams.list'>>().toEqualTypeOf<{
      type?: AccountType;
      rtn: Rtn;
      cursor: number | bigint;
    }>();
  });

  it('QueryParams, the parsed query of any endpoint, is the interface it replaced', () => {
    expectTypeOf<QueryParams>().toEqualTypeOf<{
      rtn: Rtn;
      cursor: number | bigint;
      start?: CalendarDate;
      end?: CalendarDate;
      isClicked: boolean;
      isUnclicked: boolean;
      isOpened: boolean;
      isUnopened: boolean;
      aggregateData: boolean;
      type?: AccountType;
      date?: CalendarDate;
    }>();
  });

  it('PathParamsOf and PathParamName come from the path templates', () => {
    expectTypeOf<PathParamsOf<'contacts.get'>>().toEqualTypeOf<{ readonly contactID: string }>();
    expectTypeOf<keyof PathParamsOf<'teams.list'>>().toEqualTypeOf<never>();
    expectTypeOf<PathParamName>().toEqualTypeOf<'memberID' | 'group' | 'tagID' | 'contactID'>();
    expectTypeOf(ENDPOINTS['teams.memberTags'].pathParams).toEqualTypeOf<readonly ['memberID']>();
    expectTypeOf<ParamName>().toEqualTypeOf<(typeof PARAM_NAMES)[number]>();
  });
});
