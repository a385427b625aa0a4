import { authorizationHeader } from '@tagtrack/core';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { describe, expect, test } from 'vitest';
import { engineOf, redactPassword } from '../src/cli-engine.ts';
import { createServer } from '../src/index.ts';
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
    [['--engine', 'pglite', '--live', '1'], /--live needs the in-memory engine, not pglite/],
    [
      ['--database-url', `postgres://u:${SECRET}@127.0.0.1/db`, '--live', '1'],
      /--live needs the in-memory engine, not postgres/,
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

describe('tagtrack-server --engine pglite', { timeout: 120_000 }, () => {
  test('serves the canonical dataset as the in-memory server does: banner, list pages and a single record', async () => {
    const { outcome, out } = await cli(['--engine', 'pglite', '--port', '0', '--page-size', '7']);
    if ('code' in outcome) throw new Error(`exited with ${outcome.code}`);
    const memory = createServer({ pageSize: 7, publicUrl: outcome.url });
    try {
      expect(out).toContain('engine: pglite');
      const cred = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;
      for (const [path, query] of [
        ['/teams/tags', 'cursor=7'],
        ['/contacts', ''],
        ['/opens', 'cursor=3&rtn=text'],
        ['/stats', 'aggregateData=true'],
        ['/teams', 'cursor=99999999999999999999'],
      ] as const) {
        const headers = { Authorization: authorizationHeader(cred.authId, cred.accessKey, query) };
        const target = `${path}${query === '' ? '' : `?${query}`}`;
        const sql = await fetch(`${outcome.url}${target}`, { headers });
        const mem = await memory.fetch(new Request(`${outcome.url}${target}`, { headers }));
        expect(sql.status, target).toBe(mem.status);
        expect(sql.headers.get('x-total-count'), target).toBe(mem.headers.get('x-total-count'));
        expect(sql.headers.get('link'), target).toBe(mem.headers.get('link'));
        expect(await sql.text(), target).toBe(await mem.text());
      }
    } finally {
      expect(await outcome.stop('SIGTERM')).toBe(0);
    }
  });
});
