import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

/** The environment variable naming a real PostgreSQL server for the tests. */
export const TEST_DATABASE_URL_VARIABLE = 'TAGTRACK_TEST_DATABASE_URL';

/**
 * The URL of the real PostgreSQL server the tests also run against
 * (`TAGTRACK_TEST_DATABASE_URL`, e.g. `postgres://tagtrack:tagtrack@127.0.0.1:54329/tagtrack_test`
 * as printed by `scripts/postgres-cluster.sh`), or `undefined` when it is unset or empty: then
 * the tests use PGlite only. Its role must be allowed to `CREATE DATABASE`.
 *
 * @throws Error naming the variable when it is set but is not a `postgres://` or
 *   `postgresql://` URL (a typo must not silently skip the real-server tests).
 */
export function testDatabaseUrl(): string | undefined {
  const value = process.env[TEST_DATABASE_URL_VARIABLE]?.trim();
  if (!value) return undefined;
  parseServerUrl(value);
  return value;
}

/** The environment variable naming the database of a Citus coordinator for the tests. */
export const TEST_CITUS_URL_VARIABLE = 'TAGTRACK_TEST_CITUS_URL';

/**
 * The URL of a database on a Citus coordinator (`TAGTRACK_TEST_CITUS_URL`, e.g.
 * `postgres://tagtrack:tagtrack@127.0.0.1:54340/tagtrack_citus` as printed by
 * `scripts/citus-cluster.sh`, with the citus extension and the workers registered), or
 * `undefined` when it is unset or empty: then the Citus tests are skipped. Citus does not
 * propagate `CREATE DATABASE`, so the tests use this database itself (each load drops and
 * recreates the tables): one test file at a time may use it.
 *
 * @throws Error naming the variable when it is set but is not a PostgreSQL URL.
 */
export function testCitusUrl(): string | undefined {
  const value = process.env[TEST_CITUS_URL_VARIABLE]?.trim();
  if (!value) return undefined;
  parseServerUrl(value);
  return value;
}

/** A database of its own on the test server, for one test file; see {@link createTestDatabase}. */
export interface TestDatabase {
  /** The database's name: `tagtrack_t_<test name>_<8 hex digits>`, at most 50 characters. */
  readonly name: string;
  /** The server URL with this database as its path (same role, password and options). */
  readonly url: string;
  /**
   * Drops the database `WITH (FORCE)` (closing any connection still open to it); resolves once
   * it is gone. Calling it again does nothing.
   */
  drop(): Promise<void>;
}

/**
 * Creates a fresh, empty database on the real PostgreSQL server for one test file, so test files
 * running in parallel never see each other's tables. The database is created through the
 * server URL's own database (the maintenance connection), from the server's default template,
 * owned by the URL's role; a random suffix keeps two files (or two runs) with the same test
 * name apart.
 *
 * @param testName what the database is for (its letters and digits, lower-cased, up to 30,
 *   go into the name; anything else becomes `_`).
 * @param serverUrl the server; defaults to {@link testDatabaseUrl}.
 * @throws Error when no server URL is given or set, when it is not a PostgreSQL URL, or with the
 *   server's message when the database cannot be created (e.g. the role lacks CREATEDB).
 */
export async function createTestDatabase(
  testName: string,
  serverUrl: string | undefined = testDatabaseUrl(),
): Promise<TestDatabase> {
  if (!serverUrl) {
    throw new Error(
      `${TEST_DATABASE_URL_VARIABLE} is not set: run scripts/postgres-cluster.sh and export the URL it prints`,
    );
  }
  const url = parseServerUrl(serverUrl);
  const slug = testName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 30);
  const name = `tagtrack_t_${slug ? `${slug}_` : ''}${randomBytes(4).toString('hex')}`;
  await onServer(serverUrl, (client) =>
    client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`),
  );
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: url.toString(),
    drop() {
      dropped ??= onServer(serverUrl, async (client) => {
        // FORCE cannot end an autovacuum worker (a superuser's process) the loads started:
        // such a worker stops soon, so try again for up to a minute
        for (let attempt = 1; ; attempt++) {
          try {
            await client.query(
              `DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`,
            );
            return;
          } catch (e) {
            const code = (e as { code?: string }).code;
            if (attempt >= 60 || (code !== '42501' && code !== '55006')) throw e;
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
        }
      });
      return dropped;
    },
  };
}

/**
 * Registers vitest hooks giving the enclosing `describe` (or file) a database of its own: created
 * in `beforeAll` by {@link createTestDatabase}, dropped in `afterAll`. Returns a getter for it,
 * to call inside tests (it throws before `beforeAll` has run). Use it inside a
 * `describe.skipIf(!testDatabaseUrl())`, whose hooks do not run when no server is set.
 */
export function useTestDatabase(testName: string): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(testName);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return () => {
    if (!database) throw new Error(`the test database for '${testName}' is not created yet`);
    return database;
  };
}

/** Parses a server URL, or throws naming the variable and what is wrong (never the password). */
function parseServerUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(
      `${TEST_DATABASE_URL_VARIABLE} is not a URL (expected postgres://user:password@host:port/database)`,
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(
      `${TEST_DATABASE_URL_VARIABLE} has scheme '${url.protocol}', expected postgres: or postgresql:`,
    );
  }
  return url;
}

/** Runs `work` on one connection to the server URL's own database, then closes it. */
async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
