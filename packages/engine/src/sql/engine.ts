/**
 * Opening the SQL engine of the profile (docs/sql.md): {@link openSqlEngine} and its options.
 * What it opens lives in engine/: the engine and its answers (answers.ts), the rules of the
 * endpoint plan in SQL (rules.ts), rows as records (records.ts) and credentials (credentials.ts).
 */
import type { Dataset, MemberWithoutGroup } from '@tagtrack/core';
import type { DatasetTables } from '@tagtrack/dataset';
import { type Database, openPglite, openPostgres } from './database.ts';
import { SqlAnswers, type SqlEngine, type SqlTopology } from './engine/answers.ts';
import { readCredentials } from './engine/credentials.ts';
import { SqlEngineError } from './errors.ts';
import { checkSchema, isCitus, isStandby, loadDataset } from './schema.ts';

export type { SqlEngine, SqlTopology } from './engine/answers.ts';
export { SQL_RULES } from './engine/rules.ts';

/** Options of {@link openSqlEngine}. */
export interface SqlEngineOptions {
  /** `postgres://` or `postgresql://` URL of a server; absent: embedded PGlite in memory. */
  readonly databaseUrl?: string;
  /**
   * Load this dataset first (drop and recreate the dataset's tables and every tagtrack_*
   * object, COPY the rows, refresh the counters); absent: serve the tables already there
   * (refreshing the counters only when they were never computed). PGlite starts empty, so
   * it needs one.
   */
  readonly load?: Dataset | DatasetTables;
  /** Members without a group: omit `groupID`/`groupName` (default) or send `''` (spec §9). */
  readonly memberWithoutGroup?: MemberWithoutGroup;
  /** Connections to a server (default 8). */
  readonly maxConnections?: number;
  /**
   * A database already open (`openPglite`, `openPostgres`) to use instead of `databaseUrl`;
   * the engine's `close` leaves it open (tests reload one database many times).
   */
  readonly database?: Database;
}
/**
 * Opens the SQL engine of the profile (docs/sql.md): connects (PGlite in memory, or the
 * server at `databaseUrl`), loads `load` when given, else checks the tables already there,
 * and keeps only the credentials and callers in memory (a few rows per member): every list,
 * counter and page comes from SQL (sql/*.sql). Throws {@link SqlEngineError} (one line, no
 * password) for a bad URL, an unreachable server, missing tables or columns, tagtrack
 * objects of another version, or a dataset that cannot be loaded.
 */
export async function openSqlEngine(options: SqlEngineOptions = {}): Promise<SqlEngine> {
  const given = options.database;
  const db =
    given ??
    (options.databaseUrl === undefined
      ? await openPglite()
      : await openPostgres(options.databaseUrl, options.maxConnections));
  try {
    const standby = await isStandby(db);
    if (standby && options.load !== undefined)
      throw new SqlEngineError(
        'read_only',
        'the database is a read-only standby: load the dataset into its primary instead',
      );
    if (options.load !== undefined) await loadDataset(db, options.load);
    else if (db.kind === 'pglite' && given === undefined)
      throw new SqlEngineError(
        'missing_tables',
        'an embedded PGlite database starts empty: give it a dataset to load',
      );
    // tables already there: checked, and served as they are (objects of this version are
    // this version's SQL; nothing is rewritten under another server using the database)
    else await checkSchema(db, standby);
    const topology: SqlTopology =
      db.kind === 'pglite'
        ? 'embedded'
        : standby
          ? 'standby'
          : (await isCitus(db))
            ? 'coordinator'
            : 'single';
    const byAuthId = await readCredentials(db, new Map());
    return new SqlAnswers(
      db,
      byAuthId,
      options.memberWithoutGroup ?? 'omit',
      given === undefined,
      topology,
    );
  } catch (e) {
    if (given === undefined) await db.close().catch(() => {});
    throw e;
  }
}
