import { createServer } from 'node:net';
import { defaultQueryParams, plainAnswer } from '@tagtrack/core';
import { generateDataset } from '@tagtrack/dataset';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../src/sql/database.ts';
import { openSqlEngine } from '../src/sql/engine.ts';
import { SqlEngineError } from '../src/sql/errors.ts';
import { toMicroseconds } from '../src/sql/schema.ts';
import { testDatabaseUrl, useTestDatabase } from './databases.ts';

/** A small generated dataset: loads in a fraction of the canonical one's time. */
const dataset = generateDataset({ seed: 5, scale: 'tiny' });

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

/** One embedded database for the tests below (each load drops and recreates every table). */
let shared: Awaited<ReturnType<typeof openPglite>>;
beforeAll(async () => {
  shared = await openPglite();
});
afterAll(async () => {
  await shared?.close();
});

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

  // first to use the shared database, while it is empty
  it('an empty database is missing_tables, naming them', async () => {
    const db = shared;
    const e = await failure(() => openSqlEngine({ database: db }));
    expect(e.code).toBe('missing_tables');
    expect(e.message).toContain(
      'teams, groups, members, credentials, tags, recipients, opens, clicks',
    );
    expect(e.message).not.toContain('\n');
    expect((await failure(() => openSqlEngine({}))).code).toBe('missing_tables');
  });

  it('a table without a column of the schema is missing_tables, naming the column', async () => {
    const db = shared;
    await (await openSqlEngine({ database: db, load: dataset })).close();
    await db.exec('ALTER TABLE opens RENAME COLUMN counry TO country');
    const e = await failure(() => openSqlEngine({ database: db }));
    expect(e.code).toBe('missing_tables');
    expect(e.message).toContain('opens.counry');
  });

  it('tagtrack objects of another version are schema_version; the same version is served', async () => {
    const db = shared;
    await (await openSqlEngine({ database: db, load: dataset })).close();
    const again = await openSqlEngine({ database: db });
    expect(again.credential(dataset.credentials[0]!.authId)).toBeDefined();
    await again.close();
    await db.exec("UPDATE tagtrack_meta SET value = '0' WHERE key = 'schema_version'");
    const e = await failure(() => openSqlEngine({ database: db }));
    expect(e.code).toBe('schema_version');
    expect(e.message).toContain('schema version 0');
  });

  it('tables a vendor loaded without the engine get its objects and counters on first use', async () => {
    const db = shared;
    await (await openSqlEngine({ database: db, load: dataset })).close();
    const tagtrack = await db.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE tablename LIKE 'tagtrack\\_%'",
    );
    for (const { name } of tagtrack) await db.exec(`DROP TABLE "${name}" CASCADE`);
    const engine = await openSqlEngine({ database: db });
    const credential = dataset.credentials[0]!;
    const { caller } = engine.credential(credential.authId)!;
    const answer = await engine.answer(caller, {
      endpoint: 'teams.tags',
      pathParams: {},
      query: defaultQueryParams({}),
    });
    expect(answer.kind).toBe('list');
    expect((answer as unknown as { records: unknown[] }).records.length).toBeGreaterThan(0);
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
    await (await openSqlEngine({ databaseUrl: database().url, load: dataset })).close();
    const engine = await openSqlEngine({ databaseUrl: database().url });
    expect(engine.name).toBe('postgres');
    await engine.close();
  });
});

describe('the data rules the tables cannot state, and timestamps finer than PostgreSQL keeps', () => {
  it('an event of an email that is not a recipient of its tag, or before its send, is refused when appended, and invalid_data when bulk-loaded', async () => {
    const db = shared;
    await (await openSqlEngine({ database: db, load: dataset })).close();
    const tag = dataset.tags[0]!;
    const stranger = `INSERT INTO opens SELECT max(position) + 1, '${tag.tagID}', 'stranger@example.com',
        '${tag.dateSent}', 'desktop', 'os', 'browser', 'c', 'r', 'city', 0, 0 FROM opens;`;
    const early = `INSERT INTO clicks SELECT max(position) + 1, '${tag.tagID}', '${tag.recipients[0]!.email}',
        timestamptz '${tag.dateSent}' - interval '1 day', 'desktop', 'os', 'browser', 'c', 'r',
        'city', 0, 0 FROM clicks;`;
    // appended live, each is refused by the upkeep trigger (sql/35-upkeep.sql)
    await expect(db.exec(stranger)).rejects.toThrow(/not a recipient of the tag/);
    await expect(db.exec(early)).rejects.toThrow(/before the tag was sent/);
    // bulk-loaded with the triggers disabled, the refresh finds them
    await db.exec(`
      ALTER TABLE opens DISABLE TRIGGER USER;
      ALTER TABLE clicks DISABLE TRIGGER USER;
      ${stranger}
      ${early}
      ALTER TABLE opens ENABLE TRIGGER USER;
      ALTER TABLE clicks ENABLE TRIGGER USER;
      DELETE FROM tagtrack_meta WHERE key = 'refreshed_at';`);
    const e = await failure(() => openSqlEngine({ database: db }));
    expect(e.code).toBe('invalid_data');
    expect(e.message).toContain('1 row(s) of opens have an email that is not a recipient');
    expect(e.message).toContain('stranger@example.com');
    expect(e.message).toContain('1 row(s) of clicks are dated before their tag was sent');
    expect(e.message).not.toContain('\n');
  });

  it('a dateSent with 7 fractional digits is cut to microseconds, never rounded into the next second', async () => {
    expect(toMicroseconds('2024-03-05T23:59:59.9999999Z')).toBe('2024-03-05T23:59:59.999999Z');
    expect(toMicroseconds('2024-03-05T23:59:59.5Z')).toBe('2024-03-05T23:59:59.5Z');
    expect(toMicroseconds('2024-03-05T23:59:59Z')).toBe('2024-03-05T23:59:59Z');
    const tags = dataset.tags.map((t) =>
      t === dataset.tags[0]
        ? { ...t, dateSent: `${t.dateSent.slice(0, 10)}T00:00:00.9999999Z` }
        : t,
    );
    const fine = { ...dataset, tags };
    const engine = await openSqlEngine({ load: fine });
    try {
      const credential = dataset.credentials.find((c) => c.memberID === dataset.tags[0]!.memberID)!;
      const { caller } = engine.credential(credential.authId)!;
      for (const endpoint of ['teams.tags', 'stats.team'] as const) {
        const request = { endpoint, pathParams: {}, query: defaultQueryParams({}) };
        expect(JSON.parse(JSON.stringify(await engine.answer(caller, request)))).toEqual(
          JSON.parse(JSON.stringify(plainAnswer(fine, caller, request))),
        );
      }
    } finally {
      await engine.close();
    }
  });
});

describe('ids PostgreSQL text cannot hold', () => {
  it('a path id with U+0000 or a lone surrogate matches nothing (404), as in memory', async () => {
    const engine = await openSqlEngine({ load: dataset });
    try {
      const credential = dataset.credentials[0]!;
      const { caller } = engine.credential(credential.authId)!;
      const cases = [
        ['teams.member', 'memberID'],
        ['teams.memberTags', 'memberID'],
        ['teams.group', 'group'],
        ['stats.group', 'group'],
        ['stats.member', 'memberID'],
        ['clicks.tag', 'tagID'],
        ['opens.tag', 'tagID'],
        ['tags.daily', 'tagID'],
        ['contacts.get', 'contactID'],
        ['contacts.tag', 'tagID'],
      ] as const;
      for (const [endpoint, param] of cases)
        for (const id of ['a\u0000b', '\u0000', 'x\ud800', '\udfff']) {
          const request = {
            endpoint,
            pathParams: { [param]: id },
            query: defaultQueryParams({ date: '2024-03-05' }),
          };
          expect(await engine.answer(caller, request), `${endpoint} ${JSON.stringify(id)}`).toEqual(
            plainAnswer(dataset, caller, request),
          );
        }
    } finally {
      await engine.close();
    }
  });
});
