import * as z from 'zod';
import { Counter } from './values.ts';

/** Default page size of the reference profile (decisions §3; a profile option). */
export const DEFAULT_PAGE_SIZE = 250;

/**
 * The `paging` object of a list envelope (decisions §3): cursor offsets and the URLs of
 * the neighbouring pages (`null` at either end).
 */
export const Paging = z
  .object({
    cursors: z.object({ previous: Counter, next: Counter, total: Counter }),
    previousURL: z.string().nullable(),
    nextURL: z.string().nullable(),
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
  readonly hasPrevious: boolean;
  readonly hasNext: boolean;
}

/**
 * Cuts one page out of a stably ordered list (decisions §3): `next = min(cursor + pageSize,
 * total)`, `previous = max(cursor - pageSize, 0)`, a cursor at or past `total` gives an empty
 * page. `cursor` and `pageSize` are non-negative integers, `pageSize >= 1`.
 */
export function pageOf<T>(records: readonly T[], cursor: number, pageSize: number): Page<T> {
  const total = records.length;
  const next = Math.min(cursor + pageSize, total);
  const slice = cursor >= total ? [] : records.slice(cursor, next);
  return {
    records: slice,
    cursor,
    previous: Math.max(cursor - pageSize, 0),
    next,
    total,
    hasPrevious: cursor > 0 && total > 0,
    hasNext: cursor + pageSize < total,
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
