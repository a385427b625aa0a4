import { fc, test as fcTest } from '@fast-check/vitest';
import { type PagingEnd, pageOf, pagingOf } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { PaginationError } from '../src/errors.ts';
import { createClient } from '../src/index.ts';
import {
  type ListPage,
  linkTarget,
  noContentPage,
  paginate,
  paginatePages,
} from '../src/paginate.ts';
import { contacts, fakeFetch, json, listHandler } from './fakes.ts';

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

describe('paginate (spec §5)', () => {
  fcTest.prop([fc.nat(60), fc.integer({ min: 1, max: 12 }), fc.nat(70)])(
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
    const records = contacts(17);
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

const PAGING_ENDS: readonly PagingEnd[] = ['no-content', 'empty-page'];
const BASE = 'http://127.0.0.1:9';

function clientOf(f: typeof fetch, extra: { maxPages?: number } = {}) {
  return createClient({ baseUrl: BASE, authId: 'a', accessKey: 'k', fetch: f, ...extra });
}

/** A cursors-only page (the paginator reads nothing else). */
function rawPage<T>(data: T[], next: number, total: number): ListPage<T> {
  return {
    data,
    paging: { cursors: { previous: 0, next, total }, previousURL: null, nextURL: null },
  };
}

describe('paging end: 204 No Content and empty pages (spec §5 Revision 2)', () => {
  fcTest.prop([
    fc.nat(45),
    fc.integer({ min: 1, max: 12 }),
    fc.nat(50),
    fc.constantFrom(...PAGING_ENDS),
  ])(
    'client .all() from cursor c yields records [c, total) exactly once in both paging ends, one request per page',
    async (total, pageSize, start, pagingEnd) => {
      const records = contacts(total);
      const f = fakeFetch(listHandler(records, pageSize, pagingEnd));
      const query = start === 0 ? {} : { cursor: start };
      const got = await collect(clientOf(f).contacts.list.all(query));
      expect(got).toEqual(records.slice(start));
      // the walk never asks past the end when it started inside the list
      expect(f.requests).toHaveLength(Math.max(1, Math.ceil((total - start) / pageSize)));
    },
  );

  test.each(
    PAGING_ENDS.flatMap(
      (end) =>
        [
          [end, 21, 7],
          [end, 20, 7],
        ] as const,
    ),
  )('%s: %i records in pages of %i end with every record once', async (pagingEnd, total, size) => {
    const records = contacts(total);
    const f = fakeFetch(listHandler(records, size, pagingEnd));
    const pages = await collect(clientOf(f).contacts.list.pages());
    expect(pages.flatMap((p) => p.data)).toEqual(records);
    expect(pages.map((p) => p.data.length)).toEqual(total === 21 ? [7, 7, 7] : [7, 7, 6]);
    // the last page: no-content links to cursor=total, empty-page has no next URL
    const last = pages.at(-1)!.paging;
    expect(last.cursors).toMatchObject({ next: total, total });
    expect(last.nextURL).toBe(
      pagingEnd === 'no-content' ? `${BASE}/contacts?cursor=${total}` : null,
    );
  });

  test('a 204 on a list endpoint is an empty page: total from X-Total-Count, previous from Link prev, no next', async () => {
    const records = contacts(20);
    const f = fakeFetch(listHandler(records, 7, 'no-content'));
    const client = clientOf(f);
    const past = await client.contacts.list({ cursor: 20 });
    expect(past).toEqual({
      data: [],
      paging: {
        cursors: { previous: 13, next: 20, total: 20 },
        previousURL: `${BASE}/contacts?cursor=13`,
        nextURL: null,
      },
    });
    const farPast = await client.contacts.tag('t1', { cursor: 99 });
    expect(farPast.paging.cursors).toEqual({ previous: 92, next: 20, total: 20 });
    // what the server sent was a 204 with an empty body
    const raw = await client.raw('/contacts', [['cursor', '20']]);
    expect(raw.status).toBe(204);
    expect(raw.body).toBe('');
  });

  test('an empty list answers 204 at cursor 0: the method returns an empty first page and .all() yields nothing after one request', async () => {
    const f = fakeFetch(listHandler([], 7, 'no-content'));
    const client = clientOf(f);
    expect(await client.contacts.list()).toEqual({
      data: [],
      paging: { cursors: { previous: 0, next: 0, total: 0 }, previousURL: null, nextURL: null },
    });
    expect(await collect(client.contacts.list.all())).toEqual([]);
    expect(f.requests).toHaveLength(2);
  });

  test('a 204 in rtn text or html is the empty string, not an error', async () => {
    const f = fakeFetch(listHandler([], 7, 'no-content'));
    const client = clientOf(f);
    expect(await client.teams.tags({ isOpened: true }, { rtn: 'text' })).toBe('');
    expect(await client.opens.list({}, { rtn: 'html' })).toBe('');
  });

  test('a 204 without X-Total-Count or Link: total is the cursor sent, previous 0, both URLs null', async () => {
    const f = fakeFetch(() => new Response(null, { status: 204 }));
    const page = await clientOf(f).clicks.list({ cursor: 30 });
    expect(page).toEqual({
      data: [],
      paging: { cursors: { previous: 0, next: 30, total: 30 }, previousURL: null, nextURL: null },
    });
  });

  test('noContentPage reads X-Total-Count and the prev link, whatever the link order and rel spelling', () => {
    const headers = new Headers({
      'X-Total-Count': '41',
      Link: '<http://h/x?a=1,2&cursor=40>; rel="next", <http://h/x?a=1&cursor=33>; rel=prev',
    });
    expect(noContentPage(headers, 40).paging).toEqual({
      cursors: { previous: 33, next: 41, total: 41 },
      previousURL: 'http://h/x?a=1&cursor=33',
      nextURL: null,
    });
    expect(linkTarget('<a>; rel="prev next"', 'next')).toBe('a');
    expect(linkTarget('<a>; title="x"', 'prev')).toBeUndefined();
    expect(linkTarget(null, 'prev')).toBeUndefined();
  });

  test('an empty 200 page past the end (paging end empty-page) also ends the walk', async () => {
    const records = contacts(10);
    const f = fakeFetch(listHandler(records, 4, 'empty-page'));
    const client = clientOf(f);
    expect(await collect(client.contacts.list.all({ cursor: 10 }))).toEqual([]);
    expect(await collect(client.contacts.list.all({ cursor: 12 }))).toEqual([]);
    expect(f.requests.map((r) => r.url.search)).toEqual(['?cursor=10', '?cursor=12']);
  });
});

describe('page walks never loop forever (spec §5)', () => {
  test('a total that changes between pages is a PaginationError total_changed, raised before the page is yielded', async () => {
    const totals = [30, 30, 31];
    const walked: number[] = [];
    const changing = paginate(async (cursor) => {
      walked.push(cursor);
      const total = totals[walked.length - 1]!;
      return rawPage([cursor, cursor + 1], cursor + 2, total);
    });
    const got: number[] = [];
    const err = await (async () => {
      for await (const r of changing) got.push(r);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaginationError);
    expect(err).toMatchObject({
      code: 'pagination_error',
      reason: 'total_changed',
      cursor: 4,
      total: 31,
      previousTotal: 30,
    });
    expect(got).toEqual([0, 1, 2, 3]);
  });

  test('a server whose next stays at the cursor (not advancing) raises stalled through the client too', async () => {
    const f = fakeFetch((req) => {
      const cursor = Number(req.url.searchParams.get('cursor') ?? 0);
      return json({
        data: contacts(1),
        paging: {
          cursors: { previous: 0, next: cursor, total: 5 },
          previousURL: null,
          nextURL: `${BASE}/contacts?cursor=${cursor}`,
        },
      });
    });
    const err = await collect(clientOf(f).contacts.list.all()).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'stalled', cursor: 0, next: 0, total: 5 });
    expect(f.requests).toHaveLength(1);
  });

  test('a list longer than maxPages pages is a PaginationError page_cap after exactly maxPages requests', async () => {
    const records = contacts(30);
    const f = fakeFetch(listHandler(records, 3, 'no-content'));
    const client = clientOf(f, { maxPages: 4 });
    const got: unknown[] = [];
    const err = await (async () => {
      for await (const r of client.contacts.list.all()) got.push(r);
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'page_cap', maxPages: 4, cursor: 12, total: 30 });
    expect(got).toEqual(records.slice(0, 12));
    expect(f.requests).toHaveLength(4);
    // per walk override; a walk that ends within the cap is fine
    expect(await collect(client.contacts.list.all({}, { maxPages: 10 }))).toEqual(records);
    expect(await collect(paginate(async (c) => rawPage([c], c + 1, 3), { maxPages: 3 }))).toEqual([
      0, 1, 2,
    ]);
  });
});
