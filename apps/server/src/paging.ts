import {
  buildQueryString,
  type Page,
  type Paging,
  type PagingEnd,
  pageOf,
  pagingOf,
  queryWithCursor,
  type Rtn,
} from '@tagtrack/core';
import type { FaultSet } from './faults/index.ts';
import { queryEntries, type RequestTarget } from './request.ts';

/** What the paging layer needs to cut one page of a list answer. */
export interface ListRequest {
  /** The whole stably ordered list (decisions §3). */
  readonly records: readonly unknown[];
  readonly cursor: number;
  readonly pageSize: number;
  readonly pagingEnd: PagingEnd;
  /** Base of `nextURL`/`previousURL`, no trailing slash (never the request's Host). */
  readonly publicUrl: string;
  readonly target: RequestTarget;
  readonly rtn: Rtn;
  readonly method: string;
}

/** One page of a list answer: the records, the `paging` object, the headers, and 200 or 204. */
export interface ListPage {
  readonly page: Page<unknown>;
  readonly paging: Paging;
  /** `X-Total-Count` and, when a neighbour exists, `Link`. */
  readonly headers: Record<string, string>;
  /** 204 No Content with an empty body (pagingEnd `no-content` and no record on the page). */
  readonly noContent: boolean;
}

/**
 * Cuts the page of `req` (decisions §3 and its Revision 2) with core's {@link pageOf} and
 * {@link pagingOf}: `next = min(cursor + pageSize, total)`, `previous = max(cursor -
 * pageSize, 0)`, `previousURL` iff cursor > 0, `nextURL` per the paging end, 204 for an empty
 * page in `no-content`. The URLs are {@link pageUrl}. `X-Total-Count` is on every list
 * response (every `rtn`, HEAD and 204 included) and `Link` carries the same URLs as
 * `paging` (RFC 8288, rel="next"/"prev").
 *
 * Paging-layer faults: `page-overlap`, `no-content-as-empty-page`,
 * `no-content-without-headers`, `last-page-next-null`, `paging-url-drops-params`,
 * `paging-url-sorted-params`, `link-header-missing-text`, `head-no-link`,
 * `head-total-differs`, `previous-url-on-first-page`.
 */
export function listPage(req: ListRequest, faults: FaultSet): ListPage {
  let page: Page<unknown> = pageOf(req.records, req.cursor, req.pageSize, req.pagingEnd);
  if (faults.has('page-overlap') && page.hasNext && page.next > page.cursor + 1) {
    // bug: the next cursor points at the last record of this page
    page = { ...page, next: page.next - 1 };
  }
  if (faults.has('no-content-as-empty-page') && page.noContent) {
    // bug: the empty page is rendered like any other, 200 with data []
    page = { ...page, noContent: false };
  }
  if (faults.has('last-page-next-null') && req.pagingEnd === 'no-content' && page.hasNext) {
    // bug: the "is there a next page" test of empty-page, in the no-content profile
    page = { ...page, hasNext: page.cursor + req.pageSize < page.total };
  }
  if (faults.has('previous-url-on-first-page') && !page.hasPrevious) {
    // bug: previousURL is always set, pointing at cursor 0 on the first page
    page = { ...page, hasPrevious: true };
  }
  const paging = pagingOf(page, (cursor) => pageUrl(req, cursor, faults));

  const headers: Record<string, string> = {};
  const noHeaders = page.noContent && faults.has('no-content-without-headers');
  if (!noHeaders) {
    headers['X-Total-Count'] = String(
      req.method === 'HEAD' && faults.has('head-total-differs')
        ? page.records.length // bug: HEAD counts the page, GET the whole list
        : page.total,
    );
    const link = linkHeader(paging);
    const dropLink =
      (req.rtn === 'text' && faults.has('link-header-missing-text')) ||
      (req.method === 'HEAD' && faults.has('head-no-link'));
    if (link !== undefined && !dropLink) headers.Link = link;
  }
  return { page, paging, headers, noContent: page.noContent };
}

/** Headers of a single-object response (3, 14, 16): none of the list headers. */
export function singleHeaders(faults: FaultSet): Record<string, string> {
  // bug (fault total-count-on-single): the list's header on a single record
  return faults.has('total-count-on-single') ? { 'X-Total-Count': '1' } : {};
}

/**
 * The URL of the same request at another cursor (decisions §3 Revision 2):
 * `${publicUrl}${path}?${query}`, the path as received and the raw query with only `cursor`
 * replaced (core's {@link queryWithCursor}: every other parameter, its order and encoding
 * kept). Characters that may not appear in a URL at all (spaces, controls, `"<>\^`{|}` and
 * bytes above 0x7F, which only a raw socket client can send) are percent-encoded, as a URL
 * parser would, so the URL stays usable inside a `Link` header.
 */
export function pageUrl(req: ListRequest, cursor: number, faults: FaultSet): string {
  const base = `${req.publicUrl}${urlSafe(req.target.path)}`;
  if (faults.has('paging-url-drops-params')) return `${base}?cursor=${cursor}`; // bug
  if (faults.has('paging-url-sorted-params')) {
    // bug: the query is rebuilt from the parsed parameters, sorted by name
    const entries = queryEntries(req.target.rawQuery).filter(([k]) => k !== 'cursor');
    entries.push(['cursor', String(cursor)]);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `${base}?${buildQueryString(entries)}`;
  }
  return `${base}?${urlSafe(queryWithCursor(req.target.rawQuery, cursor))}`;
}

/** The RFC 8288 `Link` header value for the neighbouring pages, or `undefined` when none. */
export function linkHeader(paging: Paging): string | undefined {
  const links: string[] = [];
  if (paging.nextURL !== null) links.push(`<${paging.nextURL}>; rel="next"`);
  if (paging.previousURL !== null) links.push(`<${paging.previousURL}>; rel="prev"`);
  return links.length > 0 ? links.join(', ') : undefined;
}

/** Every character but printable ASCII without `"<>\^`{|}` (a whitelist, so no control ranges). */
const NOT_IN_URL = /[^!#-;=?-[\]_a-z~]/gu;

/**
 * Percent-encodes the characters a URL cannot carry; everything else, `%XX` escapes
 * included, is kept as is. A character U+0080..U+00FF is a byte of a raw request line
 * (Node decodes it as latin1) and is encoded as that byte; higher code points as UTF-8.
 */
function urlSafe(s: string): string {
  return s.replace(NOT_IN_URL, (c) => {
    const code = c.charCodeAt(0);
    if (code <= 0xff) return `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
    try {
      return encodeURIComponent(c);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate: U+FFFD, as a URL parser writes it
    }
  });
}
