import { type EndpointId, endpointById, type ParamName } from '@tagtrack/core';
import fc from 'fast-check';
import type { Exchange } from '../http.ts';
import {
  type Check,
  type CheckContext,
  defineCheck,
  describe,
  type EndpointCall,
  ensure,
  headerCount,
  type ListPage,
  Violation,
} from './api.ts';
import { linksOf } from './compare.ts';
import { firstDifference, sampleCalls } from './sample.ts';

type Pairs = [string, string][];

interface SizedList {
  readonly endpoint: EndpointId;
  readonly call: EndpointCall;
  readonly total: number;
}

/** The sampled list endpoints, largest first (by walked size). */
async function listCalls(ctx: CheckContext): Promise<SizedList[]> {
  const calls = (await sampleCalls(ctx)).filter(
    ({ endpoint }) => endpointById(endpoint).response === 'list',
  );
  const sized: SizedList[] = [];
  for (const c of calls) sized.push({ ...c, total: (await ctx.walk(c.endpoint, c.call)).total });
  return sized.sort((a, b) => b.total - a.total);
}

/** `l`'s request with `extra` query pairs appended (e.g. a cursor, an rtn). */
function withQuery(l: SizedList, ...extra: Pairs): EndpointCall {
  return { ...l.call, query: [...((l.call.query ?? []) as Pairs), ...extra] };
}

/** The cursor of the last page that has records (`0` for an empty list). */
function lastPageStart(total: number, pageSize: number): number {
  return total === 0 ? 0 : Math.floor((total - 1) / pageSize) * pageSize;
}

/** An always empty list on any implementation: isOpened and isUnopened together (§4). */
const EMPTY_LIST: SizedList = {
  endpoint: 'teams.tags',
  call: {
    query: [
      ['isOpened', 'true'],
      ['isUnopened', 'true'],
    ],
  },
  total: 0,
};

/** The decoded query pairs of a URL, in order. */
function pairsOf(url: URL): Pairs {
  return [...url.searchParams.entries()];
}

/**
 * What is wrong with a paging URL (`nextURL`, `previousURL`, a `Link` target) of a request
 * sent as `path` + `sent` pairs, pointing at `cursor` (decisions §3 Revision 2): it must be
 * absolute, on the base URL, with the request's path, and its query must be the request's
 * query with only `cursor` replaced (appended last when absent), every other parameter and
 * its order kept. Compared decoded (percent-encoding is incidental). `undefined` when right.
 */
function pagingUrlProblem(
  url: string,
  baseUrl: string,
  path: string,
  sent: Pairs,
  cursor: number,
): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not an absolute URL`;
  }
  const base = new URL(baseUrl);
  const wantPath = `${base.pathname.replace(/\/+$/, '')}${path}`;
  if (u.origin !== base.origin)
    return `${JSON.stringify(url)} is not on the base URL ${base.origin}`;
  if (safeDecode(u.pathname) !== safeDecode(wantPath))
    return `${JSON.stringify(url)} has path ${u.pathname}, expected ${wantPath}`;
  const want: Pairs = [];
  let replaced = false;
  for (const [k, v] of sent) {
    if (k === 'cursor' && !replaced) {
      want.push(['cursor', String(cursor)]);
      replaced = true;
    } else want.push([k, v]);
  }
  if (!replaced) want.push(['cursor', String(cursor)]);
  const got = pairsOf(u);
  if (JSON.stringify(got) !== JSON.stringify(want))
    return `${JSON.stringify(url)} has the query ${show(got)}, expected the request's query with only cursor replaced: ${show(want)}`;
  return undefined;
}

function show(pairs: Pairs): string {
  return pairs.map(([k, v]) => `${k}=${v}`).join('&') || '(none)';
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Whether two URLs are the same: origin, decoded path and decoded query pairs in order. */
function sameUrl(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return (
      x.origin === y.origin &&
      safeDecode(x.pathname) === safeDecode(y.pathname) &&
      JSON.stringify(pairsOf(x)) === JSON.stringify(pairsOf(y))
    );
  } catch {
    return a === b;
  }
}

/** Query values that leave a list as it is, per parameter (for PAGE-URLS-KEEP-QUERY). */
const NEUTRAL_VALUES: Partial<Record<ParamName, (total: number) => string>> = {
  total: (total) => String(total),
  start: () => '2000-01-01',
  end: () => '2999-12-31',
  isOpened: () => 'false',
  isUnopened: () => '0',
  isClicked: () => 'False',
  isUnclicked: () => 'false',
  aggregateData: () => 'false',
};

const skipUnless =
  (pagingEnd: 'no-content' | 'empty-page') => (env: { profile: { pagingEnd: string } }) =>
    env.profile.pagingEnd === pagingEnd
      ? undefined
      : `the profile's paging end is ${env.profile.pagingEnd}, not ${pagingEnd}`;

/** Pagination (decisions §3 and its Revision 2): walking, cursor arithmetic, paging ends, URLs, headers, order. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'PAGE-WALK-ONCE',
    area: 'pagination',
    title:
      'walking the cursor to the end visits every record exactly once: as many records as paging.cursors.total and X-Total-Count',
    clause: 'decisions §3 (pages never overlap or skip)',
    endpoints: [
      'teams.tags',
      'teams.list',
      'contacts.list',
      'opens.tag',
      'clicks.tag',
      'stats.team',
    ],
    async run(ctx) {
      const lists = await listCalls(ctx);
      if (lists.length === 0) ctx.skip('no list endpoint could be sampled');
      for (const { endpoint, call } of lists) {
        const w = await ctx.walk(endpoint, call);
        const header = w.pages[0]!.responseHeaders['x-total-count'];
        if (w.records.length !== w.total) {
          ctx.fail(
            `${describe(w.pages[0]!)}: walking ${w.pages.length} pages of ${ctx.profile.pageSize} gave ${w.records.length} records, paging.cursors.total is ${w.total}`,
            { exchange: w.pages[w.pages.length - 1] },
          );
        } else if (headerCount(w.pages[0]!) !== w.total) {
          ctx.fail(
            `${describe(w.pages[0]!)}: X-Total-Count ${JSON.stringify(header)}, paging.cursors.total ${w.total}`,
            { exchange: w.pages[0] },
          );
        }
        const seen = new Map<string, number>();
        w.records.forEach((r, i) => {
          const k = JSON.stringify(r);
          if (seen.has(k) && endpoint !== 'opens.tag' && endpoint !== 'clicks.tag') {
            if (!ctx.failures.some((f) => f.message.includes(endpoint)))
              ctx.fail(
                `${endpoint}: record ${i} repeats record ${seen.get(k)} while walking the pages (${k.slice(0, 80)})`,
                { exchange: w.pages[Math.floor(i / ctx.profile.pageSize)] },
              );
          }
          seen.set(k, i);
        });
      }
    },
  }),
  defineCheck({
    id: 'PAGE-CURSOR-ARITHMETIC',
    area: 'pagination',
    title:
      'a page at any cursor holds records [cursor, cursor+pageSize) of the walk, next = min(cursor+pageSize, total), previous = max(cursor-pageSize, 0), previousURL null iff cursor = 0',
    clause: 'decisions §3 (cursor = offset, next) and its Revision 2 (previous, previousURL)',
    endpoints: ['teams.tags', 'teams.list', 'contacts.list', 'opens.tag', 'clicks.tag'],
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
          const ex = await ctx.call(l.endpoint, withQuery(l, ['cursor', String(cursor)]));
          const page = ctx.page(l.endpoint, ex);
          if (page.paging === undefined) {
            // 204 No Content: only a page without records may answer it (its form: PAGE-END-*)
            ensure(
              cursor >= total,
              () =>
                `${describe(ex)} answered 204 No Content, but records ${cursor}..${Math.min(cursor + ps, total) - 1} of ${total} belong on this page`,
              { exchange: ex },
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
            exchange: ex,
            expected,
            actual: page.paging.cursors,
          });
          const d2 = firstDifference(all.slice(cursor, cursor + ps), page.data);
          ensure(
            d2 === undefined,
            () =>
              `${describe(ex)}: page data is not records ${cursor}..${cursor + ps - 1} of the walk: ${d2}`,
            { exchange: ex },
          );
          ensure(
            (page.paging.previousURL === null) === (cursor === 0),
            () =>
              `${describe(ex)}: previousURL ${JSON.stringify(page.paging!.previousURL)} at cursor ${cursor}; it is null exactly on the first page (cursor 0)`,
            { exchange: ex },
          );
          // where both paging ends agree; the last non-empty page is PAGE-END-*'s to judge
          if (cursor + ps < total)
            ensure(
              page.paging.nextURL !== null,
              () =>
                `${describe(ex)}: nextURL is null at cursor ${cursor}, but records ${cursor + ps}.. of ${total} follow`,
              { exchange: ex },
            );
          if (cursor >= total)
            ensure(
              page.paging.nextURL === null,
              () =>
                `${describe(ex)}: nextURL ${JSON.stringify(page.paging!.nextURL)} on a page without records (cursor ${cursor}, total ${total})`,
              { exchange: ex },
            );
        },
        { examples },
      );
    },
  }),
  defineCheck({
    id: 'PAGE-LOOP-ENDS',
    area: 'pagination',
    title:
      'both client loop styles end with every record: "until the page is empty" (an empty page or 204 No Content) and "while next < total"',
    clause:
      'decisions §3 (a client looping until the result is empty must end, and so must one looping while next < total)',
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
          const ex = await ctx.call(l.endpoint, withQuery(l, ['cursor', String(cursor)]));
          const page = ctx.page(l.endpoint, ex);
          if (page.data.length === 0) break;
          seen += page.data.length;
          cursor += page.data.length;
          if (++rounds > limit(l)) {
            ctx.fail(
              `${describe(ex)}: looping until an empty page did not end after ${rounds} pages`,
              { exchange: ex },
            );
            break;
          }
        }
        if (seen !== l.total && rounds <= limit(l))
          ctx.fail(
            `${l.endpoint}: looping until an empty page gave ${seen} records, the list has ${l.total}`,
          );
        // while next < total
        cursor = 0;
        rounds = 0;
        for (;;) {
          const ex = await ctx.call(l.endpoint, withQuery(l, ['cursor', String(cursor)]));
          const page = ctx.page(l.endpoint, ex);
          if (page.paging === undefined) break;
          const { next, total } = page.paging.cursors;
          if (next >= total) break;
          cursor = next;
          if (++rounds > limit(l)) {
            ctx.fail(
              `${describe(ex)}: looping while next < total did not end after ${rounds} pages`,
              { exchange: ex },
            );
            break;
          }
        }
        // a cursor past the end answers no records, in either paging end
        const past = await ctx.call(l.endpoint, withQuery(l, ['cursor', String(l.total + 7)]));
        const page = ctx.page(l.endpoint, past);
        if (page.data.length !== 0)
          ctx.fail(
            `${describe(past)}: a cursor past total gave ${page.data.length} records, expected none`,
            { exchange: past },
          );
      }
    },
  }),
  defineCheck({
    id: 'PAGE-END-NO-CONTENT',
    area: 'pagination',
    title:
      'paging end no-content: the last non-empty page links to cursor=total; a page without records answers 204 with an empty body, X-Total-Count and Link rel="prev" only',
    clause: 'decisions §3 Revision 2 (paging end, option pagingEnd = no-content)',
    endpoints: ['teams.tags', 'teams.list', 'contacts.list', 'opens.tag', 'clicks.tag'],
    skipIf: skipUnless('no-content'),
    async run(ctx) {
      const lists = (await listCalls(ctx)).filter((l) => l.total > 0).slice(0, 3);
      const ps = ctx.profile.pageSize;
      let compared = 0;
      const expectNoContent = (ex: Exchange, total: number, cursor: number) => {
        compared++;
        const problems: string[] = [];
        if (ex.status !== 204) problems.push(`status ${ex.status}, expected 204 No Content`);
        if (ex.body !== '') problems.push(`a ${ex.body.length}-character body`);
        const count = ex.responseHeaders['x-total-count'];
        if (headerCount(ex) !== total)
          problems.push(`X-Total-Count ${JSON.stringify(count)}, expected ${total}`);
        const links = linksOf(ex.responseHeaders.link);
        if (cursor > 0 && links.prev === undefined) problems.push('no Link rel="prev"');
        if (cursor === 0 && links.prev !== undefined)
          problems.push('a Link rel="prev" at cursor 0');
        if (links.next !== undefined) problems.push('a Link rel="next"');
        if (problems.length > 0)
          ctx.fail(
            `${describe(ex)}: a page without records (cursor ${cursor}, total ${total}) has ${problems.join('; ')}`,
            { exchange: ex },
          );
      };
      for (const l of lists) {
        const last = lastPageStart(l.total, ps);
        const ex = await ctx.call(l.endpoint, withQuery(l, ['cursor', String(last)]));
        let page: ListPage;
        try {
          page = ctx.page(l.endpoint, ex);
        } catch (e) {
          if (!(e instanceof Violation)) throw e;
          ctx.fail(e.message, e.details);
          continue;
        }
        compared++;
        const nextURL = page.paging?.nextURL ?? null;
        const cursorOfNext = nextURL === null ? undefined : cursorIn(nextURL);
        if (page.paging === undefined || nextURL === null || cursorOfNext !== l.total)
          ctx.fail(
            `${describe(ex)}: the last page with records has nextURL ${JSON.stringify(nextURL)}; in paging end no-content it points at cursor=${l.total} (total)`,
            { exchange: ex },
          );
        else if (linksOf(ex.responseHeaders.link).next === undefined)
          ctx.fail(`${describe(ex)}: the last page with records has no Link rel="next"`, {
            exchange: ex,
          });
        for (const rtn of ctx.profile.rtn)
          expectNoContent(
            await ctx.call(l.endpoint, withQuery(l, ['cursor', String(l.total)], ['rtn', rtn])),
            l.total,
            l.total,
          );
        expectNoContent(
          await ctx.call(l.endpoint, withQuery(l, ['cursor', String(l.total + 3)])),
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
    area: 'pagination',
    title:
      'paging end empty-page: nextURL is null on the last page; past the end answers 200 with data [] (never 204)',
    clause: 'decisions §3 Revision 2 (paging end, option pagingEnd = empty-page)',
    endpoints: ['teams.tags', 'teams.list', 'contacts.list', 'opens.tag', 'clicks.tag'],
    skipIf: skipUnless('empty-page'),
    async run(ctx) {
      const lists = (await listCalls(ctx)).filter((l) => l.total > 0).slice(0, 3);
      const ps = ctx.profile.pageSize;
      let compared = 0;
      const expectEmptyPage = (l: SizedList, ex: Exchange, cursor: number, rtn: string) => {
        compared++;
        if (ex.status !== 200) {
          ctx.fail(
            `${describe(ex)}: a page without records (cursor ${cursor}, total ${l.total}) answered ${ex.status}; in paging end empty-page it is 200 with no records`,
            { exchange: ex },
          );
          return;
        }
        if (rtn !== 'json') return; // text and html: REL-FORMATS-AGREE compares the records
        try {
          const page = ctx.page(l.endpoint, ex);
          const problems: string[] = [];
          if (page.data.length !== 0) problems.push(`${page.data.length} records`);
          if (page.paging!.nextURL !== null)
            problems.push(`nextURL ${JSON.stringify(page.paging!.nextURL)}`);
          if (page.paging!.cursors.total !== l.total)
            problems.push(`paging.cursors.total ${page.paging!.cursors.total}`);
          if (problems.length > 0)
            ctx.fail(
              `${describe(ex)}: a page past the end (total ${l.total}) has ${problems.join(', ')}; expected data [] and nextURL null`,
              { exchange: ex },
            );
        } catch (e) {
          if (!(e instanceof Violation)) throw e;
          ctx.fail(e.message, e.details);
        }
      };
      for (const l of lists) {
        const last = lastPageStart(l.total, ps);
        const ex = await ctx.call(l.endpoint, withQuery(l, ['cursor', String(last)]));
        try {
          const page = ctx.page(l.endpoint, ex);
          compared++;
          if (page.paging === undefined || page.paging.nextURL !== null)
            ctx.fail(
              `${describe(ex)}: the last page (cursor ${last}, total ${l.total}) has nextURL ${JSON.stringify(page.paging?.nextURL ?? '(204 No Content)')}; in paging end empty-page it is null`,
              { exchange: ex },
            );
          else if (linksOf(ex.responseHeaders.link).next !== undefined)
            ctx.fail(`${describe(ex)}: the last page has a Link rel="next"`, { exchange: ex });
        } catch (e) {
          if (!(e instanceof Violation)) throw e;
          ctx.fail(e.message, e.details);
        }
        for (const rtn of ctx.profile.rtn)
          expectEmptyPage(
            l,
            await ctx.call(l.endpoint, withQuery(l, ['cursor', String(l.total)], ['rtn', rtn])),
            l.total,
            rtn,
          );
        expectEmptyPage(
          l,
          await ctx.call(l.endpoint, withQuery(l, ['cursor', String(l.total + 3)])),
          l.total + 3,
          'json',
        );
      }
      expectEmptyPage(EMPTY_LIST, await ctx.call(EMPTY_LIST.endpoint, EMPTY_LIST.call), 0, 'json');
      if (compared === 0) ctx.skip('no list could be fetched');
    },
  }),
  defineCheck({
    id: 'PAGE-URLS-KEEP-QUERY',
    area: 'pagination',
    title:
      'nextURL, previousURL and the Link targets are absolute URLs on the base URL whose query is the request’s query with only cursor replaced, every other parameter and its order kept',
    clause: 'decisions §3 Revision 2 (nextURL and previousURL)',
    endpoints: ['teams.tags', 'teams.list', 'contacts.list', 'opens.tag', 'clicks.tag'],
    async run(ctx) {
      const lists = (await listCalls(ctx)).filter((l) => l.total > 0).slice(0, 4);
      if (lists.length === 0) ctx.skip('no list with records could be sampled');
      let compared = 0;
      const extrasOf = (l: SizedList): Pairs => {
        const allowed = endpointById(l.endpoint).query;
        return (Object.keys(NEUTRAL_VALUES) as ParamName[])
          .filter((p) => allowed.includes(p))
          .map((p): [string, string] => [p, NEUTRAL_VALUES[p]!(l.total)]);
      };
      // always tried: parameters in reverse alphabetical order, the cursor among them
      const examples = lists.map((l) => ({
        list: l,
        pairs: [...((l.call.query ?? []) as Pairs), ...extrasOf(l)].sort(([a], [b]) =>
          a < b ? 1 : a > b ? -1 : 0,
        ),
        rtn: null,
        cursor: Math.min(1, l.total),
        at: 8,
      }));
      const arb = fc.constantFrom(...lists).chain((l) => {
        const extras = extrasOf(l);
        return fc.record({
          list: fc.constant(l),
          pairs: fc.shuffledSubarray([...((l.call.query ?? []) as Pairs), ...extras], {
            minLength: Math.min(1, extras.length),
          }),
          rtn: fc.option(fc.constantFrom(...ctx.profile.rtn)),
          cursor: fc.option(fc.integer({ min: 1, max: l.total }), { freq: 4 }),
          at: fc.nat(),
        });
      });
      await ctx.property(
        arb,
        async ({ list: l, pairs, rtn, cursor, at }) => {
          const sent: Pairs = [...pairs];
          if (rtn !== null) sent.splice(at % (sent.length + 1), 0, ['rtn', rtn]);
          if (cursor !== null)
            sent.splice((at >> 3) % (sent.length + 1), 0, ['cursor', String(cursor)]);
          const ex = await ctx.call(l.endpoint, { ...l.call, query: sent });
          const target = ex.target.split('?')[0]!;
          const c = cursor ?? 0;
          const ps = ctx.profile.pageSize;
          const urls: [string, string, number][] = [];
          const links = linksOf(ex.responseHeaders.link);
          if (links.next !== undefined)
            urls.push(['Link rel="next"', links.next, Math.min(c + ps, l.total)]);
          if (links.prev !== undefined)
            urls.push(['Link rel="prev"', links.prev, Math.max(c - ps, 0)]);
          if (ex.status === 200 && (rtn === null || rtn === 'json')) {
            const page = ctx.page(l.endpoint, ex);
            const p = page.paging!;
            if (p.nextURL !== null) urls.push(['nextURL', p.nextURL, p.cursors.next]);
            if (p.previousURL !== null)
              urls.push(['previousURL', p.previousURL, p.cursors.previous]);
          }
          for (const [what, url, at] of urls) {
            compared++;
            const problem = pagingUrlProblem(url, ctx.http.baseUrl, target, sent, at);
            ensure(problem === undefined, () => `${describe(ex)}: ${what} ${problem}`, {
              exchange: ex,
            });
          }
        },
        { examples },
      );
      if (compared === 0) ctx.skip('no response carried a paging URL');
    },
  }),
  defineCheck({
    id: 'PAGE-HEADERS',
    area: 'pagination',
    title:
      'every list response, in every format and on HEAD, carries X-Total-Count and Link with rel="next" iff nextURL and rel="prev" iff previousURL (the same URLs); single-object responses never carry X-Total-Count',
    clause:
      'decisions §3 (Link, X-Total-Count) and its Revision 2 (every rtn, HEAD, never on single objects)',
    endpoints: [
      'teams.tags',
      'teams.list',
      'contacts.list',
      'opens.tag',
      'clicks.tag',
      'teams.member',
      'tags.daily',
      'contacts.get',
    ],
    async run(ctx) {
      const ps = ctx.profile.pageSize;
      let compared = 0;
      for (const l of (await listCalls(ctx)).slice(0, 4)) {
        const cursors = [
          ...new Set([0, Math.min(1, l.total), lastPageStart(l.total, ps), l.total]),
        ];
        for (const cursor of cursors) {
          // the JSON body says which pages exist; every other form must link the same ones
          const ref = await ctx.call(l.endpoint, withQuery(l, ['cursor', String(cursor)]));
          let page: ListPage;
          try {
            page = ctx.page(l.endpoint, ref);
          } catch (e) {
            if (!(e instanceof Violation)) throw e;
            ctx.fail(e.message, e.details);
            continue;
          }
          // rel="prev" iff previousURL (null iff cursor 0; a 204 has no body to say it)
          const want = {
            next: page.paging?.nextURL ?? null,
            prev: page.paging === undefined ? (cursor > 0 ? '' : null) : page.paging.previousURL,
          };
          const at = String(cursor);
          const forms: [string, EndpointCall][] = [
            ['default', withQuery(l, ['cursor', at])],
            ...ctx.profile.rtn.map((rtn): [string, EndpointCall] => [
              `rtn=${rtn}`,
              withQuery(l, ['cursor', at], ['rtn', rtn]),
            ]),
            ['HEAD', { ...withQuery(l, ['cursor', at]), method: 'HEAD' }],
          ];
          for (const [form, call] of forms) {
            const ex = form === 'default' ? ref : await ctx.call(l.endpoint, call);
            compared++;
            const problems: string[] = [];
            if (ex.status !== 200 && ex.status !== 204) problems.push(`status ${ex.status}`);
            if (headerCount(ex) !== l.total)
              problems.push(
                `X-Total-Count ${JSON.stringify(ex.responseHeaders['x-total-count'])}, expected ${l.total}`,
              );
            const links = linksOf(ex.responseHeaders.link);
            for (const rel of ['next', 'prev'] as const) {
              const url = want[rel];
              const field = rel === 'next' ? 'nextURL' : 'previousURL';
              const link = links[rel];
              if (url === null && link !== undefined)
                problems.push(`Link has rel="${rel}" but ${field} is null`);
              else if (url !== null && link === undefined)
                problems.push(
                  `Link ${JSON.stringify(ex.responseHeaders.link ?? null)} lacks rel="${rel}" (${url === '' ? 'cursor > 0' : `${field} ${url}`})`,
                );
              else if (form === 'default' && url && link && !sameUrl(url, link))
                problems.push(`Link rel="${rel}" <${link}> is not ${field} ${url}`);
            }
            if (problems.length > 0)
              ctx.fail(
                `${describe(ex)} (${form}, cursor ${cursor}, total ${l.total}): ${problems.join('; ')}`,
                { exchange: ex },
              );
          }
          if (ctx.failures.length >= 8) return;
        }
      }
      // single-object responses: never X-Total-Count
      for (const { endpoint, call } of await sampleCalls(ctx)) {
        if (endpointById(endpoint).response !== 'single') continue;
        const forms: EndpointCall[] = [
          call,
          ...ctx.profile.rtn.map((rtn) => ({
            ...call,
            query: [...((call.query ?? []) as Pairs), ['rtn', rtn]] as Pairs,
          })),
          { ...call, method: 'HEAD' },
        ];
        for (const f of forms) {
          const ex = await ctx.call(endpoint, f);
          compared++;
          if (ex.responseHeaders['x-total-count'] !== undefined)
            ctx.fail(
              `${describe(ex)}: a single-object response carries X-Total-Count ${JSON.stringify(ex.responseHeaders['x-total-count'])}`,
              { exchange: ex },
            );
        }
      }
      if (compared === 0) ctx.skip('no endpoint could be sampled');
    },
  }),
  defineCheck({
    id: 'PAGE-STABLE-ORDER',
    area: 'pagination',
    title:
      'lists come in the stable order: tags newest dateSent first then tagID; members by lastname, firstname, memberID; contacts by email; events and days oldest first (strings by UTF-16 code units)',
    clause:
      'decisions §3 (order) and its Revision 2 (ordinal string order, ties among events free)',
    endpoints: [
      'teams.tags',
      'teams.list',
      'contacts.list',
      'opens.tag',
      'clicks.tag',
      'stats.team',
      'opens.list',
      'clicks.list',
    ],
    async run(ctx) {
      let compared = 0;
      for (const { endpoint, call } of await sampleCalls(ctx)) {
        const order = orderOf(endpoint);
        if (order === undefined || endpointById(endpoint).response !== 'list') continue;
        const w = await ctx.walk(endpoint, call);
        const recs = w.records as Rec[];
        compared += recs.length;
        const bad = recs.findIndex((r, i) => i > 0 && order(recs[i - 1]!, r) > 0);
        if (bad > 0)
          ctx.fail(
            `${describe(w.pages[0]!)}: record ${bad} comes after record ${bad - 1} out of order (${JSON.stringify(recs[bad - 1]).slice(0, 100)} then ${JSON.stringify(recs[bad]).slice(0, 100)})`,
            { exchange: w.pages[0] },
          );
      }
      // event groups follow the tag order
      const tagOrder = new Map(
        ((await ctx.walk('teams.tags')).records as Rec[]).map((t, i) => [t.tagID as string, i]),
      );
      for (const endpoint of ['opens.list', 'clicks.list'] as const) {
        const w = await ctx.walk(endpoint);
        compared += w.records.length;
        const idx = (w.records as Rec[]).map((g) => tagOrder.get(g.tagID as string) ?? -1);
        const bad = idx.findIndex((v, i) => i > 0 && v < idx[i - 1]!);
        if (bad > 0)
          ctx.fail(
            `${describe(w.pages[0]!)}: event groups are not in the tag order at group ${bad}`,
            { exchange: w.pages[0] },
          );
      }
      if (compared === 0) ctx.skip('every sampled list is empty: no order to check');
    },
  }),
];

/** The `cursor` of a URL's query as a number, or undefined. */
function cursorIn(url: string): number | undefined {
  try {
    const v = new URL(url).searchParams.get('cursor');
    return v === null || !/^[0-9]+$/.test(v) ? undefined : Number(v);
  } catch {
    return undefined;
  }
}

type Rec = Record<string, unknown>;

function compareBy<T>(...keys: ((r: T) => string)[]) {
  return (a: T, b: T): number => {
    for (const k of keys) {
      const x = k(a);
      const y = k(b);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}

const str = (f: string) => (r: Rec) => String(r[f] ?? '');
/** A timestamp as a sortable key: epoch milliseconds, zero-padded (instants, any form). */
const time = (f: string) => (r: Rec) => String(Date.parse(String(r[f])) + 1e15).padStart(20, '0');
/** A timestamp as a key that sorts newest first. */
const newestFirst = (f: string) => (r: Rec) =>
  String(9e15 - Date.parse(String(r[f]))).padStart(20, '0');

/** The stable order of decisions §3 per endpoint (undefined: nothing to check). */
function orderOf(endpoint: EndpointId): ((a: Rec, b: Rec) => number) | undefined {
  switch (endpoint) {
    case 'teams.list':
    case 'teams.group':
      return compareBy(str('lastname'), str('firstname'), str('memberID'));
    case 'teams.tags':
    case 'teams.memberTags':
      return compareBy(newestFirst('dateSent'), str('tagID'));
    case 'contacts.list':
    case 'contacts.tag':
      return compareBy((r) => String(r.email).trim().toLowerCase());
    case 'opens.tag':
      return compareBy(time('openDate'));
    case 'clicks.tag':
      return compareBy(time('clickDate'));
    case 'stats.team':
    case 'stats.teamAlias':
    case 'stats.group':
    case 'stats.member':
      return compareBy(str('date'));
    default:
      return undefined;
  }
}
