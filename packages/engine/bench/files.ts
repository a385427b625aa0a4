/**
 * The bench's input files: a generated dataset (core's generator, seed 1, about `events`
 * opens plus clicks) written as the dataset JSON document and as the per-table NDJSON form of
 * `tagtrack-conformance fixture --format ndjson`, streamed to a directory outside the repo
 * (never committed). Written once per size and reused (`.complete` marks a finished set).
 */
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dataset } from '@tagtrack/core';
import {
  datasetToTables,
  eventRow,
  generateDataset,
  scaleForEvents,
  TABLES,
} from '@tagtrack/dataset';

/** Where the files of one size are, and what they hold. */
export interface BenchFiles {
  readonly dir: string;
  readonly json: string;
  /** `<table>.ndjson` per table. */
  readonly ndjson: Readonly<Record<string, string>>;
}

/** A file written in chunks of about 1 MB, waiting for the disk when it lags. */
class Writer {
  readonly #out;
  #pending: string[] = [];
  #size = 0;
  constructor(path: string) {
    this.#out = createWriteStream(path);
  }
  async write(s: string): Promise<void> {
    this.#pending.push(s);
    this.#size += s.length;
    if (this.#size >= 1 << 20) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const ok = this.#out.write(this.#pending.join(''));
    this.#pending = [];
    this.#size = 0;
    if (!ok) await once(this.#out, 'drain');
  }
  async close(): Promise<void> {
    await this.flush();
    this.#out.end();
    await once(this.#out, 'finish');
  }
}

/** The dataset document, written array by array and record by record. */
async function writeJson(path: string, d: Dataset): Promise<void> {
  const w = new Writer(path);
  const list = async (key: string, items: readonly unknown[], last = false) => {
    await w.write(`"${key}":[`);
    for (let i = 0; i < items.length; i++) {
      await w.write(i === 0 ? JSON.stringify(items[i]) : `,${JSON.stringify(items[i])}`);
    }
    await w.write(last ? ']' : '],');
  };
  await w.write('{');
  await list('teams', d.teams);
  await list('tags', d.tags);
  await list('opens', d.opens);
  await list('clicks', d.clicks);
  await list('credentials', d.credentials, true);
  await w.write('}\n');
  await w.close();
}

/** Writes (or finds) the bench files of about `events` events under `root`. */
export async function benchFiles(events: number, root = tmpdir()): Promise<BenchFiles> {
  const dir = join(root, `tagtrack-bench-${events}`);
  const ndjson = Object.fromEntries(TABLES.map((t) => [t.name, join(dir, `${t.name}.ndjson`)]));
  const files = { dir, json: join(dir, 'dataset.json'), ndjson };
  if (existsSync(join(dir, '.complete'))) return files;
  await mkdir(dir, { recursive: true });
  const dataset = generateDataset({ seed: 1, scale: scaleForEvents(events) });
  await writeJson(files.json, dataset);
  const small = datasetToTables({ ...dataset, opens: [], clicks: [] });
  for (const t of TABLES) {
    const w = new Writer(ndjson[t.name]!);
    if (t.name === 'opens' || t.name === 'clicks') {
      const list = dataset[t.name];
      for (let i = 0; i < list.length; i++)
        await w.write(`${JSON.stringify(eventRow(list[i]!, i))}\n`);
    } else {
      for (const row of small[t.name]) await w.write(`${JSON.stringify(row)}\n`);
    }
    await w.close();
  }
  await writeFile(join(dir, '.complete'), `${dataset.opens.length + dataset.clicks.length}\n`);
  return files;
}

if (process.argv[1]?.endsWith('files.ts')) {
  const events = Number(process.env.BENCH_EVENTS ?? 200_000);
  const f = await benchFiles(events, process.env.BENCH_DIR);
  console.log(f.dir);
}
