import type { CheckContext } from '../../check/context.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, ensure, Violation } from '../../check/failure.ts';
import { firstDifferenceInSlices } from '../../check/sample.ts';
import { comparableInSlices } from '../../check/slices.ts';
import type { Exchange } from '../../http/client.ts';
import { follow, LISTS, lastPageStart, listCalls, listCallWith, type SizedList } from './lists.ts';

/**
 * Follows `paging.nextURL` (or `previousURL` when `by` says so) from the page `first` until
 * the list ends (a null URL, a page without records, a 204), as the original Python, Java and
 * Node clients do; resolves the records of every page in the order they came, page by page.
 * Throws a {@link Violation} when a page does not parse, a URL cannot be followed, or the
 * pages do not end within total/pageSize + 3.
 */
async function walkByUrl(
  ctx: CheckContext,
  l: SizedList,
  first: Exchange,
  by: 'nextURL' | 'previousURL',
): Promise<unknown[][]> {
  const pages: unknown[][] = [];
  const cap = Math.floor(l.total / ctx.profile.pageSize) + 3;
  let ex = first;
  for (;;) {
    const page = ctx.page(l.endpoint, ex);
    if (page.data.length > 0) pages.push(page.data);
    const url = page.paging?.[by] ?? null;
    if (page.data.length === 0 || url === null) return pages;
    if (pages.length > cap)
      throw new Violation(
        `${describe(first)}: following ${by} did not end after ${pages.length} pages (total ${l.total})`,
        { kind: 'value', exchange: ex },
      );
    ex = await follow(ctx, url, by, ex);
  }
}

/**
 * Asserts that the records `got` (reached by following paging URLs from `from`) are `want`
 * (records of the cursor walk), in order, compared by meaning.
 */
async function ensureSameRecords(
  l: SizedList,
  want: readonly unknown[],
  got: readonly unknown[],
  how: string,
  from: Exchange,
): Promise<void> {
  // lists of any length, in time slices
  const a = await comparableInSlices(l.endpoint, want);
  const b = await comparableInSlices(l.endpoint, got);
  const diff = (await firstDifferenceInSlices(a, b)) ?? (await firstDifferenceInSlices(b, a));
  ensure(
    diff === undefined,
    () =>
      `${describe(from)}: ${how} gave ${got.length} records, walking by cursor ${want.length}; they differ at ${diff}`,
    {
      kind: got.length > want.length ? 'extra' : got.length < want.length ? 'missing' : 'value',
      exchange: from,
    },
  );
}

/** Walking a list by its paging URLs, as the original clients do (spec §5). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'PAGE-WALK-NEXT-URL',
    title:
      'following nextURL from the first page, on every list endpoint, gives the records of the cursor walk, in order; so does following it from an unaligned cursor, and following previousURL back from the last page',
    clause:
      'spec §5 (the original clients follow nextURL until the list ends) and its Revision 2 (the URLs keep the query)',
    endpoints: LISTS,
    async run(ctx) {
      const lists = (await listCalls(ctx)).filter((l) => l.total > 0);
      if (lists.length === 0) ctx.skip('no list with records could be sampled');
      const ps = ctx.profile.pageSize;
      // every list from its first page (the pages mostly come from the run's cache: a right
      // nextURL is the very request the cursor walk sent); each walk by URL is compared with
      // the cursor walk it reads itself, so a failing one is read again on still data when
      // the data moved (spec §5 Revision 3)
      await ctx.each(
        lists,
        async (l) => {
          const all = (await ctx.walk(l.endpoint, l.call)).records;
          const first = await ctx.call(l.endpoint, l.call);
          const got = (await walkByUrl(ctx, l, first, 'nextURL')).flat();
          await ensureSameRecords(l, all, got, 'following nextURL from the first page', first);
        },
        { readsOwn: true },
      );
      // the largest list from an unaligned cursor, and back from its last page
      const l = lists[0]!;
      const unaligned = Math.min(3, l.total - 1);
      const walked = async () => (await ctx.walk(l.endpoint, l.call)).records;
      await ctx.attempt(() =>
        ctx.onStillData(async () => {
          const all = await walked();
          const first = await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(unaligned)]));
          const got = (await walkByUrl(ctx, l, first, 'nextURL')).flat();
          await ensureSameRecords(
            l,
            all.slice(unaligned),
            got,
            `following nextURL from the unaligned cursor ${unaligned} (page size ${ps})`,
            first,
          );
        }),
      );
      if (lastPageStart(l.total, ps) > 0)
        await ctx.attempt(() =>
          ctx.onStillData(async () => {
            const all = await walked();
            // the last page of the list as this try walked it (it may have grown)
            const last = lastPageStart(all.length, ps);
            const first = await ctx.call(l.endpoint, listCallWith(l, ['cursor', String(last)]));
            const got = (await walkByUrl(ctx, l, first, 'previousURL')).reverse().flat();
            await ensureSameRecords(
              l,
              all,
              got,
              `following previousURL back from the last page (cursor ${last}) to the first`,
              first,
            );
          }),
        );
    },
  }),
];
