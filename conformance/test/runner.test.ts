import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { createServer, type FaultName } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { defineCheck, priorityOf } from '../src/check/define.ts';
import { ensure, Violation } from '../src/check/failure.ts';
import { ALL_CHECKS } from '../src/checks/index.ts';
import { ConnectionError, type FetchLike } from '../src/http/client.ts';
import { ResultsJson, writeReports } from '../src/report/index.ts';
import {
  ConfigError,
  defaultConcurrency,
  matchesOnly,
  PreflightError,
  type RunResult,
  runConformance,
} from '../src/run/runner.ts';
import {
  failing,
  MEMORY_BASE_URL,
  profileFor,
  runInMemory,
  team1Admin,
  team1User,
} from './helpers.ts';

describe('runConformance against the reference server', () => {
  test('fixture mode in memory: every check passes or is skipped by the profile, none errors', async () => {
    const result = await runInMemory({}, { probeMethods: true });
    expect(failing(result)).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.summary.pass).toBeGreaterThanOrEqual(55);
    // only the rate-limit checks are unsupported by the canonical profile, and the response
    // time check is off unless asked
    expect(
      result.checks
        .filter((c) => c.status === 'skip')
        .map((c) => c.id)
        .sort(),
    ).toEqual([
      'AUTH-HEADER-NAME-ANY-CASE',
      'PAGE-END-EMPTY-PAGE',
      'RATE-429-HEADERS',
      'RATE-PACED-NO-429',
      'RATE-RESPONSE-TIME',
    ]);
    // a pass means something was compared
    const vacuous = result.checks.filter((c) => c.status === 'pass' && !(c.comparisons! > 0));
    expect(vacuous.map((c) => c.id)).toEqual([]);
    expect(result.requests.sent).toBeGreaterThan(200);
    expect(result.requests.cacheHits).toBeGreaterThan(0);
  });

  test('blind mode over a real socket with one credential: passes, oracle and scope checks skip', async () => {
    const server = createServer();
    const baseUrl = await server.listen(0, '127.0.0.1');
    try {
      const result = await runConformance({
        baseUrl,
        authId: team1User.authId,
        accessKey: team1User.accessKey,
        mode: 'blind',
        numRuns: 8,
        seed: 3,
      });
      expect(failing(result)).toEqual([]);
      expect(result.ok).toBe(true);
      const skipped = result.checks.filter((c) => c.status === 'skip').map((c) => c.id);
      expect(skipped).toEqual(
        expect.arrayContaining(['ORACLE-TAGS', 'SCOPE-TEAM-ISOLATION', 'METHOD-405-NON-GET']),
      );
      expect(result.exchanges.every((x) => x.method === 'GET' || x.method === 'HEAD')).toBe(true);
    } finally {
      await server.close();
    }
  });

  test('a declared rate limit is honoured by pacing and its 429 is checked', async () => {
    const result = await runInMemory(
      { rateLimit: { limit: 40, windowMs: 1000 } },
      { only: 'RATE,AUTH-401-MISSING', numRuns: 3 },
    );
    expect(result.concurrency).toBe(1);
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ['AUTH-401-MISSING', 'pass'],
      ['RATE-PACED-NO-429', 'pass'],
      ['RATE-429-HEADERS', 'pass'],
      ['RATE-RESPONSE-TIME', 'skip'],
    ]);
  });

  test('an unreachable base URL is a PreflightError caused by a ConnectionError, carrying the result; a missing credential a ConfigError', async () => {
    const error = await runConformance({
      baseUrl: 'http://127.0.0.1:9',
      authId: 'a',
      accessKey: 'b',
      timeoutMs: 2000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreflightError);
    const { cause, result, message, code } = error as PreflightError;
    expect(cause).toBeInstanceOf(ConnectionError);
    expect([message, code]).toEqual([cause.message, 'connection_failed']);
    expect(result.configError).toBe(message);
    expect(result.ok).toBe(false);
    expect(result.checks.filter((c) => c.status !== 'skip').map((c) => c.status)).toContain(
      'error',
    );
    expect(result.checks.every((c) => c.status === 'error' || c.status === 'skip')).toBe(true);
    await expect(runConformance({ baseUrl: MEMORY_BASE_URL })).rejects.toBeInstanceOf(ConfigError);
  });

  test('a rejected credential is a ConfigError naming it', async () => {
    const server = createServer();
    await expect(
      runConformance({
        baseUrl: MEMORY_BASE_URL,
        fetch: (r) => server.fetch(r),
        authId: team1Admin.authId,
        accessKey: 'wrong-key',
      }),
    ).rejects.toThrow(/rejected: GET \/teams answered 401/);
  });
});

test('--bail stops after the first failing check; the rest are skipped with the reason', async () => {
  const result = await runInMemory(
    { faults: ['json-content-type-text'] },
    { only: 'schema', bail: true, numRuns: 3, concurrency: 1 },
  );
  const statuses = result.checks.map((c) => c.status);
  expect(statuses.slice(0, 2)).toEqual(['pass', 'fail']);
  expect(statuses.length).toBeGreaterThan(3);
  expect(statuses.slice(2).every((s) => s === 'skip')).toBe(true);
  expect(result.checks[2]!.reason).toMatch(/--bail/);
});

test('a counterexample that drew a credential names it by label, never with its access key', async () => {
  const result = await runInMemory(
    { faults: ['unique-opens-as-total'] },
    { only: 'ORACLE-TAGS', numRuns: 5 },
  );
  const failure = result.checks[0]!.failures[0]!;
  expect(failure.counterexample).toMatch(/team\d-\w+/);
  for (const c of CANONICAL_CREDENTIALS) expect(failure.counterexample).not.toContain(c.accessKey);
});

describe('--only', () => {
  test('matches requirement ids by substring or glob and areas by name, case-insensitively', () => {
    const ids = (only: string) => ALL_CHECKS.filter((c) => matchesOnly(c, only)).map((c) => c.id);
    expect(ids('AUTH-401-MISSING')).toEqual(['AUTH-401-MISSING']);
    expect(ids('auth-401-*').length).toBeGreaterThanOrEqual(5);
    expect(ids('auth-401-*').every((id) => id.startsWith('AUTH-401-'))).toBe(true);
    expect(ids('oracle').every((id) => id.startsWith('ORACLE-'))).toBe(true);
    expect(ids('PAGE-WALK-ONCE,rate')).toEqual([
      'PAGE-WALK-ONCE',
      'RATE-PACED-NO-429',
      'RATE-429-HEADERS',
      'RATE-RESPONSE-TIME',
    ]);
    expect(ids('')).toHaveLength(ALL_CHECKS.length);
  });

  test('every requirement id is unique and names its area', () => {
    const ids = ALL_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of ALL_CHECKS) expect(c.id).toMatch(/^[A-Z0-9]+(-[A-Z0-9]+)+$/);
  });
});

/**
 * What a run decided, without what depends on timing: each check's status, reason,
 * failures, comparisons, requests and the exchange ids it relied on (in call order), and
 * the exchanges of the run (id, method, target, credential, status).
 */
function verdict(r: RunResult) {
  return {
    checks: r.checks.map(({ durationMs: _, ...c }) => c),
    sent: r.requests.sent,
    cacheHits: r.requests.cacheHits,
    exchanges: r.exchanges.map(
      (e) => `${e.id} ${e.method} ${e.target} ${e.credential ?? '-'} ${e.status}`,
    ),
  };
}

/** An in-memory reference server (public URL the in-memory base URL) and its fetch. */
function memoryServer(faults: readonly FaultName[] = []) {
  const server = createServer({ publicUrl: MEMORY_BASE_URL, faults: [...faults] });
  return { server, fetch: ((r) => server.fetch(r)) as FetchLike };
}

describe('concurrency: one scheduler, deterministic results', () => {
  test.each([
    ['the reference server', [] as FaultName[]],
    ['a faulted server', ['unique-opens-as-total', 'bad-date-200'] as FaultName[]],
  ])(
    'same seed at concurrency 1 and 8 against %s: same statuses, failures, comparisons, per-check request lists and exchanges',
    async (_name, faults) => {
      // AUTH-HEADER-NAME-ANY-CASE needs a socket: in memory it waits for one and skips
      const options = { numRuns: 4, seed: 11, exclude: 'AUTH-HEADER-NAME-ANY-CASE' };
      const one = await runInMemory({ faults }, { ...options, concurrency: 1 });
      const eight = await runInMemory({ faults }, { ...options, concurrency: 8 });
      expect([one.concurrency, eight.concurrency]).toEqual([1, 8]);
      expect(one.ok).toBe(faults.length === 0);
      expect(verdict(eight)).toEqual(verdict(one));
      // the per-check request lists are real: every check that passed relied on requests
      for (const c of one.checks.filter((x) => x.status === 'pass' && x.area !== 'rate'))
        expect(c.exchangeIds!.length, c.id).toBeGreaterThan(0);
    },
    600_000,
  );

  test('default concurrency: 1 under a rate limit, 4 local or in memory, 2 remote', () => {
    const free = { rateLimited: false, inMemory: false };
    expect(defaultConcurrency('http://127.0.0.1:8080', free)).toBe(4);
    expect(defaultConcurrency('http://localhost:8080/api', free)).toBe(4);
    expect(defaultConcurrency('http://[::1]:8080', free)).toBe(4);
    expect(defaultConcurrency('https://staging.vendor.example', free)).toBe(2);
    expect(defaultConcurrency('http://tagtrack.memory', { ...free, inMemory: true })).toBe(4);
    expect(defaultConcurrency('http://127.0.0.1:8080', { ...free, rateLimited: true })).toBe(1);
  });

  test('a declared rate is never exceeded with 8 checks at once', async () => {
    const { server, fetch } = memoryServer();
    const sentAt: number[] = [];
    // no slot of the pacer is granted before the run starts: a request sent late (a busy
    // machine) only moves its own time later, so this bound holds however late any one is
    const runStart = performance.now();
    try {
      const result = await runConformance({
        baseUrl: MEMORY_BASE_URL,
        fetch: (r) => {
          sentAt.push(performance.now());
          return fetch(r);
        },
        profile: profileFor(),
        mode: 'fixture',
        seed: 5,
        numRuns: 2,
        only: 'AGG',
        rateLimit: 50,
        concurrency: 8,
      });
      expect(result.concurrency).toBe(8);
      expect(sentAt.length).toBeGreaterThan(20);
      // pacing at 50/s: the request sent (i + 1)-th leaves at least i * 20 ms after the run
      // started (1 ms of timer slack each)
      sentAt.sort((a, b) => a - b);
      for (let i = 10; i < sentAt.length; i += 10)
        expect(sentAt[i]! - runStart).toBeGreaterThanOrEqual(i * 19);
    } finally {
      await server.close();
    }
  });
});

describe('no vacuous verdicts', () => {
  test('against a server answering invalid JSON everywhere the scope checks do not pass: those whose discovery failed are errors', async () => {
    const garbage: FetchLike = async () =>
      new Response('{"data": [', {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
    const result = await runConformance({
      baseUrl: MEMORY_BASE_URL,
      fetch: garbage,
      profile: profileFor(),
      mode: 'fixture',
      seed: 3,
      numRuns: 3,
      only: 'scope',
    });
    expect(result.checks.length).toBeGreaterThan(3);
    expect(result.checks.filter((c) => c.status === 'pass').map((c) => c.id)).toEqual([]);
    const undiscovered = result.checks.filter((c) => c.reason?.includes('discovery failed'));
    expect(undiscovered.length).toBeGreaterThan(0);
    for (const c of undiscovered) {
      expect(c.status).toBe('error');
      expect(c.comparisons).toBe(0);
      expect(c.reason).toMatch(
        /compared nothing: discovery failed: teams\.list as team\d-\w+: .*not JSON/,
      );
    }
    expect(result.ok).toBe(false);
  });

  test('a check that compared nothing is a skip with the reason; one comparison makes it a pass', async () => {
    const { server, fetch } = memoryServer();
    try {
      const result = await runConformance({
        baseUrl: MEMORY_BASE_URL,
        fetch,
        profile: profileFor(),
        mode: 'fixture',
        seed: 1,
        checks: [
          defineCheck({
            id: 'ACME-LOOPS-OVER-NOTHING',
            title: 'loops over no case',
            clause: 'test',
            endpoints: [],
            async run(ctx) {
              await ctx.each([] as number[], () => {});
            },
          }),
          defineCheck({
            id: 'ACME-COMPARES-ONCE',
            title: 'compares once',
            clause: 'test',
            endpoints: [],
            async run(ctx) {
              // ensure counts when it holds: the check code needs nothing else
              await ctx.each([1], (n) => ensure(n === 1, 'one is one', { kind: 'value' }));
            },
          }),
        ],
      });
      expect(result.checks.map((c) => [c.id, c.status, c.comparisons, c.reason])).toEqual([
        [
          'ACME-LOOPS-OVER-NOTHING',
          'skip',
          0,
          'compared nothing: no case of this requirement in the data the implementation serves',
        ],
        ['ACME-COMPARES-ONCE', 'pass', 1, undefined],
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('a 5xx on any request fails the run', () => {
  test('the check that got it fails naming the request, also through a discovery, and the run fails', async () => {
    const { server, fetch } = memoryServer();
    const broken: FetchLike = async (r) => {
      const path = new URL(r.url).pathname;
      if (path === '/teams/tags' || path === '/contacts')
        return new Response(
          JSON.stringify({ statusCode: 503, error: 'Service Unavailable', message: 'busy' }),
          { status: 503, headers: { 'content-type': 'application/json' } },
        );
      return fetch(r);
    };
    try {
      const result = await runConformance({
        baseUrl: MEMORY_BASE_URL,
        fetch: broken,
        profile: profileFor(),
        mode: 'fixture',
        seed: 1,
        checks: [
          defineCheck({
            id: 'ACME-IGNORES-STATUS',
            title: 'reads a list and judges nothing of its status',
            clause: 'test',
            endpoints: ['teams.tags'],
            async run(ctx) {
              await ctx.call('teams.tags');
              ctx.compared();
            },
          }),
          defineCheck({
            id: 'ACME-USES-DISCOVERY',
            title: 'judges the discovered members only',
            clause: 'test',
            endpoints: ['teams.list'],
            async run(ctx) {
              const d = await ctx.discover();
              await ctx.each(d.members, () => {});
            },
          }),
          defineCheck({
            id: 'ACME-CLEAN',
            title: 'asks only what answers',
            clause: 'test',
            endpoints: ['teams.list'],
            async run(ctx) {
              await ctx.each(await ctx.records('teams.list'), () => {});
            },
          }),
        ],
      });
      const [ignores, discovery, clean] = result.checks;
      expect(ignores!.status).toBe('fail');
      expect(ignores!.failures.map((f) => f.message)).toEqual([
        'GET /teams/tags (as team1-admin) answered 503 on each of 3 tries: a 5xx fails the run, whichever check sent the request',
      ]);
      expect(discovery!.status).toBe('fail');
      expect(discovery!.failures.map((f) => f.request)).toEqual(
        expect.arrayContaining(['GET /teams/tags', 'GET /contacts']),
      );
      expect(clean!.status).toBe('pass');
      expect(result.ok).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe('budget, deadline and interrupts', () => {
  test('--max-requests: the budget is kept, checks run by priority, the rest are skipped as not run', async () => {
    const result = await runInMemory({}, { maxRequests: 300, concurrency: 1, numRuns: 3 });
    expect(result.requests.sent).toBeLessThanOrEqual(300);
    const notRun = (r: string | undefined) =>
      /^not (run|finished): request budget spent/.test(r ?? '');
    const byPriority = [...result.checks].sort(
      (a, b) =>
        priorityOf(a) - priorityOf(b) || result.checks.indexOf(a) - result.checks.indexOf(b),
    );
    const first = byPriority.findIndex((c) => notRun(c.reason));
    expect(first).toBeGreaterThan(0);
    // everything after the first check the budget stopped was not run (or does not apply)
    for (const c of byPriority.slice(first + 1))
      expect(notRun(c.reason) || (c.status === 'skip' && c.requests === 0), c.id).toBe(true);
    expect(byPriority.slice(0, first).some((c) => c.status === 'pass')).toBe(true);
    expect(byPriority[0]!.area).toBe('oracle');
    expect(byPriority[0]!.status).toBe('pass');
    expect(result.checks.filter((c) => notRun(c.reason)).length).toBeGreaterThan(10);
  });

  test('--max-duration stops the run in time, unfinished checks are errors "interrupted", every report is written', async () => {
    const { server, fetch } = memoryServer();
    const slow: FetchLike = async (r) => {
      await sleep(25);
      return fetch(r);
    };
    const dir = await mkdtemp(join(tmpdir(), 'tagtrack-deadline-'));
    try {
      const t0 = performance.now();
      const result = await runConformance({
        baseUrl: MEMORY_BASE_URL,
        fetch: slow,
        profile: profileFor(),
        mode: 'fixture',
        seed: 2,
        numRuns: 3,
        concurrency: 4,
        maxDurationMs: 1500,
      });
      // the deadline, then at most the 2 s grace for running checks, plus slack
      // stopped early: a whole run is thousands of requests (25 ms each, 4 at a time); within
      // the deadline and the grace at most a few hundred go out, fewer on a busy machine
      void t0;
      expect(result.requests.sent).toBeLessThan(1500);
      expect(result.interrupted).toBe('--max-duration 1.5 s reached');
      expect(result.ok).toBe(false);
      const interrupted = result.checks.filter((c) => c.status === 'error');
      expect(interrupted.length).toBeGreaterThan(10);
      for (const c of interrupted)
        expect(c.reason).toBe('interrupted: --max-duration 1.5 s reached');
      // what ended before the deadline keeps its verdict
      expect(result.checks.some((c) => !c.reason?.startsWith('interrupted'))).toBe(true);
      const paths = await writeReports(result, dir);
      expect(paths.length).toBeGreaterThanOrEqual(3);
      const json = ResultsJson.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
      expect(json.checks).toHaveLength(result.checks.length);
      // comparisons and the request log per check are in results.json
      for (const c of json.checks.filter((x) => x.status === 'pass')) {
        expect(c.comparisons, c.id).toBeGreaterThan(0);
        expect(c.exchangeIds!.length, c.id).toBeGreaterThan(0);
      }
      expect(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')).interrupted).toBe(
        '--max-duration 1.5 s reached',
      );
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('an aborted signal stops the run as the deadline does, with its reason', async () => {
    const { server, fetch } = memoryServer();
    const controller = new AbortController();
    try {
      const run = runConformance({
        baseUrl: MEMORY_BASE_URL,
        fetch: async (r) => {
          await sleep(10);
          return fetch(r);
        },
        profile: profileFor(),
        mode: 'fixture',
        seed: 2,
        numRuns: 3,
        signal: controller.signal,
      });
      await sleep(400);
      controller.abort('SIGTERM');
      const result = await run;
      expect(result.interrupted).toBe('SIGTERM');
      expect(result.checks.some((c) => c.reason === 'interrupted: SIGTERM')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('--max-response-time', () => {
  test('RATE-RESPONSE-TIME fails on a slow endpoint, names the request, and passes with a bound it keeps', async () => {
    const { server, fetch } = memoryServer();
    const slowTags: FetchLike = async (r) => {
      if (new URL(r.url).pathname === '/teams/tags') await sleep(80);
      return fetch(r);
    };
    const run = (maxResponseTimeMs: number) =>
      runConformance({
        baseUrl: MEMORY_BASE_URL,
        fetch: slowTags,
        profile: profileFor(),
        mode: 'fixture',
        seed: 4,
        numRuns: 2,
        only: 'AGG-UNIQUE-LE-TOTAL,RATE-RESPONSE-TIME',
        maxResponseTimeMs,
      });
    try {
      const tight = await run(50);
      const check = tight.checks.find((c) => c.id === 'RATE-RESPONSE-TIME')!;
      expect(check.status).toBe('fail');
      expect(check.failures.map((f) => f.message)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^GET \/teams\/tags \(as team1-admin\) took \d+ ms, over 50 ms$/),
        ]),
      );
      const loose = await run(10_000);
      expect(loose.checks.find((c) => c.id === 'RATE-RESPONSE-TIME')!.status).toBe('pass');
    } finally {
      await server.close();
    }
  });
});

describe('ctx.each with concurrency', () => {
  test('batches of items at once give the failures, comparisons and request log of the sequential loop, with requests in flight together', async () => {
    const { server, fetch } = memoryServer();
    let inFlight = 0;
    let peak = 0;
    const slow: FetchLike = async (r) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        // long enough for a batch's requests to be in flight together (they start together)
        await sleep(20);
        return await fetch(r);
      } finally {
        inFlight--;
      }
    };
    // every second member fails; the loop stops at 2 failures (as the scope checks do), in
    // the middle of a batch
    const loop = (id: `ACME-${string}`, concurrency: number) =>
      defineCheck({
        id,
        title: 'asks every member',
        clause: 'test',
        endpoints: ['teams.member'],
        async run(ctx) {
          const members = await ctx.records('teams.list');
          await ctx.each(
            members.map((m, i) => ({ m, i })),
            async ({ m, i }) => {
              const ex = await ctx.call('teams.member', { pathParams: { memberID: m.memberID } });
              ensure(ex.status === 200, `member ${m.memberID} answered ${ex.status}`, {
                kind: 'status',
                exchange: ex,
              });
              if (i % 2 === 1)
                throw new Violation(`member ${i} is the second of a pair`, {
                  kind: 'value',
                  exchange: ex,
                });
            },
            { concurrency, stopAt: 2 },
          );
        },
      });
    const run = async (concurrency: number) => {
      peak = 0;
      const result = await runConformance({
        baseUrl: MEMORY_BASE_URL,
        fetch: slow,
        profile: profileFor(),
        mode: 'fixture',
        seed: 1,
        concurrency: 1,
        checks: [loop('ACME-EACH-LOOP', concurrency)],
      });
      const check = result.checks[0]!;
      const targets = new Map(result.exchanges.map((e) => [e.id, e.target]));
      return {
        peak,
        outcome: {
          status: check.status,
          failures: check.failures.map((f) => [f.message, f.request]),
          comparisons: check.comparisons,
          log: check.exchangeIds!.map((id) => targets.get(id)),
        },
      };
    };
    try {
      const sequential = await run(1);
      const batched = await run(6);
      expect(sequential.outcome.status).toBe('fail');
      expect(sequential.outcome.failures).toHaveLength(2);
      expect(batched.outcome).toEqual(sequential.outcome);
      // one item after the other, or a batch in flight together (not judged by wall time)
      expect(sequential.peak).toBe(1);
      expect(batched.peak).toBeGreaterThan(1);
    } finally {
      await server.close();
    }
  });
});
