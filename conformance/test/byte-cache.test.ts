import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';
import { ByteCache } from '../src/http/byte-cache.ts';
import { HttpClient } from '../src/http/client.ts';
import { LONG_PAGE_FACTOR, pagedTotalOf } from '../src/http/client-options.ts';

/** The run's caches hold at most their byte cap, least recently used going first. */
describe('ByteCache (the run caches, capped by bytes)', () => {
  const sized = (n: number) => Promise.resolve('x'.repeat(n));

  it('holds at most maxBytes of resolved values: the least recently used go first', async () => {
    const cache = new ByteCache<string>(10_000, (v) => v.length);
    for (const k of ['a', 'b', 'c']) {
      cache.set(k, sized(3_000));
      await cache.get(k);
    }
    await Promise.resolve();
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
    void cache.get('a'); // a is now the most recently used
    cache.set('d', sized(3_000));
    await cache.get('d');
    await Promise.resolve();
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
  });

  it('drops a value larger than the whole cap once it resolves, and a rejected one', async () => {
    const cache = new ByteCache<string>(1_000_000, (v) => v.length);
    const big = sized(2_000_000);
    cache.set('big', big);
    expect(cache.get('big')).toBe(big); // pending: shared by identical asks
    await big;
    await Promise.resolve();
    expect(cache.get('big')).toBeUndefined();
    const failed = Promise.reject(new Error('no answer'));
    cache.set('failed', failed);
    await failed.catch(() => {});
    await Promise.resolve();
    expect(cache.get('failed')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('shareWhileAlive: a value that left the cache is handed out while held elsewhere, never after delete or clear', async () => {
    const cache = new ByteCache<{ text: string }>(1_000, (v) => v.text.length, {
      shareWhileAlive: true,
    });
    const held = { text: 'x'.repeat(5_000) }; // larger than the whole cap
    cache.set('big', Promise.resolve(held));
    await cache.get('big');
    await Promise.resolve();
    expect(cache.size).toBe(0); // not counted against the cap
    expect(await cache.get('big')).toBe(held); // the same object: no second copy
    cache.delete('big');
    expect(cache.get('big')).toBeUndefined();
    cache.set('again', Promise.resolve(held));
    await cache.get('again');
    await Promise.resolve();
    cache.clear();
    expect(cache.get('again')).toBeUndefined();
    // without the option a value that left the cache is gone
    const plain = new ByteCache<{ text: string }>(1_000, (v) => v.text.length);
    plain.set('big', Promise.resolve(held));
    await plain.get('big');
    await Promise.resolve();
    expect(plain.get('big')).toBeUndefined();
  });
});

describe("the response cache counts a long list's pages at what they hold", () => {
  test('pagedTotalOf reads paging.cursors.total of any list body, undefined without one', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.nat(), (data, total) => {
        const body = JSON.stringify({
          data,
          paging: { cursors: { previous: 0, next: 0, total }, previousURL: null, nextURL: null },
        });
        expect(pagedTotalOf(body)).toBe(total);
      }),
    );
    expect(pagedTotalOf('{"data":[]}')).toBeUndefined();
    expect(pagedTotalOf('<xml/>')).toBeUndefined();
  });

  test.each([
    [10, 'long', 1],
    [1_000, 'short', 0],
  ])(
    'with longListAbove %i a page of a list of 100 records (%s) counts %i times more: two such pages no longer both fit',
    async (longListAbove, _words, evicted) => {
      const page = (cursor: number) =>
        JSON.stringify({
          data: ['x'.repeat(10_000)],
          paging: {
            cursors: { previous: 0, next: cursor + 1, total: 100 },
            previousURL: null,
            nextURL: null,
          },
        });
      let sent = 0;
      const http = new HttpClient({
        baseUrl: 'http://x.invalid',
        auth: 'bearer',
        timeoutMs: 1000,
        fetch: async (r) => {
          sent++;
          return new Response(page(Number(new URL(r.url).searchParams.get('cursor'))), {
            status: 200,
          });
        },
        // room for two pages counted once, not for two counted LONG_PAGE_FACTOR times
        cacheBytes: (LONG_PAGE_FACTOR + 1) * 10_500,
        longListAbove,
      });
      const credential = { label: 'c', authId: 'a', accessKey: 'k' };
      for (const cursor of [0, 1, 0]) {
        await http.request({ path: '/opens', rawQuery: `cursor=${cursor}`, credential });
        await Promise.resolve();
      }
      expect(sent).toBe(2 + evicted);
    },
  );

  test("cache: 'read' reuses a kept answer but keeps no new one", async () => {
    let sent = 0;
    const http = new HttpClient({
      baseUrl: 'http://x.invalid',
      auth: 'bearer',
      timeoutMs: 1000,
      fetch: async () => {
        sent++;
        return new Response('{"data":[]}', { status: 200 });
      },
    });
    const credential = { label: 'c', authId: 'a', accessKey: 'k' };
    const get = (path: string, cache?: 'read') =>
      http.request({ path, credential, ...(cache === undefined ? {} : { cache }) });
    await get('/opens', 'read');
    await get('/opens', 'read');
    expect(sent).toBe(2); // nothing kept
    await get('/clicks');
    await get('/clicks', 'read');
    expect(sent).toBe(3); // the kept answer reused
  });
});
