import {
  ENDPOINTS,
  type Endpoint,
  type EndpointId,
  ErrorBody,
  endpointById,
  IGNORED_PARAMS,
  PARAM_NAMES,
  type ParamName,
  REASON_PHRASES,
  visibleGroups,
} from '@tagtrack/core';
import { arbHostileString } from '@tagtrack/core/testing';
import fc from 'fast-check';
import type { Exchange } from '../http.ts';
import {
  type Check,
  type CheckContext,
  defineCheck,
  describe,
  type EndpointCall,
  parseJson,
  Violation,
} from './api.ts';
import { comparable } from './compare.ts';
import { firstDifference, sampleCalls } from './sample.ts';
import { contentTypeMatches } from './schema.ts';

/**
 * Asserts `ex` is the documented error: `status`, a JSON {@link ErrorBody} with matching
 * `statusCode` and reason phrase, and (when given) a message naming `names` (decisions §5).
 */
export function expectError(ex: Exchange, status: number, names: readonly string[] = []): void {
  if (ex.status !== status)
    throw new Violation(`${describe(ex)} answered ${ex.status}, expected ${status}`, {
      exchange: ex,
      expected: status,
      actual: ex.status,
    });
  errorBodyProblem(ex);
  const message = (JSON.parse(ex.body) as ErrorBody).message;
  if (names.length > 0 && !names.some((n) => message.includes(n)))
    throw new Violation(
      `${describe(ex)}: error message ${JSON.stringify(message)} does not name ${names.map((n) => `'${n}'`).join(' or ')}`,
      { exchange: ex },
    );
}

/** Throws a {@link Violation} unless `ex` carries the error body of decisions §5. */
export function errorBodyProblem(ex: Exchange): void {
  const ct = ex.responseHeaders['content-type'];
  if (
    !contentTypeMatches(ct, 'application/json; charset=utf-8') &&
    !contentTypeMatches(ct, 'application/json')
  )
    throw new Violation(
      `${describe(ex)}: error Content-Type ${JSON.stringify(ct)}, expected application/json`,
      { exchange: ex },
    );
  let body: unknown;
  try {
    body = JSON.parse(ex.body);
  } catch {
    throw new Violation(`${describe(ex)}: error body is not JSON: ${ex.body.slice(0, 100)}`, {
      exchange: ex,
    });
  }
  const parsed = ErrorBody.safeParse(body);
  if (!parsed.success)
    throw new Violation(
      `${describe(ex)}: error body is not {statusCode, error, message}: ${ex.body.slice(0, 100)}`,
      { exchange: ex },
    );
  if (parsed.data.statusCode !== ex.status)
    throw new Violation(
      `${describe(ex)}: error body statusCode ${parsed.data.statusCode}, HTTP status ${ex.status}`,
      { exchange: ex },
    );
  const phrase = REASON_PHRASES[ex.status];
  if (phrase !== undefined && parsed.data.error !== phrase)
    throw new Violation(
      `${describe(ex)}: error ${JSON.stringify(parsed.data.error)}, expected the reason phrase ${JSON.stringify(phrase)}`,
      { exchange: ex },
    );
}

/** Runs `fn`, recording a Violation as a failure and going on. */
async function each(ctx: CheckContext, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof Violation) ctx.fail(e.message, e.details);
    else throw e;
  }
}

/** Failures recorded one by one per {@link forEachCase} call; the rest are counted. */
export const MAX_CASE_FAILURES = 10;

/**
 * Runs `fn` on every case in order (fixed cases: every one is tried), recording each
 * {@link Violation} as a failure and going on. After {@link MAX_CASE_FAILURES} failures the
 * others are only counted, and one more failure says how many cases failed in all. Any
 * other exception propagates (an error of the check). Resolves the number of failed cases.
 */
export async function forEachCase<T>(
  ctx: CheckContext,
  cases: readonly T[],
  fn: (item: T) => Promise<void>,
): Promise<number> {
  let failed = 0;
  for (const item of cases) {
    try {
      await fn(item);
    } catch (e) {
      if (!(e instanceof Violation)) throw e;
      failed++;
      if (failed <= MAX_CASE_FAILURES) ctx.fail(e.message, e.details);
    }
  }
  if (failed > MAX_CASE_FAILURES)
    ctx.fail(
      `${failed} of ${cases.length} cases failed; the first ${MAX_CASE_FAILURES} are listed above`,
    );
  return failed;
}

/** One query parameter as sent: `[name, value]`. */
export type Pair = readonly [string, string];

/** A representative request to one endpoint (see `sampleCalls`). */
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

/** How {@link ensureSameAnswer} compares `paging.previousURL` and `paging.nextURL`. */
export interface SameAnswerOptions {
  /**
   * `same-query`: the URLs of `other` are those of `plain` with `kept` added to the query
   * (the URLs keep the request's parameters, decisions §3 Revision 2). `ignore`: only
   * whether each URL is null (e.g. when the two requests have different paths).
   */
  readonly urls: 'same-query' | 'ignore';
  /** Parameters `other` sent on top of `plain` that its paging URLs must keep. */
  readonly kept?: readonly Pair[];
}

const URL_BASE = 'http://base.invalid';

/**
 * Why the paging URL `actual` (of a request that sent `kept` on top of the request behind
 * `expected`) is not `expected` with `kept` in its query, or `undefined` when it is: same
 * origin and path, the same query once `total` and `next` are removed (order and values,
 * `cursor` included; compared decoded), and exactly the `total`/`next` pairs of `kept`
 * (as a multiset, compared decoded). Relative URLs are read against a placeholder base.
 */
export function pagingUrlProblem(
  expected: string,
  actual: string,
  kept: readonly Pair[],
): string | undefined {
  let a: URL;
  let b: URL;
  try {
    a = new URL(expected, URL_BASE);
    b = new URL(actual, URL_BASE);
  } catch {
    return `${JSON.stringify(actual)} or ${JSON.stringify(expected)} is not a URL`;
  }
  if (a.origin !== b.origin || a.pathname !== b.pathname)
    return `points at ${b.origin}${b.pathname}, not ${a.origin}${a.pathname}`;
  const strip = (u: URL) => [...u.searchParams].filter(([k]) => !IGNORED_PARAMS.has(k));
  const rest = strip(b);
  if (JSON.stringify(rest) !== JSON.stringify(strip(a)))
    return `query ${JSON.stringify(b.search)} is not ${JSON.stringify(a.search)} with only total and next added`;
  const key = (pairs: readonly Pair[]) =>
    JSON.stringify(
      pairs
        .filter(([k]) => IGNORED_PARAMS.has(k))
        .map((p) => JSON.stringify(p))
        .sort(),
    );
  const inUrl = [...b.searchParams].filter(([k]) => IGNORED_PARAMS.has(k));
  const notFromA = inUrl.filter(
    ([k, v]) => ![...a.searchParams].some(([x, y]) => x === k && y === v),
  );
  if (key(notFromA) !== key(kept))
    return `query ${JSON.stringify(b.search)} does not keep the sent ${showPairs(kept.filter(([k]) => IGNORED_PARAMS.has(k))) || '(nothing)'}`;
  return undefined;
}

/** The records of a 200 JSON body as one array (a single record as a one-element array). */
function recordsOf(endpoint: EndpointId, data: unknown): unknown[] {
  return comparable(endpoint, Array.isArray(data) ? data : [data]);
}

/**
 * Asserts that `other` answers like `plain` (decisions §3, §4): the same status, the same
 * `X-Total-Count` (or none on both), and for a 200 JSON body the same `data` by value (in
 * both directions, so a missing or an extra field counts; event ties compared as sets) and
 * the same `paging`: equal cursors, each URL null on both or on neither, and URLs compared
 * per `options.urls`. `what` says how `other` differs from `plain`, in domain words.
 */
export function ensureSameAnswer(
  endpoint: EndpointId,
  plain: Exchange,
  other: Exchange,
  what: string,
  options: SameAnswerOptions,
): void {
  const before = describe(plain);
  const fail = (detail: string): never => {
    throw new Violation(`${describe(other)} (${what}) ${detail}`, { exchange: other });
  };
  if (other.status !== plain.status)
    fail(`answered ${other.status}, but ${before} answered ${plain.status}`);
  const ta = plain.responseHeaders['x-total-count'];
  const tb = other.responseHeaders['x-total-count'];
  if (ta !== tb) fail(`has X-Total-Count ${tb ?? '(none)'}, but ${before} has ${ta ?? '(none)'}`);
  if (plain.status !== 200) return;
  const a = parseJson(plain) as { data?: unknown; paging?: Record<string, unknown> };
  const b = parseJson(other) as { data?: unknown; paging?: Record<string, unknown> };
  const ra = recordsOf(endpoint, a.data);
  const rb = recordsOf(endpoint, b.data);
  const d = firstDifference(ra, rb) ?? firstDifference(rb, ra);
  if (d !== undefined) fail(`changed the data compared with ${before}: ${d}`);
  const pa = a.paging;
  const pb = b.paging;
  if (pa === undefined && pb === undefined) return;
  if (pa === undefined || pb === undefined)
    fail(
      `has ${pb === undefined ? 'no' : 'a'} paging object, but ${before} has ${pa === undefined ? 'none' : 'one'}`,
    );
  const dc = firstDifference(pa!.cursors, pb!.cursors) ?? firstDifference(pb!.cursors, pa!.cursors);
  if (dc !== undefined) fail(`changed paging.cursors compared with ${before}: ${dc}`);
  for (const k of ['previousURL', 'nextURL'] as const) {
    const ua = pa![k];
    const ub = pb![k];
    if ((ua === null) !== (ub === null))
      fail(`has paging.${k} ${JSON.stringify(ub)}, but ${before} has ${JSON.stringify(ua)}`);
    if (options.urls === 'same-query' && typeof ua === 'string' && typeof ub === 'string') {
      const p = pagingUrlProblem(ua, ub, options.kept ?? []);
      if (p !== undefined)
        fail(
          `has paging.${k} ${JSON.stringify(ub)}, which ${p} (${before} has ${JSON.stringify(ua)})`,
        );
    }
  }
}

/** The sampled endpoints that page (`{ data: [...], paging }`). */
function lists(samples: readonly Sample[]): Sample[] {
  return samples.filter((s) => endpointById(s.endpoint).response === 'list');
}

/** The sampled endpoints answering one record (3, 14, 16). */
function singles(samples: readonly Sample[]): Sample[] {
  return samples.filter((s) => endpointById(s.endpoint).response === 'single');
}

/** `sample` with `query` instead of its own query. */
function withQuery(sample: Sample, query: readonly Pair[]): EndpointCall {
  return { ...sample.call, query };
}

/**
 * Asserts `ex` answers a page past the end of the list: no records, in either paging end
 * (a 204 or a 200 with `data: []`, read by `ctx.page`). Which of the two the profile
 * declares is judged by the PAGE-END checks alone (decisions §3 Revision 2), so a server
 * with the other paging end fails those, not this one.
 */
function ensurePastEnd(ctx: CheckContext, endpoint: EndpointId, ex: Exchange, what: string): void {
  const { data } = ctx.page(endpoint, ex);
  if (data.length !== 0)
    throw new Violation(
      `${describe(ex)} (${what}) answered ${data.length} records, expected none`,
      {
        exchange: ex,
      },
    );
}

/** Catalogue endpoint ids, for checks that cover every endpoint. */
const ALL_ENDPOINTS: readonly EndpointId[] = ENDPOINTS.map((e) => e.id);

/** Endpoints taking a date parameter (2, 4, 6, 7, 8, 9, 11, 13, 14). */
const DATE_PARAMS: readonly ParamName[] = ['start', 'end', 'date'];
const DATED_ENDPOINTS: readonly EndpointId[] = ENDPOINTS.filter((e) =>
  e.query.some((p) => DATE_PARAMS.includes(p)),
).map((e) => e.id);

/** Parameters of `e` that are validated (all but the ignored `total` and `next`). */
function checkedParams(e: Endpoint): ParamName[] {
  return e.query.filter((p) => !IGNORED_PARAMS.has(p));
}

/** Whether `message` names `name` as a word (not as part of a longer name). */
export function namesWord(message: string, name: string): boolean {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_])${esc}($|[^A-Za-z0-9_])`).test(message);
}

/** A valid value of each parameter, so that sending it where it is foreign is the only fault. */
const VALID_VALUE: Record<ParamName, string> = {
  rtn: 'json',
  cursor: '0',
  total: '1',
  next: '1',
  start: '2024-01-01',
  end: '2024-12-31',
  date: '2024-01-01',
  isClicked: 'true',
  isUnclicked: 'false',
  isOpened: '1',
  isUnopened: '0',
  aggregateData: 'true',
  type: 'admin',
};

const BAD_DATES = [
  '0000-01-01',
  '10000-01-01',
  '0000-12-31',
  '2024-02-30',
  '2023-02-29',
  '2024-13-01',
  '2024-00-10',
  '2024-04-31',
  '2024-1-05',
  '20240105',
  '2024-01-05T00:00:00Z',
  '05/01/2024',
  'yesterday',
  '',
  ' 2024-01-05',
  '+2024-01-05',
  '-2024-01-05',
  '２０２４-01-05',
];
/** Dates on the edges of years 0001–9999: valid (decisions §4 Revision 2). */
const EDGE_DATES = ['0001-01-01', '9999-12-31'];
const BAD_BOOLEANS = ['yes', 'no', '2', 'truee', 'on', '', 'null', '-1'];
const BAD_CURSORS = ['-1', '1.5', 'abc', '', ' 1', '1e3'];
/** A cursor of 40 digits: valid (no size limit) and past the end of any list. */
const HUGE_CURSOR = '1234567890'.repeat(4);

/** Values for `total` and `next`: anything, since both are ignored. */
const arbIgnoredValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '0', '-1', '1.5', HUGE_CURSOR, 'null', 'abc', '%', '+', '&', '=', ' 1'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  arbHostileString,
);

/** Cases of INPUT-NEXT-TOTAL-IGNORED tried on every endpoint. */
const FIXED_IGNORED: readonly (readonly Pair[])[] = [
  [['next', '250']],
  [['total', '99999']],
  [
    ['next', ''],
    ['total', ''],
  ],
  [
    ['total', '1'],
    ['next', 'abc'],
    ['total', '-1'],
    ['next', '1'],
  ],
];

/**
 * Sends `sample` with and without `extra` (`total`/`next` pairs inserted at position `at`
 * among its parameters, optionally with a `cursor`) and asserts both answer alike.
 */
async function ensureIgnored(
  ctx: CheckContext,
  sample: Sample,
  extra: readonly Pair[],
  at: number,
  cursor: string | undefined,
): Promise<void> {
  const base: Pair[] = [...(sample.call.query ?? [])];
  if (cursor !== undefined) base.push(['cursor', cursor]);
  const plain = await ctx.call(sample.endpoint, withQuery(sample, base));
  const i = Math.min(at, base.length);
  const query = [...base.slice(0, i), ...extra, ...base.slice(i)];
  const ex = await ctx.call(sample.endpoint, withQuery(sample, query));
  ensureSameAnswer(sample.endpoint, plain, ex, `with ${showPairs(extra)}`, {
    urls: 'same-query',
    kept: extra,
  });
}

/** The visible groups a group segment may resolve to (decisions §2 Revision 2). */
interface GroupRef {
  readonly groupID: string;
  readonly groupName: string;
}

/**
 * The visible group a group segment names (decisions §2 Revision 2): the group with that exact
 * id, else among those with that exact (case-sensitive) name the lowest groupID in code-unit
 * order, else `undefined`.
 */
export function resolveGroupSegment(
  groups: readonly GroupRef[],
  segment: string,
): GroupRef | undefined {
  const byId = groups.find((g) => g.groupID === segment);
  if (byId !== undefined) return byId;
  let best: GroupRef | undefined;
  for (const g of groups)
    if (g.groupName === segment && (best === undefined || g.groupID < best.groupID)) best = g;
  return best;
}

/**
 * Group segments that must answer 404 because no visible group has them as exact id or
 * exact name (decisions §2 Revision 2): each group's name in upper, lower and swapped case,
 * two proper prefixes of the name (by code point) and a proper prefix of the id. Segments in
 * `taken` (the ids and names of every visible group), empty ones and repeats are left out.
 */
export function groupNearMisses(
  groups: readonly GroupRef[],
  taken: ReadonlySet<string>,
): { segment: string; group: GroupRef; how: string }[] {
  const out: { segment: string; group: GroupRef; how: string }[] = [];
  const seen = new Set<string>();
  const add = (segment: string, group: GroupRef, how: string) => {
    if (segment === '' || taken.has(segment) || seen.has(segment)) return;
    seen.add(segment);
    out.push({ segment, group, how });
  };
  for (const g of groups) {
    const name = g.groupName;
    add(name.toUpperCase(), g, 'the name in upper case');
    add(name.toLowerCase(), g, 'the name in lower case');
    add(swapCase(name), g, 'the name with its letter case swapped');
    const chars = Array.from(name);
    if (chars.length > 1) {
      add(chars.slice(0, -1).join(''), g, 'a proper prefix of the name');
      add(chars.slice(0, Math.ceil(chars.length / 2)).join(''), g, 'a proper prefix of the name');
    }
    const id = Array.from(g.groupID);
    if (id.length > 1) add(id.slice(0, -1).join(''), g, 'a proper prefix of the id');
  }
  return out;
}

function swapCase(s: string): string {
  return Array.from(s, (c) => {
    const u = c.toUpperCase();
    return u === c ? c.toLowerCase() : u;
  }).join('');
}

/** Whether a code point may go unencoded in a path segment (RFC 3986 unreserved). */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The path of `endpoint` with `pathParams`, each segment (literal or parameter) written with
 * the characters at running indices `encode(i)` percent-encoded as UTF-8 (`%XX`, hex digits
 * in upper or lower case). Characters that must be encoded always are. Every decoding of the
 * result is the path `buildPath` gives (decisions §4 Revision 2: segments are decoded).
 */
export function encodedPath(
  endpoint: Endpoint,
  pathParams: Partial<Record<string, string>>,
  encode: (i: number) => boolean,
  upperHex: boolean,
): string {
  let i = 0;
  const segments = endpoint.path
    .split('/')
    .slice(1)
    .map((t) => {
      const raw = t.startsWith('{') ? pathParams[t.slice(1, -1)] : t;
      if (raw === undefined) throw new Error(`path parameter ${t} is required by ${endpoint.path}`);
      return Array.from(raw, (c) => {
        const pick = encode(i++);
        if (!pick && UNRESERVED.test(c)) return c;
        return Array.from(new TextEncoder().encode(c), (b) => {
          const h = b.toString(16).padStart(2, '0');
          return `%${upperHex ? h.toUpperCase() : h}`;
        }).join('');
      }).join('');
    });
  return `/${segments.join('/')}`;
}

/** Bad input gets the documented 400/404 with the error body; nothing gets a 5xx (decisions §4, §5). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'INPUT-400-BAD-DATE',
    area: 'input',
    title:
      'start, end and date that are not a real calendar day of the years 0001-9999 as YYYY-MM-DD answer 400 naming the parameter, on every endpoint that takes them',
    clause: 'decisions §4 (dates), §4 Revision 2 (same rules everywhere; years 0001-9999)',
    endpoints: DATED_ENDPOINTS,
    async run(ctx) {
      const samples = (await sampleCalls(ctx)).filter((s) => DATED_ENDPOINTS.includes(s.endpoint));
      const targets = samples.flatMap((s) =>
        endpointById(s.endpoint)
          .query.filter((p) => DATE_PARAMS.includes(p))
          .map((param) => ({ sample: s, param })),
      );
      if (targets.length === 0) return ctx.skip('no endpoint taking a date could be sampled');
      const send = (t: (typeof targets)[number], value: string) =>
        ctx.call(
          t.sample.endpoint,
          withQuery(t.sample, setParam(t.sample.call.query ?? [], t.param, value)),
        );
      // every endpoint and parameter: the year bounds and one more bad date (rotating)
      await forEachCase(
        ctx,
        targets.flatMap((t, i) =>
          ['0000-01-01', '10000-01-01', BAD_DATES[3 + (i % (BAD_DATES.length - 3))]!].map(
            (value) => ({ t, value }),
          ),
        ),
        async ({ t, value }) => expectError(await send(t, value), 400, [t.param]),
      );
      // the first and last days of the range are real days: never a 400
      await forEachCase(
        ctx,
        targets.flatMap((t) => EDGE_DATES.map((value) => ({ t, value }))),
        async ({ t, value }) => {
          const ex = await send(t, value);
          const list = endpointById(t.sample.endpoint).response === 'list';
          const ok = ex.status === 200 || (list && ex.status === 204);
          if (!ok)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for ${t.param}=${value}, a real day of years 0001-9999; expected ${list ? '200 or 204' : '200'}`,
              { exchange: ex },
            );
        },
      );
      await ctx.property(
        fc.tuple(fc.constantFrom(...targets), fc.constantFrom(...BAD_DATES)),
        async ([t, value]) => expectError(await send(t, value), 400, [t.param]),
        { numRuns: Math.max(ctx.numRuns, BAD_DATES.length) },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-START-AFTER-END',
    area: 'input',
    title: 'start after end answers 400',
    clause: 'decisions §4 (start > end: 400)',
    endpoints: ['teams.tags', 'stats.team', 'clicks.list'],
    async run(ctx) {
      for (const endpoint of ['teams.tags', 'stats.team', 'clicks.list'] as const) {
        await each(ctx, async () =>
          expectError(
            await ctx.call(endpoint, {
              query: [
                ['start', '2024-03-02'],
                ['end', '2024-03-01'],
              ],
            }),
            400,
            ['start', 'end'],
          ),
        );
      }
    },
  }),
  defineCheck({
    id: 'INPUT-400-BAD-BOOLEAN',
    area: 'input',
    title: 'a boolean other than true/false/1/0 (any case) answers 400 naming the parameter',
    clause: 'decisions §4 (booleans)',
    endpoints: ['teams.tags', 'stats.team'],
    async run(ctx) {
      const targets: [EndpointId, string][] = [
        ['teams.tags', 'isOpened'],
        ['teams.tags', 'isUnopened'],
        ['teams.tags', 'isClicked'],
        ['teams.tags', 'isUnclicked'],
        ['stats.team', 'aggregateData'],
      ];
      await ctx.property(
        fc.tuple(fc.constantFrom(...targets), fc.constantFrom(...BAD_BOOLEANS)),
        async ([[endpoint, param], value]) => {
          expectError(await ctx.call(endpoint, { query: [[param, value]] }), 400, [param]);
        },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-BAD-ENUM',
    area: 'input',
    title:
      'type other than admin/manager/user and rtn other than json/text/html (both case-sensitive) answer 400',
    clause: 'decisions §4 (type, rtn), §4 Revision 2 (rtn and type are case-sensitive)',
    endpoints: ['teams.list', 'stats.team', 'teams.tags', 'contacts.list'],
    async run(ctx) {
      for (const [endpoint, param, value] of [
        ['teams.list', 'type', 'owner'],
        ['teams.list', 'type', 'Admin'],
        ['stats.team', 'type', 'Admin '],
        ['teams.tags', 'rtn', 'xml'],
        ['teams.tags', 'rtn', 'JSON'],
        ['contacts.list', 'rtn', 'JSONP'],
      ] as const) {
        await each(ctx, async () =>
          expectError(await ctx.call(endpoint, { query: [[param, value]] }), 400, [param]),
        );
      }
    },
  }),
  defineCheck({
    id: 'INPUT-400-EMPTY-VALUE',
    area: 'input',
    title:
      'an empty value (type=, start=, rtn=, cursor=, isOpened=, …) answers 400 naming the parameter, on every endpoint that takes it',
    clause: 'decisions §4 Revision 2 (an empty value is a bad value)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      const cases = samples.flatMap((s) =>
        checkedParams(endpointById(s.endpoint)).map((param) => ({ s, param })),
      );
      await forEachCase(ctx, cases, async ({ s, param }) => {
        const ex = await ctx.call(
          s.endpoint,
          withQuery(s, setParam(s.call.query ?? [], param, '')),
        );
        if (ex.status !== 400)
          throw new Violation(
            `${describe(ex)} answered ${ex.status} for the empty ${param}=; expected 400 naming '${param}' (an empty value is a bad value, not an absent one)`,
            { exchange: ex },
          );
        expectError(ex, 400, [param]);
      });
    },
  }),
  defineCheck({
    id: 'INPUT-400-DATE-REQUIRED',
    area: 'input',
    title: '/tags/daily/{tagID} without date answers 400 naming date',
    clause: 'decisions §4 (date is required on endpoint 14)',
    endpoints: ['tags.daily'],
    async run(ctx) {
      const daily = (await sampleCalls(ctx)).find((s) => s.endpoint === 'tags.daily');
      if (daily === undefined) return ctx.skip('no tag is visible to the credential');
      expectError(await ctx.call('tags.daily', { pathParams: daily.call.pathParams! }), 400, [
        'date',
      ]);
    },
  }),
  defineCheck({
    id: 'INPUT-400-UNKNOWN-PARAM',
    area: 'input',
    title:
      "an unknown query parameter (a typo like isOpen, or another endpoint's parameter like start on /contacts) answers 400 whose message names it and the allowed ones",
    clause:
      'decisions §4 (unknown query parameter), §4 Revision 2 (a parameter of another endpoint is unknown)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const typos = ['isOpen', 'startDate', 'page', 'limit', 'aggregate', 'Rtn', 'NEXT'];
      const samples = await sampleCalls(ctx);
      const send = async (s: Sample, name: string, value: string) => {
        const allowed = endpointById(s.endpoint).query;
        const ex = await ctx.call(
          s.endpoint,
          withQuery(s, [...(s.call.query ?? []), [name, value]]),
        );
        if (ex.status !== 400)
          throw new Violation(
            `${describe(ex)} answered ${ex.status}; '${name}' is not a parameter of this endpoint (allowed: ${allowed.join(', ')}), expected 400`,
            { exchange: ex },
          );
        expectError(ex, 400, [name]);
        const message = (JSON.parse(ex.body) as ErrorBody).message;
        const missing = allowed.filter((p) => !IGNORED_PARAMS.has(p) && !namesWord(message, p));
        if (missing.length > 0)
          throw new Violation(
            `${describe(ex)}: message ${JSON.stringify(message)} does not list the allowed parameters (${missing.join(', ')} missing)`,
            { exchange: ex },
          );
      };
      // every parameter of the API on every endpoint that does not take it, with a valid value
      const foreign = samples.flatMap((s) => {
        const own = new Set<string>(endpointById(s.endpoint).query);
        return PARAM_NAMES.filter((p) => !own.has(p)).map((param) => ({ s, param }));
      });
      await forEachCase(ctx, foreign, ({ s, param }) => send(s, param, VALID_VALUE[param]));
      await ctx.property(
        fc.tuple(fc.constantFrom(...samples), fc.constantFrom(...typos)),
        async ([s, typo]) => send(s, typo, 'true'),
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-BAD-CURSOR',
    area: 'input',
    title:
      'a cursor not matching [0-9]+ answers 400 naming cursor on every endpoint, single-object ones included; a valid cursor is ignored on them; a huge cursor is past the end',
    clause: 'decisions §3 Revision 2 (cursor is [0-9]+, no size limit, on every endpoint)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      await forEachCase(
        ctx,
        samples.flatMap((s) => BAD_CURSORS.map((cursor) => ({ s, cursor }))),
        async ({ s, cursor }) => {
          const ex = await ctx.call(
            s.endpoint,
            withQuery(s, setParam(s.call.query ?? [], 'cursor', cursor)),
          );
          if (ex.status !== 400)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for cursor ${JSON.stringify(cursor)}, which is not [0-9]+; expected 400 naming 'cursor' (on every endpoint, ${endpointById(s.endpoint).response === 'single' ? 'single-object ones included' : 'lists included'})`,
              { exchange: ex },
            );
          expectError(ex, 400, ['cursor']);
        },
      );
      // single-object endpoints: a valid cursor changes nothing
      await forEachCase(
        ctx,
        singles(samples).flatMap((s) =>
          ['0', '7', '00012', HUGE_CURSOR].map((cursor) => ({ s, cursor })),
        ),
        async ({ s, cursor }) => {
          const plain = await ctx.call(s.endpoint, s.call);
          const ex = await ctx.call(
            s.endpoint,
            withQuery(s, setParam(s.call.query ?? [], 'cursor', cursor)),
          );
          ensureSameAnswer(s.endpoint, plain, ex, `with the valid cursor=${cursor}`, {
            urls: 'ignore',
          });
        },
      );
      await forEachCase(ctx, lists(samples), async (s) => {
        // leading zeros: cursor=000 is cursor 0
        const plain = await ctx.call(s.endpoint, s.call);
        const zeros = await ctx.call(
          s.endpoint,
          withQuery(s, setParam(s.call.query ?? [], 'cursor', '000')),
        );
        ensureSameAnswer(s.endpoint, plain, zeros, 'with cursor=000, i.e. cursor 0', {
          urls: 'ignore',
        });
        // 40 digits: valid, past the end of the list
        const huge = await ctx.call(
          s.endpoint,
          withQuery(s, setParam(s.call.query ?? [], 'cursor', HUGE_CURSOR)),
        );
        ensurePastEnd(ctx, s.endpoint, huge, 'a cursor of 40 digits, past the end');
      });
    },
  }),
  defineCheck({
    id: 'INPUT-NEXT-TOTAL-IGNORED',
    area: 'input',
    title:
      'total and next, with any value, empty or repeated, change nothing on any endpoint: same status, data, paging and X-Total-Count',
    clause: 'decisions §3 Revision 2 (next accepted and ignored like total), §4 Revision 2',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      await forEachCase(
        ctx,
        samples.flatMap((s) => FIXED_IGNORED.map((extra) => ({ s, extra }))),
        ({ s, extra }) => ensureIgnored(ctx, s, extra, Number.POSITIVE_INFINITY, undefined),
      );
      await ctx.property(
        fc.record({
          s: fc.constantFrom(...samples),
          extra: fc.array(fc.tuple(fc.constantFrom('total', 'next'), arbIgnoredValue), {
            minLength: 1,
            maxLength: 4,
          }),
          at: fc.nat({ max: 2 }),
          cursor: fc.constantFrom(undefined, '1', String(ctx.profile.pageSize)),
        }),
        ({ s, extra, at, cursor }) => ensureIgnored(ctx, s, extra, at, cursor),
      );
    },
  }),
  defineCheck({
    id: 'INPUT-404-UNKNOWN-ID',
    area: 'input',
    title: 'an unknown member, group, tag or contact id answers 404 with the error body',
    clause: 'decisions §2, §4 (group segment), §5',
    endpoints: ENDPOINTS.filter((e) => e.pathParams.length > 0).map((e) => e.id),
    async run(ctx) {
      const unknown = 'zz0000unknown0000id00zz';
      for (const e of ENDPOINTS.filter((x) => x.pathParams.length > 0)) {
        const pathParams = Object.fromEntries(e.pathParams.map((p) => [p, unknown]));
        const query: [string, string][] = e.requiredQuery.includes('date')
          ? [['date', '2024-01-01']]
          : [];
        await each(ctx, async () => expectError(await ctx.call(e.id, { pathParams, query }), 404));
      }
    },
  }),
  defineCheck({
    id: 'INPUT-404-GROUP-NAME-EXACT',
    area: 'input',
    title:
      "a visible group's exact name answers like its id; the name in another letter case or a proper prefix answers 404",
    clause: 'decisions §2 Revision 2 (group segment: exact id, else exact case-sensitive name)',
    endpoints: ['teams.group', 'stats.group'],
    async run(ctx) {
      const d = await ctx.discover();
      if (d.groups.length === 0)
        return ctx.skip('no group is visible to the credential (no visible member has one)');
      // every group the segment may resolve to: the discovered ones, and in fixture mode the
      // dataset's visible groups (an admin also sees groups without members)
      const visible: GroupRef[] = [...d.groups];
      const caller = ctx.oracle?.callerOf(ctx.primary);
      if (ctx.oracle !== undefined && caller !== undefined)
        for (const g of visibleGroups(ctx.oracle.index.dataset, caller))
          if (!visible.some((v) => v.groupID === g.groupID))
            visible.push({ groupID: g.groupID, groupName: g.groupName });
      const taken = new Set(visible.flatMap((g) => [g.groupID, g.groupName]));
      const aggregated: Pair[] = [['aggregateData', 'true']];
      await forEachCase(ctx, d.groups, async (g) => {
        const target = resolveGroupSegment(visible, g.groupName)!;
        const what = `group name ${JSON.stringify(g.groupName)} instead of the id ${target.groupID} it resolves to`;
        const byId = await ctx.call('teams.group', { pathParams: { group: target.groupID } });
        const byName = await ctx.call('teams.group', { pathParams: { group: g.groupName } });
        ensureSameAnswer('teams.group', byId, byName, what, { urls: 'ignore' });
        ensureSameAnswer(
          'stats.group',
          await ctx.call('stats.group', {
            pathParams: { group: target.groupID },
            query: aggregated,
          }),
          await ctx.call('stats.group', { pathParams: { group: g.groupName }, query: aggregated }),
          what,
          { urls: 'ignore' },
        );
      });
      const misses = groupNearMisses(d.groups, taken);
      await forEachCase(
        ctx,
        misses.flatMap((m) =>
          (['teams.group', 'stats.group'] as const).map((endpoint) => ({ ...m, endpoint })),
        ),
        async ({ segment, group, how, endpoint }) => {
          const ex = await ctx.call(endpoint, { pathParams: { group: segment } });
          if (ex.status !== 404)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for ${JSON.stringify(segment)}, ${how} of visible group ${group.groupID} ${JSON.stringify(group.groupName)}; expected 404 (a group segment is an exact id or an exact, case-sensitive name)`,
              { exchange: ex },
            );
          expectError(ex, 404);
        },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-PATH-SEGMENTS-DECODED',
    area: 'input',
    title:
      'path segments are percent-decoded before matching: /%74eams answers like /teams, an encoded id like the plain one',
    clause: 'decisions §4 Revision 2 (paths: each segment is percent-decoded)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      const compare = async (s: Sample, path: string) => {
        const plain = await ctx.call(s.endpoint, s.call);
        const ex = await ctx.raw({ path, query: s.call.query ?? [], credential: ctx.primary });
        ensureSameAnswer(s.endpoint, plain, ex, `the path percent-encoded`, { urls: 'ignore' });
      };
      const first = (i: number) => i === 0;
      // /%74eams, /co%6etacts, /%73tats…: the first character of the path; and for each
      // endpoint with an id, the first character of the id (hex in either case)
      await forEachCase(
        ctx,
        samples.flatMap((s, k) => {
          const e = endpointById(s.endpoint);
          const idStart = e.path.indexOf('{');
          const firstOfId = (i: number) => i === e.path.slice(0, idStart).replace(/\//g, '').length;
          return [
            encodedPath(e, s.call.pathParams ?? {}, first, k % 2 === 0),
            ...(idStart < 0
              ? []
              : [encodedPath(e, s.call.pathParams ?? {}, firstOfId, k % 2 === 1)]),
          ].map((path) => ({ s, path }));
        }),
        ({ s, path }) => compare(s, path),
      );
      await ctx.property(
        fc.record({
          s: fc.constantFrom(...samples),
          mask: fc.array(fc.boolean(), { minLength: 1, maxLength: 48 }),
          upper: fc.boolean(),
        }),
        ({ s, mask, upper }) => {
          const pick = mask.some((b) => b)
            ? (i: number) => mask[i % mask.length]!
            : (i: number) => i === 0;
          return compare(
            s,
            encodedPath(endpointById(s.endpoint), s.call.pathParams ?? {}, pick, upper),
          );
        },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-404-UNKNOWN-PATH',
    area: 'input',
    title: 'an unknown path (an empty segment included) answers 404 with the error body',
    clause: 'decisions §4 (unknown path: 404), §4 Revision 2 (empty segments not normalised), §5',
    endpoints: [],
    async run(ctx) {
      for (const path of [
        '/nothing-here',
        '/teams/members',
        '/teams/tags/extra',
        '/stats/',
        '/teams//tags',
      ]) {
        await each(ctx, async () =>
          expectError(await ctx.raw({ path, credential: ctx.primary }), 404),
        );
      }
    },
  }),
  defineCheck({
    id: 'ERR-BODY-JSON',
    area: 'input',
    title:
      'every error (400, 401, 404) is a JSON {statusCode, error, message} body, whatever rtn asked for',
    clause: 'decisions §5',
    endpoints: ['teams.tags', 'teams.member', 'contacts.list'],
    async run(ctx) {
      for (const rtn of ['json', 'text', 'html'] as const) {
        const cases: [Promise<Exchange>, number][] = [
          [
            ctx.call('teams.tags', {
              query: [
                ['rtn', rtn],
                ['isOpened', 'maybe'],
              ],
            }),
            400,
          ],
          [
            ctx.call('teams.member', {
              pathParams: { memberID: 'zz0000unknown' },
              query: [['rtn', rtn]],
            }),
            404,
          ],
          [ctx.call('contacts.list', { query: [['rtn', rtn]], credential: null }), 401],
        ];
        for (const [p, status] of cases) await each(ctx, async () => expectError(await p, status));
      }
    },
  }),
  defineCheck({
    id: 'INPUT-NO-5XX',
    area: 'input',
    title: 'no input yields a 5xx: generated query parameters answer 200, 204, 400 or 404',
    clause: 'decisions §5 (a 5xx is always a defect)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      const names = [
        'start',
        'end',
        'date',
        'type',
        'rtn',
        'cursor',
        'total',
        'next',
        'isOpened',
        'aggregateData',
        'x',
      ];
      const value = fc.oneof(
        fc.string({ maxLength: 12 }),
        arbHostileString,
        fc.constantFrom(
          '2024-02-29',
          '9999-12-31',
          '0000-01-01',
          '-1',
          '1e309',
          '%',
          'true',
          '99999999999999999999',
        ),
      );
      await ctx.property(
        fc.tuple(
          fc.constantFrom(...samples),
          fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 3 }),
        ),
        async ([{ endpoint, call }, extra]) => {
          const ex = await ctx.call(endpoint, {
            ...call,
            query: [...(call.query ?? []), ...extra],
          });
          if (![200, 204, 400, 404].includes(ex.status))
            throw new Violation(
              `${describe(ex)} answered ${ex.status}, expected 200, 204, 400 or 404`,
              { exchange: ex },
            );
          if (ex.status >= 400) errorBodyProblem(ex);
        },
      );
    },
  }),
];
