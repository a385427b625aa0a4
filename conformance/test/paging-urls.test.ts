import { createServer, type ServerOptions } from '@tagtrack/server';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { lastPageStart, pagingUrlProblem, telltaleCursors } from '../src/checks/page/lists.ts';
import type { Exchange } from '../src/http/client.ts';
import { runConformance } from '../src/run/runner.ts';
import { behindProxy, failing, MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';

/** An exchange that sent `target` (path and raw query) to `base`. */
function sent(base: string, target: string): Exchange {
  return {
    id: 1,
    method: 'GET',
    url: `${base}${target}`,
    target,
    credential: 'team1-admin',
    requestHeaders: {},
    status: 200,
    responseHeaders: {},
    body: '',
    bodyBytes: 0,
    durationMs: 0,
  };
}

const BASE = 'https://api.example.com/v1';
const REQUEST = sent(BASE, '/teams/tags?next=a%20b%2Bc&isOpened=true&cursor=3&rtn=text');

describe('pagingUrlProblem: a paging URL is the request’s raw query with only cursor replaced, on the base URL (spec §5 Revision 2)', () => {
  test('the right URL passes; hex case and escaped unreserved characters are incidental', () => {
    const right = `${BASE}/teams/tags?next=a%20b%2Bc&isOpened=true&cursor=43&rtn=text`;
    expect(pagingUrlProblem(right, BASE, REQUEST, 43)).toBeUndefined();
    const renormalised = `${BASE}/teams/tags?next=a%20b%2bc&is%4Fpened=true&cursor=43&rtn=text`;
    expect(pagingUrlProblem(renormalised, BASE, REQUEST, 43)).toBeUndefined();
    // no cursor sent: appended last
    const plain = sent(BASE, '/teams?type=user');
    expect(pagingUrlProblem(`${BASE}/teams?type=user&cursor=40`, BASE, plain, 40)).toBeUndefined();
  });

  test.each([
    [
      'a wrong cursor',
      `${BASE}/teams/tags?next=a%20b%2Bc&isOpened=true&cursor=40&rtn=text`,
      /cursor 43/,
    ],
    [
      'parameters in another order',
      `${BASE}/teams/tags?isOpened=true&next=a%20b%2Bc&cursor=43&rtn=text`,
      /only cursor replaced/,
    ],
    [
      'the cursor moved to the end',
      `${BASE}/teams/tags?next=a%20b%2Bc&isOpened=true&rtn=text&cursor=43`,
      /only cursor replaced/,
    ],
    [
      'a space re-encoded as +',
      `${BASE}/teams/tags?next=a+b%2Bc&isOpened=true&cursor=43&rtn=text`,
      /only cursor replaced/,
    ],
    [
      'a parameter dropped',
      `${BASE}/teams/tags?isOpened=true&cursor=43&rtn=text`,
      /only cursor replaced/,
    ],
    [
      'the path prefix lost',
      'https://api.example.com/teams/tags?next=a%20b%2Bc&isOpened=true&cursor=43&rtn=text',
      /prefix \/v1 is lost/,
    ],
    [
      'another host',
      'https://other.example.com/v1/teams/tags?next=a%20b%2Bc&isOpened=true&cursor=43&rtn=text',
      /not on the base URL/,
    ],
    [
      'a relative URL',
      '/v1/teams/tags?next=a%20b%2Bc&isOpened=true&cursor=43&rtn=text',
      /not an absolute URL/,
    ],
    [
      'a fragment',
      `${BASE}/teams/tags?next=a%20b%2Bc&isOpened=true&cursor=43&rtn=text#x`,
      /fragment/,
    ],
  ])('%s is a problem', (_what, url, message) => {
    expect(pagingUrlProblem(url, BASE, REQUEST, 43)).toMatch(message);
  });
});

describe('telltaleCursors', () => {
  test('law: ascending, distinct, within [0, total], holding 0, total, the last page and the last-but-one page, and an unaligned cursor when total > 3', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2000 }), fc.integer({ min: 1, max: 300 }), (total, ps) => {
        const cs = telltaleCursors(total, ps);
        expect(cs).toEqual([...new Set(cs)].sort((a, b) => a - b));
        expect(cs.every((c) => c >= 0 && c <= total)).toBe(true);
        const last = lastPageStart(total, ps);
        for (const c of [0, total, last, Math.max(last - ps, 0)]) expect(cs).toContain(c);
        if (total > 3 && ps > 3) expect(cs.some((c) => c % ps !== 0 && c < total)).toBe(true);
      }),
    );
  });
});

/**
 * The paging checks pass the freedoms of paging (spec §5 Revision 2): a public URL with
 * a path prefix behind a proxy that strips it, any page size, either paging end; in fixture
 * and in blind mode.
 */
describe('the PAGE checks pass a correct server behind a path prefix, in both modes', () => {
  test.each<[string, ServerOptions]>([
    ['page size 40, no-content', { pageSize: 40 }],
    ['page size 7, empty-page', { pageSize: 7, pagingEnd: 'empty-page' }],
  ])(
    '%s',
    async (_name, options) => {
      const publicUrl = `${MEMORY_BASE_URL}/api/v1`;
      const server = createServer({ ...options, publicUrl });
      try {
        const runs = await Promise.all(
          (['fixture', 'blind'] as const).map((mode) =>
            runConformance({
              baseUrl: publicUrl,
              fetch: behindProxy((r) => server.fetch(r), publicUrl),
              profile:
                mode === 'blind'
                  ? { ...profileFor(options), credentials: [] }
                  : profileFor(options),
              mode,
              seed: 5,
              numRuns: 4,
              only: 'PAGE',
              ...(mode === 'blind'
                ? { authId: team1Admin.authId, accessKey: team1Admin.accessKey }
                : {}),
            }),
          ),
        );
        for (const run of runs) {
          expect(failing(run)).toEqual([]);
          const passed = run.checks.filter((c) => c.status === 'pass').map((c) => c.id);
          for (const id of [
            'PAGE-URLS-KEEP-QUERY',
            'PAGE-HEADERS',
            'PAGE-WALK-NEXT-URL',
            'PAGE-TOTAL-NEXT-IGNORED',
            'PAGE-SINGLE-CURSOR',
          ])
            expect(passed).toContain(id);
        }
      } finally {
        await server.close();
      }
    },
    120_000,
  );
});
