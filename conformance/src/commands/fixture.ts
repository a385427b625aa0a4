import { createWriteStream } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Dataset, validateDataset } from '@tagtrack/core';
import {
  datasetJsonSchema,
  datasetToTables,
  generateDataset,
  SCALE_NAMES,
  type ScaleName,
  SQL_DIALECTS,
  SqlLiteralError,
  sqlInserts,
  TABLES,
  tablesDdl,
  tablesJsonSchema,
} from '@tagtrack/dataset';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { stringify } from 'csv-stringify';
import * as z from 'zod';
import { canonicalProfile } from '../profile/fixtures.ts';
import { applyNoColor, noColorOption, quietOption } from './options.ts';

/*
 * `tagtrack-conformance fixture --out DIR`: the dataset a vendor loads into their own storage
 * for fixture mode, as one JSON document, one NDJSON or CSV file per table, or SQL (DDL and
 * INSERTs for PostgreSQL and SQLite), with the JSON Schemas of the dataset and of its tables
 * (core's tables.ts, sql.ts, json-schema.ts). docs/conformance.md, "Fixture mode on your own
 * storage", documents the files.
 */

/** The forms the fixture is written in. */
export const FIXTURE_FORMATS = ['json', 'ndjson', 'csv', 'sql'] as const;
export type FixtureFormat = (typeof FIXTURE_FORMATS)[number];

/** Which dataset to write: the canonical one, a JSON file of core's Dataset schema, or a generated one. */
export type FixtureSource =
  | { readonly kind: 'canonical' }
  | { readonly kind: 'file'; readonly file: string }
  | { readonly kind: 'generated'; readonly seed: number; readonly scale: ScaleName };

/** Options of {@link writeFixture}. */
export interface FixtureOptions {
  readonly out: string;
  readonly format: FixtureFormat;
  readonly source: FixtureSource;
}

/** A file the fixture wrote: its path and size in bytes. */
export interface WrittenFile {
  readonly path: string;
  readonly bytes: number;
}

/**
 * The fixture cannot be written: the dataset file is unreadable, not JSON, not of the Dataset
 * schema or inconsistent, a value cannot be written in the format (U+0000 in SQL), or the
 * directory cannot be written. `message` is one line naming the file or the value.
 */
export class FixtureError extends Error {
  override readonly name = 'FixtureError';
}

/** One line of a multi-line zod message, as the server's `--dataset` reports it. */
function oneLine(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
}

/**
 * Reads a dataset file (JSON of core's {@link Dataset} schema) and checks it the way the
 * reference server's `--dataset` does, plus `validateDataset`'s referential rules (the SQL
 * foreign keys would refuse an inconsistent dataset anyway). Throws {@link FixtureError}.
 */
export async function readDatasetFile(file: string): Promise<Dataset> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new FixtureError(
      `cannot read dataset file ${file}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new FixtureError(`dataset file ${file} is not JSON: ${(e as Error).message}`);
  }
  const parsed = Dataset.safeParse(json);
  if (!parsed.success)
    throw new FixtureError(
      `invalid dataset file ${file}: ${oneLine(z.prettifyError(parsed.error))}`,
    );
  const problems = validateDataset(parsed.data);
  if (problems.length > 0) {
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
    throw new FixtureError(
      `inconsistent dataset file ${file}: ${problems.slice(0, 3).join('; ')}${more}`,
    );
  }
  return parsed.data;
}

async function datasetOf(source: FixtureSource): Promise<Dataset> {
  switch (source.kind) {
    case 'canonical':
      return canonicalDataset;
    case 'file':
      return readDatasetFile(source.file);
    case 'generated':
      return generateDataset({ seed: source.seed, scale: source.scale });
  }
}

/** Writes `chunks` to `path` as they come (a large dataset is never one string). */
async function writeChunks(path: string, chunks: Iterable<string> | AsyncIterable<string>) {
  await pipeline(Readable.from(chunks), createWriteStream(path));
}

function* ndjsonLines(rows: readonly object[]): Generator<string> {
  for (const row of rows) yield `${JSON.stringify(row)}\n`;
}

/**
 * A table as CSV (RFC 4180 quoting by csv-stringify): a header row of the column names, then
 * one line per row in column order. An empty string is written quoted (`""`) and `null` as an
 * empty field, so PostgreSQL's `COPY ... (FORMAT csv)` reads them back as '' and NULL.
 */
async function writeCsv(path: string, columns: readonly string[], rows: readonly object[]) {
  await pipeline(
    Readable.from(rows),
    // quoted_match /^$/ quotes '' only; quoted_empty would also quote null
    stringify({ header: true, columns: [...columns], quoted_match: /^$/ }),
    createWriteStream(path),
  );
}

/**
 * Writes the fixture of `options.source` into `options.out` (created if missing) and returns
 * the files written, in order:
 * - every format: `dataset.schema.json` and `tables.schema.json` (JSON Schema 2020-12,
 *   generated from the zod schemas) and, for the canonical dataset, `canonical-profile.json`
 *   (the profile with its twelve credentials);
 * - `json`: the dataset document, `canonical-dataset.json` (or `dataset.json` for another dataset);
 * - `ndjson`: `<table>.ndjson` per table, one row object per line, keys in column order;
 * - `csv`: `<table>.csv` per table, a header row then one row per line;
 * - `sql`: `postgres.schema.sql`, `postgres.data.sql`, `sqlite.schema.sql`, `sqlite.data.sql`.
 * Tables in loading order: teams, groups, members, credentials, tags, recipients, opens, clicks.
 * Throws {@link FixtureError}.
 */
export async function writeFixture(options: FixtureOptions): Promise<WrittenFile[]> {
  const dataset = await datasetOf(options.source);
  const canonical = options.source.kind === 'canonical';
  const { out } = options;
  const paths: string[] = [];
  const text = async (name: string, content: string) => {
    const path = join(out, name);
    await writeFile(path, content);
    paths.push(path);
  };
  const streamed = async (name: string, write: (path: string) => Promise<void>) => {
    const path = join(out, name);
    await write(path);
    paths.push(path);
  };
  try {
    await mkdir(out, { recursive: true });
    await text('dataset.schema.json', `${JSON.stringify(datasetJsonSchema(), null, 2)}\n`);
    await text('tables.schema.json', `${JSON.stringify(tablesJsonSchema(), null, 2)}\n`);
    if (canonical)
      await text('canonical-profile.json', `${JSON.stringify(canonicalProfile(), null, 2)}\n`);
    const tables = options.format === 'json' ? undefined : datasetToTables(dataset);
    switch (options.format) {
      case 'json':
        await text(
          canonical ? 'canonical-dataset.json' : 'dataset.json',
          `${JSON.stringify(dataset)}\n`,
        );
        break;
      case 'ndjson':
        for (const t of TABLES)
          await streamed(`${t.name}.ndjson`, (p) => writeChunks(p, ndjsonLines(tables![t.name])));
        break;
      case 'csv':
        for (const t of TABLES) {
          const columns = t.columns.map((c) => c.name);
          await streamed(`${t.name}.csv`, (p) => writeCsv(p, columns, tables![t.name]));
        }
        break;
      case 'sql':
        for (const dialect of SQL_DIALECTS) {
          await text(`${dialect}.schema.sql`, tablesDdl(dialect));
          await streamed(`${dialect}.data.sql`, (p) =>
            writeChunks(p, sqlInserts(tables!, dialect)),
          );
        }
        break;
    }
  } catch (e) {
    if (e instanceof SqlLiteralError)
      throw new FixtureError(`the dataset cannot be written as SQL: ${e.message}`);
    throw new FixtureError(`cannot write the fixture to ${out}: ${(e as Error).message}`);
  }
  return Promise.all(paths.map(async (path) => ({ path, bytes: (await stat(path)).size })));
}

/** The options of the `fixture` command as commander parses them. */
interface FixtureCommandOptions {
  readonly out: string;
  readonly format: FixtureFormat;
  readonly dataset?: string;
  readonly seed?: number;
  readonly scale?: ScaleName;
}

function integer(v: string): number {
  if (!/^-?\d+$/.test(v.trim())) throw new InvalidArgumentError('seed must be an integer');
  return Number(v);
}

function sourceOf(opts: FixtureCommandOptions): FixtureSource {
  if (opts.dataset !== undefined) return { kind: 'file', file: opts.dataset };
  if (opts.seed !== undefined || opts.scale !== undefined)
    return { kind: 'generated', seed: opts.seed ?? 1, scale: opts.scale ?? 'small' };
  return { kind: 'canonical' };
}

const HELP_AFTER = `
Files (tables in loading order: teams, groups, members, credentials, tags, recipients, opens, clicks):
  every format  dataset.schema.json, tables.schema.json (JSON Schema 2020-12);
                canonical-profile.json for the canonical dataset
  json          canonical-dataset.json (dataset.json for --dataset/--seed): core's Dataset document
  ndjson        <table>.ndjson: one row object per line, keys in column order
  csv           <table>.csv: header row, RFC 4180 quoting, "" for an empty string, empty for NULL
  sql           postgres.schema.sql, postgres.data.sql, sqlite.schema.sql, sqlite.data.sql

Load into PostgreSQL:  psql -f postgres.schema.sql -f postgres.data.sql
Load into SQLite:      sqlite3 fixture.db < sqlite.schema.sql && sqlite3 fixture.db < sqlite.data.sql
`;

/** Registers `fixture` on the `tagtrack-conformance` program; `done` receives its exit code. */
export function addFixtureCommand(program: Command, done: (code: number) => void): void {
  program
    .command('fixture')
    .description(
      'write the dataset for fixture mode (canonical by default) as JSON, NDJSON or CSV tables, or SQL for PostgreSQL and SQLite, with its JSON Schema and profile',
    )
    .requiredOption('--out <dir>', 'directory to write the files to (created if missing)')
    .addOption(
      new Option('--format <format>', 'json (one document), ndjson or csv (a file per table), sql')
        .choices(FIXTURE_FORMATS)
        .default('json'),
    )
    .addOption(
      new Option(
        '--dataset <file>',
        "a JSON file of core's Dataset schema instead of the canonical dataset",
      ).conflicts(['seed', 'scale']),
    )
    .addOption(
      new Option(
        '--seed <n>',
        'a generated dataset of this seed instead (default scale small)',
      ).argParser(integer),
    )
    .addOption(
      new Option(
        '--scale <name>',
        'size of the generated dataset (default small; seed 1 without --seed)',
      ).choices(SCALE_NAMES),
    )
    .addOption(quietOption('print nothing but errors'))
    .addOption(noColorOption())
    .addHelpText('after', HELP_AFTER)
    .action(async (opts: FixtureCommandOptions & { quiet?: boolean; color?: boolean }) => {
      applyNoColor(opts);
      try {
        const files = await writeFixture({
          out: opts.out,
          format: opts.format,
          source: sourceOf(opts),
        });
        if (opts.quiet !== true)
          for (const f of files) process.stdout.write(`wrote ${f.path} (${f.bytes} bytes)\n`);
        done(0);
      } catch (e) {
        if (!(e instanceof FixtureError)) throw e;
        process.stderr.write(`tagtrack-conformance: ${e.message}\n`);
        done(2);
      }
    });
}
