import {
  type Cursor,
  canonicalPath,
  ENDPOINT_LIST,
  type EndpointId,
  endpointById,
  queryWithCursor,
} from '@tagtrack/core';
import type { CheckContext, EndpointCall } from '../../check/context.ts';
import { describe, ensure } from '../../check/failure.ts';
import { sampleCalls } from '../../check/sample.ts';
import { headerCount } from '../../check/walk.ts';
import type { Exchange } from '../../http/client.ts';

/** Query pairs as sent. */
export type Pairs = [string, string][];

/** The paged list endpoints every pagination check covers (others add theirs). */
export const PAGED: readonly EndpointId[] = [
  'teams.tags',
  'teams.list',
  'contacts.list',
  'opens.tag',
  'clicks.tag',
];

/** Every list endpoint of the catalogue (the paging URL and header checks cover them all). */
export const LISTS: readonly EndpointId[] = ENDPOINT_LIST.filter((e) => e.response === 'list').map(
  (e) => e.id,
);

/** A sampled list request and its walked size. */
export interface SizedList {
  readonly endpoint: EndpointId;
  readonly call: EndpointCall;
  readonly total: number;
}

/**
 * The sampled list endpoints, largest first (by walked size). The paging checks walk these
 * lists whole, some of them many times (every property run, by cursor and by URL, forwards
 * and backwards), so a list longer than the run's `--sample-above` (its first page's total)
 * is left out: they judge the others, as at the canonical size, where every list is shorter.
 * The check is skipped, naming the longest, when every list is that long.
 */
export async function listCalls(ctx: CheckContext): Promise<SizedList[]> {
  const calls = (await sampleCalls(ctx)).filter(
    ({ endpoint }) => endpointById(endpoint).response === 'list',
  );
  const sized: SizedList[] = [];
  let longest: { target: string; total: number } | undefined;
  for (const c of calls) {
    const first = await ctx.call(c.endpoint, c.call);
    const page = ctx.page(c.endpoint, first);
    const total = page.paging?.cursors.total ?? headerCount(first) ?? 0;
    if (total > ctx.sampleAbove) {
      if (longest === undefined || total > longest.total)
        longest = { target: `${first.method} ${first.target}`, total };
      continue;
    }
    sized.push({ ...c, total: (await ctx.walk(c.endpoint, c.call)).total });
  }
  if (sized.length === 0 && longest !== undefined)
    ctx.skip(
      `every sampled list is longer than the run's --sample-above (${ctx.sampleAbove.toLocaleString('en-US')} records; ${longest.target} reports ${longest.total.toLocaleString('en-US')}): the paging checks walk lists whole`,
    );
  return sized.sort((a, b) => b.total - a.total);
}

/** `l`'s request with `extra` query pairs appended (e.g. a cursor, an rtn). */
export function listCallWith(l: SizedList, ...extra: Pairs): EndpointCall {
  return { ...l.call, query: [...((l.call.query ?? []) as Pairs), ...extra] };
}

/** The cursor of the last page that has records (`0` for an empty list). */
export function lastPageStart(total: number, pageSize: number): number {
  return total === 0 ? 0 : Math.floor((total - 1) / pageSize) * pageSize;
}

/** An always empty list on any implementation: isOpened and isUnopened together (§4). */
export const EMPTY_LIST: SizedList = {
  endpoint: 'teams.tags',
  call: {
    query: [
      ['isOpened', 'true'],
      ['isUnopened', 'true'],
    ],
  },
  total: 0,
};

/** The raw query string an exchange sent (as serialised on the wire, no `?`), `''` when none. */
export function sentQuery(ex: Exchange): string {
  const i = ex.target.indexOf('?');
  return i < 0 ? '' : ex.target.slice(i + 1);
}

/** The path an exchange sent, relative to the base URL (`/teams/tags`). */
export function sentPath(ex: Exchange): string {
  const i = ex.target.indexOf('?');
  return i < 0 ? ex.target : ex.target.slice(0, i);
}

/**
 * One `name=value` segment of a raw query in RFC 3986 §6.2.2 normal form: the hex digits of
 * `%XX` in upper case, and escapes of unreserved characters (`A-Za-z0-9-._~`) decoded. Two
 * segments with the same normal form are the same bytes on the wire by meaning; `+`, `%20`
 * and `%2B` stay distinct.
 */
export function normalSegment(segment: string): string {
  return segment.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const c = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${hex.toUpperCase()}`;
  });
}

/** The segments of a raw query in normal form. */
function normalQuery(raw: string): string[] {
  return raw === '' ? [] : raw.split('&').map(normalSegment);
}

/**
 * What is wrong with a paging URL (`nextURL`, `previousURL`, a `Link` target) of the request
 * `ex`, expected to point at `cursor` (spec §5 Revision 2), or `undefined` when right: it
 * must be an absolute URL without a fragment, on `baseUrl` (scheme, host, port and path
 * prefix), with the request's path compared by meaning (the path as received or its
 * canonical form, segments decoded and re-encoded: spec §5 Revision 3; core's
 * `canonicalPath`, so `%2F` stays inside its segment), and its query must be the request's raw query with only
 * `cursor` replaced (appended last when absent; core's `queryWithCursor`): every other
 * parameter keeps its place and its raw form. Raw forms are compared segment by segment in
 * RFC 3986 normal form (hex case and escaped unreserved characters do not matter; docs/spec.md
 * §11).
 */
export function pagingUrlProblem(
  url: string,
  baseUrl: string,
  ex: Exchange,
  cursor: Cursor,
): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not an absolute URL`;
  }
  if (u.hash !== '' || url.includes('#')) return `${JSON.stringify(url)} has a fragment`;
  const base = new URL(baseUrl);
  const wantPath = `${base.pathname.replace(/\/+$/, '')}${sentPath(ex)}`;
  if (u.origin !== base.origin)
    return `${JSON.stringify(url)} is not on the base URL ${base.origin}`;
  if (canonicalPath(u.pathname) !== canonicalPath(wantPath))
    return `${JSON.stringify(url)} has the path ${u.pathname}, expected ${wantPath}${
      base.pathname.length > 1 && !u.pathname.startsWith(base.pathname)
        ? ` (the base URL's path prefix ${base.pathname} is lost)`
        : ''
    }`;
  const want = queryWithCursor(sentQuery(ex), cursor);
  const got = u.search.replace(/^\?/, '');
  if (JSON.stringify(normalQuery(got)) !== JSON.stringify(normalQuery(want)))
    return `${JSON.stringify(url)} has the query ${JSON.stringify(got)}, expected the request's query with only cursor replaced (cursor ${cursor}): ${JSON.stringify(want)}`;
  return undefined;
}

/**
 * Sends `method` to a paging URL taken from a response (`nextURL`, `previousURL`, a `Link`
 * target), as a client following it would: the URL's path below the base URL and its raw
 * query, signed as sent. Throws a {@link Violation} (kind `url`, naming `what` and the
 * response `from`) when the URL is not an absolute URL on the base URL, which no client
 * could follow.
 */
export async function follow(
  ctx: CheckContext,
  url: string,
  what: string,
  from: Exchange,
  method: 'GET' | 'HEAD' = 'GET',
): Promise<Exchange> {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  const base = new URL(ctx.http.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  ensure(
    u !== undefined &&
      u.origin === base.origin &&
      (prefix === '' || u.pathname.startsWith(`${prefix}/`)),
    () =>
      `${describe(from)}: ${what} ${JSON.stringify(url)} is not an absolute URL on the base URL ${ctx.http.baseUrl}, so a client cannot follow it`,
    { kind: 'url', exchange: from },
  );
  return ctx.raw({
    method,
    path: u!.pathname.slice(prefix.length),
    rawQuery: u!.search.replace(/^\?/, ''),
    credential: ctx.primary,
  });
}

/**
 * The cursors worth a look on a list of `total` records with pages of `pageSize`: 0, an
 * unaligned one (3, or 1 on short lists), the start of the last-but-one page and of the last
 * page, and `total` (the first cursor without records). Distinct, ascending.
 */
export function telltaleCursors(total: number, pageSize: number): number[] {
  const last = lastPageStart(total, pageSize);
  const unaligned = total > 3 ? 3 : Math.min(1, total);
  return [...new Set([0, unaligned, Math.max(last - pageSize, 0), last, total])].sort(
    (a, b) => a - b,
  );
}

/** A deterministic pick among `items` by a seed and a salt (index `(seed + salt) mod n`). */
export function pick<T>(items: readonly T[], seed: number, salt: number): T {
  return items[(((seed + salt) % items.length) + items.length) % items.length]!;
}

/** The decoded query pairs of a URL, in order. */
function pairsOf(url: URL): Pairs {
  return [...url.searchParams.entries()];
}

/**
 * Whether two URLs are the same: origin, path by meaning (core's `canonicalPath`: segments
 * decoded and re-encoded) and decoded query pairs in order.
 */
export function sameUrl(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return (
      x.origin === y.origin &&
      canonicalPath(x.pathname) === canonicalPath(y.pathname) &&
      JSON.stringify(pairsOf(x)) === JSON.stringify(pairsOf(y))
    );
  } catch {
    return a === b;
  }
}

/** The `cursor` of a URL's query as a number, or undefined. */
export function cursorIn(url: string): number | undefined {
  try {
    const v = new URL(url).searchParams.get('cursor');
    return v === null || !/^[0-9]+$/.test(v) ? undefined : Number(v);
  } catch {
    return undefined;
  }
}
