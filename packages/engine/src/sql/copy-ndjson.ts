import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { TABLES, type TableName } from '@tagtrack/dataset';
import type { Database } from './database.ts';
import { SqlEngineError } from './errors.ts';
import { analyzeTables, copyRows, createTables, installSql, refreshCounters } from './schema.ts';

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
 * into `db` without holding them in memory, by the same steps as `loadDataset`: the tables
 * replaced (`createTables`), each file streamed line by line into COPY (`copyRows`: CSV
 * chunks, timestamps cut to microseconds), `ANALYZE`, the engine's SQL installed, then
 * (unless `refresh: false`) the counters refreshed. The tables answer as `loadDataset` of
 * the same rows does.
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
  await createTables(db);
  const rows = {} as Record<TableName, number>;
  for (const table of TABLES) {
    const counter = { rows: 0 };
    await copyRows(db, table, ndjsonRows(table.name, join(dir, `${table.name}.ndjson`), counter));
    rows[table.name] = counter.rows;
  }
  await analyzeTables(db);
  await installSql(db);
  const copyMs = performance.now() - t0;
  let refreshMs = 0;
  if (options.refresh ?? true) {
    const t1 = performance.now();
    await refreshCounters(db);
    refreshMs = performance.now() - t1;
  }
  return { rows, copyMs, refreshMs };
}

/**
 * The row objects of a table's NDJSON file, read line by line (blank lines skipped), counted
 * in `counter`. Throws {@link SqlEngineError} `load_failed` naming the table and the line
 * for a line that is not a JSON object.
 */
async function* ndjsonRows(
  table: string,
  path: string,
  counter: { rows: number },
): AsyncGenerator<Record<string, unknown>> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
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
    counter.rows++;
    yield row as Record<string, unknown>;
  }
}
