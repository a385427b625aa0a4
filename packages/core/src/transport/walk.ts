/**
 * The page walker (spec §5 and its Revision 2): one loop that follows
 * `paging.cursors.next` through a cursor-paginated list, with the guards every walk needs.
 * It knows nothing of HTTP or of either caller's errors: the caller reads each response into
 * a {@link PageReading} and maps a {@link WalkViolation} (a typed guard failure, named by the
 * law it breaks) to its own error. Used by the client's `.all()/.pages()` and the suite's
 * `ctx.walk`.
 */

/** One response read as a page. `P` is whatever the caller keeps of it. */
export type PageReading<P> =
  /** A page without records (a 204 No Content, or `data: []`): the list ends here. */
  | { readonly end: true; readonly page: P }
  /** A page with `count` records and its `paging.cursors` `next` and `total`. */
  | {
      readonly end: false;
      readonly page: P;
      readonly count: number;
      readonly next: number;
      readonly total: number;
    };

/** The laws a walk checks; each guard failure is named by the law it breaks. */
export type WalkLaw = 'cursor-advances' | 'total-stable' | 'page-cap' | 'cursor-contiguous';

/** A guard failure of a walk, keyed by `law`. */
export type WalkViolation =
  /** A non-final page's `next` is not greater than its cursor (the walk would loop). */
  | {
      readonly law: 'cursor-advances';
      readonly cursor: number;
      readonly count: number;
      readonly next: number;
      readonly total: number;
    }
  /** A page's `total` differs from the first page's. */
  | {
      readonly law: 'total-stable';
      readonly cursor: number;
      readonly count: number;
      readonly next: number;
      readonly total: number;
      readonly previousTotal: number;
    }
  /** The walk fetched `pages` pages (the cap) and the list has not ended. */
  | {
      readonly law: 'page-cap';
      readonly cursor: number;
      readonly pages: number;
      readonly maxPages: number;
      readonly total: number | undefined;
    }
  /** (`contiguous` walks) a non-final page's `next` is not `cursor + count`. */
  | {
      readonly law: 'cursor-contiguous';
      readonly cursor: number;
      readonly count: number;
      readonly next: number;
      readonly total: number;
    };

/** One step of a walk. */
export type WalkStep<P> =
  /** A page with records, in order; `last` when `next >= total` ends the list after it. */
  | {
      readonly kind: 'page';
      readonly page: P;
      readonly index: number;
      readonly cursor: number;
      readonly last: boolean;
    }
  /** The page without records that ended the list (204 or `data: []`). */
  | { readonly kind: 'end'; readonly page: P; readonly index: number; readonly cursor: number }
  /** A guard failed; the walk stops after this step. */
  | { readonly kind: 'violation'; readonly violation: WalkViolation };

/** Options of {@link walkCursor}. */
export interface WalkCursorOptions {
  /** Offset of the first page; default 0. */
  readonly cursor?: number | undefined;
  /**
   * Most pages one walk fetches, or a function of the list's total (`undefined` before the
   * first page): fetching one more page yields a `page-cap` violation instead.
   */
  readonly maxPages: number | ((total: number | undefined) => number);
  /** Also require `next === cursor + count` on every non-final page (`cursor-contiguous`). */
  readonly contiguous?: boolean | undefined;
}

/**
 * Walks a cursor-paginated list: `fetchPage(cursor, index)` reads page number `index`
 * (0-based) at offset `cursor` (the first at `options.cursor`, then each page's `next`).
 * Ends, in either paging end of the profile, after a page with `next >= total` (that page is
 * yielded with `last`), or on a page without records (yielded as `end`). Guards, each
 * yielding one `violation` step after which the walk stops:
 * - `total-stable`: a page's `total` differs from the first page's (before that page);
 * - `cursor-advances`: a non-final page's `next <= cursor` (after that page);
 * - `cursor-contiguous` (only with `contiguous`): `next !== cursor + count` (after it);
 * - `page-cap`: `maxPages` pages were fetched and the list goes on (before fetching more).
 * So a walk always ends. Errors thrown by `fetchPage` propagate unchanged.
 */
export async function* walkCursor<P>(
  fetchPage: (cursor: number, index: number) => Promise<PageReading<P>>,
  options: WalkCursorOptions,
): AsyncGenerator<WalkStep<P>, void, undefined> {
  let cursor = options.cursor ?? 0;
  let total: number | undefined;
  const capOf = options.maxPages;
  for (let index = 0; ; index++) {
    const maxPages = typeof capOf === 'number' ? capOf : capOf(total);
    if (index >= maxPages) {
      yield {
        kind: 'violation',
        violation: { law: 'page-cap', cursor, pages: index, maxPages, total },
      };
      return;
    }
    const read = await fetchPage(cursor, index);
    if (read.end) {
      yield { kind: 'end', page: read.page, index, cursor };
      return;
    }
    const { count, next } = read;
    if (total !== undefined && read.total !== total) {
      yield {
        kind: 'violation',
        violation: {
          law: 'total-stable',
          cursor,
          count,
          next,
          total: read.total,
          previousTotal: total,
        },
      };
      return;
    }
    total = read.total;
    const last = next >= total;
    yield { kind: 'page', page: read.page, index, cursor, last };
    if (last) return;
    const broken =
      next <= cursor
        ? 'cursor-advances'
        : options.contiguous === true && next !== cursor + count
          ? 'cursor-contiguous'
          : undefined;
    if (broken !== undefined) {
      yield { kind: 'violation', violation: { law: broken, cursor, count, next, total } };
      return;
    }
    cursor = next;
  }
}
