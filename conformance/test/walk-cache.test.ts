import { createServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import type { Walk } from '../src/check/walk.ts';
import { KEPT_BODY_CHARS } from '../src/http/client-options.ts';
import { builtInChecks, defineCheck } from '../src/index.ts';
import { MEMORY_BASE_URL, runInMemory } from './helpers.ts';

/**
 * The run's walk cache keeps a walk's records and its first page as read; the pages after
 * it are the report's copies (bodies bounded), and a walk asked for again is the same walk.
 */
describe('walk cache: records kept, page bodies not', () => {
  test('a cached walk of several long pages keeps every record and page 0 whole, later pages bounded like the report copies; a second ask shares it', async () => {
    const seen: Walk[] = [];
    const walkTwice = defineCheck({
      id: 'ACME-WALK-KEPT',
      title: 'walks the open groups twice',
      clause: 'test',
      endpoints: ['opens.list'],
      async run(ctx) {
        const first = await ctx.walk('opens.list');
        const again = await ctx.walk('opens.list');
        seen.push(first, again);
      },
    });
    // pages of 40 records, each body padded past what the report keeps of one
    const server = createServer({ publicUrl: MEMORY_BASE_URL, pageSize: 40 });
    const padded = async (request: Request) => {
      const res = await server.fetch(request);
      if (res.status !== 200 || !new URL(request.url).pathname.endsWith('/opens')) return res;
      const body = `${await res.text()}${' '.repeat(2 * KEPT_BODY_CHARS)}`;
      return new Response(body, { status: 200, headers: res.headers });
    };
    try {
      const result = await runInMemory(
        { pageSize: 40 },
        { checks: [...builtInChecks, walkTwice], only: 'ACME-WALK-KEPT', fetch: padded },
      );
      expect(result.checks.find((c) => c.id === 'ACME-WALK-KEPT')?.status).toBe('pass');
    } finally {
      await server.close();
    }
    const [first, again] = seen;
    expect(again!.records).toBe(first!.records);
    expect(again!.pages).toBe(first!.pages);
    expect(first!.pages.length).toBeGreaterThan(2);
    expect(first!.records.length).toBe(first!.total);
    // page 0 is the exchange as read: its whole body, which parses to the page's records
    const page0 = JSON.parse(first!.pages[0]!.body) as { data: unknown[] };
    expect(first!.pages[0]!.body.length).toBeGreaterThan(2 * KEPT_BODY_CHARS);
    expect(first!.records.slice(0, page0.data.length)).toEqual(page0.data);
    // the later pages keep what the report keeps of a body, their requests and statuses whole
    for (const p of first!.pages.slice(1)) {
      expect(p.status).toBe(200);
      expect(p.target).toContain('cursor=');
      expect(p.body.length).toBeLessThanOrEqual(KEPT_BODY_CHARS);
    }
  }, 120_000);

  test.each([
    [80, true],
    [5_000, false],
  ])(
    'a long list (over sampleAbove %i: %s) once walked: no page of it is sent again when read on its own or sampled',
    async (sampleAbove, long) => {
      const server = createServer({ publicUrl: MEMORY_BASE_URL, pageSize: 40 });
      const sends = new Map<number, number>();
      const counted = async (request: Request) => {
        const url = new URL(request.url);
        if (url.pathname.endsWith('/opens')) {
          const cursor = Number(url.searchParams.get('cursor') ?? 0);
          sends.set(cursor, (sends.get(cursor) ?? 0) + 1);
        }
        return server.fetch(request);
      };
      let sampledCursors: number[] = [];
      let walkedCursors: number[] = [];

      const walkThenPages = defineCheck({
        id: 'ACME-WALK-THEN-PAGES',
        title: 'walks the open groups, then reads each page, then samples them',
        clause: 'test',
        endpoints: ['opens.list'],
        async run(ctx) {
          const w = await ctx.walk('opens.list');
          walkedCursors = w.pages.map((_, i) => i * 40);
          for (const [i, cursor] of walkedCursors.entries()) {
            if (i === 0) continue;
            const ex = await ctx.call('opens.list', { query: [['cursor', String(cursor)]] });
            // the same exchange (same id), whole, whichever form the cache kept it in
            expect(ex.id).toBe(w.pages[i]!.id);
            expect(JSON.parse(ex.body).data.length).toBeGreaterThan(0);
          }
          const sample = await ctx.sampledList('opens.list', {}, 'open groups');
          sampledCursors = sample.slices.map((s) => s.cursor);
          // the walk still has every record
          expect((await ctx.walk('opens.list')).records).toBe(w.records);
        },
      });
      try {
        const result = await runInMemory(
          { pageSize: 40 },
          {
            checks: [...builtInChecks, walkThenPages],
            only: 'ACME-WALK-THEN-PAGES',
            fetch: counted,
            sampleAbove,
          },
        );
        expect(result.checks.find((c) => c.id === 'ACME-WALK-THEN-PAGES')?.status).toBe('pass');
      } finally {
        await server.close();
      }
      expect(walkedCursors.length).toBeGreaterThan(2);
      if (long) expect(sampledCursors.length).toBeLessThan(walkedCursors.length);
      for (const cursor of walkedCursors.slice(1)) {
        // read once, by the walk, whether kept whole or compressed only
        expect(sends.get(cursor), `cursor ${cursor}`).toBe(1);
      }
    },
    120_000,
  );
});
