import {
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
import type { RequestTarget } from './request.ts';

/** The path of paging URLs (spec §5 Revision 3, free): as received, or its canonical form. */
export type PagingPathForm = 'as-received' | 'canonical';

/** What the paging layer needs to cut one page of a list answer. */
export interface ListRequest {
  /**
   * The whole stably ordered list (spec §5), or with {@link slice} only the records of
   * the list from `slice.offset` on (an engine's window).
   */
  readonly records: readonly unknown[];
  /**
   * Present when `records` are a window of the list (core's `AnswerSlice`: a SQL engine
   * answered one page): where they start and how many records the whole list has. Only the
   * clean layer gets one: the server never asks a window under a paging fault.
   */
  readonly slice?: { readonly offset: number; readonly total: number } | undefined;
  /** The request's cursor, exact (a bigint above 2^53 − 1; spec §5 Revision 2). */
  readonly cursor: Cursor;
  readonly pageSize: number;
  readonly pagingEnd: PagingEnd;
  /** Base of `nextURL`/`previousURL`, no trailing slash (never the request's Host). */
  readonly publicUrl: string;
  readonly target: RequestTarget;
  readonly rtn: Rtn;
  readonly method: string;
  /**
   * The path of the paging URLs (spec §5 Revision 3, free): the path as received
   * (default, the reference) or its canonical form (core's `canonicalPath`).
   */
  readonly pathForm?: PagingPathForm;
  /** A request header by its lower-case name (read only by faults); absent: none. */
  readonly header?: (name: string) => string | undefined;
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
 * The stages of the paging layer a fault wraps (`faults/paging.ts`), each clean in
 * {@link PAGING_LAYER} unless a fault replaced it. `pageSize` is the one {@link window} chose.
 */
export interface PagingLayer {
  /** The cursor and page size of `req`'s page: `req.cursor` and `req.pageSize`. */
  window(req: ListRequest): { readonly cursor: Cursor; readonly pageSize: number };
  /** The page at `cursor`: core's {@link pageOf}. */
  cut(req: ListRequest, cursor: Cursor, pageSize: number): Page<unknown>;
  /** The `paging` object of `page` (core's {@link pagingOf}); `url` is the page URL at a cursor. */
  paging(
    req: ListRequest,
    page: Page<unknown>,
    pageSize: number,
    url: (cursor: Cursor) => string,
  ): ExactPaging;
  /** The base of the page URLs: `req.publicUrl`. */
  urlRoot(req: ListRequest): string;
  /** The path of the page URLs, before percent-encoding: as received or canonical (`req.pathForm`). */
  urlPath(req: ListRequest): string;
  /** The query string of the page URL at `cursor`: the raw query with only `cursor` replaced. */
  urlQuery(req: ListRequest, cursor: Cursor): string;
  /** `X-Total-Count`: the number of records of the whole list. */
  totalCount(req: ListRequest, page: Page<unknown>): number;
  /** The neighbours the `Link` header names: those of `paging`. */
  linked(req: ListRequest, page: Page<unknown>, paging: ExactPaging, pageSize: number): ExactPaging;
  /** The headers of the list response from `headers` (`X-Total-Count`, `Link`): unchanged. */
  headers(
    req: ListRequest,
    page: Page<unknown>,
    headers: Record<string, string>,
  ): Record<string, string>;
  /** Headers of a single-object response (3, 14, 16): none of the list headers. */
  singleHeaders(cursor: Cursor): Record<string, string>;
  /**
   * Whether a single-object request at `cursor` answers 204 No Content: never (spec §5
   * Revision 2: a valid cursor on a single-object endpoint is ignored).
   */
  singleNoContent(cursor: Cursor): boolean;
}

/** The clean {@link PagingLayer} (spec §5 and its Revisions 2 and 3). */
export const PAGING_LAYER: PagingLayer = {
  window: (req) => ({ cursor: req.cursor, pageSize: req.pageSize }),
  cut: (req, cursor, pageSize) =>
    req.slice === undefined
      ? pageOf(req.records, cursor, pageSize, req.pagingEnd)
      : pageOfSlice(req.records, req.slice, cursor, pageSize, req.pagingEnd),
  paging: (_req, page, _pageSize, url) => pagingOf<Cursor>(page, url),
  urlRoot: (req) => req.publicUrl,
  urlPath: (req) =>
    req.pathForm === 'canonical' ? canonicalPath(req.target.path) : req.target.path,
  urlQuery: (req, cursor) => urlSafe(queryWithCursor(req.target.rawQuery, cursor)),
  totalCount: (_req, page) => page.total,
  linked: (_req, _page, paging) => paging,
  headers: (_req, _page, headers) => headers,
  singleHeaders: () => ({}),
  singleNoContent: () => false,
};

/**
 * Cuts the page of `req` (spec §5 and its Revision 2) with core's {@link pageOf} and
 * {@link pagingOf}: `next = min(cursor + pageSize, total)`, `previous = max(cursor -
 * pageSize, 0)`, exact for any cursor (a bigint above 2^53 − 1), `previousURL` iff cursor > 0,
 * `nextURL` per the paging end, 204 for an empty page in `no-content`. The URLs are
 * {@link pageUrl}. `X-Total-Count` is on every list
 * response (every `rtn`, HEAD and 204 included) and `Link` carries the same URLs as
 * `paging` (RFC 8288, rel="next"/"prev"). `layer` is {@link PAGING_LAYER} or the stages as
 * the paging faults break them.
 */
export function listPage(req: ListRequest, layer: PagingLayer = PAGING_LAYER): ListPage {
  const { cursor, pageSize } = layer.window(req);
  const page = layer.cut(req, cursor, pageSize);
  const paging = layer.paging(req, page, pageSize, (at) => pageUrl(req, at, layer));
  const headers: Record<string, string> = {
    'X-Total-Count': String(layer.totalCount(req, page)),
  };
  const link = linkHeader(layer.linked(req, page, paging, pageSize));
  if (link !== undefined) headers.Link = link;
  return { page, paging, headers: layer.headers(req, page, headers), noContent: page.noContent };
}

/**
 * The page at `cursor` of a list of `slice.total` records of which only `records`, from
 * `slice.offset` on, are at hand (an engine's window): the same {@link Page} core's
 * {@link pageOf} cuts from the whole list (spec §5 and its Revision 2: a cursor at or
 * past the end, or a bigint above 2^53 − 1, gives the empty page with the exact `previous`).
 * Throws an Error when the page's records are not all in the window (an engine bug).
 */
export function pageOfSlice(
  records: readonly unknown[],
  slice: { readonly offset: number; readonly total: number },
  cursor: Cursor,
  pageSize: number,
  pagingEnd: PagingEnd,
): Page<unknown> {
  const { offset, total } = slice;
  // cursor, previous and hasPrevious do not depend on the list: core's arithmetic, exact
  const head = pageOf([], cursor, pageSize, pagingEnd);
  const start = cursor >= total ? total : Number(cursor);
  const next = Math.min(start + pageSize, total);
  const from = start - offset;
  if (next > start && (from < 0 || from + (next - start) > records.length)) {
    throw new Error(
      `the engine's window of ${records.length} records at ${offset} (of ${total}) does not hold the page [${start}, ${next})`,
    );
  }
  const page = next > start ? records.slice(from, from + (next - start)) : [];
  const empty = page.length === 0;
  return {
    ...head,
    records: page,
    next,
    total,
    hasNext: pagingEnd === 'no-content' ? !empty : start + pageSize < total,
    noContent: pagingEnd === 'no-content' && empty,
  };
}

/**
 * The URL of the same request at another cursor (spec §5 Revision 2):
 * `${publicUrl}${path}?${query}`, the path as received (or its canonical form, per
 * `req.pathForm`: spec §5 Revision 3) and the raw query with only `cursor`
 * replaced (core's {@link queryWithCursor}: every other parameter, its order and encoding
 * kept). Characters that may not appear in a URL at all (spaces, controls, `"<>\^`{|}` and
 * bytes above 0x7F, which only a raw socket client can send) are percent-encoded, as a URL
 * parser would, so the URL stays usable inside a `Link` header.
 */
export function pageUrl(
  req: ListRequest,
  cursor: Cursor,
  layer: PagingLayer = PAGING_LAYER,
): string {
  return `${layer.urlRoot(req)}${urlSafe(layer.urlPath(req))}?${layer.urlQuery(req, cursor)}`;
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
