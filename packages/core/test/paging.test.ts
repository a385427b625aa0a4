import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { type PagingEnd, pageOf, pagingOf, queryWithCursor } from '../src/paging.ts';

const arbList = fc.array(fc.nat(), { maxLength: 60 });
const arbPageSize = fc.integer({ min: 1, max: 20 });
const arbEnd = fc.constantFrom<PagingEnd>('no-content', 'empty-page');

/** Follows `hasNext` from cursor 0 as a client following nextURL would. */
function followNext(records: number[], pageSize: number, end: PagingEnd) {
  const seen: number[] = [];
  let cursor = 0;
  for (let i = 0; i < records.length + 3; i++) {
    const page = pageOf(records, cursor, pageSize, end);
    seen.push(...page.records);
    if (!page.hasNext) return { seen, last: page };
    cursor = page.next;
  }
  throw new Error('paging does not end');
}

describe('paging end (spec §5 Revision 2)', () => {
  fcTest.prop([arbList, arbPageSize, arbEnd])(
    'following nextURL from cursor 0 gives every record once and ends, in both paging ends',
    (records, pageSize, end) => {
      const { seen, last } = followNext(records, pageSize, end);
      expect(seen).toEqual(records);
      if (end === 'no-content') {
        expect(last.noContent).toBe(true);
        expect(last.cursor).toBe(records.length);
      } else {
        expect(last.noContent).toBe(false);
      }
    },
  );

  fcTest.prop([arbList, arbPageSize, fc.nat({ max: 100 }), arbEnd])(
    'next = min(cursor + pageSize, total), previous = max(cursor - pageSize, 0), previousURL iff cursor > 0',
    (records, pageSize, cursor, end) => {
      const page = pageOf(records, cursor, pageSize, end);
      expect(page.next).toBe(Math.min(cursor + pageSize, records.length));
      expect(page.previous).toBe(Math.max(cursor - pageSize, 0));
      expect(page.hasPrevious).toBe(cursor > 0);
      const paging = pagingOf(page, (c) => `u?cursor=${c}`);
      expect(paging.previousURL === null).toBe(cursor === 0);
    },
  );

  fcTest.prop([arbList, arbPageSize, fc.nat({ max: 100 })])(
    'no-content: nextURL is null iff the page is empty, which answers 204',
    (records, pageSize, cursor) => {
      const page = pageOf(records, cursor, pageSize, 'no-content');
      expect(page.hasNext).toBe(page.records.length > 0);
      expect(page.noContent).toBe(page.records.length === 0);
    },
  );

  fcTest.prop([arbList, arbPageSize, fc.nat({ max: 100 })])(
    'empty-page: nextURL is null on the last page and past the end, never 204',
    (records, pageSize, cursor) => {
      const page = pageOf(records, cursor, pageSize, 'empty-page');
      expect(page.hasNext).toBe(cursor + pageSize < records.length);
      expect(page.noContent).toBe(false);
    },
  );

  it('the last non-empty page of no-content links to cursor = total', () => {
    const page = pageOf([1, 2, 3, 4, 5], 4, 2, 'no-content');
    expect(pagingOf(page, (c) => `u?cursor=${c}`)).toEqual({
      cursors: { previous: 2, next: 5, total: 5 },
      previousURL: 'u?cursor=2',
      nextURL: 'u?cursor=5',
    });
    expect(pageOf([], 0, 2, 'no-content').noContent).toBe(true);
  });
});

describe('cursor arithmetic is exact for any cursor (spec §5 Revision 2, docs/spec.md §5)', () => {
  const arbHuge = fc.bigInt({ min: BigInt(Number.MAX_SAFE_INTEGER) - 300n, max: 10n ** 40n });

  fcTest.prop([arbList, arbPageSize, arbHuge, arbEnd])(
    'previous = cursor - pageSize exactly (a number iff safe), next = total, no records, past 2^53 too',
    (records, pageSize, cursor, end) => {
      const page = pageOf(records, cursor, pageSize, end);
      expect(BigInt(page.previous)).toBe(cursor - BigInt(pageSize));
      expect(typeof page.previous).toBe(
        cursor - BigInt(pageSize) <= BigInt(Number.MAX_SAFE_INTEGER) ? 'number' : 'bigint',
      );
      expect(page.records).toEqual([]);
      expect(page.next).toBe(records.length);
      expect(page.total).toBe(records.length);
      expect(page.hasPrevious).toBe(true);
      expect(page.hasNext).toBe(false);
      expect(page.noContent).toBe(end === 'no-content');
    },
  );

  fcTest.prop([arbList, arbPageSize, fc.nat({ max: 100 }), arbEnd])(
    'a cursor given as a bigint pages like the same number',
    (records, pageSize, cursor, end) => {
      expect(pageOf(records, BigInt(cursor), pageSize, end)).toEqual(
        pageOf(records, cursor, pageSize, end),
      );
    },
  );

  it('the URLs carry every digit of previous', () => {
    const page = pageOf([1, 2, 3], 99999999999999999999n, 250);
    expect(page.previous).toBe(99999999999999999749n);
    expect(
      pagingOf(page, (c) => `u?${queryWithCursor('rtn=text&cursor=099999999999999999999', c)}`),
    ).toEqual({
      cursors: { previous: 99999999999999999749n, next: 3, total: 3 },
      previousURL: 'u?rtn=text&cursor=99999999999999999749',
      nextURL: null,
    });
  });
});

describe('queryWithCursor (spec §5 Revision 2)', () => {
  it.each([
    ['', 5, 'cursor=5'],
    ['rtn=text', 250, 'rtn=text&cursor=250'],
    ['cursor=0&rtn=html', 7, 'cursor=7&rtn=html'],
    [
      'start=2024-01-01&cursor=250&end=2024-02-01',
      500,
      'start=2024-01-01&cursor=500&end=2024-02-01',
    ],
    ['total=x&cur%73or=3&next=9', 6, 'total=x&cursor=6&next=9'],
    ['isOpened=True&a=%2B+b', 1, 'isOpened=True&a=%2B+b&cursor=1'],
  ])('%j at cursor %d is %j: only cursor replaced, order and encoding kept', (q, c, want) => {
    expect(queryWithCursor(q, c)).toBe(want);
  });
});
