import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { type PagingEnd, pageOf } from '../src/paging.ts';
import { verifySignature } from '../src/signing.ts';
import { type Clock, Pacer } from '../src/transport/pace.ts';
import { hmacAuthorizer, signRequest } from '../src/transport/sign.ts';
import { type PageReading, type WalkStep, walkCursor } from '../src/transport/walk.ts';

/** A clock whose sleeps return at once and move time forward; it records every sleep. */
function fakeClock(start = 1000): Clock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

async function collect<P>(it: AsyncIterable<WalkStep<P>>): Promise<WalkStep<P>[]> {
  const out: WalkStep<P>[] = [];
  for await (const s of it) out.push(s);
  return out;
}

/** A conforming server over `records` (core's pageOf), read as the walker reads pages. */
function server(records: number[], pageSize: number, end: PagingEnd) {
  const requested: number[] = [];
  const fetchPage = async (cursor: number): Promise<PageReading<number[]>> => {
    requested.push(cursor);
    const p = pageOf(records, cursor, pageSize, end);
    return p.records.length === 0
      ? { end: true, page: [] }
      : { end: false, page: p.records, count: p.records.length, next: p.next, total: p.total };
  };
  return { requested, fetchPage };
}

const arbList = fc.array(fc.nat(), { maxLength: 60 });
const arbPageSize = fc.integer({ min: 1, max: 20 });
const arbEnd = fc.constantFrom<PagingEnd>('no-content', 'empty-page');

describe('signRequest: signs exactly the query string it sends', () => {
  const pair = fc.tuple(
    fc.string({ unit: 'grapheme', maxLength: 8 }),
    fc.string({ unit: 'grapheme', maxLength: 8 }),
  );
  fcTest.prop([fc.array(pair, { maxLength: 5 }), fc.string({ minLength: 1, maxLength: 12 })])(
    'the signature verifies over the query of the URL that goes out',
    (pairs, key) => {
      const r = signRequest(
        { baseUrl: 'http://h.test/api', path: '/teams/tags', query: pairs },
        hmacAuthorizer('me', key),
      );
      const sent = new URL(r.href).search.replace(/^\?/, '');
      expect(r.queryString).toBe(sent);
      expect(r.url).toBe(`http://h.test/api${r.target}`);
      const sig = atob(r.authorization ?? '').split(':')[1] ?? '';
      expect(verifySignature(sent, key, sig)).toBe(true);
    },
  );

  fcTest.prop([fc.stringMatching(/^[A-Za-z0-9=&+%._~-]{0,30}$/)])(
    'a raw query of URL-safe characters is sent and signed verbatim',
    (raw) => {
      const seen: string[] = [];
      const r = signRequest({ baseUrl: 'http://h.test', path: '/x', rawQuery: raw }, (qs) => {
        seen.push(qs);
        return 'auth';
      });
      expect(r.queryString).toBe(raw);
      expect(seen).toEqual([raw]);
      expect(r.authorization).toBe('auth');
    },
  );

  test('an apostrophe is signed as the URL serializer sends it (%27), not as built', () => {
    const r = signRequest(
      { baseUrl: 'http://h.test', path: '/x', query: [['q', "o'k"]] },
      (qs) => qs,
    );
    expect(r.queryString).toBe('q=o%27k');
    expect(r.authorization).toBe('q=o%27k');
    expect(signRequest({ baseUrl: 'http://h.test', path: '/x' }, null)).toMatchObject({
      queryString: '',
      target: '/x',
      authorization: undefined,
    });
  });
});

describe('Pacer on an injected clock', () => {
  fcTest.prop([fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 20 })])(
    'sequential requests go out intervalMs apart, the first at once',
    async (interval, n) => {
      const clock = fakeClock();
      const pacer = new Pacer(interval, clock);
      const at: number[] = [];
      for (let i = 0; i < n; i++) {
        await pacer.acquire();
        at.push(clock.now());
      }
      expect(at).toEqual(at.map((_, i) => 1000 + i * interval));
    },
  );

  test('concurrent callers queue in call order; holdUntil defers the next slot; 0 never waits', async () => {
    const clock = fakeClock(0);
    const pacer = Pacer.perSecond(4, clock);
    await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]);
    // the third request's slot is 500 ms after the first's, whatever order the waits end in
    expect(clock.now()).toBe(500);
    expect(clock.slept).toHaveLength(2);
    pacer.holdUntil(clock.now() + 10_000);
    const before = clock.now();
    await pacer.acquire();
    expect(clock.now()).toBe(before + 10_000);
    const none = Pacer.perSecond(0, clock);
    for (let i = 0; i < 5; i++) await none.acquire();
    expect(clock.slept).toHaveLength(3);
  });

  test('an aborted signal rejects the wait with the caller error', async () => {
    const pacer = new Pacer(100, fakeClock());
    await pacer.acquire();
    const controller = new AbortController();
    controller.abort();
    await expect(pacer.acquire(controller.signal, () => new Error('stop'))).rejects.toThrow('stop');
  });
});

describe('walkCursor: laws of a walk', () => {
  fcTest.prop([arbList, arbPageSize, arbEnd])(
    'ends in either paging end, yielding every record once in order',
    async (records, pageSize, end) => {
      const s = server(records, pageSize, end);
      const steps = await collect(walkCursor(s.fetchPage, { maxPages: 1000, contiguous: true }));
      const pages = steps.filter((x) => x.kind === 'page');
      expect(pages.flatMap((x) => x.page)).toEqual(records);
      expect(steps.some((x) => x.kind === 'violation')).toBe(false);
      // next >= total ends it without requesting past the end; only an empty list asks once
      expect(s.requested.length).toBe(Math.max(1, Math.ceil(records.length / pageSize)));
    },
  );

  test('an empty page or a 204 ends the walk as an `end` step', async () => {
    const steps = await collect(
      walkCursor(async () => ({ end: true, page: 'x' }), { maxPages: 5 }),
    );
    expect(steps).toEqual([{ kind: 'end', page: 'x', index: 0, cursor: 0 }]);
  });

  fcTest.prop([
    fc.integer({ min: 0, max: 50 }),
    fc.integer({ min: 1, max: 10 }),
    fc.integer({ min: 0, max: 50 }),
  ])(
    'cursor-advances: a non-final page whose next <= cursor stops the walk',
    async (cursor, count, back) => {
      const next = Math.max(0, cursor - back);
      const steps = await collect(
        walkCursor(
          async () => ({ end: false, page: 0, count, next, total: cursor + count + 100 }),
          {
            cursor,
            maxPages: 10,
          },
        ),
      );
      expect(steps.map((x) => x.kind)).toEqual(['page', 'violation']);
      expect(steps[1]).toMatchObject({ violation: { law: 'cursor-advances', cursor, next } });
    },
  );

  fcTest.prop([fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 100 })])(
    'total-stable: a page whose total differs from the first stops the walk before it',
    async (total, delta) => {
      const steps = await collect(
        walkCursor(
          async (cursor) => ({
            end: false,
            page: cursor,
            count: 1,
            next: cursor + 1,
            total: cursor === 0 ? total + 10 : total + 10 + delta,
          }),
          { maxPages: 10 },
        ),
      );
      expect(steps.map((x) => x.kind)).toEqual(['page', 'violation']);
      expect(steps[1]).toMatchObject({
        violation: {
          law: 'total-stable',
          cursor: 1,
          total: total + 10 + delta,
          previousTotal: total + 10,
        },
      });
    },
  );

  fcTest.prop([fc.integer({ min: 0, max: 30 })])(
    'page-cap: a list that never ends is fetched maxPages times, then stops',
    async (maxPages) => {
      let fetched = 0;
      const steps = await collect(
        walkCursor(
          async (cursor) => {
            fetched++;
            return { end: false, page: cursor, count: 1, next: cursor + 1, total: 1e9 };
          },
          { maxPages },
        ),
      );
      expect(fetched).toBe(maxPages);
      expect(steps.at(-1)).toMatchObject({
        kind: 'violation',
        violation: { law: 'page-cap', pages: maxPages, maxPages },
      });
    },
  );

  test('page-cap as a function of the total', async () => {
    const steps = await collect(
      walkCursor(
        async (cursor) => ({ end: false, page: cursor, count: 1, next: cursor + 1, total: 30 }),
        {
          maxPages: (total) => (total === undefined ? 1 : Math.floor(total / 10)),
        },
      ),
    );
    expect(steps.filter((x) => x.kind === 'page')).toHaveLength(3);
    expect(steps.at(-1)).toMatchObject({ violation: { law: 'page-cap', maxPages: 3, total: 30 } });
  });

  fcTest.prop([fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 5 })])(
    'cursor-contiguous: only a contiguous walk requires next = cursor + count',
    async (count, skip) => {
      const fetchPage = async (cursor: number): Promise<PageReading<number>> => ({
        end: false,
        page: cursor,
        count,
        next: cursor + count + skip,
        total: 1000,
      });
      const strict = await collect(walkCursor(fetchPage, { maxPages: 3, contiguous: true }));
      expect(strict.at(-1)).toMatchObject({
        violation: { law: 'cursor-contiguous', cursor: 0, count },
      });
      const loose = await collect(walkCursor(fetchPage, { maxPages: 3 }));
      expect(loose.at(-1)).toMatchObject({ violation: { law: 'page-cap' } });
    },
  );

  fcTest.prop([
    fc.array(
      fc.record({ end: fc.boolean(), count: fc.nat(5), next: fc.nat(40), total: fc.nat(40) }),
      { minLength: 1, maxLength: 30 },
    ),
    fc.integer({ min: 1, max: 10 }),
  ])('never loops: any server is asked at most maxPages times', async (answers, maxPages) => {
    let fetched = 0;
    await collect(
      walkCursor(
        async (_cursor, index): Promise<PageReading<null>> => {
          fetched++;
          const a = answers[index % answers.length] as (typeof answers)[number];
          return a.end ? { end: true, page: null } : { ...a, end: false, page: null };
        },
        { maxPages },
      ),
    );
    expect(fetched).toBeLessThanOrEqual(maxPages);
  });
});
