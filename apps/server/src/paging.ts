import {
  buildQueryString,
  type Cursor,
  canonicalPath,
  type ExactPaging,
  type Page,
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
  /** The request's cursor, exact (a bigint above 2^53 − 1; decisions §3 Revision 2). */
  readonly cursor: Cursor;
  readonly pageSize: number;
  readonly pagingEnd: PagingEnd;
  /** Base of `nextURL`/`previousURL`, no trailing slash (never the request's Host). */
  readonly publicUrl: string;
  readonly target: RequestTarget;
  readonly rtn: Rtn;
  readonly method: string;
  /**
   * The path of the paging URLs (decisions §3 Revision 3, free): the path as received
   * (default, the reference) or its canonical form (core's `canonicalPath`; variant
   * `paging-path-canonical`).
   */
  readonly pathForm?: 'as-received' | 'canonical';
}

/** One page of a list answer: the records, the `paging` object, the headers, and 200 or 204. */
export interface ListPage {
  readonly page: Page<unknown>;
  /** `paging`, `cursors.previous` exact (write it with core's `stringifyJson`). */
  readonly paging: ExactPaging;
  /** `X-Total-Count` and, when a neighbour exists, `Link`. */
  readonly headers: Record<string, string>;
  /** 204 No Content with an empty body (pagingEnd `no-content` and no record on the page). */
  readonly noContent: boolean;
}

/**
 * Cuts the page of `req` (decisions §3 and its Revision 2) with core's {@link pageOf} and
 * {@link pagingOf}: `next = min(cursor + pageSize, total)`, `previous = max(cursor -
 * pageSize, 0)`, exact for any cursor (a bigint above 2^53 − 1), `previousURL` iff cursor > 0,
 * `nextURL` per the paging end, 204 for an empty page in `no-content`. The URLs are
 * {@link pageUrl}. `X-Total-Count` is on every list
 * response (every `rtn`, HEAD and 204 included) and `Link` carries the same URLs as
 * `paging` (RFC 8288, rel="next"/"prev").
 *
 * Paging-layer faults: `page-overlap`, `no-content-as-empty-page`,
 * `no-content-without-headers`, `last-page-next-null`, `paging-url-drops-params`,
 * `paging-url-sorted-params`, `link-header-missing-text`, `head-no-link`,
 * `head-total-differs`, `previous-url-on-first-page`, `next-url-page-aligned`,
 * `previous-url-unclamped`, `link-next-page-count`, `total-count-counts-header-row`,
 * `paging-url-drops-prefix`, `total-param-as-page-size`, `next-param-as-cursor`,
 * `head-link-relative`, `event-groups-count-events`, `prev-cursor-float`.
 */
export function listPage(req: ListRequest, faults: FaultSet): ListPage {
  const given = ignoredParams(req.target.rawQuery);
  let cursor: Cursor = req.cursor;
  let pageSize = req.pageSize;
  if (faults.has('next-param-as-cursor') && !given.cursor && given.next !== undefined) {
    // bug: `next` (the Node client's option) read as the cursor when no cursor is sent
    cursor = given.next;
  }
  if (faults.has('total-param-as-page-size') && given.total !== undefined && given.total > 0) {
    // bug: `total` read as how many records the client wants on the page
    pageSize = given.total;
  }
  let page: Page<unknown> = pageOf(req.records, cursor, pageSize, req.pagingEnd);
  // the faults below that read the cursor act only where it is below the total (a page with
  // records, a next page), hence a number, or compare it (where Number() is close enough)
  if (faults.has('page-overlap') && page.hasNext && page.next > Number(page.cursor) + 1) {
    // bug: the next cursor points at the last record of this page
    page = { ...page, next: page.next - 1 };
  }
  if (faults.has('no-content-as-empty-page') && page.noContent) {
    // bug: the empty page is rendered like any other, 200 with data []
    page = { ...page, noContent: false };
  }
  if (faults.has('last-page-next-null') && req.pagingEnd === 'no-content' && page.hasNext) {
    // bug: the "is there a next page" test of empty-page, in the no-content profile
    page = { ...page, hasNext: Number(page.cursor) + req.pageSize < page.total };
  }
  if (faults.has('previous-url-on-first-page') && !page.hasPrevious) {
    // bug: previousURL is always set, pointing at cursor 0 on the first page
    page = { ...page, hasPrevious: true };
  }
  if (faults.has('prev-cursor-float') && typeof page.previous === 'bigint') {
    // bug: previous computed in float arithmetic (Number(cursor) - pageSize), which rounds a
    // cursor above 2^53 - 1 to a double: cursor=99999999999999999999 links to
    // cursor=100000000000000000000
    page = { ...page, previous: BigInt(Number(page.cursor) - pageSize) };
  }
  let paging = pagingOf(page, (at) => pageUrl(req, at, faults));
  if (faults.has('next-url-page-aligned') && paging.nextURL !== null) {
    // bug: the next URL is built from the page number, so an unaligned cursor snaps to the
    // next page boundary (paging.cursors.next stays right)
    const aligned = (Math.floor(Number(page.cursor) / pageSize) + 1) * pageSize;
    paging = { ...paging, nextURL: pageUrl(req, Math.min(aligned, page.total), faults) };
  }
  if (faults.has('previous-url-unclamped') && paging.previousURL !== null) {
    // bug: the previous URL is cursor - pageSize without the clamp at 0 of cursors.previous
    const unclamped =
      typeof page.cursor === 'bigint' ? page.cursor - BigInt(pageSize) : page.cursor - pageSize;
    paging = { ...paging, previousURL: pageUrl(req, unclamped, faults) };
  }

  const headers: Record<string, string> = {};
  const noHeaders = page.noContent && faults.has('no-content-without-headers');
  if (!noHeaders) {
    headers['X-Total-Count'] = String(
      req.method === 'HEAD' && faults.has('head-total-differs')
        ? page.records.length // bug: HEAD counts the page, GET the whole list
        : req.rtn !== 'json' && faults.has('total-count-counts-header-row')
          ? page.total + 1 // bug: the table's rows counted, its header row included
          : faults.has('event-groups-count-events')
            ? eventCount(req.records) // bug: the events of 9 and 11 counted, not their groups
            : page.total,
    );
    let linked = paging;
    if (
      faults.has('link-next-page-count') &&
      Math.floor(Number(page.cursor) / pageSize) >= Math.floor(page.total / pageSize) - 1
    ) {
      // bug: the Link header's "is there a next page" test counts floor(total / pageSize)
      // pages, so the last-but-one page (and the last) lose rel="next"
      linked = { ...linked, nextURL: null };
    }
    if (req.method === 'HEAD' && faults.has('head-link-relative')) {
      // bug: HEAD builds its Link from the request path alone: relative URLs
      const relative = (u: string | null) => (u === null ? null : u.slice(req.publicUrl.length));
      linked = {
        ...linked,
        nextURL: relative(linked.nextURL),
        previousURL: relative(linked.previousURL),
      };
    }
    const link = linkHeader(linked);
    const dropLink =
      (req.rtn === 'text' && faults.has('link-header-missing-text')) ||
      (req.method === 'HEAD' && faults.has('head-no-link'));
    if (link !== undefined && !dropLink) headers.Link = link;
  }
  return { page, paging, headers, noContent: page.noContent };
}

/**
 * Fault `event-groups-count-events`: the number of events in `records` when they are the
 * event groups of 9 and 11 (`{ tagID, opens | clicks: [...] }`), else the number of records.
 */
function eventCount(records: readonly unknown[]): number {
  let n = 0;
  for (const r of records) {
    const events = (r as Record<string, unknown>).opens ?? (r as Record<string, unknown>).clicks;
    n += Array.isArray(events) ? events.length : 1;
  }
  return n;
}

/** Headers of a single-object response (3, 14, 16): none of the list headers. */
export function singleHeaders(faults: FaultSet): Record<string, string> {
  // bug (fault total-count-on-single): the list's header on a single record
  return faults.has('total-count-on-single') ? { 'X-Total-Count': '1' } : {};
}

/**
 * Whether a single-object request at `cursor` answers 204 No Content: never (decisions §3
 * Revision 2: a valid cursor on a single-object endpoint is ignored). Fault
 * `single-cursor-no-content`: the record is paged as a list of one, so a cursor of 1 or more
 * is past its end (204, with `X-Total-Count: 1`).
 */
export function singleNoContent(cursor: Cursor, faults: FaultSet): boolean {
  return faults.has('single-cursor-no-content') && cursor >= 1;
}

/** What the faults `next-param-as-cursor` and `total-param-as-page-size` read from the raw query. */
interface IgnoredParams {
  /** Whether a `cursor` parameter was sent. */
  readonly cursor: boolean;
  /** The first `next` value when it is `[0-9]+` (and a safe integer). */
  readonly next: number | undefined;
  /** The first `total` value when it is `[0-9]+` (and a safe integer). */
  readonly total: number | undefined;
}

/** `cursor`, `next` and `total` of a raw query (for the faults only: both are ignored). */
function ignoredParams(rawQuery: string): IgnoredParams {
  const entries = queryEntries(rawQuery);
  const count = (name: string): number | undefined => {
    const v = entries.find(([k]) => k === name)?.[1];
    return v !== undefined && /^[0-9]{1,15}$/.test(v) ? Number(v) : undefined;
  };
  return {
    cursor: entries.some(([k]) => k === 'cursor'),
    next: count('next'),
    total: count('total'),
  };
}

/**
 * The URL of the same request at another cursor (decisions §3 Revision 2):
 * `${publicUrl}${path}?${query}`, the path as received (or its canonical form, per
 * `req.pathForm`: decisions §3 Revision 3) and the raw query with only `cursor`
 * replaced (core's {@link queryWithCursor}: every other parameter, its order and encoding
 * kept). Characters that may not appear in a URL at all (spaces, controls, `"<>\^`{|}` and
 * bytes above 0x7F, which only a raw socket client can send) are percent-encoded, as a URL
 * parser would, so the URL stays usable inside a `Link` header.
 */
export function pageUrl(req: ListRequest, cursor: Cursor, faults: FaultSet): string {
  // bug (fault paging-url-drops-prefix): the path resolved against the public URL as an
  // absolute path (`new URL('/teams', 'https://h/v1')`), which drops the public URL's prefix
  const root = faults.has('paging-url-drops-prefix')
    ? new URL(req.publicUrl).origin
    : req.publicUrl;
  let path = req.pathForm === 'canonical' ? canonicalPath(req.target.path) : req.target.path;
  // bug (fault paging-path-lowercased): the path written in lower case, as a router that
  // matches case-insensitively normalises it, so a group name's letters change case
  if (faults.has('paging-path-lowercased')) path = path.toLowerCase();
  const base = `${root}${urlSafe(path)}`;
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
export function linkHeader(paging: ExactPaging): string | undefined {
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
