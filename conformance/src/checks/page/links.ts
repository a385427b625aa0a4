import {
  buildPath,
  buildQueryString,
  type EndpointId,
  endpointById,
  type ParamName,
} from '@tagtrack/core';
import fc from 'fast-check';
import { linksOf } from '../../check/compare.ts';
import type { CheckContext, EndpointCall } from '../../check/context.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, ensure } from '../../check/failure.ts';
import { sampleCalls } from '../../check/sample.ts';
import { headerCount } from '../../check/walk.ts';
import type { Exchange } from '../../http/client.ts';
import {
  LISTS,
  listCalls,
  listCallWith,
  PAGED,
  type Pairs,
  pagingUrlProblem,
  pick,
  type SizedList,
  sameUrl,
  telltaleCursors,
} from './lists.ts';

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
 * An ignored parameter whose value must be percent-encoded (a space, `+`, `/`, a non-ASCII
 * letter): a paging URL keeps it in its raw form (spec §5 Revision 2).
 */
const ENCODED_NEXT: [string, string] = ['next', 'a b+c/é'];

/** The number of largest lists every paging-URL check looks at from every telltale cursor. */
const DEEP_LISTS = 2;

/**
 * The Link header's next and prev targets, each with its label and the cursor it must carry
 * from a page at cursor `c` in a list of `total` with pages of `ps` (spec §5).
 */
export function linkTargets(
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

/**
 * The paging URLs `ex` carries (its Link targets, and for a 200 JSON body `nextURL` and
 * `previousURL`), each with the cursor it must point at: `min(c + ps, total)` for next and
 * `max(c - ps, 0)` for previous (spec §5), whatever `paging.cursors` says (that is
 * PAGE-CURSOR-ARITHMETIC's to judge).
 */
function pagingUrls(
  ctx: CheckContext,
  l: SizedList,
  ex: Exchange,
  c: number,
  json: boolean,
): [string, string, number][] {
  const ps = ctx.profile.pageSize;
  const urls = linkTargets(ex.responseHeaders.link, c, ps, l.total);
  if (json && ex.status === 200 && ex.method === 'GET') {
    const p = ctx.page(l.endpoint, ex).paging!;
    if (p.nextURL !== null) urls.push(['nextURL', p.nextURL, Math.min(c + ps, l.total)]);
    if (p.previousURL !== null) urls.push(['previousURL', p.previousURL, Math.max(c - ps, 0)]);
  }
  return urls;
}

/**
 * `path` spelled otherwise with the same meaning (spec §6 Revision 2: segments are
 * percent-decoded before matching): the first character of its first segment as an
 * upper-case escape (`/%74eams/tags`), and every escape of the rest in lower-case hex
 * (`Key%20Accounts` stays, `%C3%89quipe` becomes `%c3%89quipe`).
 */
export function otherSpelling(path: string): string {
  const [, first = '', ...rest] = path.split('/');
  const head = `%${first.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}${first.slice(1)}`;
  return ['', head, ...rest.map((s) => s.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()))].join(
    '/',
  );
}

/** A list request sent with its path spelled otherwise (see {@link otherSpelling}). */
interface SpelledList {
  readonly list: SizedList;
  readonly path: string;
}

/**
 * The requests of PAGE-URLS-KEEP-QUERY's path spellings: each list with records under its
 * path spelled otherwise, and the members of each visible group by its name when the name
 * needs percent-encoding (a space, a letter outside ASCII), spelled otherwise too.
 */
async function spelledLists(
  ctx: CheckContext,
  lists: readonly SizedList[],
): Promise<SpelledList[]> {
  const out: SpelledList[] = lists.map((l) => ({
    list: l,
    path: otherSpelling(buildPath(endpointById(l.endpoint), l.call.pathParams ?? {})),
  }));
  const endpoint: EndpointId = 'teams.group';
  for (const g of (await ctx.discover()).groups) {
    if (encodeURIComponent(g.groupName) === g.groupName) continue;
    const call = { pathParams: { group: g.groupName } };
    const total = (await ctx.walk(endpoint, call)).total;
    if (total > 0)
      out.push({
        list: { endpoint, call, total },
        path: otherSpelling(buildPath(endpointById(endpoint), call.pathParams)),
      });
  }
  return out;
}

/** One request of PAGE-URLS-KEEP-QUERY: a list, its other parameters in order, a form, a cursor. */
interface UrlCase {
  readonly list: SizedList;
  readonly pairs: Pairs;
  /** `null`: no rtn sent (json). */
  readonly rtn: string | null;
  readonly head: boolean;
  /** `null`: no cursor sent (cursor 0). */
  readonly cursor: number | null;
  /** Where rtn and cursor go among the pairs. */
  readonly at: number;
}

/** Paging URLs and the headers that carry them: nextURL, previousURL, Link, X-Total-Count (spec §5). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'PAGE-URLS-KEEP-QUERY',
    title:
      'nextURL, previousURL and the Link targets, on every list endpoint, in every rtn and on HEAD, are absolute URLs on the base URL (path prefix included) whose path names the request’s endpoint and resource (as received or in canonical form, a path spelled otherwise included) and whose query is the request’s raw query with only cursor replaced, every other parameter, its order and its encoding kept, pointing at the right cursor (unaligned cursors and the last-but-one page included)',
    clause: 'spec §5 Revision 2 (nextURL and previousURL) and Revision 3 (their path)',
    endpoints: LISTS,
    async run(ctx) {
      const lists = (await listCalls(ctx)).filter((l) => l.total > 0);
      if (lists.length === 0) ctx.skip('no list with records could be sampled');
      const ps = ctx.profile.pageSize;
      let compared = 0;
      const extrasOf = (l: SizedList): Pairs => {
        const allowed = endpointById(l.endpoint).query;
        return (Object.keys(NEUTRAL_VALUES) as ParamName[])
          .filter((p) => allowed.includes(p))
          .map((p): [string, string] => [p, NEUTRAL_VALUES[p]!(l.total)]);
      };
      const own = (l: SizedList) => (l.call.query ?? []) as Pairs;
      const forms: { rtn: string | null; head: boolean }[] = [
        { rtn: null, head: false },
        ...ctx.profile.rtn.map((rtn) => ({ rtn, head: false })),
        { rtn: null, head: true },
      ];
      // always tried, on every list endpoint: its parameters in reverse alphabetical order,
      // the cursor among them, in a form of its own (json, each rtn, HEAD in turn) ...
      const examples: UrlCase[] = lists.map((l, i) => ({
        list: l,
        pairs: [...own(l), ...extrasOf(l)].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0)),
        ...forms[i % forms.length]!,
        cursor: Math.min(1, l.total),
        at: 8,
      }));
      // ... and on the largest lists, every telltale cursor (unaligned, the last-but-one page,
      // the last page) in json, with an ignored parameter whose value needs percent-encoding
      for (const l of lists.slice(0, DEEP_LISTS))
        for (const cursor of telltaleCursors(l.total, ps).filter((c) => c < l.total))
          examples.push({
            list: l,
            pairs: [ENCODED_NEXT, ...own(l), ...extrasOf(l)],
            rtn: null,
            head: false,
            cursor: cursor === 0 ? null : cursor,
            at: 1,
          });
      const arb = fc.constantFrom(...lists).chain((l) => {
        const extras: Pairs = [...extrasOf(l), ENCODED_NEXT];
        return fc.record<UrlCase>({
          list: fc.constant(l),
          pairs: fc.shuffledSubarray([...own(l), ...extras], {
            minLength: Math.min(1, extras.length),
          }),
          rtn: fc.option(fc.constantFrom(...ctx.profile.rtn)),
          head: fc.boolean(),
          cursor: fc.option(fc.integer({ min: 1, max: l.total }), { freq: 4 }),
          at: fc.nat(),
        });
      });
      await ctx.property(
        arb,
        async ({ list: l, pairs, rtn, head, cursor, at }) => {
          const sent: Pairs = [...pairs];
          if (rtn !== null) sent.splice(at % (sent.length + 1), 0, ['rtn', rtn]);
          if (cursor !== null)
            sent.splice((at >> 3) % (sent.length + 1), 0, ['cursor', String(cursor)]);
          const ex = await ctx.call(l.endpoint, {
            ...l.call,
            query: sent,
            ...(head ? { method: 'HEAD' } : {}),
          });
          const json = rtn === null || rtn === 'json';
          for (const [what, url, target] of pagingUrls(ctx, l, ex, cursor ?? 0, json)) {
            compared++;
            const problem = pagingUrlProblem(url, ctx.http.baseUrl, ex, target);
            ensure(
              problem === undefined,
              () =>
                `${describe(ex)} (cursor ${cursor ?? 0}, total ${l.total}, page size ${ps}): ${what} ${problem}`,
              { kind: 'url', exchange: ex },
            );
          }
        },
        { examples },
      );
      // the path sent in another spelling: the paging URLs carry it as received or in its
      // canonical form, either way naming the same endpoint and resource (Revision 3)
      await ctx.each(await spelledLists(ctx, lists), async ({ list: l, path }) => {
        // cursor 1 has both neighbours; a list of one record has only a next page at 0
        const cursor = l.total > 1 ? 1 : 0;
        const ex = await ctx.raw({
          method: 'GET',
          path,
          rawQuery: buildQueryString([...own(l), ['cursor', String(cursor)]]),
          credential: ctx.primary,
        });
        ensure(
          ex.status === 200,
          () =>
            `${describe(ex)} answered ${ex.status}, expected 200 (the path means ${l.endpoint})`,
          { kind: 'status', exchange: ex },
        );
        for (const [what, url, target] of pagingUrls(ctx, l, ex, cursor, true)) {
          compared++;
          const problem = pagingUrlProblem(url, ctx.http.baseUrl, ex, target);
          ensure(
            problem === undefined,
            () => `${describe(ex)} (path spelled ${path}): ${what} ${problem}`,
            { kind: 'url', exchange: ex },
          );
        }
      });
      if (compared === 0) ctx.skip('no response carried a paging URL');
    },
  }),
  defineCheck({
    id: 'PAGE-HEADERS',
    title:
      'every list response of every list endpoint, in every rtn, on HEAD and as 204, carries X-Total-Count (the record count) and Link with rel="next" iff nextURL and rel="prev" iff previousURL, pointing at the same pages (the same URLs in json); single-object responses carry neither',
    clause:
      'spec §5 (Link, X-Total-Count) and its Revision 2 (every rtn, HEAD, never on single objects)',
    endpoints: [...LISTS, 'teams.member', 'tags.daily', 'contacts.get'],
    async run(ctx) {
      const ps = ctx.profile.pageSize;
      let compared = 0;
      const lists = await listCalls(ctx);
      for (const [i, l] of lists.entries()) {
        // the largest lists from every telltale cursor; the others from cursor 0 and from one
        // telltale cursor picked by the seed
        const telltale = telltaleCursors(l.total, ps);
        const deep = i < DEEP_LISTS || telltale.length === 1;
        const cursors = deep ? telltale : [0, pick(telltale.slice(1), ctx.seed, i)];
        for (const cursor of cursors) {
          // cursor 0 is sent as no cursor (the walk's first page, from the run's cache)
          const at: Pairs = cursor === 0 ? [] : [['cursor', String(cursor)]];
          // the JSON body says which pages exist; every other form must link the same ones
          const ref = await ctx.call(l.endpoint, listCallWith(l, ...at));
          const page = await ctx.attempt(() => ctx.page(l.endpoint, ref));
          if (page === undefined) continue;
          // rel="prev" iff previousURL (null iff cursor 0; a 204 has no body to say it)
          const want = {
            next: page.paging?.nextURL ?? null,
            prev: page.paging === undefined ? (cursor > 0 ? '' : null) : page.paging.previousURL,
          };
          const forms: [string, EndpointCall][] = [
            ['default', listCallWith(l, ...at)],
            ...ctx.profile.rtn.map((rtn): [string, EndpointCall] => [
              `rtn=${rtn}`,
              listCallWith(l, ...at, ['rtn', rtn]),
            ]),
            ['HEAD', { ...listCallWith(l, ...at), method: 'HEAD' }],
          ];
          // every form at cursor 0; the deep lists' other cursors as json and HEAD, and in
          // every form at one cursor picked by the seed (a text or html page costs most)
          const full = cursor === 0 || (deep && cursor === pick(telltale.slice(1), ctx.seed, i));
          const sent = full
            ? forms
            : deep
              ? forms.filter(([form]) => form === 'default' || form === 'HEAD')
              : [pick(forms, ctx.seed, i + cursor)];
          for (const [form, call] of sent) {
            const ex = form === 'default' ? ref : await ctx.call(l.endpoint, call);
            compared++;
            const problems: string[] = [];
            const status = ex.status !== 200 && ex.status !== 204;
            if (status) problems.push(`status ${ex.status}`);
            if (headerCount(ex) !== l.total)
              problems.push(
                `X-Total-Count ${JSON.stringify(ex.responseHeaders['x-total-count'] ?? null)}, expected ${l.total}`,
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
            // each target is this request's URL at the neighbouring cursor
            for (const [what, url, target] of linkTargets(
              ex.responseHeaders.link,
              cursor,
              ps,
              l.total,
            )) {
              const problem = pagingUrlProblem(url, ctx.http.baseUrl, ex, target);
              if (problem !== undefined) problems.push(`${what} ${problem}`);
            }
            await ctx.attempt(() =>
              ensure(
                problems.length === 0,
                () =>
                  `${describe(ex)} (${form}, cursor ${cursor}, total ${l.total}, page size ${ps}): ${problems.join('; ')}`,
                { kind: status ? 'status' : 'header', exchange: ex },
              ),
            );
          }
          ctx.stopAt(8);
        }
      }
      // single-object responses: neither X-Total-Count nor Link
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
          for (const h of ['x-total-count', 'link'])
            await ctx.attempt(() =>
              ensure(
                ex.responseHeaders[h] === undefined,
                () =>
                  `${describe(ex)}: a single-object response carries ${h === 'link' ? 'Link' : 'X-Total-Count'} ${JSON.stringify(ex.responseHeaders[h])}`,
                { kind: 'header', exchange: ex },
              ),
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
      'spec §5 Revision 2 (paging URLs on the public base URL, configured, never taken from the request’s Host)',
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
          for (const [what, url, at] of pagingUrls(ctx, l, ex, c, true)) {
            compared++;
            const problem = pagingUrlProblem(url, ctx.http.baseUrl, ex, at);
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
