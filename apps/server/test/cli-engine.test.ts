import {
  authorizationHeader,
  type Dataset,
  ENDPOINT_LIST,
  type PathParamName,
} from '@tagtrack/core';
import { generateDataset } from '@tagtrack/dataset';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { buildIndex } from '@tagtrack/engine';
import { describe, expect, test } from 'vitest';
// the engine's helpers for a database of one test file's own on the test server
import { testDatabaseUrl, useTestDatabase } from '../../../packages/engine/test/databases.ts';
import { engineOf, redactPassword } from '../src/cli-engine.ts';
import { createServer, type TagtrackServer } from '../src/index.ts';
import { type CliIo, type CliOutcome, main } from '../src/main.ts';

/** Runs `tagtrack-server ARGS` in-process (PORT and HOST cleared): its outcome and output. */
async function cli(args: string[]): Promise<{ outcome: CliOutcome; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
  };
  const saved = { ...process.env };
  delete process.env.PORT;
  delete process.env.HOST;
  try {
    const outcome = await main(args, io);
    return { outcome, out, err };
  } finally {
    process.env = saved;
  }
}

/** A run that must end: its exit code and stderr (a server that listened is stopped, and fails). */
async function exits(args: string[]): Promise<{ code: number; stderr: string }> {
  const { outcome, err } = await cli(args);
  if (!('code' in outcome)) {
    await outcome.stop('SIGTERM');
    throw new Error(`tagtrack-server ${args.join(' ')} listened instead of exiting`);
  }
  return { code: outcome.code, stderr: err };
}

const SECRET = 'S3cr%40t-pw';

describe('tagtrack-server --engine and --database-url', { timeout: 120_000 }, () => {
  test.each([
    [
      ['--database-url', `postgres://u:${SECRET}@127.0.0.1/db`, '--engine', 'memory'],
      /--database-url .*cannot be used with --engine memory/,
    ],
    [
      ['--database-url', `postgres://u:${SECRET}@127.0.0.1/db`, '--engine', 'pglite'],
      /cannot be used with --engine pglite/,
    ],
    [
      ['--database-url', `mysql://u:${SECRET}@127.0.0.1/db`, '--port', '0'],
      /^tagtrack-server: postgres engine: .*mysql/,
    ],
    [
      ['--engine', 'pglite', '--dataset', 'x.json', '--write-snapshot', 'x.ttsnap'],
      /--write-snapshot needs the in-memory engine .*not pglite/,
    ],
    [
      ['--database-url', `postgres://u:${SECRET}@127.0.0.1:1/db`, '--live', '1'],
      /^tagtrack-server: postgres engine: cannot use the database/,
    ],
    [
      ['--engine', 'pglite', '--fault', 'page-overlap', '--fault', 'unique-opens-as-total'],
      /^tagtrack-server: fault unique-opens-as-total wraps the store .*needs the in-memory engine, not pglite$/,
    ],
  ])('%j exits 2 with one line, no password', async (args, message) => {
    const r = await exits(args);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
    expect(r.stderr).not.toContain('S3cr');
  });

  test('--engine with an unknown name exits 2 naming the choices', async () => {
    const r = await exits(['--engine', 'sqlite']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--engine.*memory, pglite/);
  });

  test('a database that cannot be opened (nothing listens on port 1) exits 2 with one line without the password', async () => {
    const r = await exits([
      '--database-url',
      `postgres://tagtrack:${SECRET}@127.0.0.1:1/tagtrack`,
      '--port',
      '0',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^tagtrack-server: postgres engine: /);
    expect(r.stderr).not.toContain('S3cr');
  });

  test('engineOf: --database-url picks postgres, else --engine, default memory', () => {
    expect(engineOf({})).toBe('memory');
    expect(engineOf({ engine: 'pglite' })).toBe('pglite');
    expect(engineOf({ databaseUrl: 'postgresql://localhost/db' })).toBe('postgres');
  });

  test('redaction hides the password as written and percent-decoded, and nothing else', () => {
    const url = `postgres://tagtrack:${SECRET}@db.example:5432/tagtrack`;
    expect(redactPassword(`password authentication failed (S3cr@t-pw) for ${url}`, url)).toBe(
      'password authentication failed (***) for postgres://tagtrack:***@db.example:5432/tagtrack',
    );
  });
});

/**
 * Every endpoint of the catalogue for the member `memberID` of `dataset` (ids in its scope),
 * at each query of `queries` (a list endpoint; a single one without cursor): the listening
 * server at `url` answers as `memory` does (status, X-Total-Count, Link, body).
 */
async function answersAsMemory(
  url: string,
  memory: TagtrackServer,
  dataset: Dataset,
  memberID: string,
  queries: readonly string[],
): Promise<number> {
  const index = buildIndex(dataset);
  const cred = dataset.credentials.find((c) => c.memberID === memberID)!;
  const caller = index.callerOf(memberID)!;
  const team = dataset.teams.find((t) => t.teamID === caller.teamID)!;
  const tags = index.tags(caller, {})!;
  const tag = tags.find((t) => t.stats.totalOpens > 0 && t.stats.totalClicks > 0) ?? tags[0];
  const params: Record<PathParamName, string> = {
    memberID,
    group: team.groups[0]?.groupID ?? 'none',
    tagID: tag?.tagID ?? 'none',
    contactID: index.contacts(caller)[0]?.contactID ?? 'none',
  };
  const day = tag && index.tagOpens(caller, tag.tagID)?.[0]?.openDate.slice(0, 10);
  let compared = 0;
  for (const e of ENDPOINT_LIST) {
    const path = e.path.replace(/\{(\w+)\}/g, (_, n: PathParamName) =>
      encodeURIComponent(params[n]),
    );
    const required = e.requiredQuery.includes('date') ? [`date=${day ?? '2024-01-01'}`] : [];
    for (const q of e.response === 'list' ? queries : ['']) {
      const query = [...required, ...(q === '' ? [] : [q])].join('&');
      const headers = { Authorization: authorizationHeader(cred.authId, cred.accessKey, query) };
      const target = `${path}${query === '' ? '' : `?${query}`}`;
      const sql = await fetch(`${url}${target}`, { headers });
      const mem = await memory.fetch(new Request(`${url}${target}`, { headers }));
      const label = `${caller.accountType} ${target}`;
      expect(sql.status, label).toBe(mem.status);
      expect(sql.headers.get('x-total-count'), label).toBe(mem.headers.get('x-total-count'));
      expect(sql.headers.get('link'), label).toBe(mem.headers.get('link'));
      expect(await sql.text(), label).toBe(await mem.text());
      compared++;
    }
  }
  return compared;
}

describe('tagtrack-server --engine pglite', { timeout: 120_000 }, () => {
  test('serves the canonical dataset as the in-memory server does: every endpoint, pages at cursors 0, 7 and 10^20 - 1, text too', async () => {
    const { outcome, out } = await cli(['--engine', 'pglite', '--port', '0', '--page-size', '7']);
    if ('code' in outcome) throw new Error(`exited with ${outcome.code}`);
    try {
      expect(out).toContain('engine: pglite (embedded PostgreSQL in memory, dataset loaded)');
      expect(out).toContain('demo credentials');
      const memory = createServer({ pageSize: 7, publicUrl: outcome.url });
      const admin = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;
      const compared = await answersAsMemory(
        outcome.url,
        memory,
        canonicalDataset,
        admin.memberID,
        ['', 'cursor=7&rtn=text', 'cursor=99999999999999999999'],
      );
      expect(compared).toBe(
        ENDPOINT_LIST.length + 2 * ENDPOINT_LIST.filter((e) => e.response === 'list').length,
      );
    } finally {
      expect(await outcome.stop('SIGTERM')).toBe(0);
    }
  });
});

/**
 * Against the real PostgreSQL server of `TAGTRACK_TEST_DATABASE_URL` (scripts/postgres-cluster.sh),
 * in a database of this file's own; skipped without one (the PGlite tests above still run).
 */
describe.skipIf(!testDatabaseUrl())('tagtrack-server --database-url', { timeout: 120_000 }, () => {
  const database = useTestDatabase('server cli');
  const generated = { seed: 3, scale: 'tiny' } as const;

  test('an empty database without a dataset flag exits 2 with one line naming the missing tables', async () => {
    const r = await exits(['--database-url', database().url, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^tagtrack-server: postgres engine: .*(table|tagtrack)/);
    expect(r.stderr).not.toContain(`:${new URL(database().url).password}@`);
  });

  test('--seed loads the dataset; without a dataset flag the next start serves those tables as the in-memory server does', async () => {
    const loading = await cli([
      '--database-url',
      database().url,
      '--seed',
      '3',
      '--scale',
      'tiny',
      '--port',
      '0',
    ]);
    if ('code' in loading.outcome)
      throw new Error(`exited with ${loading.outcome.code}: ${loading.err}`);
    expect(loading.out).toMatch(
      /engine: postgres at postgres:\/\/[^:]*:\*\*\*@.* \(dataset loaded\)/,
    );
    expect(await loading.outcome.stop('SIGTERM')).toBe(0);

    const { outcome, out } = await cli([
      '--database-url',
      database().url,
      '--port',
      '0',
      '--page-size',
      '5',
    ]);
    if ('code' in outcome) throw new Error(`exited with ${outcome.code}`);
    try {
      expect(out).toContain('(serving the tables already there)');
      expect(out).toContain("credentials: those of the database's credentials table");
      const dataset = generateDataset(generated);
      const memory = createServer({ dataset, pageSize: 5, publicUrl: outcome.url });
      const team = dataset.teams[0]!;
      for (const type of ['admin', 'user'] as const) {
        const member = team.members.find((m) => m.accountType === type)!;
        await answersAsMemory(outcome.url, memory, dataset, member.memberID, ['', 'cursor=5']);
      }
    } finally {
      expect(await outcome.stop('SIGTERM')).toBe(0);
    }
  });
});
