import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Dataset } from '@tagtrack/core';
import { TABLES, type TableName } from '@tagtrack/dataset';
import {
  type ColumnarSource,
  columnsOf,
  csvCell,
  isSnapshotFile,
  JsonStreamError,
  loadDatasetJsonFile,
  loadSnapshotFile,
  SnapshotError,
  TableFormatError,
  TablesLoader,
} from '@tagtrack/engine';
import { SingleBar } from 'cli-progress';
import { CsvError, parse } from 'csv-parse';
import * as z from 'zod';

/** A dataset file could not be used; `message` is one line naming the file and the problem. */
export class DatasetFileError extends Error {
  override readonly name = 'DatasetFileError';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads and parses a JSON file of core's {@link Dataset} schema. Throws
 * {@link DatasetFileError} with a one-line message when the file is missing, is not JSON, or
 * does not match the schema (the zod issues, prettified, with the path of the bad field).
 * (Holds the whole document; the server loads files with {@link loadDatasetSource}.)
 */
export async function loadDatasetFile(file: string): Promise<Dataset> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new DatasetFileError(file, `cannot read dataset file ${file}: ${reason(e)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new DatasetFileError(file, `dataset file ${file} is not JSON: ${(e as Error).message}`);
  }
  const parsed = Dataset.safeParse(json);
  if (!parsed.success) {
    const pretty = z
      .prettifyError(parsed.error)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .join(' ');
    throw new DatasetFileError(file, `invalid dataset file ${file}: ${pretty}`);
  }
  return parsed.data;
}

function reason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : (e as Error).message;
}

/** Options of {@link loadDatasetSource}. */
export interface LoadDatasetOptions {
  /** Show a progress bar on stderr (when it is a terminal and the input is large). */
  readonly progress?: boolean;
}

/** Inputs smaller than this load without a progress bar. */
const PROGRESS_MIN_BYTES = 32 * 2 ** 20;
const CHUNK_BYTES = 1 << 20;

/** A progress bar over `total` bytes on stderr, or nothing (not a terminal, small input). */
function progressBar(label: string, total: number, wanted: boolean) {
  if (!wanted || !process.stderr.isTTY || total < PROGRESS_MIN_BYTES) return undefined;
  const bar = new SingleBar({
    stream: process.stderr,
    format: `loading ${label} [{bar}] {percentage}% | {value}/{total} MB | {duration}s`,
    hideCursor: true,
    clearOnComplete: true,
  });
  bar.start(Math.ceil(total / 2 ** 20), 0);
  return {
    update: (bytes: number) => bar.update(Math.floor(bytes / 2 ** 20)),
    stop: () => bar.stop(),
  };
}

/**
 * Loads a dataset into core's columnar store, streaming (the file is never held whole nor
 * parsed as one tree): `path` is either a dataset JSON document (core's `Dataset` schema), a
 * directory of the per-table form of `tagtrack-conformance fixture --format ndjson|csv`
 * (`<table>.ndjson` for every table, else `<table>.csv` for every table), or a columnar
 * snapshot (`--write-snapshot`; recognised by its first bytes, read whole). Finish the result
 * with the index options to get the index (core's `DatasetError` then names bad records
 * and fields, e.g. `opens[123456].date: Invalid ISO datetime`).
 * Throws {@link DatasetFileError} (one line) when the path cannot be read, is not JSON (the
 * byte or element), or the directory lacks tables or holds a malformed NDJSON/CSV file.
 */
export async function loadDatasetSource(
  path: string,
  options: LoadDatasetOptions = {},
): Promise<ColumnarSource> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (e) {
    throw new DatasetFileError(path, `cannot read dataset file ${path}: ${reason(e)}`);
  }
  if (info.isDirectory()) return loadTables(path, options);
  if (await isSnapshotFile(path).catch(() => false)) {
    try {
      return await loadSnapshotFile(path);
    } catch (e) {
      if (e instanceof SnapshotError) {
        throw new DatasetFileError(path, `snapshot file ${path}: ${e.message}`);
      }
      throw new DatasetFileError(path, `cannot read snapshot file ${path}: ${reason(e)}`);
    }
  }
  const bar = progressBar(path, info.size, options.progress ?? false);
  try {
    return await loadDatasetJsonFile(path, { onBytes: (b) => bar?.update(b) });
  } catch (e) {
    if (e instanceof JsonStreamError) {
      throw new DatasetFileError(path, `dataset file ${path} is not JSON: ${e.message}`);
    }
    throw new DatasetFileError(path, `cannot read dataset file ${path}: ${reason(e)}`);
  } finally {
    bar?.stop();
  }
}

/** The per-table files of `dir`: every table as NDJSON, else every table as CSV. */
async function tableFiles(dir: string): Promise<{ format: 'ndjson' | 'csv'; files: string[] }> {
  const exists = async (f: string) =>
    stat(f).then(
      (s) => s.isFile(),
      () => false,
    );
  const missing: Record<'ndjson' | 'csv', string[]> = { ndjson: [], csv: [] };
  for (const format of ['ndjson', 'csv'] as const) {
    const files = TABLES.map((t) => join(dir, `${t.name}.${format}`));
    for (const [i, f] of files.entries()) {
      if (!(await exists(f))) missing[format].push(`${TABLES[i]!.name}.${format}`);
    }
    if (missing[format].length === 0) return { format, files };
  }
  const [format, lacking] =
    missing.csv.length < missing.ndjson.length ? ['csv', missing.csv] : ['ndjson', missing.ndjson];
  throw new DatasetFileError(
    dir,
    `dataset directory ${dir} is not a per-table dataset: missing ${lacking.join(', ')} (every table as .${format})`,
  );
}

async function loadTables(dir: string, options: LoadDatasetOptions): Promise<ColumnarSource> {
  const { format, files } = await tableFiles(dir);
  const sizes = await Promise.all(files.map(async (f) => (await stat(f)).size));
  const total = sizes.reduce((a, b) => a + b, 0);
  const bar = progressBar(dir, total, options.progress ?? false);
  const loader = new TablesLoader();
  let done = 0;
  try {
    for (const [i, file] of files.entries()) {
      const table = TABLES[i]!.name;
      const onBytes = (b: number) => bar?.update(done + b);
      const stream = createReadStream(file, { highWaterMark: CHUNK_BYTES });
      if (format === 'ndjson') await loader.addNdjson(table, stream, onBytes);
      else await addCsv(loader, table, file, stream, onBytes);
      done += sizes[i]!;
    }
  } catch (e) {
    if (e instanceof DatasetFileError) throw e;
    const what = e instanceof TableFormatError ? e.message : reason(e);
    throw new DatasetFileError(dir, `dataset directory ${dir}: ${what}`);
  } finally {
    bar?.stop();
  }
  return loader;
}

/** Rows handed to the loader at a time. */
const CSV_BATCH = 8192;

/** Reads one CSV table (header row, RFC 4180) in batches of rows. */
async function addCsv(
  loader: TablesLoader,
  table: TableName,
  file: string,
  stream: NodeJS.ReadableStream & { bytesRead: number },
  onBytes: (bytes: number) => void,
): Promise<void> {
  const columns = columnsOf(table);
  const parser = stream.pipe(
    parse({
      columns: true,
      cast: (value, ctx) => {
        const spec = ctx.header ? undefined : columns.get(String(ctx.column));
        return spec ? csvCell(spec, value, ctx.quoting) : value;
      },
    }),
  );
  let batch: unknown[] = [];
  let first = 0;
  try {
    for await (const row of parser) {
      batch.push(row);
      if (batch.length === CSV_BATCH) {
        loader.addRows(table, batch, first);
        first += batch.length;
        batch = [];
        onBytes(stream.bytesRead);
      }
    }
  } catch (e) {
    if (e instanceof CsvError) {
      throw new DatasetFileError(file, `dataset file ${file} is not CSV: ${e.message}`);
    }
    throw e;
  }
  loader.addRows(table, batch, first);
}
