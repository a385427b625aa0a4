import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';
import { AnswerStore, bodyHeapBytes, bodyText, compressed } from '../src/http/answer-store.ts';
import { ByteCache } from '../src/http/byte-cache.ts';
import { HttpClient } from '../src/http/client.ts';
import { pagedTotalOf } from '../src/http/client-options.ts';
import type { Exchange } from '../src/http/types.ts';

/** The run's caches hold at most their byte cap, least recently used going first. */
/** An HTTP client whose server answers `{"data":[]}` to everything; `sent()` counts its requests. */
function emptyListClient(): { http: HttpClient; sent: () => number } {
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
  return { http, sent: () => sent };
}

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

describe('the response cache (AnswerStore): every answer kept, whole ones only to save CPU', () => {
  test('bodyHeapBytes: a character a byte while every character is Latin-1, two once one is not (whatever the byte count given)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const wide = [...text].some((c) => c.codePointAt(0)! > 0xff);
        const want = text.length * (wide ? 2 : 1);
        expect(bodyHeapBytes(text)).toBe(want);
        expect(bodyHeapBytes(text, Buffer.byteLength(text))).toBe(want);
      }),
    );
  });

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

  /** An answer of `body` (id `id`) to a GET of `/x`. */
  const answer = (id: number, body: string): Exchange => ({
    id,
    method: 'GET',
    url: 'http://x.invalid/x',
    target: '/x',
    credential: 'c',
    requestHeaders: {},
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    body,
    bodyBytes: Buffer.byteLength(body),
    durationMs: 1,
  });

  test('past the hot share a kept answer is handed out as a copy of the exchange as it came (same id, headers and body: UTF-8 past Latin-1 included); in flight, the same promise', async () => {
    const store = new AnswerStore({ maxBytes: 10_000_000, hotBytes: 5_000 });
    const body = `{"data":["${'é€𝄞x'.repeat(3_000)}"]}`;
    const first = Promise.resolve(answer(1, body));
    store.set('a', first, true);
    expect(store.get('a')).toBe(first);
    const ex = await first;
    await store.whenKept();
    // larger than the hot share: kept compressed only
    const copy = await store.get('a')!;
    expect(copy).not.toBe(ex);
    expect(copy).toEqual(ex);
    expect(store.size).toBe(1);
    expect(store.bytes).toBeLessThan(body.length);
  });

  test.each([
    [true, 'kept whole too: the same exchange'],
    [false, 'kept compressed only: a copy'],
  ])('hot %s: an answer asked for again is %s', async (hot) => {
    const store = new AnswerStore({ maxBytes: 10_000_000, hotBytes: 10_000_000 });
    const ex = answer(7, JSON.stringify({ data: ['x'.repeat(5_000)] }));
    store.set('k', Promise.resolve(ex), hot);
    await store.whenKept();
    const again = await store.get('k')!;
    expect(again === ex).toBe(hot);
    expect(again).toEqual(ex);
  });

  test.each([
    ['ASCII', true, 'x'],
    ['Latin-1 (é: one byte a character in the heap)', true, 'é'],
    ['past Latin-1 (東: two bytes a character)', false, '東'],
  ])(
    'the whole answers count bytes as the heap holds them: a body %s of 8,000 characters in a 12,000-byte hot share is kept whole: %s',
    async (_what, whole, char) => {
      const store = new AnswerStore({ maxBytes: 10_000_000, hotBytes: 12_000 });
      const ex = answer(3, `"${char.repeat(7_998)}"`);
      expect(ex.body.length).toBe(8_000);
      store.set('k', Promise.resolve(ex), true);
      await store.whenKept();
      const again = await store.get('k')!;
      expect(again === ex).toBe(whole);
      expect(again).toEqual(ex);
    },
  );

  test.each([
    ['a page that deflates to about 2 KB', 300],
    ['a page that deflates to about 60 KB', 9_000],
    ['a page that deflates to about 600 KB', 90_000],
  ])(
    'a compressed answer holds memory of its own size, what the store counts: %s',
    (_what, records) => {
      const body = JSON.stringify({
        data: Array.from({ length: records }, (_, i) => ({
          id: i,
          email: `r${(i * 104_729) % 1_000_003}@example.com`,
        })),
      });
      const kept = compressed(body);
      expect(Buffer.isBuffer(kept)).toBe(true);
      const bytes = kept as Buffer;
      // zlib hands back a short output as a view of its 16 KB chunk: 16 KB held for 2 KB
      expect(bytes.byteOffset).toBe(0);
      expect(bytes.buffer.byteLength).toBe(bytes.length);
      expect(bytes.length).toBeLessThan(body.length / 3);
      expect(bodyText(bytes)).toBe(body);
    },
  );

  test('a rejected answer is not kept, and clear drops every answer', async () => {
    const store = new AnswerStore({ maxBytes: 10_000_000, hotBytes: 10_000_000 });
    const failed = Promise.reject(new Error('no answer'));
    store.set('failed', failed, true);
    await failed.catch(() => {});
    await store.whenKept();
    expect(store.get('failed')).toBeUndefined();
    store.set('k', Promise.resolve(answer(1, '{}')), true);
    await store.whenKept();
    expect(store.get('k')).toBeDefined();
    store.clear();
    expect(store.get('k')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  test('whatever the hot share and the order answers come in, an answer asked for before is never sent again', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 40_000 }),
        fc.integer({ min: 10, max: 60 }),
        async (asks, hotBytes, longListAbove) => {
          let sent = 0;
          const http = new HttpClient({
            baseUrl: 'http://x.invalid',
            auth: 'bearer',
            timeoutMs: 1000,
            fetch: async (r) => {
              sent++;
              const n = Number(new URL(r.url).searchParams.get('cursor'));
              const body = JSON.stringify({
                data: [String(n).repeat(5_000)],
                paging: {
                  cursors: { previous: 0, next: n + 1, total: 50 },
                  previousURL: null,
                  nextURL: null,
                },
              });
              return new Response(body, { status: 200 });
            },
            hotCacheBytes: hotBytes,
            longListAbove,
          });
          const credential = { label: 'c', authId: 'a', accessKey: 'k' };
          // half the asks at once, half one after the other
          const half = Math.ceil(asks.length / 2);
          const get = (n: number) =>
            http.request({ path: '/opens', rawQuery: `cursor=${n}`, credential });
          await Promise.all(asks.slice(0, half).map(get));
          for (const n of asks.slice(half)) await get(n);
          expect(sent).toBe(new Set(asks).size);
          expect(http.cacheHits).toBe(asks.length - new Set(asks).size);
        },
      ),
      { numRuns: 30 },
    );
  });

  test("cache: 'read' keeps the answer too (compressed only): asked again it is not sent again", async () => {
    const { http, sent } = emptyListClient();
    const credential = { label: 'c', authId: 'a', accessKey: 'k' };
    const get = (path: string, cache?: 'read') =>
      http.request({ path, credential, ...(cache === undefined ? {} : { cache }) });
    await get('/opens', 'read');
    await get('/opens', 'read');
    await get('/opens');
    expect(sent()).toBe(1);
  });

  test('a read that rebuilds (rebuild: true) is answered from the cache without counting a cache hit', async () => {
    const { http, sent } = emptyListClient();
    const credential = { label: 'c', authId: 'a', accessKey: 'k' };
    await http.request({ path: '/opens', credential });
    await http.request({ path: '/opens', credential, rebuild: true });
    await http.rebuilding().request({ path: '/opens', credential });
    expect([sent(), http.cacheHits]).toEqual([1, 0]);
    await http.request({ path: '/opens', credential });
    expect([sent(), http.cacheHits]).toEqual([1, 1]);
  });
});
