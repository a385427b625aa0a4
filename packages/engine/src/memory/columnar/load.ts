import type { Dataset } from '@tagtrack/core';
import { type ColumnSpec, TABLES, type TableName } from '@tagtrack/dataset';
import type { BuildIndexOptions } from '../build.ts';
import { ColumnarBuilder, type ColumnarDataset } from './builder.ts';
import { JsonObjectStream } from './json-stream.ts';
import type { SnapshotParts } from './snapshot.ts';

/** Options of {@link loadDatasetJson}. */
export interface ColumnarLoadOptions {
  /** Called after each chunk with the bytes read so far (for a progress bar). */
  readonly onBytes?: (bytes: number) => void;
}

type Chunks = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/**
 * Loaded data that becomes a {@link ColumnarDataset} when finished with the index options
 * (a {@link ColumnarBuilder} or a {@link TablesLoader}); finish it once.
 */
export interface ColumnarSource {
  /** Events loaded. */
  readonly events: number;
  /** Resolves the references and builds the index; throws core's `DatasetError`. */
  finish(options?: BuildIndexOptions): ColumnarDataset;
  /** What a snapshot of the dataset holds, once finished (`snapshot.ts`). */
  snapshotParts(): SnapshotParts;
}

/**
 * Reads a dataset JSON document (core's `Dataset` schema) from its bytes, chunk by chunk,
 * into columns; `finish` the result to build the index. The document is never held whole,
 * nor its parsed tree (only one chunk and the parsed records of one batch at a time).
 * Throws `JsonStreamError` (not JSON, or not an object of arrays: the byte, or the element,
 * e.g. `opens[12]: not JSON: ...`); `finish` throws core's `DatasetError` (records that do
 * not match their schema, e.g. `opens[123456].date: Invalid ISO datetime`, then referential
 * problems).
 */
export async function loadDatasetJson(
  chunks: Chunks,
  options: ColumnarLoadOptions = {},
): Promise<ColumnarSource> {
  const builder = new ColumnarBuilder();
  const stream = new JsonObjectStream(builder);
  for await (const chunk of chunks) {
    stream.feed(chunk);
    options.onBytes?.(stream.offset);
  }
  stream.end();
  return builder;
}

/** {@link loadDatasetJson} of chunks at hand (synchronous; for tests and small documents). */
export function loadDatasetJsonSync(
  chunks: Iterable<Uint8Array>,
  options: BuildIndexOptions = {},
): ColumnarDataset {
  const builder = new ColumnarBuilder();
  const stream = new JsonObjectStream(builder);
  for (const chunk of chunks) stream.feed(chunk);
  stream.end();
  return builder.finish(options);
}

/**
 * The columnar index of a dataset already in memory (its events copied into columns), as
 * {@link loadDatasetJson} would build it from the dataset's JSON. Throws `DatasetError`.
 */
export function columnarIndexOf(
  dataset: Dataset,
  options: BuildIndexOptions = {},
): ColumnarDataset {
  const builder = new ColumnarBuilder();
  const d = dataset as unknown as Record<string, unknown[]>;
  for (const key of ['teams', 'tags', 'opens', 'clicks', 'credentials']) {
    const values = d[key];
    if (Array.isArray(values)) {
      builder.array(key);
      builder.elements(key, values, 0);
    } else builder.value(key, values);
  }
  return builder.finish(options);
}

/**
 * A loader of the per-table form (`fixture --format ndjson|csv`): tables are added one at a
 * time, each from its rows, then {@link finish} builds the index. Tables may come in any
 * order; rows of `opens` and `clicks` in any order of `position`.
 */
export class TablesLoader implements ColumnarSource {
  readonly #builder = new ColumnarBuilder(true);
  readonly #loaded = new Set<TableName>();

  /** Events loaded so far. */
  get events(): number {
    return this.#builder.events;
  }

  /**
   * Adds table `table` from NDJSON bytes (one row object per line, blank lines skipped).
   * Throws `TableFormatError` for a line that is not JSON (`opens.ndjson line 12: ...`).
   */
  async addNdjson(
    table: TableName,
    chunks: Chunks,
    onBytes?: (bytes: number) => void,
  ): Promise<void> {
    this.#loaded.add(table);
    if (table === 'opens' || table === 'clicks') return this.#addEventRows(table, chunks, onBytes);
    const decoder = new TextDecoder('utf-8');
    let rest = '';
    let line = 0;
    let row = 0;
    let bytes = 0;
    const take = (text: string) => {
      const lines = text.split('\n');
      const rows: unknown[] = [];
      for (const l of lines) {
        line++;
        if (l.trim() === '') continue;
        try {
          rows.push(JSON.parse(l));
        } catch (e) {
          throw new TableFormatError(
            `${table}.ndjson line ${line}: not JSON: ${(e as Error).message}`,
          );
        }
      }
      this.#builder.rows(table, rows, row);
      row += rows.length;
    };
    for await (const chunk of chunks) {
      bytes += chunk.length;
      const text = rest + decoder.decode(chunk, { stream: true });
      const cut = text.lastIndexOf('\n');
      if (cut < 0) rest = text;
      else {
        rest = text.slice(cut + 1);
        take(text.slice(0, cut));
      }
      onBytes?.(bytes);
    }
    rest += decoder.decode();
    if (rest !== '') take(rest);
  }

  /**
   * {@link addNdjson} of an event table: each line is read from its bytes when it has the
   * usual shape (`ColumnarBuilder.rawRow`), else decoded, parsed and checked as a row, in
   * order (so rows keep their numbers and errors their line).
   */
  async #addEventRows(
    table: 'opens' | 'clicks',
    chunks: Chunks,
    onBytes?: (bytes: number) => void,
  ): Promise<void> {
    const builder = this.#builder;
    const decoder = new TextDecoder('utf-8');
    let rest: Uint8Array | undefined;
    let line = 0;
    let row = 0;
    let bytes = 0;
    const take = (b: Uint8Array, from: number, to: number) => {
      line++;
      if (builder.rawRow(table, b, from, to, row) === 1) {
        row++;
        return;
      }
      const text = decoder.decode(b.subarray(from, to));
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        throw new TableFormatError(
          `${table}.ndjson line ${line}: not JSON: ${(e as Error).message}`,
        );
      }
      builder.rows(table, [value], row);
      row++;
    };
    for await (const chunk of chunks) {
      bytes += chunk.length;
      let b = chunk;
      if (rest !== undefined) {
        b = new Uint8Array(rest.length + chunk.length);
        b.set(rest);
        b.set(chunk, rest.length);
      }
      let start = 0;
      for (let nl = b.indexOf(0x0a, start); nl >= 0; nl = b.indexOf(0x0a, start)) {
        take(b, start, nl);
        start = nl + 1;
      }
      rest = start < b.length ? b.slice(start) : undefined;
      onBytes?.(bytes);
    }
    if (rest !== undefined) take(rest, 0, rest.length);
  }

  /**
   * Adds table `table` from rows already split into fields (a CSV reader's records, keyed
   * by the header's column names, strings; see {@link csvCell} for the conversion).
   */
  addRows(table: TableName, rows: unknown[], first: number): void {
    this.#loaded.add(table);
    this.#builder.rows(table, rows, first);
  }

  /** What a snapshot of the dataset holds, once finished (`snapshot.ts`). */
  snapshotParts(): SnapshotParts {
    return this.#builder.snapshotParts();
  }

  /**
   * Builds the index. Throws `TableFormatError` when a table is missing, and `DatasetError`
   * for rows that do not match their schema (`opens[12].date: ...`), rows that cannot be
   * placed (`members[3].teamID: no team "t9"`) and referential problems.
   */
  finish(options: BuildIndexOptions = {}): ColumnarDataset {
    const missing = TABLES.map((t) => t.name).filter((name) => !this.#loaded.has(name));
    if (missing.length > 0) throw new TableFormatError(`missing tables: ${missing.join(', ')}`);
    return this.#builder.finish(options);
  }
}

/** A per-table file is not in its format, or a table is missing. */
export class TableFormatError extends Error {
  override readonly name = 'TableFormatError';
}

/**
 * The value of a CSV field of column `column` as the row schemas expect it, written as the
 * fixture writes it (RFC 4180, `""` for an empty string, an empty unquoted field for `null`):
 * `position` columns as numbers (when they are digits), an empty unquoted field of a nullable
 * column as `null`, everything else as the string.
 */
export function csvCell(column: ColumnSpec, value: string, quoted: boolean): unknown {
  if (column.type.kind === 'position' && /^[0-9]+$/.test(value)) return Number(value);
  if (column.nullable && value === '' && !quoted) return null;
  return value;
}

/** The column specs of a table, by name (for {@link csvCell}). */
export function columnsOf(table: TableName): ReadonlyMap<string, ColumnSpec> {
  const spec = TABLES.find((t) => t.name === table)!;
  return new Map(spec.columns.map((c) => [c.name, c]));
}
