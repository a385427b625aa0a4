import {
  AccountType,
  charsetOf,
  compareTables,
  defaultOf,
  ENDPOINT_IDS,
  type EndpointId,
  endpointById,
  type ParamName,
  QUERY_PARAMS,
  TAG_FILTER_PARAMS,
  type Table,
  TimeSlice,
  toTable,
} from '@tagtrack/core';
import fc from 'fast-check';
import {
  bodyTableInSlices,
  comparable,
  linksOf,
  listsEvents,
  mediaType,
  normaliseTable,
} from '../../check/compare.ts';
import type { CheckContext, EndpointCall } from '../../check/context.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, ensure, type FailureKind, Violation } from '../../check/failure.ts';
import {
  firstDifference,
  middleWindow,
  type Sample,
  sampleCalls,
  sendDays,
  walkedEventDays,
  windowQuery,
  withPicks,
} from '../../check/sample.ts';
import type { Exchange } from '../../http/client.ts';
import { ensureSameAnswerInSlices } from '../input/same-answer.ts';
import { arbWindow, members, type Pairs, windowDays } from './reads.ts';

/**
 * The table an rtn=text or html response carries, timestamps normalised (`bodyTableInSlices`). Throws a Violation: kind `status` unless
 * it answered 200, kind `format` when the body does not parse as the format's table.
 */
async function tableOf(rtn: 'text' | 'html', ex: Exchange): Promise<Table> {
  ensure(ex.status === 200, `${describe(ex)} answered ${ex.status}, expected 200`, {
    kind: 'status',
    exchange: ex,
  });
  try {
    return await bodyTableInSlices(rtn, ex.body);
  } catch (err) {
    throw new Violation(`${describe(ex)}: ${(err as Error).message}`, {
      kind: 'format',
      exchange: ex,
    });
  }
}

/** The characters text escapes (spec §8 Revision 2): CR, LF, tab, backslash. */
const ESCAPED = ['\r', '\n', '\t', '\\'] as const;

/** Whether a string anywhere in `value` holds `char`. */
function holds(value: unknown, char: string): boolean {
  if (typeof value === 'string') return value.includes(char);
  if (Array.isArray(value)) return value.some((v) => holds(v, char));
  if (value !== null && typeof value === 'object')
    return Object.values(value).some((v) => holds(v, char));
  return false;
}

/**
 * For each of `chars`, the index of the first of `records` a string of which holds it, or -1
 * (what `chars.map((c) => records.findIndex((r) => holds(r, c)))` gives), in one pass in time
 * slices (a step per record; the event loop turns between slices), ending once all are found.
 */
export async function firstIndexHolding(
  records: readonly unknown[],
  chars: readonly string[],
  slice: TimeSlice = new TimeSlice(),
): Promise<number[]> {
  const at = chars.map(() => -1);
  let missing = chars.length;
  for (let i = 0; i < records.length && missing > 0; i++) {
    for (const [k, c] of chars.entries()) {
      if (at[k] === -1 && holds(records[i], c)) {
        at[k] = i;
        missing--;
      }
    }
    if (slice.step()) await slice.pause();
  }
  return at;
}

/** Tag filters and account types: the values generated queries draw from. */
const FILTERS = TAG_FILTER_PARAMS;
const TYPES = AccountType.options;

/** Random generated queries of REL-FORMATS-AGREE after its picks, at most (each costs 3 requests). */
const GENERATED_RUNS = 4;

/**
 * Each canonical boolean value and its other accepted spellings (spec §6: `true`,
 * `false`, `1`, `0` in any letter case).
 */
const SPELLINGS = [
  ['true', ['TRUE', 'tRuE', '1']],
  ['false', ['FALSE', 'fAlSe', '0']],
] as const;

/** Whether query parameter `name` is a boolean (its default is one: spec §6). */
function isBooleanParam(name: ParamName): boolean {
  return typeof defaultOf(QUERY_PARAMS[name]) === 'boolean';
}

/** A generated query of REL-FORMATS-AGREE: which sampled call, and which parameters to add. */
interface QuerySpec {
  readonly sample: number;
  readonly window: boolean;
  readonly filter: ParamName | null;
  readonly type: AccountType | null;
  readonly aggregateData: 'true' | 'false' | null;
  readonly cursor: number;
}

/** The windows generated queries use: the middle third of the send days, and of the event days. */
async function queryDays(ctx: CheckContext) {
  const eventDays = await walkedEventDays(ctx);
  return {
    tags: middleWindow(sendDays((await ctx.discover()).tags)),
    events: middleWindow(eventDays),
  };
}

/** `sample` with the parameters of `spec` its endpoint takes (the others left out). */
function generatedCall(
  sample: Sample,
  spec: QuerySpec,
  days: Awaited<ReturnType<typeof queryDays>>,
): Sample {
  const e = endpointById(sample.endpoint);
  const takes = (name: ParamName) => e.query.includes(name);
  const query: Pairs = [...((sample.call.query ?? []) as Pairs)];
  const window = listsEvents(sample.endpoint) ? days.events : days.tags;
  if (spec.window && takes('start') && window !== undefined)
    query.push(...windowQuery(window.start, window.end));
  if (spec.filter !== null && takes(spec.filter)) query.push([spec.filter, 'true']);
  if (spec.type !== null && takes('type')) query.push(['type', spec.type]);
  if (spec.aggregateData !== null && takes('aggregateData'))
    query.push(['aggregateData', spec.aggregateData]);
  if (spec.cursor > 0 && e.response === 'list') query.push(['cursor', String(spec.cursor)]);
  return { endpoint: sample.endpoint, call: { ...sample.call, query } };
}

/**
 * Fetches `call` as rtn=json, text and html (those the profile supports) and throws a
 * Violation unless the tables carry the json records (timestamps as instants, columns by
 * name, extra columns ignored, event ties free). Resolves whether a table was compared. The
 * verdict rests on these reads alone: on data that moves, a mismatch is read again on still
 * data (`ctx.onStillData`, spec §5 Revision 3) before it stands.
 */
function formatsAgree(
  ctx: CheckContext,
  endpoint: EndpointId,
  call: EndpointCall,
): Promise<boolean> {
  return ctx.onStillData((fresh) =>
    formatsAgreeNow(ctx, endpoint, fresh ? { ...call, cache: false } : call),
  );
}

/** {@link formatsAgree} on the answers read now (`call.cache: false`: none from the cache). */
async function formatsAgreeNow(
  ctx: CheckContext,
  endpoint: EndpointId,
  call: EndpointCall,
): Promise<boolean> {
  const jsonEx = await ctx.call(endpoint, {
    ...call,
    query: [...(call.query ?? []), ['rtn', 'json']],
  });
  const e = endpointById(endpoint);
  const data =
    e.response === 'list' ? ctx.page(endpoint, jsonEx).data : [ctx.envelope(endpoint, jsonEx).data];
  const expected = normaliseTable(toTable(e, data));
  let compared = false;
  for (const rtn of ['text', 'html'] as const) {
    if (!ctx.profile.rtn.includes(rtn)) continue;
    const ex = await ctx.call(endpoint, {
      ...call,
      query: [...(call.query ?? []), ['rtn', rtn]],
    });
    // a 204 has no records (the paging end's form is PAGE-END-*'s to judge)
    const table =
      ex.status === 204 && e.response === 'list'
        ? { columns: expected.columns, rows: [] }
        : await tableOf(rtn, ex);
    compared = true;
    const diff = compareTables(expected, table, {
      unordered: listsEvents(endpoint),
    });
    ensure(
      diff === undefined,
      () => `${describe(ex)} does not carry the rtn=json records: ${diff}`,
      {
        kind: 'value',
        exchange: ex,
      },
    );
  }
  return compared;
}

/**
 * Sends `call` with boolean parameter `name` in each canonical form and in each other
 * accepted spelling (and absent, the default false) and throws a Violation unless each
 * spelling answers like its canonical form (REL-BOOLEAN-SPELLINGS).
 */
async function spellingsAgree(
  ctx: CheckContext,
  endpoint: EndpointId,
  call: EndpointCall,
  name: ParamName,
): Promise<void> {
  const send = (value?: string) =>
    ctx.call(endpoint, {
      ...call,
      query: [...(call.query ?? []), ...(value === undefined ? [] : [[name, value] as const])],
    });
  for (const [canonical, spellings] of SPELLINGS) {
    const plain = await send(canonical);
    // the spelling (or none) answers as `plain` does
    const same = async (what: string, value?: string) =>
      ensureSameAnswerInSlices(endpoint, plain, await send(value), what, { urls: 'ignore' });
    for (const spelling of spellings)
      await same(`${name}=${spelling}, the same as ${name}=${canonical}`, spelling);
    if (canonical === 'false') await same(`${name} absent, its default ${name}=false`);
  }
}

/** The visible member with the most tags (the richest subject for member endpoints), if any. */
async function busiestMemberID(ctx: CheckContext): Promise<string | undefined> {
  let best: string | undefined;
  let most = -1;
  for (const m of await members(ctx)) {
    const n = (await ctx.walk('teams.memberTags', { pathParams: { memberID: m.memberID } })).records
      .length;
    if (n > most) [best, most] = [m.memberID, n];
  }
  return best;
}

/**
 * The same records in another form: a single record and its list, rtn=json/text/html, HEAD and
 * GET, query parameters in another order (spec §3, §6, §8).
 */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'REL-SINGLE-MATCHES-LIST',
    title: '/teams/member/{id} and /contacts/{id} answer the record the lists carry',
    clause: 'spec §2 endpoints 3 and 16',
    endpoints: ['teams.member', 'teams.list', 'contacts.get', 'contacts.list'],
    async run(ctx) {
      const ms = await members(ctx);
      const contacts = (await ctx.walk('contacts.list')).records;
      const arb = fc.oneof(
        ...(ms.length ? [fc.constantFrom(...ms).map((m) => ['teams.member', m] as const)] : []),
        ...(contacts.length
          ? [fc.constantFrom(...contacts).map((c) => ['contacts.get', c] as const)]
          : []),
      );
      await ctx.property(arb, async ([endpoint, record]) => {
        const pathParams =
          'contactID' in record ? { contactID: record.contactID } : { memberID: record.memberID };
        const ex = await ctx.call(endpoint, { pathParams });
        const { data } = ctx.envelope(endpoint, ex);
        const diff = firstDifference(record, data);
        ensure(
          diff === undefined,
          () => `${describe(ex)} differs from the list's record: ${diff}`,
          { kind: 'value', exchange: ex },
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-FORMATS-AGREE',
    wholeLists: true,
    title:
      'rtn=json, text and html carry the same records, for the same generated queries (windows, filters, type, aggregateData, cursor > 0) on every endpoint',
    clause: 'spec §8 (the three formats carry the same records)',
    endpoints: [...ENDPOINT_IDS],
    skipIf: (env) =>
      env.profile.rtn.length < 2 ? 'the profile supports only one response format' : undefined,
    async run(ctx) {
      // every endpoint as the primary; the other callers share them out (ctx.callerShare)
      const samples = ctx.callerShare(await sampleCalls(ctx));
      if (samples.length === 0) ctx.skip('no endpoint could be sampled');
      // every endpoint as sampled (cursor 0, no parameters)
      let compared = 0;
      await ctx.each(samples, async ({ endpoint, call }) => {
        if (await formatsAgree(ctx, endpoint, call)) compared++;
      });
      if (compared === 0) ctx.skip('no sampled endpoint could be fetched in two formats');
      // in each sampled list, the pages of the first values holding a character the formats
      // must escape (CR, LF, tab, backslash: spec §8 Revision 2), picked from the data
      const ps = ctx.profile.pageSize;
      const pages: Sample[] = [];
      for (const { endpoint, call } of samples) {
        if (endpointById(endpoint).response !== 'list') continue;
        const records = (await ctx.walk(endpoint, call)).records;
        const cursors = new Set(
          (await firstIndexHolding(records, ESCAPED)).map((at) => at - (at % ps)),
        );
        for (const cursor of [...cursors].filter((c) => c > 0).sort((a, b) => a - b))
          pages.push({
            endpoint,
            call: { ...call, query: [...(call.query ?? []), ['cursor', String(cursor)]] },
          });
      }
      await ctx.each(pages, async ({ endpoint, call }) => {
        await formatsAgree(ctx, endpoint, call);
      });
      // then generated queries: every endpoint once with all the parameters it takes (picked
      // from the data and the seed, always tried), then random combinations
      const days = await queryDays(ctx);
      const pick = (i: number, n: number) => (((ctx.seed + i) % n) + n) % n;
      const specs = samples.map(
        (s, i): QuerySpec => ({
          sample: i,
          window: true,
          filter: FILTERS[pick(i, FILTERS.length)]!,
          type: TYPES[pick(i, TYPES.length)]!,
          aggregateData: pick(i, 2) === 0 ? 'true' : 'false',
          cursor: endpointById(s.endpoint).response === 'list' ? 1 : 0,
        }),
      );
      const arb = fc.record({
        sample: fc.nat(samples.length - 1),
        window: fc.boolean(),
        filter: fc.option(fc.constantFrom(...FILTERS)),
        type: fc.option(fc.constantFrom(...TYPES)),
        aggregateData: fc.option(fc.constantFrom('true' as const, 'false' as const)),
        cursor: fc.nat(3),
      });
      await ctx.property(
        arb,
        async (spec) => {
          const { endpoint, call } = generatedCall(samples[spec.sample]!, spec, days);
          await formatsAgree(ctx, endpoint, call);
        },
        withPicks(ctx, specs, specs.length + Math.min(ctx.numRuns, GENERATED_RUNS)),
      );
    },
  }),
  defineCheck({
    id: 'REL-BOOLEAN-SPELLINGS',
    title:
      'every boolean parameter answers the same in every accepted spelling (true, false, 1, 0 in any letter case) as in its canonical form, and absent as its default false (aggregateData absent: per-day records with date)',
    clause: 'spec §6 (booleans), §5 (aggregateData=false, absent included)',
    endpoints: [
      'teams.tags',
      'teams.memberTags',
      'stats.team',
      'stats.teamAlias',
      'stats.group',
      'stats.member',
    ],
    async run(ctx) {
      const busiest = await busiestMemberID(ctx);
      const cases: { endpoint: EndpointId; call: EndpointCall; name: ParamName }[] = [];
      for (const { endpoint, call } of ctx.callerShare(await sampleCalls(ctx))) {
        const e = endpointById(endpoint);
        const c: EndpointCall =
          busiest !== undefined && e.pathParams.includes('memberID')
            ? { ...call, pathParams: { ...call.pathParams, memberID: busiest } }
            : call;
        for (const name of e.query.filter(isBooleanParam)) cases.push({ endpoint, call: c, name });
      }
      if (cases.length === 0) ctx.skip('no endpoint with a boolean parameter could be sampled');
      // each case's verdict rests on its own reads: on moving data a difference is read again
      await ctx.each(cases, ({ endpoint, call, name }) =>
        ctx.onStillData((fresh) =>
          spellingsAgree(ctx, endpoint, fresh ? { ...call, cache: false } : call, name),
        ),
      );
    },
  }),
  defineCheck({
    id: 'REL-HEAD-MATCHES-GET',
    title:
      'HEAD answers like GET without a body: same status, Content-Type, X-Total-Count and Link',
    clause: 'spec §6 (HEAD works like GET without a body), §5 (X-Total-Count)',
    endpoints: [...ENDPOINT_IDS],
    async run(ctx) {
      let compared = 0;
      for (const { endpoint, call } of ctx.callerShare(await sampleCalls(ctx))) {
        for (const rtn of ctx.profile.rtn) {
          const c = { ...call, query: [...(call.query ?? []), ['rtn', rtn] as const] };
          const get = await ctx.call(endpoint, c);
          const head = await ctx.call(endpoint, { ...c, method: 'HEAD' });
          const problems: string[] = [];
          const kinds: FailureKind[] = [];
          if (head.status !== get.status) {
            problems.push(`status ${head.status}, GET ${get.status}`);
            kinds.push('status');
          }
          // compared by meaning: media type and charset, the count, the linked pages
          const same: Record<string, (h: string | undefined) => string> = {
            'content-type': (h) => `${mediaType(h)}; charset=${charsetOf(h) ?? ''}`,
            'x-total-count': (h) => (h ?? '').trim(),
            link: (h) => JSON.stringify(linksOf(h)),
          };
          for (const [h, norm] of Object.entries(same)) {
            if (norm(head.responseHeaders[h]) !== norm(get.responseHeaders[h])) {
              problems.push(
                `${h} ${JSON.stringify(head.responseHeaders[h])}, GET ${JSON.stringify(get.responseHeaders[h])}`,
              );
              kinds.push('header');
            }
          }
          compared++;
          ctx.compared();
          if (head.body !== '') {
            problems.push(`a ${head.body.length}-character body`);
            kinds.push('extra');
          }
          // one failure per request, naming every difference
          await ctx.attempt(() =>
            ensure(problems.length === 0, () => `${describe(head)}: ${problems.join('; ')}`, {
              kind: kinds[0]!,
              exchange: head,
            }),
          );
        }
      }
      if (compared === 0) ctx.skip('no endpoint could be sampled');
    },
  }),
  defineCheck({
    id: 'REL-PARAM-ORDER',
    title: 'the order of query parameters does not change the answer',
    clause: 'spec §3 (parameters signed in request order), §6',
    endpoints: ['teams.tags', 'stats.team'],
    async run(ctx) {
      const days = await windowDays(ctx);
      const arb = fc
        .record({
          endpoint: fc.constantFrom<EndpointId>('teams.tags', 'stats.team'),
          window: arbWindow(days),
          flag: fc.constantFrom('isOpened', 'isUnclicked', 'aggregateData', 'type'),
        })
        .chain(({ endpoint, window, flag }) => {
          const pairs: Pairs = [...windowQuery(window.start, window.end), ['rtn', 'json']];
          if (endpoint === 'teams.tags' && (flag === 'isOpened' || flag === 'isUnclicked'))
            pairs.push([flag, 'true']);
          if (endpoint === 'stats.team' && flag === 'aggregateData')
            pairs.push(['aggregateData', 'true']);
          if (endpoint === 'stats.team' && flag === 'type') pairs.push(['type', 'user']);
          return fc.tuple(
            fc.constant(endpoint),
            fc.constant(pairs),
            fc.shuffledSubarray(pairs, { minLength: pairs.length, maxLength: pairs.length }),
          );
        });
      await ctx.property(arb, async ([endpoint, pairs, shuffled]) => {
        const a = await ctx.call(endpoint, { query: pairs });
        const b = await ctx.call(endpoint, { query: shuffled });
        ensure(
          a.status === b.status,
          `${describe(b)} answered ${b.status}, ${describe(a)} ${a.status}`,
          { kind: 'status', exchange: b },
        );
        if (a.status !== 200 && a.status !== 204)
          throw new Violation(`${describe(a)} answered ${a.status}`, {
            kind: 'status',
            exchange: a,
          });
        const diff = firstDifference(
          comparable(endpoint, ctx.page(endpoint, a).data),
          comparable(endpoint, ctx.page(endpoint, b).data),
        );
        ensure(diff === undefined, () => `${describe(b)} differs from ${describe(a)}: ${diff}`, {
          kind: 'value',
          exchange: b,
        });
      });
    },
  }),
];
