import { compareTables, endpointById, runInSlices, type Table } from '@tagtrack/core';
import { bodyTableInSlices, comparableDataSteps, linksOf } from '../../check/compare.ts';
import type { CheckContext, EndpointCall } from '../../check/context.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, type FailureKind, Violation } from '../../check/failure.ts';
import {
  differenceEitherWaySteps,
  firstDifference,
  sampleCalls,
  showPairs,
} from '../../check/sample.ts';
import { parseJson } from '../../check/walk.ts';
import type { Exchange } from '../../http/client.ts';
import {
  cursorIn,
  LISTS,
  listCalls,
  listCallWith,
  type Pairs,
  pagingUrlProblem,
  pick,
  type SizedList,
} from './lists.ts';

/** A form of a request: the rtn sent (`null`: none) and GET or HEAD. */
interface Form {
  readonly label: string;
  readonly rtn: string | null;
  readonly head: boolean;
}

/** The forms of the profile: json without rtn, each declared rtn, HEAD. */
function formsOf(ctx: CheckContext): Form[] {
  return [
    { label: 'default', rtn: null, head: false },
    ...ctx.profile.rtn.map((rtn) => ({ label: `rtn=${rtn}`, rtn, head: false })),
    { label: 'HEAD', rtn: null, head: true },
  ];
}

/** `call` in `form`: its rtn appended, HEAD as method. */
function inForm(call: EndpointCall, form: Form): EndpointCall {
  return {
    ...call,
    query: [
      ...((call.query ?? []) as Pairs),
      ...(form.rtn === null ? [] : [['rtn', form.rtn]]),
    ] as Pairs,
    ...(form.head ? { method: 'HEAD' as const } : {}),
  };
}

/** The table of a 200 text or html body; a {@link Violation} of kind `format` when it does not parse. */
async function tableOf(ex: Exchange, rtn: 'text' | 'html'): Promise<Table> {
  try {
    return await bodyTableInSlices(rtn, ex.body);
  } catch (err) {
    throw new Violation(`${describe(ex)}: ${(err as Error).message}`, {
      kind: 'format',
      exchange: ex,
    });
  }
}

/**
 * Asserts `other` carries the same body as `plain` in `form` (a 200 of the same endpoint):
 * json `data` by value (and `paging` only when `paging` is given: the caller compares it);
 * text and html the same table; HEAD no body.
 */
async function ensureSameBody(
  endpoint: SizedList['endpoint'],
  plain: Exchange,
  other: Exchange,
  form: Form,
  fail: (kind: FailureKind, detail: string) => never,
): Promise<{ a: Record<string, unknown>; b: Record<string, unknown> } | undefined> {
  if (form.head || plain.status !== 200) return undefined;
  if (form.rtn === 'text' || form.rtn === 'html') {
    const diff = compareTables(await tableOf(plain, form.rtn), await tableOf(other, form.rtn));
    if (diff !== undefined) fail('value', `changed the table: ${diff}`);
    return undefined;
  }
  const a = parseJson(plain) as Record<string, unknown>;
  const b = parseJson(other) as Record<string, unknown>;
  const formA = await runInSlices(comparableDataSteps(endpoint, a.data));
  const formB = await runInSlices(comparableDataSteps(endpoint, b.data));
  const diff = await runInSlices(differenceEitherWaySteps(formA, formB));
  if (diff !== undefined) fail('value', `changed the data: ${diff}`);
  return { a, b };
}

/** Values of `total` and `next` a server might take for paging hints, picked from the data. */
function hintsFor(l: SizedList, pageSize: number, cursor: number): Pairs[] {
  return [
    [['total', '1']],
    [['next', String(Math.min(pageSize, Math.max(l.total - 1, 1)))]],
    [
      ['next', String(cursor + 1)],
      ['total', String(Math.max(l.total - 1, 0))],
    ],
  ];
}

/** `total`, `next` and `cursor` beyond what they are for (spec §5 Revision 2). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'PAGE-TOTAL-NEXT-IGNORED',
    title:
      'total and next holding paging-like numbers change nothing on any list endpoint, in any rtn or on HEAD: not the status, data, paging.cursors, X-Total-Count, nor the pages nextURL, previousURL and Link point at (which keep them in their query)',
    clause: 'spec §5 Revision 2 (total and next are ignored and change nothing, paging included)',
    endpoints: LISTS,
    async run(ctx) {
      const lists = (await listCalls(ctx)).filter((l) => l.total > 0);
      if (lists.length === 0) ctx.skip('no list with records could be sampled');
      const ps = ctx.profile.pageSize;
      const forms = formsOf(ctx);
      const unaligned = (l: SizedList) => Math.min(3, l.total - 1);
      // the largest list in json: the hints without a cursor and at an unaligned one; the
      // smallest list of two records or more in every other form (a text or html page of the
      // largest costs most, and any list of two shows a hint taken for a page size or a
      // cursor); every other list: json or HEAD, a hint and a cursor picked by the seed
      const small = [...lists].reverse().find((l) => l.total >= 2) ?? lists[0]!;
      const cases = lists.flatMap((l, i) => [
        ...(i === 0
          ? [
              ...hintsFor(l, ps, 0)
                .slice(0, 2)
                .map((extra) => ({ l, form: forms[0]!, cursor: 0, extra })),
              ...hintsFor(l, ps, unaligned(l)).map((extra) => ({
                l,
                form: forms[0]!,
                cursor: unaligned(l),
                extra,
              })),
            ]
          : [
              {
                l,
                form: pick([forms[0]!, forms[forms.length - 1]!], ctx.seed, i),
                cursor: pick([0, unaligned(l)], ctx.seed, i + 1),
                extra: pick(hintsFor(l, ps, 0), ctx.seed, i + 2),
              },
            ]),
        ...(l === small
          ? forms.slice(1).flatMap((form) =>
              hintsFor(l, ps, 0)
                .slice(0, 2)
                .map((extra) => ({ l, form, cursor: 0, extra })),
            )
          : []),
      ]);
      await ctx.each(
        cases,
        async ({ l, form, cursor, extra }) => {
          const at: Pairs = cursor === 0 ? [] : [['cursor', String(cursor)]];
          const plain = await ctx.call(l.endpoint, inForm(listCallWith(l, ...at), form));
          const other = await ctx.call(l.endpoint, inForm(listCallWith(l, ...extra, ...at), form));
          const before = describe(plain);
          const fail = (kind: FailureKind, detail: string): never => {
            throw new Violation(
              `${describe(other)} (with ${showPairs(extra)}) ${detail}, compared with ${before}`,
              {
                kind,
                exchange: other,
              },
            );
          };
          if (other.status !== plain.status)
            fail('status', `answered ${other.status}, not ${plain.status}`);
          const ta = plain.responseHeaders['x-total-count'];
          const tb = other.responseHeaders['x-total-count'];
          if (ta?.trim() !== tb?.trim())
            fail('header', `has X-Total-Count ${tb ?? '(none)'}, not ${ta ?? '(none)'}`);
          // the same pages linked, each URL the other request's own at that cursor
          const la = linksOf(plain.responseHeaders.link);
          const lb = linksOf(other.responseHeaders.link);
          for (const rel of ['next', 'prev'] as const) {
            if ((la[rel] === undefined) !== (lb[rel] === undefined))
              fail('header', `has ${lb[rel] === undefined ? 'no' : 'a'} Link rel="${rel}"`);
            const c = la[rel] === undefined ? undefined : cursorIn(la[rel]);
            if (c === undefined || lb[rel] === undefined) continue;
            const problem = pagingUrlProblem(lb[rel], ctx.http.baseUrl, other, c);
            if (problem !== undefined) fail('url', `has a Link rel="${rel}" ${problem}`);
          }
          const bodies = await ensureSameBody(l.endpoint, plain, other, form, fail);
          if (bodies === undefined) return;
          const pa = bodies.a.paging as Record<string, unknown> | undefined;
          const pb = bodies.b.paging as Record<string, unknown> | undefined;
          const dc = firstDifference(pa?.cursors, pb?.cursors);
          if (dc !== undefined) fail('value', `changed paging.cursors: ${dc}`);
          for (const k of ['nextURL', 'previousURL'] as const) {
            const ua = pa?.[k];
            const ub = pb?.[k];
            if ((typeof ua === 'string') !== (typeof ub === 'string'))
              fail('url', `has paging.${k} ${JSON.stringify(ub)}, not ${JSON.stringify(ua)}`);
            const c = typeof ua === 'string' ? cursorIn(ua) : undefined;
            if (c === undefined || typeof ub !== 'string') continue;
            const problem = pagingUrlProblem(ub, ctx.http.baseUrl, other, c);
            if (problem !== undefined) fail('url', `has paging.${k} ${problem}`);
          }
          // each case compares its own two reads: confirmed on still data when the data moved
        },
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'PAGE-SINGLE-CURSOR',
    title:
      'a valid cursor on a single-object endpoint is ignored, in every rtn and on HEAD: 200 with the same record, no paging object, no X-Total-Count, no Link',
    clause:
      'spec §5 Revision 2 (a valid cursor on a single-object endpoint is ignored; Link and X-Total-Count never on single objects)',
    endpoints: ['teams.member', 'tags.daily', 'contacts.get'],
    async run(ctx) {
      const singles = (await sampleCalls(ctx)).filter(
        (s) => endpointById(s.endpoint).response === 'single',
      );
      if (singles.length === 0) ctx.skip('no single-object endpoint could be sampled');
      const forms = formsOf(ctx);
      // cursor 1 (past the end of a list of one) in every form; another valid cursor, picked by
      // the seed, in json
      const others = ['0', '00012', String(ctx.profile.pageSize), '1234567890'.repeat(3)];
      const cases = singles.flatMap((s, i) => [
        ...forms.map((form) => ({ s, form, cursor: '1' })),
        { s, form: forms[0]!, cursor: pick(others, ctx.seed, i) },
      ]);
      await ctx.each(cases, async ({ s, form, cursor }) => {
        const plain = await ctx.call(s.endpoint, inForm(s.call, form));
        const other = await ctx.call(
          s.endpoint,
          inForm(
            { ...s.call, query: [...((s.call.query ?? []) as Pairs), ['cursor', cursor]] },
            form,
          ),
        );
        const fail = (kind: FailureKind, detail: string): never => {
          throw new Violation(
            `${describe(other)}: a single-object endpoint with the valid cursor=${cursor} ${detail} (${describe(plain)} answered ${plain.status})`,
            { kind, exchange: other },
          );
        };
        if (plain.status !== 200) return; // the record itself is other checks' to judge
        if (other.status !== 200)
          fail('status', `answered ${other.status}, expected 200 (the cursor is ignored)`);
        for (const h of ['x-total-count', 'link'])
          if (other.responseHeaders[h] !== undefined)
            fail(
              'header',
              `carries ${h === 'link' ? 'Link' : 'X-Total-Count'} ${JSON.stringify(other.responseHeaders[h])}`,
            );
        const bodies = await ensureSameBody(s.endpoint, plain, other, form, fail);
        if (bodies !== undefined && 'paging' in bodies.b)
          fail('extra', `has a paging object ${JSON.stringify(bodies.b.paging)}`);
      });
    },
  }),
];
