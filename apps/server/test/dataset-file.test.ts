import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatasetError } from '@tagtrack/core';
import { datasetToTables, TABLES } from '@tagtrack/dataset';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetFileError, loadDatasetSource } from '../src/dataset-file.ts';
import { createServer } from '../src/server.ts';
import { credential, get } from './helpers.ts';

/** A CSV field as the fixture writes it (RFC 4180): null empty, every string quoted. */
function csvField(v: unknown): string {
  if (v === null) return '';
  return typeof v === 'number' ? String(v) : `"${String(v).replaceAll('"', '""')}"`;
}

let dir: string;
const tables = datasetToTables(canonicalDataset) as unknown as Record<string, object[]>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-dataset-file-'));
  await writeFile(join(dir, 'dataset.json'), JSON.stringify(canonicalDataset, null, 1));
  await mkdir(join(dir, 'ndjson'));
  await mkdir(join(dir, 'csv'));
  for (const t of TABLES) {
    const rows = tables[t.name]!;
    await writeFile(
      join(dir, 'ndjson', `${t.name}.ndjson`),
      rows.map((r) => `${JSON.stringify(r)}\n`).join(''),
    );
    const names = t.columns.map((c) => c.name);
    const lines = [
      names.join(','),
      ...rows.map((r) => names.map((n) => csvField((r as Record<string, unknown>)[n])).join(',')),
    ];
    await writeFile(join(dir, 'csv', `${t.name}.csv`), `${lines.join('\r\n')}\r\n`);
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Paths whose answers cover members, tags with counters, stats, events and contacts. */
const PATHS = [
  '/teams',
  '/teams/tags',
  '/stats',
  '/clicks',
  '/opens',
  '/contacts',
  `/opens/tag/${canonicalDataset.tags[0]!.tagID}`,
];

describe('the server serves a dataset streamed into columns (--dataset)', {
  timeout: 120_000,
}, () => {
  const reference = createServer();
  it.each(['dataset.json', 'ndjson', 'csv'])(
    'from %s: every answer as from the dataset in memory',
    async (name) => {
      const server = createServer({ columnar: await loadDatasetSource(join(dir, name)) });
      for (const as of [credential(1, 'admin'), credential(2, 'user')]) {
        for (const path of PATHS) {
          const [a, b] = await Promise.all([
            get(server, path, '', { as }),
            get(reference, path, '', { as }),
          ]);
          expect(a.status, path).toBe(b.status);
          expect(await a.text(), path).toBe(await b.text());
        }
      }
    },
  );

  it('an inconsistent dataset fails at start naming the record (DatasetError)', async () => {
    const bad = structuredClone(canonicalDataset);
    bad.opens[7]!.date = 'soon';
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify(bad));
    const source = await loadDatasetSource(file);
    expect(() => createServer({ columnar: source })).toThrow(DatasetError);
    expect(() => createServer({ columnar: source })).toThrow(/opens\[7\]\.date: /);
  });

  it.each([
    ['missing.json', undefined, /cannot read dataset file .*missing\.json: no such file/],
    ['notjson.json', '{ nope', /dataset file .*notjson\.json is not JSON: expected a key/],
    ['cut.json', '{"teams": [', /is not JSON: unexpected end of the document/],
  ])('%s: a one-line DatasetFileError', async (name, content, message) => {
    const file = join(dir, name);
    if (content !== undefined) await writeFile(file, content);
    const err = await loadDatasetSource(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatasetFileError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('\n');
  });

  it('a directory without every table, or with a malformed CSV, is refused naming the file', async () => {
    const partial = join(dir, 'partial');
    await mkdir(partial);
    await writeFile(join(partial, 'teams.csv'), 'teamID,name\r\n');
    await expect(loadDatasetSource(partial)).rejects.toThrow(
      /not a per-table dataset: missing groups\.csv, members\.csv/,
    );
    const broken = join(dir, 'broken');
    await mkdir(broken);
    for (const t of TABLES) {
      const header = t.columns.map((c) => c.name).join(',');
      await writeFile(
        join(broken, `${t.name}.csv`),
        t.name === 'tags' ? `${header}\r\n"a,b\r\n` : `${header}\r\n`,
      );
    }
    await expect(loadDatasetSource(broken)).rejects.toThrow(/tags\.csv is not CSV: /);
  });
});
