import { linksOf } from '../../check/compare.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, type FailureKind } from '../../check/failure.ts';
import { headerCount } from '../../check/walk.ts';
import type { Exchange } from '../../http/client.ts';
import {
  cursorIn,
  EMPTY_LIST,
  lastPageStart,
  listCalls,
  listCallWith,
  PAGED,
  type SizedList,
} from './lists.ts';

/** Skips a check of the paging end the profile does not declare. */
const skipUnless =
  (pagingEnd: 'no-content' | 'empty-page') => (env: { profile: { pagingEnd: string } }) =>
    env.profile.pagingEnd === pagingEnd
      ? undefined
      : `the profile's paging end is ${env.profile.pagingEnd}, not ${pagingEnd}`;

/** The paging end the profile declares (spec §5 Revision 2, option pagingEnd). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'PAGE-END-NO-CONTENT',
    title:
      'paging end no-content: the last non-empty page links to cursor=total; a page without records answers 204 with an empty body, X-Total-Count and Link rel="prev" only',
    clause: 'spec §5 Revision 2 (paging end, option pagingEnd = no-content)',
    endpoints: PAGED,
    skipIf: skipUnless('no-content'),
    async run(ctx) {
      const lists = (await listCalls(ctx)).filter((l) => l.total > 0).slice(0, 3);
      const ps = ctx.profile.pageSize;
      let compared = 0;
      const expectNoContent = (ex: Exchange, total: number, cursor: number) => {
        compared++;
        const problems: [FailureKind, string][] = [];
        if (ex.status !== 204)
          problems.push(['status', `status ${ex.status}, expected 204 No Content`]);
        if (ex.body !== '') problems.push(['extra', `a ${ex.body.length}-character body`]);
        const count = ex.responseHeaders['x-total-count'];
        if (headerCount(ex) !== total)
          problems.push(['header', `X-Total-Count ${JSON.stringify(count)}, expected ${total}`]);
        const links = linksOf(ex.responseHeaders.link);
        if (cursor > 0 && links.prev === undefined) problems.push(['header', 'no Link rel="prev"']);
        if (cursor === 0 && links.prev !== undefined)
          problems.push(['header', 'a Link rel="prev" at cursor 0']);
        if (links.next !== undefined) problems.push(['header', 'a Link rel="next"']);
        if (problems.length > 0)
          ctx.fail(
            `${describe(ex)}: a page without records (cursor ${cursor}, total ${total}) has ${problems.map(([, p]) => p).join('; ')}`,
            { kind: problems[0]![0], exchange: ex },
          );
      };
      for (const l of lists) {
        const last = lastPageStart(l.total, ps);
        const ex = await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(last)]));
        const page = await ctx.attempt(() => ctx.page(l.endpoint, ex));
        if (page === undefined) continue;
        compared++;
        const nextURL = page.paging?.nextURL ?? null;
        const cursorOfNext = nextURL === null ? undefined : cursorIn(nextURL);
        if (page.paging === undefined || nextURL === null || cursorOfNext !== l.total)
          ctx.fail(
            `${describe(ex)}: the last page with records has nextURL ${JSON.stringify(nextURL)}; in paging end no-content it points at cursor=${l.total} (total)`,
            { kind: 'url', exchange: ex },
          );
        else if (linksOf(ex.responseHeaders.link).next === undefined)
          ctx.fail(`${describe(ex)}: the last page with records has no Link rel="next"`, {
            kind: 'header',
            exchange: ex,
          });
        for (const rtn of ctx.profile.rtn)
          expectNoContent(
            await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(l.total)], ['rtn', rtn])),
            l.total,
            l.total,
          );
        expectNoContent(
          await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(l.total + 3)])),
          l.total,
          l.total + 3,
        );
      }
      expectNoContent(await ctx.call(EMPTY_LIST.endpoint, EMPTY_LIST.call), 0, 0);
      if (compared === 0) ctx.skip('no list could be fetched');
    },
  }),
  defineCheck({
    id: 'PAGE-END-EMPTY-PAGE',
    title:
      'paging end empty-page: nextURL is null on the last page; past the end answers 200 with data [] (never 204)',
    clause: 'spec §5 Revision 2 (paging end, option pagingEnd = empty-page)',
    endpoints: PAGED,
    skipIf: skipUnless('empty-page'),
    async run(ctx) {
      const lists = (await listCalls(ctx)).filter((l) => l.total > 0).slice(0, 3);
      const ps = ctx.profile.pageSize;
      let compared = 0;
      const expectEmptyPage = async (l: SizedList, ex: Exchange, cursor: number, rtn: string) => {
        compared++;
        if (ex.status !== 200) {
          ctx.fail(
            `${describe(ex)}: a page without records (cursor ${cursor}, total ${l.total}) answered ${ex.status}; in paging end empty-page it is 200 with no records`,
            { kind: 'status', exchange: ex },
          );
          return;
        }
        if (rtn !== 'json') return; // text and html: REL-FORMATS-AGREE compares the records
        await ctx.attempt(() => {
          const page = ctx.page(l.endpoint, ex);
          const problems: [FailureKind, string][] = [];
          if (page.data.length !== 0) problems.push(['extra', `${page.data.length} records`]);
          if (page.paging!.nextURL !== null)
            problems.push(['url', `nextURL ${JSON.stringify(page.paging!.nextURL)}`]);
          if (page.paging!.cursors.total !== l.total)
            problems.push(['value', `paging.cursors.total ${page.paging!.cursors.total}`]);
          if (problems.length > 0)
            ctx.fail(
              `${describe(ex)}: a page past the end (total ${l.total}) has ${problems.map(([, p]) => p).join(', ')}; expected data [] and nextURL null`,
              { kind: problems[0]![0], exchange: ex },
            );
        });
      };
      for (const l of lists) {
        const last = lastPageStart(l.total, ps);
        const ex = await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(last)]));
        await ctx.attempt(() => {
          const page = ctx.page(l.endpoint, ex);
          compared++;
          if (page.paging === undefined || page.paging.nextURL !== null)
            ctx.fail(
              `${describe(ex)}: the last page (cursor ${last}, total ${l.total}) has nextURL ${JSON.stringify(page.paging?.nextURL ?? '(204 No Content)')}; in paging end empty-page it is null`,
              { kind: 'url', exchange: ex },
            );
          else if (linksOf(ex.responseHeaders.link).next !== undefined)
            ctx.fail(`${describe(ex)}: the last page has a Link rel="next"`, {
              kind: 'header',
              exchange: ex,
            });
        });
        for (const rtn of ctx.profile.rtn)
          await expectEmptyPage(
            l,
            await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(l.total)], ['rtn', rtn])),
            l.total,
            rtn,
          );
        await expectEmptyPage(
          l,
          await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(l.total + 3)])),
          l.total + 3,
          'json',
        );
      }
      await expectEmptyPage(
        EMPTY_LIST,
        await ctx.call(EMPTY_LIST.endpoint, EMPTY_LIST.call),
        0,
        'json',
      );
      if (compared === 0) ctx.skip('no list could be fetched');
    },
  }),
];
