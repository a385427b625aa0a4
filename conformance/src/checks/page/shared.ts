import { type EndpointId, endpointById } from '@tagtrack/core';
import type { CheckContext, EndpointCall } from '../context.ts';
import { sampleCalls } from '../sample.ts';

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

/** A sampled list request and its walked size. */
export interface SizedList {
  readonly endpoint: EndpointId;
  readonly call: EndpointCall;
  readonly total: number;
}

/** The sampled list endpoints, largest first (by walked size). */
export async function listCalls(ctx: CheckContext): Promise<SizedList[]> {
  const calls = (await sampleCalls(ctx)).filter(
    ({ endpoint }) => endpointById(endpoint).response === 'list',
  );
  const sized: SizedList[] = [];
  for (const c of calls) sized.push({ ...c, total: (await ctx.walk(c.endpoint, c.call)).total });
  return sized.sort((a, b) => b.total - a.total);
}

/** `l`'s request with `extra` query pairs appended (e.g. a cursor, an rtn). */
export function withQuery(l: SizedList, ...extra: Pairs): EndpointCall {
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
export function pagingUrlProblem(
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
export function sameUrl(a: string, b: string): boolean {
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

/** The `cursor` of a URL's query as a number, or undefined. */
export function cursorIn(url: string): number | undefined {
  try {
    const v = new URL(url).searchParams.get('cursor');
    return v === null || !/^[0-9]+$/.test(v) ? undefined : Number(v);
  } catch {
    return undefined;
  }
}
