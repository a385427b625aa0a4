import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SqlLiteralError, TABLES, type TableName } from '@tagtrack/dataset';
import { stringify } from 'csv-stringify/sync';
import { type Database, quote } from './database.ts';
import { SqlEngineError } from './errors.ts';
import { loadDataset, refreshCounters } from './schema.ts';

/** Rows per CSV chunk handed to COPY (as `loadDataset` does). */
const CHUNK_ROWS = 5000;

/** Options of {@link copyTablesFromNdjson}. */
export interface CopyNdjsonOptions {
  /** Refresh the counters after the COPY (default `true`); `false` leaves that to the caller. */
  readonly refresh?: boolean;
}

/** What {@link copyTablesFromNdjson} did: rows per table and the time of each phase. */
export interface CopyNdjsonResult {
  /** Rows copied into each of the eight tables. */
  readonly rows: Readonly<Record<TableName, number>>;
  /** Milliseconds spent creating the tables and streaming the rows (COPY), then `ANALYZE`. */
  readonly copyMs: number;
  /** Milliseconds spent in {@link refreshCounters} (0 with `refresh: false`). */
  readonly refreshMs: number;
}

/**
 * Loads a directory of per-table NDJSON files (`<table>.ndjson`, one row object per line in
 * the form of `tagtrack-conformance fixture --format ndjson`: the `@tagtrack/dataset` tables)
 * into `db` without holding them in memory: it replaces the tables as `loadDataset` does
 * (drop, create with the fixture's schema, install the engine's SQL), streams each file line
 * by line as CSV chunks into COPY, runs `ANALYZE`, then (unless `refresh: false`) refreshes
 * the counters. The tables answer as `loadDataset` of the same rows does.
 *
 * @throws SqlEngineError `load_failed` naming the table (and the line) for a missing file, a
 *   line that is not a JSON object, a value holding U+0000, or a row the database refuses.
 */
export async function copyTablesFromNdjson(
  db: Database,
  dir: string,
  options: CopyNdjsonOptions = {},
): Promise<CopyNdjsonResult> {
  const missing = TABLES.filter((t) => !existsSync(join(dir, `${t.name}.ndjson`)));
  if (missing.length > 0)
    throw new SqlEngineError(
      'load_failed',
      `cannot load ${dir}: no ${missing.map((t) => `${t.name}.ndjson`).join(', ')}`,
    );
  const t0 = performance.now();
  await loadDataset(db, {
    teams: [],
    groups: [],
    members: [],
    credentials: [],
    tags: [],
    recipients: [],
    opens: [],
    clicks: [],
  });
  const rows = {} as Record<TableName, number>;
  for (const table of TABLES) {
    const columns = table.columns.map((c) => c.name);
    const counter = { rows: 0 };
    try {
      await db.copyCsv(
        quote(table.name),
        columns,
        csvChunks(table.name, join(dir, `${table.name}.ndjson`), columns, counter),
      );
    } catch (e) {
      if (e instanceof SqlEngineError) throw e;
      throw new SqlEngineError(
        'load_failed',
        `cannot load table ${table.name}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    rows[table.name] = counter.rows;
  }
  await db.exec(`ANALYZE ${TABLES.map((t) => quote(t.name)).join(', ')}`);
  const copyMs = performance.now() - t0;
  let refreshMs = 0;
  if (options.refresh ?? true) {
    const t1 = performance.now();
    await refreshCounters(db);
    refreshMs = performance.now() - t1;
  }
  return { rows, copyMs, refreshMs };
}

/** A table file's rows as CSV chunks: a header, then {@link CHUNK_ROWS} rows at a time. */
async function* csvChunks(
  table: string,
  path: string,
  columns: readonly string[],
  counter: { rows: number },
): AsyncGenerator<string> {
  yield stringify([], { header: true, columns: [...columns] });
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let batch: Record<string, unknown>[] = [];
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch (e) {
      throw new SqlEngineError(
        'load_failed',
        `cannot load table ${table}: line ${line} is not JSON (${(e as Error).message})`,
      );
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      throw new SqlEngineError(
        'load_failed',
        `cannot load table ${table}: line ${line} is not a JSON object`,
      );
    for (const c of columns) {
      const v = (row as Record<string, unknown>)[c];
      if (typeof v === 'string' && v.includes('\u0000'))
        throw new SqlEngineError(
          'load_failed',
          `cannot load table ${table}: line ${line}: ${new SqlLiteralError(v, 'it holds U+0000, which PostgreSQL text cannot store').message}`,
        );
    }
    batch.push(row as Record<string, unknown>);
    counter.rows++;
    if (batch.length >= CHUNK_ROWS) {
      yield stringify(batch, { columns: [...columns], quoted_match: /^$/ });
      batch = [];
    }
  }
  if (batch.length > 0) yield stringify(batch, { columns: [...columns], quoted_match: /^$/ });
}
