import * as z from 'zod';
import { Counter } from './values.ts';

/** Default page size of the reference profile (decisions §3; a profile option). */
export const DEFAULT_PAGE_SIZE = 250;

/**
 * How a list ends (decisions §3 Revision 2, profile option `pagingEnd`):
 * - `no-content` (reference default): `nextURL` is null only on an empty page; the last
 *   non-empty page's `nextURL` points at `cursor=total`; a page with no records answers
 *   **204 No Content** with an empty body (still with `X-Total-Count` and `Link` prev);
 * - `empty-page`: `nextURL` is null on the last page; past the end answers 200 `data: []`.
 */
export const PagingEnd = z.enum(['no-content', 'empty-page']).meta({ id: 'PagingEnd' });
export type PagingEnd = z.infer<typeof PagingEnd>;

/** The reference profile's paging end (decisions §3 Revision 2). */
export const DEFAULT_PAGING_END: PagingEnd = 'no-content';

/**
 * The `paging` object of a list envelope (decisions §3): cursor offsets and the URLs of
 * the neighbouring pages (`null` at either end).
 */
export const Paging = z
  .object({
    cursors: z
      .object({
        previous: Counter.describe('Offset of the previous page (0 on the first page)'),
        next: Counter.describe('Offset of the next page: cursor plus the records on this page'),
        total: Counter.describe('Number of records in the whole list (= X-Total-Count)'),
      })
      .describe('Offsets into the stably ordered list (decisions §3)'),
    previousURL: z
      .string()
      .nullable()
      .describe(
        'Absolute URL of the previous page, or null on the first page (Link rel="prev"; decisions §3)',
      ),
    nextURL: z
      .string()
      .nullable()
      .describe(
        'Absolute URL of the next page, or null at the end as the profile option pagingEnd says (Link rel="next"; decisions §3)',
      ),
  })
  .meta({ id: 'Paging' });
export type Paging = z.infer<typeof Paging>;

/** `{ data: T[], paging }`: the envelope of every list response (decisions §3). */
export function ListEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), paging: Paging });
}
export type ListEnvelope<T> = { data: T[]; paging: Paging };

/** `{ data: T }`: the envelope of endpoints 3, 14 and 16 (decisions §3). */
export function SingleEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ data: item });
}
export type SingleEnvelope<T> = { data: T };

/** One page of a list: the records at `[cursor, next)` and the cursor arithmetic. */
export interface Page<T> {
  readonly records: T[];
  readonly cursor: number;
  readonly previous: number;
  readonly next: number;
  readonly total: number;
  /** Whether `previousURL` (and `Link` rel="prev") is sent: iff `cursor > 0`. */
  readonly hasPrevious: boolean;
  /** Whether `nextURL` (and `Link` rel="next") is sent, per the {@link PagingEnd}. */
  readonly hasNext: boolean;
  /** Whether the page answers 204 No Content (`no-content` and no records on the page). */
  readonly noContent: boolean;
}

/**
 * Cuts one page out of a stably ordered list (decisions §3 and its Revision 2):
 * `next = min(cursor + pageSize, total)`, `previous = max(cursor - pageSize, 0)`, a cursor
 * at or past `total` gives an empty page; `hasPrevious` iff `cursor > 0`; `hasNext` per
 * `pagingEnd` (`no-content`: iff the page has records, so the last page links to
 * `cursor=total`; `empty-page`: iff `cursor + pageSize < total`); `noContent` iff
 * `no-content` and the page is empty. `cursor` and `pageSize` are non-negative integers,
 * `pageSize >= 1`.
 */
export function pageOf<T>(
  records: readonly T[],
  cursor: number,
  pageSize: number,
  pagingEnd: PagingEnd = DEFAULT_PAGING_END,
): Page<T> {
  const total = records.length;
  const next = Math.min(cursor + pageSize, total);
  const slice = cursor >= total ? [] : records.slice(cursor, next);
  const empty = slice.length === 0;
  return {
    records: slice,
    cursor,
    previous: Math.max(cursor - pageSize, 0),
    next,
    total,
    hasPrevious: cursor > 0,
    hasNext: pagingEnd === 'no-content' ? !empty : cursor + pageSize < total,
    noContent: pagingEnd === 'no-content' && empty,
  };
}

/**
 * Builds the `paging` object for `page`, given a function that renders the URL of the
 * same request at another cursor (decisions §3).
 */
export function pagingOf(page: Page<unknown>, urlAt: (cursor: number) => string): Paging {
  return {
    cursors: { previous: page.previous, next: page.next, total: page.total },
    previousURL: page.hasPrevious ? urlAt(page.previous) : null,
    nextURL: page.hasNext ? urlAt(page.next) : null,
  };
}

/**
 * The query string of the same request at another cursor (decisions §3 Revision 2): the
 * request's raw query with only `cursor` replaced (appended last when absent); every other
 * parameter keeps its place and its encoding as received. `rawQuery` has no leading `?`.
 * E.g. `queryWithCursor('start=2024-01-01&cursor=250&rtn=text', 500)` is
 * `'start=2024-01-01&cursor=500&rtn=text'`.
 */
export function queryWithCursor(rawQuery: string, cursor: number): string {
  const parts = rawQuery === '' ? [] : rawQuery.split('&');
  let found = false;
  const out = parts.map((part) => {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (found || safeDecode(name) !== 'cursor') return part;
    found = true;
    return `cursor=${cursor}`;
  });
  if (!found) out.push(`cursor=${cursor}`);
  return out.join('&');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
