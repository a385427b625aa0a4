import { defaultQueryParams } from '@tagtrack/core';
import { createServer } from 'node:net';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../src/sql/database.ts';
import { openSqlEngine } from '../src/sql/engine.ts';
import { SqlEngineError } from '../src/sql/errors.ts';
import { testDatabaseUrl, useTestDatabase } from './databases.ts';

/*
 * A database the engine cannot serve from is a configuration error: SqlEngineError with a
 * code and one line naming what is wrong, never the URL's password.
 */

async function failure(open: () => Promise<unknown>): Promise<SqlEngineError> {
  try {
    await open();
  } catch (e) {
    expect(e).toBeInstanceOf(SqlEngineError);
    return e as SqlEngineError;
  }
  throw new Error('expected the engine to refuse the database');
}

/** A TCP port on 127.0.0.1 nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('SqlEngineError: one line naming what is wrong with the database', () => {
  it('a URL that is not PostgreSQL is bad_url, its password hidden', async () => {
    const e = await failure(() => openSqlEngine({ databaseUrl: 'mysql://u:s3cret@localhost/db' }));
    expect(e.code).toBe('bad_url');
    expect(e.message).toMatch(/not a PostgreSQL URL/);
    expect(e.message).not.toContain('s3cret');
    expect(e.message).not.toContain('\n');
    const notUrl = await failure(() => openSqlEngine({ databaseUrl: 'not a url s3cret' }));
    expect(notUrl.code).toBe('bad_url');
    expect(notUrl.message).not.toContain('s3cret');
  });

  it('a server that does not answer is unreachable, its password hidden', async () => {
    const port = await closedPort();
    const e = await failure(() =>
      openSqlEngine({ databaseUrl: `postgres://u:s3cret@127.0.0.1:${port}/db` }),
    );
    expect(e.code).toBe('unreachable');
    expect(e.message).toContain(`127.0.0.1:${port}`);
    expect(e.message).toMatch(/ECONNREFUSED/);
    expect(e.message).not.toContain('s3cret');
    expect(e.message).not.toContain('\n');
  });

  it('an empty database is missing_tables, naming them', async () => {
    const db = await openPglite();
    try {
      const e = await failure(() => openSqlEngine({ database: db }));
      expect(e.code).toBe('missing_tables');
      expect(e.message).toContain(
        'teams, groups, members, credentials, tags, recipients, opens, clicks',
      );
      expect(e.message).not.toContain('\n');
      expect((await failure(() => openSqlEngine({}))).code).toBe('missing_tables');
    } finally {
      await db.close();
    }
  });

  it('a table without a column of the schema is missing_tables, naming the column', async () => {
    const db = await openPglite();
    try {
      await (await openSqlEngine({ database: db, load: canonicalDataset })).close();
      await db.exec('ALTER TABLE opens RENAME COLUMN counry TO country');
      const e = await failure(() => openSqlEngine({ database: db }));
      expect(e.code).toBe('missing_tables');
      expect(e.message).toContain('opens.counry');
    } finally {
      await db.close();
    }
  });

  it('tagtrack objects of another version are schema_version; the same version is served', async () => {
    const db = await openPglite();
    try {
      await (await openSqlEngine({ database: db, load: canonicalDataset })).close();
      const again = await openSqlEngine({ database: db });
      expect(again.credential(canonicalDataset.credentials[0]!.authId)).toBeDefined();
      await again.close();
      await db.exec("UPDATE tagtrack_meta SET value = '0' WHERE key = 'schema_version'");
      const e = await failure(() => openSqlEngine({ database: db }));
      expect(e.code).toBe('schema_version');
      expect(e.message).toContain('schema version 0');
    } finally {
      await db.close();
    }
  });

  it('tables a vendor loaded without the engine get its objects and counters on first use', async () => {
    const db = await openPglite();
    try {
      await (await openSqlEngine({ database: db, load: canonicalDataset })).close();
      const tagtrack = await db.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE tablename LIKE 'tagtrack\\_%'",
      );
      for (const { name } of tagtrack) await db.exec(`DROP TABLE "${name}" CASCADE`);
      const engine = await openSqlEngine({ database: db });
      const credential = canonicalDataset.credentials[0]!;
      const { caller } = engine.credential(credential.authId)!;
      const answer = await engine.answer(caller, {
        endpoint: 'teams.tags',
        pathParams: {},
        query: defaultQueryParams({}),
      });
      expect(answer.kind).toBe('list');
      expect((answer as { records: unknown[] }).records.length).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(testDatabaseUrl() === undefined)('SqlEngineError on a PostgreSQL server', () => {
  const database = useTestDatabase('sql-errors');

  it('a wrong password is unreachable, naming the server and not the password', async () => {
    const url = new URL(database().url);
    url.password = 'wrong-s3cret';
    const e = await failure(() => openSqlEngine({ databaseUrl: url.href }));
    expect(e.code).toBe('unreachable');
    expect(e.message).toContain(url.host);
    expect(e.message).not.toContain('wrong-s3cret');
  });

  it('an empty database is missing_tables; once loaded it serves', async () => {
    const e = await failure(() => openSqlEngine({ databaseUrl: database().url }));
    expect(e.code).toBe('missing_tables');
    await (await openSqlEngine({ databaseUrl: database().url, load: canonicalDataset })).close();
    const engine = await openSqlEngine({ databaseUrl: database().url });
    expect(engine.kind).toBe('postgres');
    await engine.close();
  });
});
