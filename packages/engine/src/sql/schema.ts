import { readdirSync, readFileSync } from 'node:fs';
import { contactIdOf, type Dataset, normaliseEmail } from '@tagtrack/core';
import {
  type DatasetTables,
  datasetToTables,
  SqlLiteralError,
  TABLES,
  type TableSpec,
  tablesDdl,
} from '@tagtrack/dataset';
import { stringify } from 'csv-stringify/sync';
import { type Database, type Queryable, quote } from './database.ts';
import { SqlEngineError } from './errors.ts';

/** The version of the tagtrack_* objects this engine writes and reads (sql/00-meta.sql). */
export const SQL_SCHEMA_VERSION = '5';

/** The folder of the engine's SQL files, shipped in the package (`sql/`, beside `src/`, `dist/`). */
const SQL_DIR = new URL('../../sql/', import.meta.url);

/**
 * The engine's SQL files in the order they run (`00-meta.sql` … `80-contacts.sql`), each
 * `{ name, text }`: the reference SQL of the profile's rules (docs/sql.md).
 */
export function sqlFiles(): { readonly name: string; readonly text: string }[] {
  return readdirSync(SQL_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, text: readFileSync(new URL(name, SQL_DIR), 'utf8') }));
}

/**
 * The Citus layout (`sql/citus/layout.sql`, docs/sql.md §5): the one statement creating
 * `tagtrack_citus_layout()`, which distributes the tag tables and the counters by `teamID`
 * and makes the rest reference tables (idempotent).
 */
export function citusLayoutSql(): { readonly name: string; readonly text: string } {
  return citusSql('layout.sql');
}

/** A file of `sql/citus/` (one statement each: Citus sends a DDL statement's text to its workers). */
function citusSql(name: string): { readonly name: string; readonly text: string } {
  return { name: `citus/${name}`, text: readFileSync(new URL(`citus/${name}`, SQL_DIR), 'utf8') };
}

/** Whether `db` is a Citus coordinator (the citus extension is installed in it). */
export async function isCitus(db: Database): Promise<boolean> {
  if (db.kind === 'pglite') return false;
  const rows = await db.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'");
  return rows.length > 0;
}

/**
 * Creates or replaces every tagtrack_* object (idempotent; counters are left as they are):
 * drops the engine's functions and views first, so a function whose columns changed is
 * created anew rather than refused. On a Citus coordinator the layout follows
 * ({@link citusLayoutSql}).
 */
export async function installSql(db: Database): Promise<void> {
  await dropRoutines(db);
  const citus = await isCitus(db);
  const steps = citus
    ? [
        ...sqlFiles(),
        citusLayoutSql(),
        { name: 'citus/layout.sql', text: 'SELECT tagtrack_citus_layout()' },
        citusSql('fill.sql'),
      ]
    : sqlFiles();
  for (const file of steps) {
    try {
      await db.exec(file.text);
    } catch (e) {
      throw new SqlEngineError(
        'load_failed',
        `cannot install ${file.name}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
}

/** Rows per CSV chunk handed to COPY. */
const CSV_CHUNK_ROWS = 5000;

const LONG_FRACTION = /(\.\d{6})\d+Z$/;

/**
 * A timestamp cut to microseconds, PostgreSQL's precision: its digits past the sixth are
 * dropped (rounded down, as core rounds to milliseconds), never rounded up into the next
 * second (which would move a tag's shown dateSent, its day and its place in the order).
 */
export function toMicroseconds(ts: string): string {
  return ts.replace(LONG_FRACTION, '$1Z');
}

/**
 * A table's rows as CSV text chunks for COPY (a header, '' quoted, NULL empty), each
 * timestamp cut to microseconds ({@link toMicroseconds}). Throws {@link SqlEngineError}
 * `load_failed` naming the table and the row (1-based) for a value holding U+0000, which
 * PostgreSQL text cannot store.
 */
async function* csvChunks(
  table: TableSpec,
  rows: Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>,
): AsyncGenerator<string> {
  const columns = table.columns.map((c) => c.name);
  const timestamps = table.columns.filter((c) => c.type.kind === 'timestamp').map((c) => c.name);
  yield stringify([], { header: true, columns });
  let batch: Record<string, unknown>[] = [];
  let n = 0;
  for await (const row of rows) {
    n++;
    for (const c of columns) {
      const v = row[c];
      if (typeof v === 'string' && v.includes('\u0000'))
        throw new SqlEngineError(
          'load_failed',
          `cannot load table ${table.name}: row ${n}: ${new SqlLiteralError(v, 'it holds U+0000, which PostgreSQL text cannot store').message}`,
        );
    }
    if (timestamps.length === 0) batch.push(row);
    else {
      const out = { ...row };
      for (const c of timestamps) out[c] = toMicroseconds(String(row[c]));
      batch.push(out);
    }
    if (batch.length >= CSV_CHUNK_ROWS) {
      yield stringify(batch, { columns, quoted_match: /^$/ });
      batch = [];
    }
  }
  if (batch.length > 0) yield stringify(batch, { columns, quoted_match: /^$/ });
}

/**
 * Drops the eight tables and every tagtrack_* object in `db` and creates the tables, empty,
 * with `@tagtrack/dataset`'s `tablesDdl('postgres')` (the fixture's schema): the first step
 * of every load ({@link loadDataset}, `copyTablesFromNdjson`). The engine's SQL is installed
 * after the rows are in ({@link installSql}), so its indexes are built once, not row by row.
 */
export async function createTables(db: Database): Promise<void> {
  await dropAll(db);
  await db.exec(tablesDdl('postgres'));
}

/**
 * COPYs `rows` (objects with the table's column names) into `table` as CSV, streamed in
 * chunks (an async iterable is never held whole). Throws {@link SqlEngineError} `load_failed`
 * naming the table and the database's reason, or the row holding U+0000.
 */
export async function copyRows(
  db: Database,
  table: TableSpec,
  rows: Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>,
): Promise<void> {
  try {
    await db.copyCsv(
      quote(table.name),
      table.columns.map((c) => c.name),
      csvChunks(table, rows),
    );
  } catch (e) {
    if (e instanceof SqlEngineError) throw e;
    throw new SqlEngineError(
      'load_failed',
      `cannot load table ${table.name}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/** `ANALYZE` of the eight tables, after their rows are in. */
export async function analyzeTables(db: Database): Promise<void> {
  await db.exec(`ANALYZE ${TABLES.map((t) => quote(t.name)).join(', ')}`);
}

/**
 * Replaces the dataset's tables in `db` with `dataset` (or its tables): {@link createTables},
 * {@link copyRows} of each table, `ANALYZE`, {@link installSql}, then {@link refreshCounters}. Throws
 * {@link SqlEngineError} `load_failed` naming the table and the database's reason (a value
 * PostgreSQL text cannot hold, such as U+0000, is named too), or `invalid_data`.
 */
export async function loadDataset(db: Database, dataset: Dataset | DatasetTables): Promise<void> {
  const tables =
    'teams' in dataset && 'credentials' in dataset && 'tags' in dataset && 'recipients' in dataset
      ? (dataset as DatasetTables)
      : datasetToTables(dataset as Dataset);
  await createTables(db);
  for (const table of TABLES)
    await copyRows(db, table, tables[table.name] as readonly Record<string, unknown>[]);
  await analyzeTables(db);
  await installSql(db);
  await refreshCounters(db);
}

/** Drops every tagtrack_* view and function (and, with `normalise`, `normalise_email`). */
async function dropRoutines(db: Database, normalise = false): Promise<void> {
  const views = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relname LIKE 'tagtrack\\_%' AND c.relkind = 'v'`,
  );
  for (const { name } of views) await db.exec(`DROP VIEW IF EXISTS ${quote(name)} CASCADE`);
  const fns = await db.query<{ sig: string }>(
    `SELECT p.oid::regprocedure::text AS sig FROM pg_proc p
     JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = current_schema()
       AND (p.proname LIKE 'tagtrack\\_%'${normalise ? " OR p.proname = 'normalise_email'" : ''})`,
  );
  for (const { sig } of fns) await db.exec(`DROP FUNCTION IF EXISTS ${sig} CASCADE`);
}

/** Drops the eight tables, `normalise_email` and every tagtrack_* object. */
async function dropAll(db: Database): Promise<void> {
  const own = await db.query<{ name: string; kind: string }>(
    `SELECT c.relname AS name, c.relkind::text AS kind FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relname LIKE 'tagtrack\\_%' AND c.relkind IN ('r', 'v', 'm')`,
  );
  for (const { name, kind } of own)
    await db.exec(
      `DROP ${kind === 'v' ? 'VIEW' : kind === 'm' ? 'MATERIALIZED VIEW' : 'TABLE'} IF EXISTS ${quote(name)} CASCADE`,
    );
  await dropRoutines(db, true);
  for (const table of [...TABLES].reverse())
    await db.exec(`DROP TABLE IF EXISTS ${quote(table.name)} CASCADE`);
}

/** Emails per batch when filling the key tables. */
const KEY_BATCH = 5000;

/**
 * Recomputes the materialised counters (sql/30-counters.sql) after a load: first the
 * contact key and contact id of every email not yet in `tagtrack_email_keys` and every key
 * not yet in `tagtrack_contact_ids`, computed here with core's `normaliseEmail` and
 * `contactIdOf` (JavaScript's trim and toLowerCase, which PostgreSQL's lower()
 * does not match everywhere), then `tagtrack_refresh()`; records the time in tagtrack_meta.
 * Throws {@link SqlEngineError} `invalid_data` when `tagtrack_data_problems()` finds events
 * the profile's data cannot hold (then the counters are not marked refreshed).
 */
export async function refreshCounters(db: Database): Promise<void> {
  const emails = await db.query<{ email: string }>(
    `SELECT DISTINCT x.email FROM (
       SELECT email FROM recipients UNION SELECT email FROM opens UNION SELECT email FROM clicks
     ) AS x
     WHERE NOT EXISTS (SELECT 1 FROM tagtrack_email_keys AS k WHERE k.email = x.email)`,
  );
  await registerEmails(
    db,
    emails.map((r) => r.email),
  );
  await db.query('SELECT tagtrack_refresh()');
  // outside the refresh's transaction (Citus refuses ANALYZE inside a function): marks the
  // pages all-visible, so a list's page and length come from index-only scans of the scope
  // tables, and gives the planner the counters' statistics
  await db.exec(
    'VACUUM (ANALYZE) tagtrack_tag_scopes, tagtrack_contact_scopes, tagtrack_scope_days',
  );
  await db.exec(
    'ANALYZE tagtrack_tag_counters, tagtrack_contact_tags, tagtrack_member_days, tagtrack_email_keys, tagtrack_contact_ids',
  );
  const problems = await db.query<{ problem: string }>(
    'SELECT tagtrack_data_problems() AS problem',
  );
  if (problems.length > 0)
    throw new SqlEngineError(
      'invalid_data',
      `the data breaks the profile's rules: ${problems.map((p) => p.problem).join('; ')}`,
    );
  await db.query(
    `INSERT INTO tagtrack_meta (key, value) VALUES ('refreshed_at', $1)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [new Date().toISOString()],
  );
}

/**
 * Writes the contact key (core's `normaliseEmail`) of each of `emails` not yet in
 * `tagtrack_email_keys`, and the contact id (`contactIdOf`) and sort key of each key not yet
 * in `tagtrack_contact_ids`, in batches: JavaScript's trim and toLowerCase, which
 * PostgreSQL's lower() does not match everywhere (sql/10-text.sql).
 */
export async function registerEmails(db: Queryable, emails: readonly string[]): Promise<void> {
  const distinct = [...new Set(emails)];
  for (let i = 0; i < distinct.length; i += KEY_BATCH) {
    const batch = distinct.slice(i, i + KEY_BATCH);
    const keys = batch.map(normaliseEmail);
    await db.query(
      `INSERT INTO tagtrack_email_keys (email, email_key)
       SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (email) DO NOTHING`,
      [batch, keys],
    );
    const newKeys = [...new Set(keys)];
    await db.query(
      `INSERT INTO tagtrack_contact_ids (email_key, contact_id, sort_key)
       SELECT k, c, decode(s, 'hex') FROM unnest($1::text[], $2::text[], $3::text[]) AS u (k, c, s)
       ON CONFLICT (email_key) DO NOTHING`,
      [newKeys, newKeys.map((k) => contactIdOf(k)), newKeys.map(utf16Hex)],
    );
  }
}

/** The UTF-16 code units of `s`, big-endian, as hex: byte order = code-unit order (spec §5). */
function utf16Hex(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += s.charCodeAt(i).toString(16).padStart(4, '0');
  return out;
}

/**
 * Checks that `db` holds the dataset's eight tables with every column of the fixture's
 * schema, and tagtrack objects of this version (installing and refreshing them when the
 * tables were loaded by someone else and the engine never ran there, unless `readOnly`: a
 * hot standby, where nothing can be written). Throws {@link SqlEngineError} `missing_tables`
 * naming the missing tables or columns, `schema_version` for tagtrack objects of another
 * version, and `read_only` for a standby whose primary has no refreshed tagtrack objects.
 */
export async function checkSchema(db: Database, readOnly = false): Promise<void> {
  const columns = await db.query<{ table_name: string; column_name: string }>(
    `SELECT table_name::text, column_name::text FROM information_schema.columns
     WHERE table_schema = current_schema()`,
  );
  const have = new Map<string, Set<string>>();
  for (const c of columns) {
    const set = have.get(c.table_name) ?? new Set<string>();
    have.set(c.table_name, set);
    set.add(c.column_name);
  }
  const missingTables = TABLES.filter((t) => !have.has(t.name)).map((t) => t.name);
  if (missingTables.length > 0)
    throw new SqlEngineError(
      'missing_tables',
      `the database has no table${missingTables.length > 1 ? 's' : ''} ${missingTables.join(', ')} (load a dataset into it first, e.g. with --dataset)`,
    );
  const missingColumns = TABLES.flatMap((t) =>
    t.columns.filter((c) => !have.get(t.name)!.has(c.name)).map((c) => `${t.name}.${c.name}`),
  );
  if (missingColumns.length > 0)
    throw new SqlEngineError(
      'missing_tables',
      `the dataset tables lack column${missingColumns.length > 1 ? 's' : ''} ${missingColumns.join(', ')} (a schema of another version?)`,
    );
  const standbyRefusal = new SqlEngineError(
    'read_only',
    'the database is a read-only standby and its primary has no refreshed tagtrack objects yet (start a server against the primary first, or load a dataset there)',
  );
  if (!have.has('tagtrack_meta')) {
    if (readOnly) throw standbyRefusal;
    await installSql(db);
    await refreshCounters(db);
    return;
  }
  const version = await db.query<{ value: string }>(
    "SELECT value FROM tagtrack_meta WHERE key = 'schema_version'",
  );
  const found = version[0]?.value ?? '(none)';
  if (found !== SQL_SCHEMA_VERSION)
    throw new SqlEngineError(
      'schema_version',
      `the database holds tagtrack objects of schema version ${found}, this engine needs version ${SQL_SCHEMA_VERSION} (reload the dataset, or drop the tagtrack_* objects)`,
    );
  const refreshed = await db.query<{ value: string }>(
    "SELECT value FROM tagtrack_meta WHERE key = 'refreshed_at'",
  );
  if (refreshed.length === 0) {
    if (readOnly) throw standbyRefusal;
    await refreshCounters(db);
  }
}

/** Whether `db` is a hot standby in recovery (`pg_is_in_recovery()`): read-only, replicating. */
export async function isStandby(db: Database): Promise<boolean> {
  if (db.kind === 'pglite') return false;
  const [row] = await db.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
  return row?.r === true;
}
