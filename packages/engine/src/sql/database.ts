import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { redactUrl, SqlEngineError } from './errors.ts';

/** Statements on one connection: a {@link Database}, or one of its transactions. */
export interface Queryable {
  /** The rows of one parameterised statement (`$1`, `$2`, …), columns by name. */
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of several statements without parameters. */
  exec(script: string): Promise<void>;
}

/** How {@link Database.transaction} runs: read-only, and its isolation level. */
export interface TransactionOptions {
  /**
   * `true`: `REPEATABLE READ READ ONLY`, every statement reading one snapshot of the data
   * (a request's answer); `false` (default): `READ COMMITTED`, read-write (an append).
   */
  readonly readOnly?: boolean;
}

/**
 * The few things the SQL engine asks of a PostgreSQL database, over embedded PGlite or a
 * server through node-postgres: parameterised queries, scripts of several statements,
 * transactions, and COPY of CSV text into a table.
 */
export interface Database extends Queryable {
  /** `pglite` (embedded, in memory) or `postgres` (a server). */
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `work` in one transaction on one connection and commits, or rolls back and rejects
   * with `work`'s error. On PGlite (one connection) other statements wait for it.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * COPY `table (columns)` FROM CSV text (RFC 4180, header row, '' quoted, NULL empty), in
   * chunks; an async iterable streams to a server (PGlite gathers the chunks first).
   */
  copyCsv(
    table: string,
    columns: readonly string[],
    csv: Iterable<string> | AsyncIterable<string>,
  ): Promise<void>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/**
 * The data directory of a PGlite cluster just made by initdb, gzipped (about 4.5 MB), made
 * once per process by the first {@link openPglite}: later ones start from a copy of it
 * instead of running initdb again, about 1.3 s of CPU less each (a test process opens
 * dozens). `undefined` inside the promise when PGlite could not dump it (then every
 * database runs initdb, as the first did).
 */
let initialisedCluster: Promise<Blob | undefined> | undefined;

/** A new PGlite cluster in memory, from a copy of {@link initialisedCluster} once there is one. */
async function newCluster(): Promise<PGlite> {
  const template = await initialisedCluster;
  if (template !== undefined) return PGlite.create({ loadDataDir: template });
  const db = await PGlite.create({});
  // dumped before any statement runs on it: the copy is the cluster as initdb left it
  initialisedCluster ??= db.dumpDataDir('gzip').then(
    (blob) => blob,
    () => undefined,
  );
  await initialisedCluster;
  return db;
}

/** A new embedded PGlite database in memory, its session in UTC. */
export async function openPglite(): Promise<Database> {
  const db = await newCluster();
  await db.exec("SET TIME ZONE 'UTC'");
  return {
    kind: 'pglite',
    async query<R>(text: string, params: readonly unknown[] = []) {
      return (await db.query<R>(text, [...params])).rows;
    },
    async exec(script) {
      await db.exec(script);
    },
    transaction(work, options = {}) {
      return db.transaction(async (tx) => {
        if (options.readOnly)
          await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
        return work({
          async query<R>(text: string, params: readonly unknown[] = []) {
            return (await tx.query<R>(text, [...params])).rows;
          },
          async exec(script: string) {
            await tx.exec(script);
          },
        });
      });
    },
    async copyCsv(table, columns, csv) {
      const parts: string[] = [];
      for await (const chunk of csv) parts.push(chunk);
      const blob = new Blob(parts);
      await db.query(
        `COPY ${table} (${columns.map(quote).join(', ')}) FROM '/dev/blob' WITH (FORMAT csv, HEADER true)`,
        [],
        { blob },
      );
    },
    close: () => db.close(),
  };
}

/**
 * A pool of connections to the PostgreSQL server at `url` (`postgres://` or
 * `postgresql://`), each session in UTC, after one round trip proving it answers. Throws
 * {@link SqlEngineError} `bad_url` for another scheme or an unparsable URL and `unreachable`
 * when the server cannot be reached or refuses the login (the message names the URL without
 * its password, and the server's reason).
 */
export async function openPostgres(url: string, maxConnections = 8): Promise<Database> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SqlEngineError('bad_url', `database URL ${redactUrl(url)} is not a URL`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new SqlEngineError(
      'bad_url',
      `database URL ${redactUrl(url)} is not a PostgreSQL URL (expected postgres:// or postgresql://)`,
    );
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    connectionTimeoutMillis: 30_000,
    // UTC sessions; no JIT: compiling took 240-640 ms inside a page's query at 10 M events
    options: '-c TimeZone=UTC -c jit=off',
  });
  // an idle client's error (the server went away) must not crash the process
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (e) {
    await pool.end().catch(() => {});
    const reason = e instanceof Error ? e.message : String(e);
    throw new SqlEngineError(
      'unreachable',
      `cannot use the database at ${redactUrl(url)}: ${reason.replaceAll(parsed.password || '\u0000', '***')}`,
    );
  }
  return {
    kind: 'postgres',
    async query<R>(text: string, params: readonly unknown[] = []) {
      return (await pool.query(text, [...params])).rows as R[];
    },
    async exec(script) {
      await pool.query(script);
    },
    async transaction(work, options = {}) {
      const client = await pool.connect();
      let broken: unknown;
      try {
        await client.query(
          options.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN',
        );
        const out = await work({
          async query<R>(text: string, params: readonly unknown[] = []) {
            return (await client.query(text, [...params])).rows as R[];
          },
          async exec(script: string) {
            await client.query(script);
          },
        });
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch((rollback: unknown) => {
          broken = rollback;
        });
        throw e;
      } finally {
        // a connection that could not roll back is closed, not reused
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
    async copyCsv(table, columns, csv) {
      const client = await pool.connect();
      try {
        const sink = client.query(
          copyFrom(
            `COPY ${table} (${columns.map(quote).join(', ')}) FROM STDIN WITH (FORMAT csv, HEADER true)`,
          ),
        );
        await pipeline(Readable.from(csv), sink);
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** A double-quoted SQL identifier. */
export function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
