import { parseJsonExact } from '@tagtrack/core';
import fc from 'fast-check';
import { linksOf } from '../../check/compare.ts';
import type { EndpointCall } from '../../check/context.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, ensure, Violation } from '../../check/failure.ts';
import { firstDifference } from '../../check/sample.ts';
import { headerCount } from '../../check/walk.ts';
import type { Exchange } from '../../http/client.ts';
import { listCalls, listCallWith, PAGED, pagingUrlProblem, type SizedList } from './lists.ts';

/**
 * Cursors above 2^53 − 1 (the profile sets no size limit, and allows leading zeros): the page
 * is past the end of any list, and `previous` = cursor − pageSize must be exact, which float
 * arithmetic is not (spec §5 Revision 2; docs/spec.md §5).
 */
export const HUGE_CURSORS = ['99999999999999999999', `000${'1234567890'.repeat(3)}`] as const;

/**
 * The `previous` of a page past the huge `cursor` (see {@link HUGE_CURSORS}) under the rule
 * the profile's revision states (revisions.ts `huge-cursor`): `exact`, cursor − pageSize with
 * all its digits (Revision 3, spec §5); `clamped`, the cursor read as 2^53 − 1, so 2^53 − 1 −
 * pageSize (Revision 2's spec §11).
 */
export function hugeCursorPrevious(
  cursor: string,
  pageSize: number,
  rule: 'exact' | 'clamped',
): bigint {
  const read = rule === 'exact' ? BigInt(cursor) : BigInt(Number.MAX_SAFE_INTEGER);
  return read - BigInt(pageSize);
}

/**
 * What is wrong with the answer `ex` to a request at the huge `cursor` (see
 * {@link HUGE_CURSORS}), or `undefined`: no records; `Link` rel="prev" (and `previousURL`) at
 * exactly `previous` (see {@link hugeCursorPrevious}), no rel="next"; in a 200 JSON body
 * `paging.cursors` previous = `previous` (read from the text with all its digits), next =
 * total = `total`. `rule` words how `previous` was derived, for the message.
 */
function hugeCursorProblem(
  ex: Exchange,
  cursor: string,
  pageSize: number,
  total: number,
  baseUrl: string,
  rule: 'exact' | 'clamped',
): string | undefined {
  const previous = hugeCursorPrevious(cursor, pageSize, rule);
  if (ex.status !== 200 && ex.status !== 204) return `status ${ex.status}, expected 204 or 200`;
  const links = linksOf(ex.responseHeaders.link);
  if (links.prev === undefined)
    return `no Link rel="prev" (${JSON.stringify(ex.responseHeaders.link ?? null)})`;
  const prev = pagingUrlProblem(links.prev, baseUrl, ex, previous);
  if (prev !== undefined) return `Link rel="prev" ${prev}`;
  if (links.next !== undefined) return `Link rel="next" <${links.next}> past the end`;
  const json = ex.status === 200 && ex.method === 'GET' && ex.body.trimStart().startsWith('{');
  if (!json) return undefined;
  let body: {
    data?: unknown;
    paging?: { cursors?: Record<string, unknown>; previousURL?: unknown };
  };
  try {
    body = parseJsonExact(ex.body) as typeof body;
  } catch {
    return 'body is not JSON';
  }
  if (!Array.isArray(body.data) || body.data.length !== 0) return 'data is not []';
  const c = body.paging?.cursors ?? {};
  const exact = (v: unknown) => (typeof v === 'number' || typeof v === 'bigint' ? BigInt(v) : v);
  if (exact(c.previous) !== previous)
    return `paging.cursors.previous ${String(c.previous)}, expected ${previous} (${rule === 'exact' ? `cursor ${cursor} - page size ${pageSize}, exactly` : `the cursor read as 2^53 - 1, minus page size ${pageSize}`})`;
  if (exact(c.next) !== BigInt(total) || exact(c.total) !== BigInt(total))
    return `paging.cursors next ${String(c.next)} and total ${String(c.total)}, expected ${total} (past the end)`;
  const url = body.paging?.previousURL;
  if (typeof url !== 'string') return `previousURL ${JSON.stringify(url)}, expected a URL`;
  const problem = pagingUrlProblem(url, baseUrl, ex, previous);
  return problem === undefined ? undefined : `previousURL ${problem}`;
}

/** Walking the pages: every record once, cursor arithmetic, both client loop styles (spec §5). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'PAGE-WALK-ONCE',
    title:
      'walking the cursor to the end visits every record exactly once: as many records as paging.cursors.total and X-Total-Count',
    clause: 'spec §5 (pages never overlap or skip)',
    endpoints: [...PAGED, 'stats.team'],
    async run(ctx) {
      const lists = await listCalls(ctx);
      if (lists.length === 0) ctx.skip('no list endpoint could be sampled');
      for (const { endpoint, call } of lists) {
        const w = await ctx.walk(endpoint, call);
        const header = w.pages[0]!.responseHeaders['x-total-count'];
        if (w.records.length !== w.total) {
          ctx.fail(
            `${describe(w.pages[0]!)}: walking ${w.pages.length} pages of ${ctx.profile.pageSize} gave ${w.records.length} records, paging.cursors.total is ${w.total}`,
            {
              kind: w.records.length < w.total ? 'missing' : 'extra',
              exchange: w.pages[w.pages.length - 1],
            },
          );
        } else if (headerCount(w.pages[0]!) !== w.total) {
          ctx.fail(
            `${describe(w.pages[0]!)}: X-Total-Count ${JSON.stringify(header)}, paging.cursors.total ${w.total}`,
            { kind: 'header', exchange: w.pages[0] },
          );
        }
        const seen = new Map<string, number>();
        w.records.forEach((r, i) => {
          const k = JSON.stringify(r);
          // one repeat listed per endpoint (the key counts the others on it)
          if (seen.has(k) && endpoint !== 'opens.tag' && endpoint !== 'clicks.tag')
            ctx.fail(
              `${endpoint}: record ${i} repeats record ${seen.get(k)} while walking the pages (${k.slice(0, 80)})`,
              {
                kind: 'extra',
                key: `repeated record of ${endpoint}`,
                exchange: w.pages[Math.floor(i / ctx.profile.pageSize)],
              },
            );
          seen.set(k, i);
        });
      }
    },
  }),
  defineCheck({
    id: 'PAGE-CURSOR-ARITHMETIC',
    title:
      'a page at any cursor holds records [cursor, cursor+pageSize) of the walk, next = min(cursor+pageSize, total), previous = max(cursor-pageSize, 0), previousURL null iff cursor = 0; past a cursor above 2^53 - 1, previous, previousURL and Link rel="prev" are cursor - pageSize exactly, in every rtn and on HEAD',
    clause:
      'spec §5 (cursor = offset, next) and its Revision 2 (previous, previousURL; cursor [0-9]+ without size limit)',
    endpoints: PAGED,
    async run(ctx) {
      const lists = (await listCalls(ctx)).slice(0, 4);
      if (lists.length === 0) ctx.skip('no list endpoint could be sampled');
      const ps = ctx.profile.pageSize;
      const arb = fc
        .constantFrom(...lists)
        .chain((l) => fc.tuple(fc.constant(l), fc.integer({ min: 0, max: l.total + ps })));
      const examples = lists.flatMap((l): [SizedList, number][] => [
        [l, 0],
        [l, Math.min(1, l.total)],
      ]);
      await ctx.property(
        arb,
        async ([l, cursor]) => {
          const all = (await ctx.walk(l.endpoint, l.call)).records;
          const total = all.length;
          const ex = await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(cursor)]));
          const page = ctx.page(l.endpoint, ex);
          if (page.paging === undefined) {
            // 204 No Content: only a page without records may answer it (its form: PAGE-END-*)
            ensure(
              cursor >= total,
              () =>
                `${describe(ex)} answered 204 No Content, but records ${cursor}..${Math.min(cursor + ps, total) - 1} of ${total} belong on this page`,
              { kind: 'status', exchange: ex },
            );
            return;
          }
          const expected = {
            previous: Math.max(cursor - ps, 0),
            next: Math.min(cursor + ps, total),
            total,
          };
          const diff = firstDifference(expected, page.paging.cursors);
          ensure(diff === undefined, () => `${describe(ex)}: paging.cursors ${diff}`, {
            kind: 'value',
            exchange: ex,
            expected,
            actual: page.paging.cursors,
          });
          const d2 = firstDifference(all.slice(cursor, cursor + ps), page.data);
          ensure(
            d2 === undefined,
            () =>
              `${describe(ex)}: page data is not records ${cursor}..${cursor + ps - 1} of the walk: ${d2}`,
            { kind: 'value', exchange: ex },
          );
          ensure(
            (page.paging.previousURL === null) === (cursor === 0),
            () =>
              `${describe(ex)}: previousURL ${JSON.stringify(page.paging!.previousURL)} at cursor ${cursor}; it is null exactly on the first page (cursor 0)`,
            { kind: 'url', exchange: ex },
          );
          // where both paging ends agree; the last non-empty page is PAGE-END-*'s to judge
          if (cursor + ps < total)
            ensure(
              page.paging.nextURL !== null,
              () =>
                `${describe(ex)}: nextURL is null at cursor ${cursor}, but records ${cursor + ps}.. of ${total} follow`,
              { kind: 'url', exchange: ex },
            );
          if (cursor >= total)
            ensure(
              page.paging.nextURL === null,
              () =>
                `${describe(ex)}: nextURL ${JSON.stringify(page.paging!.nextURL)} on a page without records (cursor ${cursor}, total ${total})`,
              { kind: 'url', exchange: ex },
            );
        },
        // each run compares a page with the walk it reads itself: confirmed on still data
        { examples, readsOwn: true },
      );
      // cursors above 2^53 - 1 on two lists, in json, every rtn and HEAD: previous exact
      await ctx.each(
        lists
          .slice(0, 2)
          .flatMap((l) =>
            HUGE_CURSORS.flatMap((cursor) =>
              [undefined, ...ctx.profile.rtn, 'HEAD'].map((form) => ({ l, cursor, form })),
            ),
          ),
        async ({ l, cursor, form }) => {
          const call: EndpointCall =
            form === 'HEAD'
              ? { ...listCallWith(l, ['cursor', cursor]), method: 'HEAD' }
              : form === undefined
                ? listCallWith(l, ['cursor', cursor])
                : listCallWith(l, ['cursor', cursor], ['rtn', form]);
          // the list's total as walked in this try (read again when the try is)
          const total = (await ctx.walk(l.endpoint, l.call)).total;
          const ex = await ctx.call(l.endpoint, call);
          const at = `${describe(ex)} (cursor ${cursor}, above 2^53 - 1, total ${total}, page size ${ps})`;
          const exact = hugeCursorProblem(ex, cursor, ps, total, ctx.http.baseUrl, 'exact');
          // a profile pinned to Revision 2 also accepts the cursor read as 2^53 - 1 (its
          // spec §11), and the run warns that the current revision fails it
          let problem = exact;
          if (exact !== undefined && ctx.judgesOldRule('huge-cursor')) {
            const clamped = hugeCursorProblem(ex, cursor, ps, total, ctx.http.baseUrl, 'clamped');
            if (clamped === undefined) ctx.failsNewerRule('huge-cursor', `${at}: ${exact}`);
            problem =
              clamped &&
              `${clamped} (the profile pins Revision ${ctx.profile.revision}: read as 2^53 - 1, or exactly)`;
          }
          if (problem !== undefined)
            throw new Violation(`${at}: ${problem}`, {
              kind: problem.startsWith('status') ? 'status' : 'value',
              exchange: ex,
            });
        },
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'PAGE-LOOP-ENDS',
    title:
      'both client loop styles end with every record: "until the page is empty" (an empty page or 204 No Content) and "while next < total"',
    clause:
      'spec §5 (a client looping until the result is empty must end, and so must one looping while next < total)',
    endpoints: ['teams.tags', 'teams.list', 'contacts.list'],
    async run(ctx) {
      const lists = (await listCalls(ctx)).slice(0, 3);
      if (lists.length === 0) ctx.skip('no list endpoint could be sampled');
      const limit = (l: SizedList) => Math.ceil(l.total / ctx.profile.pageSize) + 2;
      for (const l of lists) {
        // until the page is empty (Python/Java clients: empty or non-JSON body)
        let cursor = 0;
        let rounds = 0;
        let seen = 0;
        for (;;) {
          const ex = await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(cursor)]));
          const page = ctx.page(l.endpoint, ex);
          if (page.data.length === 0) break;
          seen += page.data.length;
          cursor += page.data.length;
          if (++rounds > limit(l)) {
            ctx.fail(
              `${describe(ex)}: looping until an empty page did not end after ${rounds} pages`,
              { kind: 'value', exchange: ex },
            );
            break;
          }
        }
        if (seen !== l.total && rounds <= limit(l))
          ctx.fail(
            `${l.endpoint}: looping until an empty page gave ${seen} records, the list has ${l.total}`,
            { kind: seen < l.total ? 'missing' : 'extra' },
          );
        // while next < total
        cursor = 0;
        rounds = 0;
        for (;;) {
          const ex = await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(cursor)]));
          const page = ctx.page(l.endpoint, ex);
          if (page.paging === undefined) break;
          const { next, total } = page.paging.cursors;
          if (next >= total) break;
          cursor = next;
          if (++rounds > limit(l)) {
            ctx.fail(
              `${describe(ex)}: looping while next < total did not end after ${rounds} pages`,
              { kind: 'value', exchange: ex },
            );
            break;
          }
        }
        // a cursor past the end answers no records, in either paging end
        const past = await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(l.total + 7)]));
        const page = ctx.page(l.endpoint, past);
        if (page.data.length !== 0)
          ctx.fail(
            `${describe(past)}: a cursor past total gave ${page.data.length} records, expected none`,
            { kind: 'extra', exchange: past },
          );
      }
    },
  }),
];
