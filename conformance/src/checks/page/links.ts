import { endpointById, type ParamName } from '@tagtrack/core';
import fc from 'fast-check';
import { linksOf } from '../compare.ts';
import type { EndpointCall } from '../context.ts';
import { type Check, defineCheck } from '../define.ts';
import { describe, ensure } from '../failure.ts';
import { sampleCalls } from '../sample.ts';
import { headerCount } from '../walk.ts';
import {
  lastPageStart,
  listCalls,
  PAGED,
  type Pairs,
  pagingUrlProblem,
  type SizedList,
  sameUrl,
  withQuery,
} from './shared.ts';

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

/**
 * The Link header's next and prev targets, each with its label and the cursor it should carry
 * from a page at cursor `c` of `ps` records in a list of `total`.
 */
function linkTargets(
  link: string | undefined,
  c: number,
  ps: number,
  total: number,
): [string, string, number][] {
  const urls: [string, string, number][] = [];
  const links = linksOf(link);
  if (links.next !== undefined) urls.push(['Link rel="next"', links.next, Math.min(c + ps, total)]);
  if (links.prev !== undefined) urls.push(['Link rel="prev"', links.prev, Math.max(c - ps, 0)]);
  return urls;
}

/** Paging URLs and the headers that carry them: nextURL, previousURL, Link, X-Total-Count (decisions §3). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'PAGE-URLS-KEEP-QUERY',
    title:
      'nextURL, previousURL and the Link targets are absolute URLs on the base URL whose query is the request’s query with only cursor replaced, every other parameter and its order kept',
    clause: 'decisions §3 Revision 2 (nextURL and previousURL)',
    endpoints: PAGED,
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
          const urls = linkTargets(ex.responseHeaders.link, c, ps, l.total);
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
              kind: 'url',
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
    title:
      'every list response, in every format and on HEAD, carries X-Total-Count and Link with rel="next" iff nextURL and rel="prev" iff previousURL (the same URLs); single-object responses never carry X-Total-Count',
    clause:
      'decisions §3 (Link, X-Total-Count) and its Revision 2 (every rtn, HEAD, never on single objects)',
    endpoints: [...PAGED, 'teams.member', 'tags.daily', 'contacts.get'],
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
          const page = await ctx.attempt(() => ctx.page(l.endpoint, ref));
          if (page === undefined) continue;
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
            const status = ex.status !== 200 && ex.status !== 204;
            if (status) problems.push(`status ${ex.status}`);
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
                { kind: status ? 'status' : 'header', exchange: ex },
              );
          }
          ctx.stopAt(8);
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
              { kind: 'header', exchange: ex },
            );
        }
      }
      if (compared === 0) ctx.skip('no endpoint could be sampled');
    },
  }),
  defineCheck({
    id: 'PAGE-URLS-PUBLIC-BASE',
    title:
      'nextURL, previousURL and the Link targets stay on the base URL when the request carries a forged Host, X-Forwarded-Host or Forwarded header',
    clause:
      'decisions §3 Revision 2 (paging URLs on the public base URL, configured, never taken from the request’s Host)',
    endpoints: PAGED,
    async run(ctx) {
      // In memory the Host header reaches the server as sent; over a socket fetch sends the
      // connection's own Host instead, and only the X-Forwarded-* and Forwarded headers go.
      const forged = {
        host: 'forged.invalid',
        'x-forwarded-host': 'forged.invalid',
        'x-forwarded-proto': 'https',
        forwarded: 'for=192.0.2.1;host=forged.invalid;proto=https',
      };
      const ps = ctx.profile.pageSize;
      let compared = 0;
      const lists = (await listCalls(ctx)).filter((l) => l.total > 0).slice(0, 4);
      await ctx.each(
        lists.flatMap((l) => [...new Set([Math.min(1, l.total), 0])].map((c) => ({ l, c }))),
        async ({ l, c }) => {
          // `next` (ignored) makes the request one the implementation has not answered yet
          const sent: Pairs = [
            ...((l.call.query ?? []) as Pairs),
            ['next', 'forged-host'],
            ['cursor', String(c)],
          ];
          const ex = await ctx.call(l.endpoint, { ...l.call, query: sent, headers: forged });
          const target = ex.target.split('?')[0]!;
          const urls = linkTargets(ex.responseHeaders.link, c, ps, l.total);
          if (ex.status === 200) {
            const p = ctx.page(l.endpoint, ex).paging;
            if (p?.nextURL) urls.push(['nextURL', p.nextURL, p.cursors.next]);
            if (p?.previousURL) urls.push(['previousURL', p.previousURL, p.cursors.previous]);
          }
          for (const [what, url, at] of urls) {
            compared++;
            const problem = pagingUrlProblem(url, ctx.http.baseUrl, target, sent, at);
            ensure(
              problem === undefined,
              () =>
                `${describe(ex)} with a forged Host, X-Forwarded-Host and Forwarded (forged.invalid): ${what} ${problem}`,
              { kind: 'url', exchange: ex },
            );
          }
        },
      );
      if (compared === 0) ctx.skip('no response carried a paging URL');
    },
  }),
];
