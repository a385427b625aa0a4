import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  createTestDatabase,
  TEST_DATABASE_URL_VARIABLE,
  testDatabaseUrl,
  useTestDatabase,
} from './databases.ts';

/** Runs `work` on one connection to `url`, then closes it. */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe('the test-database helper without a server', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  test('no TAGTRACK_TEST_DATABASE_URL: testDatabaseUrl is undefined and createTestDatabase names the variable', async () => {
    vi.stubEnv(TEST_DATABASE_URL_VARIABLE, '');
    expect(testDatabaseUrl()).toBeUndefined();
    await expect(createTestDatabase('x')).rejects.toThrow(
      /^TAGTRACK_TEST_DATABASE_URL is not set: run scripts\/postgres-cluster\.sh/,
    );
  });

  test('a TAGTRACK_TEST_DATABASE_URL that is not a PostgreSQL URL is refused, naming the variable, not skipped', () => {
    vi.stubEnv(TEST_DATABASE_URL_VARIABLE, 'http://127.0.0.1:54329/tagtrack_test');
    expect(() => testDatabaseUrl()).toThrow(/^TAGTRACK_TEST_DATABASE_URL has scheme 'http:'/);
    vi.stubEnv(TEST_DATABASE_URL_VARIABLE, '127.0.0.1:54329');
    expect(() => testDatabaseUrl()).toThrow(/^TAGTRACK_TEST_DATABASE_URL is not a URL/);
    vi.stubEnv(TEST_DATABASE_URL_VARIABLE, ' postgresql://u:p@127.0.0.1:1/db ');
    expect(testDatabaseUrl()).toBe('postgresql://u:p@127.0.0.1:1/db');
  });
});

describe.skipIf(!testDatabaseUrl())(
  'a database per test file on the real PostgreSQL server',
  () => {
    test('createTestDatabase gives an empty, usable database under the same role, and drop removes it even while connected', async () => {
      const serverUrl = testDatabaseUrl()!;
      const database = await createTestDatabase('databases test: lifecycle');
      expect(database.name).toMatch(/^tagtrack_t_databases_test_lifecycle_[0-9a-f]{8}$/);
      const url = new URL(database.url);
      const server = new URL(serverUrl);
      expect([url.username, url.password, url.host]).toEqual([
        server.username,
        server.password,
        server.host,
      ]);
      expect(url.pathname).toBe(`/${database.name}`);

      const open = new pg.Client({ connectionString: database.url });
      await open.connect();
      // the forced drop below ends this session; its error is expected, not a test failure
      const ended = new Promise<Error>((resolve) => open.on('error', resolve));
      try {
        const here = await open.query<{ db: string; role: string }>(
          'SELECT current_database() AS db, current_user AS role',
        );
        expect(here.rows).toEqual([{ db: database.name, role: server.username }]);
        const tables = await open.query(
          `SELECT table_schema, table_name FROM information_schema.tables
         WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`,
        );
        expect(tables.rows).toEqual([]);
        await open.query('CREATE TABLE probe (id integer PRIMARY KEY, label text NOT NULL)');
        await open.query("INSERT INTO probe VALUES (1, 'one'), (2, 'two')");
        const probe = await open.query('SELECT id, label FROM probe ORDER BY id');
        expect(probe.rows).toEqual([
          { id: 1, label: 'one' },
          { id: 2, label: 'two' },
        ]);

        await database.drop();
        expect((await ended).message).toMatch(/terminat/i);
      } finally {
        await open.end().catch(() => undefined);
      }
      const left = await withClient(serverUrl, (client) =>
        client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database.name]),
      );
      expect(left.rowCount).toBe(0);
      await expect(database.drop()).resolves.toBeUndefined();
    });

    test('two databases for the same test name, created at once, are distinct and see none of each other', async () => {
      const [a, b] = await Promise.all([
        createTestDatabase('same name'),
        createTestDatabase('same name'),
      ]);
      try {
        expect(a.name).not.toBe(b.name);
        await withClient(a.url, (client) => client.query('CREATE TABLE only_in_a (x integer)'));
        const inB = await withClient(b.url, (client) =>
          client.query("SELECT to_regclass('only_in_a') AS t"),
        );
        expect(inB.rows).toEqual([{ t: null }]);
      } finally {
        await Promise.all([a.drop(), b.drop()]);
      }
    });

    describe('the server behaves as the SQL engine needs', () => {
      const database = useTestDatabase('databases test: server');

      test("lower() folds non-ASCII letters (UTF-8 encoding and ctype): lower('ÀÉÎ') is 'àéî'", async () => {
        const result = await withClient(database().url, (client) =>
          client.query<{ folded: string; encoding: string }>(
            "SELECT lower('ÀÉÎ') AS folded, pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()",
          ),
        );
        expect(result.rows).toEqual([{ folded: 'àéî', encoding: 'UTF8' }]);
      });

      test('standard_conforming_strings is on (a backslash in a string literal is itself)', async () => {
        const result = await withClient(database().url, async (client) => {
          const show = await client.query<{ standard_conforming_strings: string }>(
            'SHOW standard_conforming_strings',
          );
          const literal = await client.query<{ s: string }>("SELECT 'a\\b' AS s");
          return {
            setting: show.rows[0]?.standard_conforming_strings,
            literal: literal.rows[0]?.s,
          };
        });
        expect(result).toEqual({ setting: 'on', literal: 'a\\b' });
      });

      test('COPY FROM STDIN through pg-copy-streams loads CSV rows with quotes, commas, newlines, non-ASCII and NULLs as written', async () => {
        const csv = [
          '1,plain,2024-01-01T00:00:00Z\n',
          '2,"comma, ""quote"" and\nnewline",2024-01-02T12:30:00Z\n',
          '3,Ünïcödé ✓,\n',
        ];
        const { copied, rows } = await withClient(database().url, async (client) => {
          await client.query('CREATE TABLE copied (id integer, label text, at timestamptz)');
          const stream = client.query(
            copyFrom('COPY copied (id, label, at) FROM STDIN WITH (FORMAT csv)'),
          );
          await pipeline(Readable.from(csv), stream);
          const result = await client.query<{ id: number; label: string; at: string | null }>(
            'SELECT id, label, to_char(at AT TIME ZONE \'UTC\', \'YYYY-MM-DD"T"HH24:MI:SS"Z"\') AS at FROM copied ORDER BY id',
          );
          return { copied: stream.rowCount, rows: result.rows };
        });
        expect(copied).toBe(3);
        expect(rows).toEqual([
          { id: 1, label: 'plain', at: '2024-01-01T00:00:00Z' },
          { id: 2, label: 'comma, "quote" and\nnewline', at: '2024-01-02T12:30:00Z' },
          { id: 3, label: 'Ünïcödé ✓', at: null },
        ]);
      });
    });
  },
);
