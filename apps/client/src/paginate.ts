import type { Paging } from '@tagtrack/core';
import { PaginationError, ResponseValidationError } from './errors.ts';

/** One page of a list endpoint: the records and the `paging` object of decisions §3. */
export interface ListPage<T> {
  readonly data: T[];
  readonly paging: Paging;
}

/** Fetches the page starting at offset `cursor` (decisions §3: cursor = offset). */
export type FetchPage<T> = (cursor: number) => Promise<ListPage<T>>;

/** Options of {@link paginate} and {@link paginatePages}. */
export interface PaginateOptions {
  /** Offset of the first page; default 0. */
  readonly cursor?: number | undefined;
}

/**
 * Walks a cursor-paginated list page by page (decisions §3), holding one page in memory at a
 * time. Ends on either end condition of the profile: an empty page, or
 * `paging.cursors.next >= paging.cursors.total` (the page with that `next` is yielded).
 *
 * Throws {@link PaginationError} `stalled` when a non-final page's `next` is not greater than
 * its cursor (instead of looping forever) and `inconsistent` when `next` differs from
 * `cursor + data.length` (pages would overlap or skip records); throws
 * {@link ResponseValidationError} when a page carries no numeric `paging.cursors`.
 */
export async function* paginatePages<T>(
  fetchPage: FetchPage<T>,
  options: PaginateOptions = {},
): AsyncGenerator<ListPage<T>, void, undefined> {
  let cursor = options.cursor ?? 0;
  for (;;) {
    const page = await fetchPage(cursor);
    if (page.data.length === 0) return;
    const cursors = page.paging?.cursors;
    if (
      cursors === undefined ||
      typeof cursors.next !== 'number' ||
      typeof cursors.total !== 'number'
    ) {
      throw new ResponseValidationError(
        'paging.cursors',
        'paging.cursors with numeric next and total is required to follow pages (decisions §3)',
        `cursor=${cursor}`,
      );
    }
    const { next, total } = cursors;
    yield page;
    if (next >= total) return;
    if (next <= cursor) {
      throw new PaginationError('stalled', cursor, page.data.length, next, total);
    }
    if (next !== cursor + page.data.length) {
      throw new PaginationError('inconsistent', cursor, page.data.length, next, total);
    }
    cursor = next;
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
