import { fc, test as propTest } from '@fast-check/vitest';
import { pageOf, pagingOf } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { createClient } from '../src/client.ts';
import { PaginationError } from '../src/errors.ts';
import { type ListPage, paginate, paginatePages } from '../src/paginate.ts';
import { fakeFetch, json } from './fakes.ts';

/** A list of `total` records served in pages of `pageSize` by core's cursor arithmetic. */
function server(total: number, pageSize: number) {
  const records = Array.from({ length: total }, (_, i) => ({ n: i }));
  const cursors: number[] = [];
  const fetchPage = async (cursor: number): Promise<ListPage<{ n: number }>> => {
    cursors.push(cursor);
    const page = pageOf(records, cursor, pageSize);
    return { data: page.records, paging: pagingOf(page, (c) => `/x?cursor=${c}`) };
  };
  return { records, cursors, fetchPage };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('paginate (decisions §3)', () => {
  propTest.prop([fc.nat(60), fc.integer({ min: 1, max: 12 }), fc.nat(70)], { numRuns: 150 })(
    'paginate from cursor c yields records [c, total) each exactly once, in order',
    async (total, pageSize, start) => {
      const s = server(total, pageSize);
      const got = await collect(paginate(s.fetchPage, { cursor: start }));
      expect(got).toEqual(s.records.slice(start));
      // one request per page, plus one for an empty first page past the end
      const expectedRequests = Math.max(1, Math.ceil((total - start) / pageSize));
      expect(s.cursors).toHaveLength(expectedRequests);
    },
  );

  test('stops on an empty page even when paging says there is more', async () => {
    const fetched: number[] = [];
    const got = await collect(
      paginate(async (cursor) => {
        fetched.push(cursor);
        const data = cursor === 0 ? [1, 2] : [];
        return {
          data,
          paging: {
            cursors: { previous: 0, next: cursor + 2, total: 100 },
            previousURL: null,
            nextURL: null,
          },
        };
      }),
    );
    expect(got).toEqual([1, 2]);
    expect(fetched).toEqual([0, 2]);
  });

  test('a server that does not advance the cursor is an error, not an infinite loop', async () => {
    let calls = 0;
    const stuck = paginate(async (cursor) => {
      calls++;
      return {
        data: ['a'],
        paging: {
          cursors: { previous: 0, next: cursor, total: 10 },
          previousURL: null,
          nextURL: null,
        },
      };
    });
    const err = await collect(stuck).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaginationError);
    expect(err).toMatchObject({ reason: 'stalled', cursor: 0, next: 0, total: 10 });
    expect(calls).toBe(1);
  });

  test('overlapping pages (next = cursor + pageSize - 1) are refused as inconsistent', async () => {
    const records = Array.from({ length: 10 }, (_, i) => i);
    const overlapping = paginate(async (cursor) => {
      const page = pageOf(records, cursor, 4);
      const next = Math.min(cursor + 3, 10);
      return {
        data: page.records,
        paging: {
          cursors: { previous: 0, next, total: 10 },
          previousURL: null,
          nextURL: null,
        },
      };
    });
    const got: number[] = [];
    const err = await (async () => {
      for await (const r of overlapping) got.push(r);
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'pagination_error', reason: 'inconsistent' });
    expect(got).toEqual([0, 1, 2, 3]); // nothing yielded twice
  });

  test('pages are fetched lazily, one page ahead of nothing (constant memory)', async () => {
    const s = server(50, 5);
    const it = paginatePages(s.fetchPage);
    const first = await it.next();
    expect(first.value).toMatchObject({ data: s.records.slice(0, 5) });
    expect(s.cursors).toEqual([0]);
    await it.return(undefined);
    expect(s.cursors).toEqual([0]);
  });

  test('client .all and .pages follow cursor until next >= total and send cursor on later pages', async () => {
    const records = Array.from({ length: 17 }, (_, i) => ({
      contactID: `c${i}`,
      name: `N${i}`,
      email: `n${String(i).padStart(2, '0')}@example.com`,
      dateLastSent: '2024-01-01T00:00:00Z',
      stats: {
        totalSent: 1,
        totalOpens: 0,
        uniqueOpens: 0,
        totalClicks: 0,
        uniqueClicks: 0,
        desktopOpens: 0,
        mobileOpens: 0,
        desktopClicks: 0,
        mobileClicks: 0,
      },
    }));
    const f = fakeFetch((req) => {
      const cursor = Number(req.url.searchParams.get('cursor') ?? 0);
      const page = pageOf(records, cursor, 7);
      return json({ data: page.records, paging: pagingOf(page, (c) => `/contacts?cursor=${c}`) });
    });
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      authId: 'a',
      accessKey: 'k',
      fetch: f,
    });
    expect(await collect(client.contacts.list.all())).toEqual(records);
    expect(f.requests.map((r) => r.url.search)).toEqual(['', '?cursor=7', '?cursor=14']);

    const pages = await collect(client.contacts.tag.pages('t1', { cursor: 7 }));
    expect(pages.map((p) => p.data.length)).toEqual([7, 3]);
    expect(f.requests.slice(3).map((r) => r.url.search)).toEqual(['?cursor=7', '?cursor=14']);
  });
});
