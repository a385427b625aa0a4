import { describe, expect, test } from 'vitest';
import { type HostileKind, measure, startHostile } from '../../../conformance/test/hostile.ts';
import { runCli } from '../src/cli.ts';
import { createClient } from '../src/client.ts';
import { PaginationError, RedirectError, ResponseTooLargeError } from '../src/errors.ts';

/**
 * The client CLI bounded by construction: `tagtrack teams list --all` against the hostile servers of the
 * conformance tests. Each case asserts the exit code, one line of cause on stderr, the wall
 * time under its limit, the peak RSS growth under 512 MiB and how many requests went out
 * (a redirect loop is not followed, a growing or huge total does not walk forever).
 */

async function cli(url: string, extra: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['teams', 'list', '--all', '--output', 'ndjson', ...extra], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    env: {
      TAGTRACK_BASE_URL: url,
      TAGTRACK_AUTH_ID: 'HOSTILEAUTHID',
      TAGTRACK_ACCESS_KEY: 'hostile-access-key',
    },
  });
  return { code, stdout, stderr };
}

interface Case {
  readonly kind: HostileKind;
  readonly cause: RegExp;
  readonly maxMs: number;
  /** Most requests the client may send. */
  readonly maxRequests: number;
  readonly extra?: string[];
}

const CASES: Case[] = [
  {
    kind: 'never-answers',
    cause: /GET .*\/teams timed out after 500 ms/,
    maxMs: 4000,
    maxRequests: 1,
  },
  {
    kind: 'garbage-bytes',
    cause: /GET .*\/teams failed after 3 attempt\(s\)/,
    maxMs: 5000,
    maxRequests: 3,
  },
  {
    kind: 'endless-body',
    cause: /GET .*\/teams: the response body exceeds 8388608 bytes \(maxBodyBytes\)/,
    maxMs: 8000,
    maxRequests: 1,
    extra: ['--max-body-bytes', String(8 * 1024 * 1024), '--timeout', '10000'],
  },
  { kind: 'slow-body', cause: /timed out after 500 ms/, maxMs: 4000, maxRequests: 1 },
  {
    kind: 'redirect-loop',
    cause: /GET .*\/teams answered 302 redirecting to \/teams; the client follows no redirect/,
    maxMs: 3000,
    maxRequests: 1,
  },
  {
    kind: 'growing-total',
    cause: /the list changed during pagination: total was 1010, cursor 250 answered total 1020/,
    maxMs: 3000,
    maxRequests: 2,
  },
  {
    kind: 'huge-total',
    cause: /pagination stopped after 20 page\(s\) before cursor 5000 \(total 1000000000000\)/,
    maxMs: 8000,
    maxRequests: 20,
    extra: ['--max-pages', '20'],
  },
  {
    kind: 'invalid-json',
    cause:
      /response of teams\.list is not JSON: .*; the body starts "\{\\"data\\": \[\{\\"memberID\\": \\"m1\\","/,
    maxMs: 3000,
    maxRequests: 1,
  },
  {
    kind: 'closes-mid-body',
    cause: /GET .*\/teams failed after 3 attempt\(s\)/,
    maxMs: 5000,
    maxRequests: 3,
  },
];

describe('tagtrack --all against hostile servers', () => {
  test.each(CASES)(
    '$kind: exit 1 with one line of cause, bounded in time, requests and memory',
    async (c) => {
      const server = await startHostile(c.kind);
      try {
        const m = await measure(() => cli(server.url, ['--timeout', '500', ...(c.extra ?? [])]));
        const { code, stderr } = m.value;
        console.info(
          `client vs ${c.kind}: exit ${code}, ${m.ms} ms, peak RSS +${m.peakRssMiB} MiB, ${server.requests()} requests`,
        );
        expect(code).toBe(1);
        expect(stderr.trim().split('\n')).toHaveLength(1);
        expect(stderr).toMatch(/^tagtrack: /);
        expect(stderr).toMatch(c.cause);
        // bounded, with room for a busy machine (8x): a hang would run into the stall or the test timeout
        expect(m.ms).toBeLessThan(c.maxMs * 8);
        expect(m.peakRssMiB).toBeLessThan(512);
        expect(server.requests()).toBeLessThanOrEqual(c.maxRequests);
      } finally {
        await server.close();
      }
    },
    20_000,
  );
});

describe('the SDK against hostile servers: typed errors', () => {
  const clientOf = (baseUrl: string, maxBodyBytes?: number) =>
    createClient({ baseUrl, authId: 'a', accessKey: 'k', timeoutMs: 5000, maxBodyBytes });

  test('.all() stops with PaginationError total_changed, page_cap; a redirect is RedirectError; a big body ResponseTooLargeError', async () => {
    const growing = await startHostile('growing-total');
    const huge = await startHostile('huge-total');
    const redirect = await startHostile('redirect-loop');
    const endless = await startHostile('endless-body');
    try {
      const drain = async (it: AsyncIterable<unknown>) => {
        for await (const _ of it);
      };
      const changed = await drain(clientOf(growing.url).teams.list.all()).catch((e: unknown) => e);
      expect(changed).toBeInstanceOf(PaginationError);
      expect((changed as PaginationError).reason).toBe('total_changed');
      const capped = await drain(clientOf(huge.url).teams.list.all({}, { maxPages: 3 })).catch(
        (e: unknown) => e,
      );
      expect((capped as PaginationError).reason).toBe('page_cap');
      expect(huge.requests()).toBe(3);
      const moved = await clientOf(redirect.url)
        .teams.list()
        .catch((e: unknown) => e);
      expect(moved).toBeInstanceOf(RedirectError);
      expect(moved).toMatchObject({ code: 'redirect', statusCode: 302, location: '/teams' });
      expect(redirect.requests()).toBe(1);
      const big = await clientOf(endless.url, 1024 * 1024)
        .teams.list()
        .catch((e: unknown) => e);
      expect(big).toBeInstanceOf(ResponseTooLargeError);
      expect(big).toMatchObject({ code: 'response_too_large', maxBodyBytes: 1024 * 1024 });
    } finally {
      await Promise.all([growing.close(), huge.close(), redirect.close(), endless.close()]);
    }
  });
});
