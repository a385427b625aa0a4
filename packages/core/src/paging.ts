import * as z from 'zod';
import { Counter } from './values.ts';

/** Default page size of the reference profile (spec §5; a profile option). */
export const DEFAULT_PAGE_SIZE = 250;

/**
 * How a list ends (spec §5 Revision 2, profile option `pagingEnd`):
 * - `no-content` (reference default): `nextURL` is null only on an empty page; the last
 *   non-empty page's `nextURL` points at `cursor=total`; a page with no records answers
 *   **204 No Content** with an empty body (still with `X-Total-Count` and `Link` prev);
 * - `empty-page`: `nextURL` is null on the last page; past the end answers 200 `data: []`.
 */
export const PagingEnd = z.enum(['no-content', 'empty-page']).meta({ id: 'PagingEnd' });
export type PagingEnd = z.infer<typeof PagingEnd>;

/** The reference profile's paging end (spec §5 Revision 2). */
export const DEFAULT_PAGING_END: PagingEnd = 'no-content';

/**
 * A non-negative integer of any size, as a JSON parser reads it: a `number` that is an
 * integer, above 2^53 − 1 included (`JSON.parse` gives the nearest double there; read the
 * text with core's `parseJsonExact` for the exact value). `paging.cursors.previous` is one:
 * after a huge cursor it is huge too (spec §5 Revision 2: no size limit).
 */
const BigCounter = z
  .number()
  .nonnegative()
  .refine(Number.isInteger, { message: 'must be an integer' })
  .meta({ type: 'integer' });

/**
 * A cursor offset as the reference computes it, exactly: a `number` up to 2^53 − 1
 * (`Number.MAX_SAFE_INTEGER`), a `bigint` above (spec §5 Revision 2: `[0-9]+`, no size
 * limit). {@link exactCursor} gives this normal form.
 */
export type Cursor = number | bigint;

/** `value` in the normal form of a {@link Cursor}: a `number` when it is a safe integer. */
export function exactCursor(value: bigint): Cursor {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/**
 * The `paging` object of a list envelope (spec §5): cursor offsets and the URLs of
 * the neighbouring pages (`null` at either end).
 */
export const Paging = z
  .object({
    cursors: z
      .object({
        previous: BigCounter.describe(
          'Offset of the previous page: max(cursor - pageSize, 0), exact for any cursor (no size limit: written with all its digits, spec §5 Revision 2)',
        ),
        next: Counter.describe('Offset of the next page: cursor plus the records on this page'),
        total: Counter.describe('Number of records in the whole list (= X-Total-Count)'),
      })
      .describe('Offsets into the stably ordered list (spec §5)'),
    previousURL: z
      .string()
      .nullable()
      .describe(
        'Absolute URL of the previous page, or null on the first page (Link rel="prev"; spec §5)',
      ),
    nextURL: z
      .string()
      .nullable()
      .describe(
        'Absolute URL of the next page, or null at the end as the profile option pagingEnd says (Link rel="next"; spec §5)',
      ),
  })
  .meta({ id: 'Paging' });
export type Paging = z.infer<typeof Paging>;

/**
 * The `paging` object as {@link pagingOf} computes it: {@link Paging} whose
 * `cursors.previous` is exact, a `bigint` above 2^53 − 1 (after a huge cursor). Written as
 * JSON with core's `stringifyJson`, which writes a bigint with all its digits.
 */
export type ExactPaging = Omit<Paging, 'cursors'> & {
  readonly cursors: Omit<Paging['cursors'], 'previous'> & { readonly previous: Cursor };
};

/** `{ data: T[], paging }`: the envelope of every list response (spec §5). */
export function ListEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), paging: Paging });
}
export type ListEnvelope<T> = { data: T[]; paging: Paging };

/** `{ data: T }`: the envelope of endpoints 3, 14 and 16 (spec §5). */
export function SingleEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ data: item });
}
export type SingleEnvelope<T> = { data: T };

/**
 * One page of a list: the records at `[cursor, next)` and the cursor arithmetic, exact for
 * any cursor (a {@link Cursor}: a `bigint` above 2^53 − 1). `next` and `total` are at most
 * the list's length, so always numbers. `C` is `number` for a page cut at a `number` cursor
 * (see {@link pageOf}).
 */
export interface Page<T, C extends Cursor = Cursor> {
  readonly records: T[];
  readonly cursor: C;
  readonly previous: C;
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
 * Cuts one page out of a stably ordered list (spec §5 and its Revision 2):
 * `next = min(cursor + pageSize, total)`, `previous = max(cursor - pageSize, 0)`, a cursor
 * at or past `total` gives an empty page; `hasPrevious` iff `cursor > 0`; `hasNext` per
 * `pagingEnd` (`no-content`: iff the page has records, so the last page links to
 * `cursor=total`; `empty-page`: iff `cursor + pageSize < total`); `noContent` iff
 * `no-content` and the page is empty. `cursor` is a non-negative integer of any size, a
 * {@link Cursor}: a `bigint` gives exact arithmetic whatever its size (`previous` of the
 * cursor 99999999999999999999n at page size 250 is 99999999999999999749n; `cursor` and
 * `previous` in {@link Cursor} normal form, as `CursorParam` reads a cursor), a `number` the
 * arithmetic of numbers (exact up to 2^53 − 1; `cursor` and `previous` are numbers).
 * `pageSize >= 1`.
 */
export function pageOf<T, C extends Cursor = Cursor>(
  records: readonly T[],
  cursor: C,
  pageSize: number,
  pagingEnd: PagingEnd = DEFAULT_PAGING_END,
): Page<T, CursorOf<C>> {
  const total = records.length;
  // at or past the end, every cursor cuts the same empty page: only `previous` needs it exact
  const start = cursor >= total ? total : Number(cursor);
  const next = Math.min(start + pageSize, total);
  const slice = start >= total ? [] : records.slice(start, next);
  const empty = slice.length === 0;
  return {
    records: slice,
    cursor: (typeof cursor === 'bigint' ? exactCursor(cursor) : cursor) as CursorOf<C>,
    previous: (typeof cursor === 'number'
      ? Math.max(cursor - pageSize, 0)
      : cursor > pageSize
        ? exactCursor(BigInt(cursor) - BigInt(pageSize))
        : 0) as CursorOf<C>,
    next,
    total,
    hasPrevious: cursor > 0,
    hasNext: pagingEnd === 'no-content' ? !empty : start + pageSize < total,
    noContent: pagingEnd === 'no-content' && empty,
  };
}

/** The cursor type of a page cut at a cursor of type `C`: `number` for a number. */
export type CursorOf<C extends Cursor> = [C] extends [number] ? number : Cursor;

/**
 * Builds the `paging` object for `page`, given a function that renders the URL of the
 * same request at another cursor (spec §5). `previous` stays exact: an
 * {@link ExactPaging} (a `bigint` above 2^53 − 1), a {@link Paging} for a page cut at a
 * `number` cursor.
 */
export function pagingOf<C extends Cursor>(
  page: Page<unknown, C>,
  urlAt: (cursor: C | number) => string,
): [C] extends [number] ? Paging : ExactPaging {
  const paging: ExactPaging = {
    cursors: { previous: page.previous, next: page.next, total: page.total },
    previousURL: page.hasPrevious ? urlAt(page.previous) : null,
    nextURL: page.hasNext ? urlAt(page.next) : null,
  };
  return paging as [C] extends [number] ? Paging : ExactPaging;
}

/**
 * The query string of the same request at another cursor (spec §5 Revision 2): the
 * request's raw query with only `cursor` replaced (appended last when absent); every other
 * parameter keeps its place and its encoding as received. `rawQuery` has no leading `?`;
 * `cursor` is written in decimal with all its digits (a `bigint` above 2^53 − 1).
 * E.g. `queryWithCursor('start=2024-01-01&cursor=250&rtn=text', 500)` is
 * `'start=2024-01-01&cursor=500&rtn=text'`.
 */
export function queryWithCursor(rawQuery: string, cursor: Cursor): string {
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
