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
    [80, 2],
    [5_000, 1],
  ])(
    'a long list (over sampleAbove %i) once walked leaves its later pages to the walk: a page asked for again is sent again (%i requests of it)',
    async (sampleAbove, sends) => {
      const server = createServer({ publicUrl: MEMORY_BASE_URL, pageSize: 40 });
      let pageSends = 0;
      const counted = async (request: Request) => {
        const url = new URL(request.url);
        if (url.pathname.endsWith('/opens') && url.searchParams.get('cursor') === '40') pageSends++;
        return server.fetch(request);
      };
      const walkThenPage = defineCheck({
        id: 'ACME-WALK-THEN-PAGE',
        title: 'walks the open groups, then reads their second page',
        clause: 'test',
        endpoints: ['opens.list'],
        async run(ctx) {
          const w = await ctx.walk('opens.list');
          expect(w.records.length).toBeGreaterThan(80);
          const again = await ctx.call('opens.list', { query: [['cursor', '40']] });
          expect(again.status).toBe(200);
          // the walk still has every record
          expect((await ctx.walk('opens.list')).records).toBe(w.records);
        },
      });
      try {
        const result = await runInMemory(
          { pageSize: 40 },
          {
            checks: [...builtInChecks, walkThenPage],
            only: 'ACME-WALK-THEN-PAGE',
            fetch: counted,
            sampleAbove,
          },
        );
        expect(result.checks.find((c) => c.id === 'ACME-WALK-THEN-PAGE')?.status).toBe('pass');
      } finally {
        await server.close();
      }
      expect(pageSends).toBe(sends);
    },
    120_000,
  );
});
