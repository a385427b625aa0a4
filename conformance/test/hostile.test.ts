import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { KEPT_BODY_CHARS } from '../src/http/client.ts';
import { runConformance } from '../src/run/runner.ts';
import { runCli } from './helpers.ts';
import { type HostileKind, measure, startHostile } from './hostile.ts';

/**
 * The suite's CLI (`tagtrack-conformance run`, through
 * its main function in this process) against small hostile servers. Each case asserts the exit
 * code, a one-line cause, the wall time under its limit, the peak RSS growth under 512 MiB and,
 * once the run got past the preflight, the reports written. The figures are printed.
 */

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Runs `tagtrack-conformance run` in-process against `url`; resolves exit code and output. */
function run(url: string, extra: string[], reportDir: string) {
  return runCli(
    [
      'run',
      '--base-url',
      url,
      '--mode',
      'blind',
      '--auth-id',
      'HOSTILEAUTHID',
      '--access-key',
      'hostile-access-key',
      '--seed',
      '1',
      '--num-runs',
      '3',
      '--timeout',
      '1000',
      '--report-dir',
      reportDir,
      ...extra,
    ],
    { NO_COLOR: '1' },
  );
}

interface Case {
  readonly kind: HostileKind;
  readonly code: 0 | 1 | 2;
  /**
   * The cause: stderr's one line (exit 2), a failure line of the summary (exit 1), or the
   * reason of the skipped check (exit 0).
   */
  readonly cause: RegExp;
  /** The checks' reason (exit 2); default: the base URL did not answer. */
  readonly reason?: RegExp;
  readonly maxMs: number;
  readonly extra?: string[];
}

const WALK = ['--only', 'SCHEMA-MEMBER-GROUP-FIELDS'];
const CASES: Case[] = [
  {
    kind: 'never-answers',
    code: 2,
    cause: /cannot reach .*\/teams: request timed out/,
    maxMs: 5000,
    // no answer ever comes: each try times out whatever the timeout, a short one sooner
    extra: ['--timeout', '300'],
  },
  { kind: 'garbage-bytes', code: 2, cause: /cannot reach .*\/teams: /, maxMs: 5000 },
  {
    kind: 'endless-body',
    code: 2,
    cause: /GET .*\/teams: the response body exceeds the 32 MiB cap \(--max-body-bytes\)/,
    maxMs: 10_000,
    // the default cap, read in full before it trips: no per-request timeout in the way
    extra: ['--timeout', '10000'],
  },
  {
    kind: 'slow-body',
    code: 2,
    cause: /cannot reach .*\/teams: request timed out/,
    maxMs: 5000,
    // the body never ends: each try times out whatever the timeout, a short one sooner
    extra: ['--timeout', '300'],
  },
  { kind: 'closes-mid-body', code: 2, cause: /cannot reach .*\/teams: /, maxMs: 5000 },
  {
    // a redirect is not this API: the preflight's configuration error, no check run
    kind: 'redirect-loop',
    code: 2,
    cause:
      /no Tag Tracking API at .*: GET \/teams answered 302 \(a redirect to \/teams\): the suite follows no redirect/,
    reason: /^not run: no Tag Tracking API at /,
    maxMs: 10_000,
    extra: WALK,
  },
  {
    kind: 'invalid-json',
    code: 1,
    cause: /GET \/teams \(as given\): body is not JSON: \{"data": \[\{"memberID": "m1",/,
    maxMs: 10_000,
    extra: WALK,
  },
  {
    kind: 'growing-total',
    code: 1,
    // the totals depend on how many requests came before (the preflight's included)
    cause: /paging\.cursors\.total \d+ differs from \d+ on the first page/,
    maxMs: 10_000,
    extra: WALK,
  },
  {
    // a list this long may be legitimate: the check needing it whole is skipped, saying why,
    // after its first page (no failure, no error: the suite cannot judge it)
    kind: 'huge-total',
    code: 0,
    cause:
      /needs the whole list GET \/teams, which reports 1,000,000,000,000 records: the suite reads at most 100,000 records of one list whole/,
    maxMs: 20_000,
    extra: WALK,
  },
];

describe('the suite against a server hostile after the preflight', () => {
  test('an endless body past the preflight is an error of the check naming the cap; the run goes on and writes its reports', async () => {
    const server = await startHostile('endless-after-preflight');
    const dir = await mkdtemp(join(tmpdir(), 'tagtrack-hostile-after-'));
    dirs.push(dir);
    try {
      const m = await measure(() =>
        run(
          server.url,
          [
            '--only',
            'SCHEMA-STATS-DATE,SCHEMA-MEMBER-GROUP-FIELDS',
            '--max-body-bytes',
            String(4 * 1024 * 1024),
            '--timeout',
            '10000',
          ],
          dir,
        ),
      );
      const { code, stdout } = m.value;
      console.info(
        `suite vs endless-after-preflight: exit ${code}, ${m.ms} ms, peak RSS +${m.peakRssMiB} MiB, ${server.requests()} requests`,
      );
      expect(code, stdout).toBe(1);
      expect(stdout).toMatch(/2 checks, 1 passed, 0 failed, 1 errors/);
      expect(stdout).toMatch(
        /ERROR SCHEMA-STATS-DATE[^\n]*\n\s+error: GET \S+: the response body exceeds the 4 MiB cap \(--max-body-bytes\)/,
      );
      expect((await readdir(dir)).sort()).toEqual(
        expect.arrayContaining(['junit.xml', 'report.html', 'results.json']),
      );
      expect(m.ms).toBeLessThan(100_000);
      expect(m.peakRssMiB).toBeLessThan(512);
    } finally {
      await server.close();
    }
  });
});

describe('the suite keeps memory flat against big bodies under the cap', () => {
  test('4 MiB answers: the exchanges kept for the reports hold 16 KB of each', async () => {
    const server = await startHostile('padded-bodies');
    try {
      const m = await measure(() =>
        runConformance({
          baseUrl: server.url,
          mode: 'blind',
          authId: 'HOSTILEAUTHID',
          accessKey: 'hostile-access-key',
          // its lists end as empty-page does (nextURL null on the last page, data [] past it)
          profile: { pagingEnd: 'empty-page' },
          only: 'SCHEMA-JSON-ENVELOPE,SCHEMA-MEMBER-GROUP-FIELDS',
          seed: 1,
          numRuns: 3,
          timeoutMs: 20_000,
        }),
      );
      const kept = m.value.exchanges;
      console.info(
        `suite vs padded-bodies: ${m.ms} ms, peak RSS +${m.peakRssMiB} MiB, ${server.requests()} requests of 4 MiB`,
      );
      expect(server.requests()).toBeGreaterThan(10);
      expect(kept.every((x) => x.body.length <= KEPT_BODY_CHARS)).toBe(true);
      expect(kept.every((x) => x.bodyBytes > 4 * 1024 * 1024)).toBe(true);
      expect(m.peakRssMiB).toBeLessThan(512);
    } finally {
      await server.close();
    }
  });
});

describe('the suite against hostile servers', () => {
  test.each(CASES)(
    '$kind: exit $code with one line of cause, in time, memory flat',
    async (c) => {
      const server = await startHostile(c.kind);
      const dir = await mkdtemp(join(tmpdir(), `tagtrack-hostile-${c.kind}-`));
      dirs.push(dir);
      try {
        const m = await measure(() => run(server.url, c.extra ?? [], dir));
        const { code, stdout, stderr } = m.value;
        console.info(
          `suite vs ${c.kind}: exit ${code}, ${m.ms} ms, peak RSS +${m.peakRssMiB} MiB, ${server.requests()} requests`,
        );
        expect(code).toBe(c.code);
        if (c.code === 2) {
          // one line on stderr, naming the cause; the reports say it check by check
          // (after the progress lines of the checks, each an error naming the cause)
          const causes = stderr.split('\n').filter((l) => l.startsWith('tagtrack-conformance:'));
          expect(causes).toHaveLength(1);
          expect(causes[0]).toMatch(c.cause);
          expect((await readdir(dir)).sort()).toEqual(
            expect.arrayContaining(['junit.xml', 'report.html', 'results.json']),
          );
          const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as {
            ok: boolean;
            checks: { status: string; reason?: string }[];
          };
          expect(results.ok).toBe(false);
          expect(results.checks.every((x) => x.status === 'error' || x.status === 'skip')).toBe(
            true,
          );
          expect(results.checks.find((x) => x.status === 'error')?.reason).toMatch(
            c.reason ?? /the base URL did not answer/,
          );
        } else if (c.code === 0) {
          const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as {
            checks: { status: string; reason?: string }[];
          };
          expect(results.checks.map((x) => x.status)).toEqual(['skip']);
          expect(results.checks[0]?.reason).toMatch(c.cause);
        } else {
          const line = stdout.split('\n').find((l) => c.cause.test(l));
          expect(line, stdout).toBeDefined();
          // the verdict line: FAIL, then the revision judged ("FAIL under tagtrack/v1 Revision 3")
          expect(
            stdout.split('\n').some((l) => /^FAIL( |$)/.test(l)),
            stdout,
          ).toBe(true);
          expect((await readdir(dir)).sort()).toEqual(
            expect.arrayContaining(['junit.xml', 'report.html', 'results.json']),
          );
        }
        // bounded, with room for a busy machine (8x): a hang would run into the stall or the test timeout
        expect(m.ms).toBeLessThan(c.maxMs * 8);
        expect(m.peakRssMiB).toBeLessThan(512);
      } finally {
        await server.close();
      }
    },
    // past the 8x bound asserted above, so a slow run fails on its time, not on the test's
    120_000,
  );
});
