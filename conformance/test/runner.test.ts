import { CANONICAL_CREDENTIALS } from '@tagtrack/core/canonical';
import { createServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../src/checks/index.ts';
import { ConnectionError } from '../src/http.ts';
import { ConfigError, matchesOnly, runConformance } from '../src/runner.ts';
import { failing, MEMORY_BASE_URL, runInMemory, team1Admin, team1User } from './helpers.ts';

describe('runConformance against the reference server', () => {
  test('fixture mode in memory: every check passes or is skipped by the profile, none errors', async () => {
    const result = await runInMemory({}, { probeMethods: true });
    expect(failing(result)).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.summary.pass).toBeGreaterThanOrEqual(55);
    // only the rate-limit checks are unsupported by the canonical profile
    expect(
      result.checks
        .filter((c) => c.status === 'skip')
        .map((c) => c.id)
        .sort(),
    ).toEqual(['PAGE-END-EMPTY-PAGE', 'RATE-429-HEADERS', 'RATE-PACED-NO-429']);
    expect(result.requests.sent).toBeGreaterThan(200);
    expect(result.requests.cacheHits).toBeGreaterThan(0);
  }, 60_000);

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
  }, 60_000);

  test('a declared rate limit is honoured by pacing and its 429 is checked', async () => {
    const result = await runInMemory(
      { rateLimit: { limit: 40, windowMs: 1000 } },
      { only: 'RATE,AUTH-401-MISSING', numRuns: 3 },
    );
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ['AUTH-401-MISSING', 'pass'],
      ['RATE-PACED-NO-429', 'pass'],
      ['RATE-429-HEADERS', 'pass'],
    ]);
  }, 30_000);

  test('an unreachable base URL is a ConnectionError, a missing credential a ConfigError', async () => {
    await expect(
      runConformance({
        baseUrl: 'http://127.0.0.1:9',
        authId: 'a',
        accessKey: 'b',
        timeoutMs: 2000,
      }),
    ).rejects.toBeInstanceOf(ConnectionError);
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
    { only: 'schema', bail: true, numRuns: 3 },
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
  expect(failure.counterexample).toMatch(/"label":"team\d-\w+"/);
  expect(failure.counterexample).toContain('"accessKey":"<redacted>"');
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
    ]);
    expect(ids('')).toHaveLength(ALL_CHECKS.length);
  });

  test('every requirement id is unique and names its area', () => {
    const ids = ALL_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of ALL_CHECKS) expect(c.id).toMatch(/^[A-Z0-9]+(-[A-Z0-9]+)+$/);
  });
});
