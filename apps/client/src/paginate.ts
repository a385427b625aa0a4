import { type PageReading, type Paging, type WalkViolation, walkCursor } from '@tagtrack/core';
import { PaginationError, ResponseValidationError } from './errors.ts';

/** One page of a list endpoint: the records and the `paging` object of spec §5. */
export interface ListPage<T> {
  readonly data: T[];
  readonly paging: Paging;
}

/** Fetches the page starting at offset `cursor` (spec §5: cursor = offset). */
export type FetchPage<T> = (cursor: number) => Promise<ListPage<T>>;

/** Default of {@link PaginateOptions.maxPages}: 100,000 pages (25 million records at 250). */
export const DEFAULT_MAX_PAGES = 100_000;

/** Options of {@link paginate} and {@link paginatePages}. */
export interface PaginateOptions {
  /** Offset of the first page; default 0. */
  readonly cursor?: number | undefined;
  /**
   * Most pages one walk fetches; the next one throws {@link PaginationError} `page_cap`.
   * Default {@link DEFAULT_MAX_PAGES}.
   */
  readonly maxPages?: number | undefined;
}

/**
 * Walks a cursor-paginated list page by page (spec §5 and its Revision 2), holding one
 * page in memory at a time, in either paging end of the profile. The loop and its guards are
 * core's `walkCursor` (shared with the conformance suite); this maps its violations:
 * - it ends after a page with `paging.cursors.next >= paging.cursors.total` (that page is
 *   yielded), so neither the 204 of `no-content` nor the `data: []` of `empty-page` past the
 *   end is requested by a walk from a cursor inside the list; on a conforming server this is
 *   also where `nextURL` is null (`empty-page`) or points at `cursor=total` (`no-content`);
 * - it ends on an empty page (nothing yielded): what a 204 No Content becomes (see
 *   {@link noContentPage}), or `data: []`, e.g. for an empty list or a start cursor past the end.
 *
 * Never loops forever. Throws {@link PaginationError}: `stalled` when a non-final page's
 * `next` is not greater than its cursor, `inconsistent` when `next` differs from
 * `cursor + data.length` (both after yielding that page), `total_changed` when a page's
 * `total` differs from the first page's (before yielding it), `page_cap` before fetching page
 * `maxPages + 1`. Throws {@link ResponseValidationError} when a non-empty page carries no
 * numeric `paging.cursors`.
 */
export async function* paginatePages<T>(
  fetchPage: FetchPage<T>,
  options: PaginateOptions = {},
): AsyncGenerator<ListPage<T>, void, undefined> {
  const steps = walkCursor(async (cursor) => readListPage(await fetchPage(cursor), cursor), {
    cursor: options.cursor ?? 0,
    maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
    contiguous: true,
  });
  for await (const step of steps) {
    if (step.kind === 'violation') throw paginationErrorOf(step.violation);
    if (step.kind === 'page') yield step.page;
  }
}

/**
 * A fetched page as the shared walker reads it: a page without records ends the list; any
 * other needs numeric `paging.cursors` (else {@link ResponseValidationError}).
 */
function readListPage<T>(page: ListPage<T>, cursor: number): PageReading<ListPage<T>> {
  if (page.data.length === 0) return { end: true, page };
  const cursors = page.paging?.cursors;
  if (
    cursors === undefined ||
    typeof cursors.next !== 'number' ||
    typeof cursors.total !== 'number'
  ) {
    throw new ResponseValidationError(
      'paging.cursors',
      'paging.cursors with numeric next and total is required to follow pages (spec §5)',
      `cursor=${cursor}`,
    );
  }
  return { end: false, page, count: page.data.length, next: cursors.next, total: cursors.total };
}

/** The client's {@link PaginationError} for a guard failure of the shared walker. */
function paginationErrorOf(v: WalkViolation): PaginationError {
  switch (v.law) {
    case 'page-cap':
      return new PaginationError('page_cap', v.cursor, 0, v.cursor, v.total ?? v.cursor, {
        maxPages: v.maxPages,
      });
    case 'total-stable':
      return new PaginationError('total_changed', v.cursor, v.count, v.next, v.total, {
        previousTotal: v.previousTotal,
      });
    case 'cursor-advances':
      return new PaginationError('stalled', v.cursor, v.count, v.next, v.total);
    case 'cursor-contiguous':
      return new PaginationError('inconsistent', v.cursor, v.count, v.next, v.total);
  }
}

/**
 * Yields every record of a cursor-paginated list once, in order, fetching pages lazily
 * (constant memory: one page at a time). Same end conditions and errors as
 * {@link paginatePages}. Use with `for await (const record of paginate(fetchPage))`.
 */
export async function* paginate<T>(
  fetchPage: FetchPage<T>,
  options: PaginateOptions = {},
): AsyncGenerator<T, void, undefined> {
  for await (const page of paginatePages(fetchPage, options)) yield* page.data;
}

/**
 * The page a list endpoint's **204 No Content** stands for (spec §5 Revision 2, paging
 * end `no-content`: a list request whose page has no records answers 204 with an empty body,
 * still carrying `X-Total-Count` and `Link` prev). `cursor` is the cursor that was sent.
 * Returns `{ data: [], paging }` with:
 * - `cursors.total`: `X-Total-Count` when it is a decimal integer, else `cursor` (an empty
 *   page means the list ends at or before the cursor);
 * - `cursors.next`: `total` (`min(cursor + pageSize, total)` for a cursor at or past the end);
 * - `cursors.previous` and `previousURL`: the cursor and URL of `Link` rel="prev" when sent,
 *   else `0` and `null` (the page size is unknown to the client);
 * - `nextURL`: `null` (nothing follows).
 */
export function noContentPage<T = never>(headers: Headers, cursor: number): ListPage<T> {
  const count = headers.get('x-total-count')?.trim();
  const total = count !== undefined && /^\d+$/.test(count) ? Number(count) : cursor;
  const prev = linkTarget(headers.get('link'), 'prev');
  const prevCursor = prev === undefined ? undefined : cursorOf(prev);
  return {
    data: [],
    paging: {
      cursors: { previous: prevCursor ?? 0, next: total, total },
      previousURL: prev ?? null,
      nextURL: null,
    },
  };
}

/**
 * The target of the first link with relation `rel` in an RFC 8288 `Link` header value
 * (`<url>; rel="next", <url>; rel="prev"`; `rel` may list several relations), or `undefined`.
 */
export function linkTarget(header: string | null, rel: string): string | undefined {
  if (header === null) return undefined;
  for (const m of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]*)*)/g)) {
    const params = m[2] ?? '';
    const value = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const rels = (value?.[1] ?? value?.[2] ?? '').toLowerCase().split(/\s+/);
    if (rels.includes(rel)) return m[1];
  }
  return undefined;
}

function cursorOf(url: string): number | undefined {
  try {
    const raw = new URL(url, 'http://relative.invalid').searchParams.get('cursor');
    return raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined;
  } catch {
    return undefined;
  }
}
