import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Dataset } from '@tagtrack/core';
import { arbDataset } from '@tagtrack/core/testing';
import {
  DatasetTables,
  datasetJsonSchema,
  datasetToTables,
  generateDataset,
  TABLE_NAMES,
  TABLES,
  tablesDdl,
  tablesJsonSchema,
  tablesToDataset,
} from '@tagtrack/dataset';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { main } from '../src/cli.ts';
import { FixtureError, writeFixture } from '../src/commands/fixture.ts';
import { Profile } from '../src/profile/profile.ts';

/*
 * `tagtrack-conformance fixture`: every format written for the canonical dataset and read
 * back to it (NDJSON by the row schemas, CSV by PostgreSQL's COPY into PGlite, SQL by PGlite),
 * plus generated and file datasets and the errors of bad input.
 */

let dir: string;
let pg: PGlite;
let schemas = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-fixture-'));
  pg = new PGlite();
  await pg.waitReady;
}, 180_000);

afterAll(async () => {
  await pg?.close();
  await rm(dir, { recursive: true, force: true });
});

const read = (path: string) => readFile(path, 'utf8');
const names = (files: readonly { path: string }[]) =>
  files.map((f) => f.path.slice(f.path.lastIndexOf('/') + 1));

/** Teams, groups, members, tags and credentials in id order (as read back by primary key). */
function inIdOrder(d: Dataset): Dataset {
  const by =
    <K extends string>(key: K) =>
    (a: Record<K, string>, b: Record<K, string>) =>
      a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0;
  return {
    ...d,
    teams: d.teams
      .map((t) => ({
        ...t,
        groups: [...t.groups].sort(by('groupID')),
        members: [...t.members].sort(by('memberID')),
      }))
      .sort(by('teamID')),
    tags: [...d.tags].sort(by('tagID')),
    credentials: [...d.credentials].sort(by('authId')),
  };
}

/** A fresh PostgreSQL schema with the fixture's DDL, as the search path. */
async function freshSchema(ddl: string): Promise<void> {
  await pg.exec(`CREATE SCHEMA fixture${++schemas}; SET search_path TO fixture${schemas};`);
  await pg.exec(ddl);
}

/** The tables read back from PostgreSQL in the dataset's string forms, by primary key. */
async function tablesFromPostgres(): Promise<DatasetTables> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) {
    const cols = t.columns.map((c) => {
      const q = `"${c.name}"`;
      if (c.type.kind === 'timestamp')
        return `to_char(${q} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS ${q}`;
      if (c.type.kind === 'latitude' || c.type.kind === 'longitude') return `${q}::text AS ${q}`;
      return q;
    });
    const order = t.primaryKey.map((k) => `"${k}"`).join(', ');
    out[t.name] = (
      await pg.query(`SELECT ${cols.join(', ')} FROM "${t.name}" ORDER BY ${order}`)
    ).rows;
  }
  return out as unknown as DatasetTables;
}

describe('fixture --format', { timeout: 120_000 }, () => {
  test('json: the canonical dataset document, its profile and the JSON Schemas', async () => {
    const out = join(dir, 'json');
    const files = await writeFixture({ out, format: 'json', source: { kind: 'canonical' } });
    expect(names(files)).toEqual([
      'dataset.schema.json',
      'tables.schema.json',
      'canonical-profile.json',
      'canonical-dataset.json',
    ]);
    expect(Dataset.parse(JSON.parse(await read(join(out, 'canonical-dataset.json'))))).toEqual(
      canonicalDataset,
    );
    expect(JSON.parse(await read(join(out, 'dataset.schema.json')))).toEqual(datasetJsonSchema());
    expect(JSON.parse(await read(join(out, 'tables.schema.json')))).toEqual(tablesJsonSchema());
    const profile = Profile.parse(JSON.parse(await read(join(out, 'canonical-profile.json'))));
    expect(profile.credentials).toHaveLength(12);
    for (const f of files) expect(f.bytes).toBeGreaterThan(0);
  });

  test('ndjson: one file per table, one row per line in column order, reading back to the dataset', async () => {
    const out = join(dir, 'ndjson');
    const files = await writeFixture({ out, format: 'ndjson', source: { kind: 'canonical' } });
    expect(names(files).slice(3)).toEqual(TABLE_NAMES.map((t) => `${t}.ndjson`));
    const tables: Record<string, unknown[]> = {};
    for (const t of TABLES) {
      const lines = (await read(join(out, `${t.name}.ndjson`))).split('\n');
      expect(lines.pop()).toBe('');
      tables[t.name] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const row of tables[t.name] as object[])
        expect(Object.keys(row)).toEqual(t.columns.map((c) => c.name));
    }
    expect(tablesToDataset(DatasetTables.parse(tables))).toEqual(canonicalDataset);
  });

  test('csv: a header row per table; PostgreSQL COPY (FORMAT csv, HEADER) loads them back to the dataset', async () => {
    const out = join(dir, 'csv');
    const files = await writeFixture({ out, format: 'csv', source: { kind: 'canonical' } });
    expect(names(files).slice(3)).toEqual(TABLE_NAMES.map((t) => `${t}.csv`));
    await freshSchema(tablesDdl('postgres'));
    for (const t of TABLES) {
      const text = await read(join(out, `${t.name}.csv`));
      expect(text.slice(0, text.indexOf('\n'))).toBe(t.columns.map((c) => c.name).join(','));
      await pg.query(`COPY "${t.name}" FROM '/dev/blob' WITH (FORMAT csv, HEADER true)`, [], {
        blob: new Blob([text]),
      });
    }
    // an empty string stays '' (written ""), a member without a group is NULL (an empty field)
    const { rows } = await pg.query<{ empty: number; nulls: number }>(
      `SELECT (SELECT count(*)::int FROM "opens" WHERE "city" = '') AS empty,
              (SELECT count(*)::int FROM "members" WHERE "groupID" IS NULL) AS nulls`,
    );
    const tables = datasetToTables(canonicalDataset);
    expect(rows[0]).toEqual({
      empty: tables.opens.filter((o) => o.city === '').length,
      nulls: tables.members.filter((m) => m.groupID === null).length,
    });
    expect(rows[0]!.empty).toBeGreaterThan(0);
    expect(tablesToDataset(await tablesFromPostgres())).toEqual(inIdOrder(canonicalDataset));
  });

  test('csv of any consistent dataset (hostile strings, quotes, newlines, empty values) loads through COPY to the same dataset', async () => {
    await fc.assert(
      fc.asyncProperty(arbDataset, async (dataset) => {
        const file = join(dir, `arb-${++schemas}.json`);
        await writeFile(file, JSON.stringify(dataset));
        const out = join(dir, `arb-csv-${schemas}`);
        await writeFixture({ out, format: 'csv', source: { kind: 'file', file } });
        await freshSchema(tablesDdl('postgres'));
        for (const t of TABLES) {
          const text = await read(join(out, `${t.name}.csv`));
          await pg.query(`COPY "${t.name}" FROM '/dev/blob' WITH (FORMAT csv, HEADER true)`, [], {
            blob: new Blob([text]),
          });
        }
        expect(tablesToDataset(await tablesFromPostgres())).toEqual(inIdOrder(dataset));
      }),
      { numRuns: 10 },
    );
  });

  test('sql: the PostgreSQL files load into PGlite and read back to the dataset; SQLite files are written', async () => {
    const out = join(dir, 'sql');
    const files = await writeFixture({ out, format: 'sql', source: { kind: 'canonical' } });
    expect(names(files).slice(3)).toEqual([
      'postgres.schema.sql',
      'postgres.data.sql',
      'sqlite.schema.sql',
      'sqlite.data.sql',
    ]);
    expect(await read(join(out, 'sqlite.schema.sql'))).toBe(tablesDdl('sqlite'));
    await freshSchema(await read(join(out, 'postgres.schema.sql')));
    const started = performance.now();
    await pg.exec(await read(join(out, 'postgres.data.sql')));
    console.info(
      `PGlite: postgres.data.sql loaded in ${(performance.now() - started).toFixed(0)} ms`,
    );
    expect(tablesToDataset(await tablesFromPostgres())).toEqual(inIdOrder(canonicalDataset));
  });

  test('--seed/--scale: the generated dataset as dataset.json, without a profile', async () => {
    const out = join(dir, 'generated');
    const files = await writeFixture({
      out,
      format: 'json',
      source: { kind: 'generated', seed: 5, scale: 'tiny' },
    });
    expect(names(files)).toEqual(['dataset.schema.json', 'tables.schema.json', 'dataset.json']);
    expect(JSON.parse(await read(join(out, 'dataset.json')))).toEqual(
      generateDataset({ seed: 5, scale: 'tiny' }),
    );
  });
});

describe('fixture --dataset FILE', { timeout: 120_000 }, () => {
  const withFile = async (name: string, content: unknown) => {
    const file = join(dir, name);
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };

  test('a valid file is written in the chosen format', async () => {
    const dataset = generateDataset({ seed: 9, scale: 'tiny' });
    const file = await withFile('own.json', dataset);
    const out = join(dir, 'own');
    await writeFixture({ out, format: 'ndjson', source: { kind: 'file', file } });
    const tags = (await read(join(out, 'tags.ndjson'))).trim().split('\n');
    expect(tags.map((l) => (JSON.parse(l) as { tagID: string }).tagID)).toEqual(
      dataset.tags.map((t) => t.tagID),
    );
  });

  test('bad input is refused with a message naming the file and what is wrong', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['not-json.json', '{"teams":', /is not JSON/],
      ['wrong-shape.json', { teams: 1 }, /invalid dataset file .*teams/],
      [
        'inconsistent.json',
        { ...canonicalDataset, credentials: [{ authId: 'a', accessKey: 'k', memberID: 'nobody' }] },
        /inconsistent dataset file .*nobody/,
      ],
    ];
    for (const [name, content, message] of cases) {
      const file = await withFile(name, content);
      const error = await writeFixture({
        out: join(dir, 'bad'),
        format: 'csv',
        source: { kind: 'file', file },
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FixtureError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(file);
    }
    const missing = await writeFixture({
      out: join(dir, 'bad'),
      format: 'json',
      source: { kind: 'file', file: join(dir, 'no-such.json') },
    }).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/cannot read dataset file .*no such file/);
  });

  test('a value SQL cannot carry (U+0000) fails the sql format by name; ndjson still carries it', async () => {
    const dataset = structuredClone(canonicalDataset);
    dataset.tags[0]!.subject = 'nul\u0000here';
    const file = await withFile('nul.json', dataset);
    const error = await writeFixture({
      out: join(dir, 'nul-sql'),
      format: 'sql',
      source: { kind: 'file', file },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/cannot be written as SQL: .*U\+0000/);
    await writeFixture({
      out: join(dir, 'nul-ndjson'),
      format: 'ndjson',
      source: { kind: 'file', file },
    });
    const first = JSON.parse((await read(join(dir, 'nul-ndjson', 'tags.ndjson'))).split('\n')[0]!);
    expect(first.subject).toBe('nul\u0000here');
  });
});

describe('fixture command line', { timeout: 120_000 }, () => {
  /** Runs the CLI in-process, capturing stdout and stderr. */
  async function run(args: string[]) {
    let stdout = '';
    let stderr = '';
    const out = process.stdout.write;
    const err = process.stderr.write;
    process.stdout.write = ((s: string) => {
      stdout += s;
      return true;
    }) as typeof process.stdout.write;
    process.stderr.write = ((s: string) => {
      stderr += s;
      return true;
    }) as typeof process.stderr.write;
    try {
      const code = await main(['node', 'tagtrack-conformance', ...args]);
      return { code, stdout, stderr };
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
  }

  test('writes the chosen format and lists each file with its size; usage errors exit 2', async () => {
    const out = join(dir, 'cli');
    const ok = await run([
      'fixture',
      '--out',
      out,
      '--format',
      'csv',
      '--seed',
      '3',
      '--scale',
      'tiny',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/wrote .*opens\.csv \(\d+ bytes\)/);
    expect((await readdir(out)).sort()).toEqual(
      ['dataset.schema.json', 'tables.schema.json', ...TABLE_NAMES.map((t) => `${t}.csv`)].sort(),
    );
    const badFormat = await run(['fixture', '--out', out, '--format', 'xml']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toMatch(/--format.*xml.*json, ndjson, csv, sql/);
    const both = await run(['fixture', '--out', out, '--dataset', 'x.json', '--seed', '1']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--dataset.*cannot be used with.*--seed/);
    const missing = await run(['fixture', '--out', out, '--dataset', join(dir, 'none.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read dataset file/);
  });
});
