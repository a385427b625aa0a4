/**
 * Benchmark of the columnar engine against DuckDB (`pnpm bench` in packages/core).
 *
 * On a generated dataset of about `BENCH_EVENTS` opens plus clicks (default 200,000; seed 1,
 * written once as the dataset JSON and as the per-table NDJSON of `fixture --format ndjson`
 * under `BENCH_DIR`, default the OS temp dir, never in the repo), each engine runs in a fresh
 * process, `BENCH_RUNS` times (default 3), and the medians are printed:
 * - `columnar json`: read the dataset JSON file into columns on one thread
 *   (`loadDatasetJsonFile`, as the server's `--dataset FILE` does: one core's worth of work,
 *   to set beside DuckDB's one thread); build the indexes from the columns; the first answer
 *   (endpoint 2, all tags of team 0's admin); RSS then (after start);
 * - `columnar json (2 threads)`: the same with `parallel: 'auto'` (events of the second part
 *   of the file read on a worker thread);
 * - `columnar ndjson`: the same from the per-table NDJSON files;
 * - `columnar snapshot`: the same from the columnar snapshot of the dataset (written once
 *   beside the other files, as `--write-snapshot` writes it; not timed);
 * - `duckdb`: `@duckdb/node-api` in process (`BENCH_DUCKDB_THREADS`, default 1: one core's
 *   worth of work) loads tags, recipients, opens and clicks from the same NDJSON files;
 * then each computes the per-tag counters (endpoint 2), the per-day stats (endpoint 6) and
 * the contact counters (endpoint 15) of every team (ours: every team's admin's answers;
 * DuckDB: the same counters in SQL over all tags). Ratios are ours / DuckDB's end to end (< 1:
 * faster): ours from the start to the first answer plus the aggregates, DuckDB's load plus
 * its aggregates.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ColumnarSource } from '../src/memory/columnar/load.ts';
import { benchFiles } from './files.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const THREADS = Number(process.env.BENCH_DUCKDB_THREADS ?? 1);
const CHUNK = 1 << 20;

/** What one engine's run measured (ms and MB). */
interface RunResult {
  engine: string;
  events: number;
  /** Reading the input into memory (columns, or DuckDB tables). */
  loadMs: number;
  /** Resolving references in the loaded columns (ours only). */
  resolveMs?: number;
  /** Building the indexes from the resolved columns (ours only). */
  indexMs?: number;
  /** From the start to the first answer (ours only). */
  firstAnswerMs?: number;
  /** The per-tag counters, per-day stats and contact counters of every team. */
  aggregateMs: number;
  rssMb: number;
}

const now = () => performance.now();
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

type Form = 'json' | 'json2' | 'ndjson' | 'snapshot';
const ENGINE_NAMES: Record<Form, string> = {
  json: 'columnar json',
  json2: 'columnar json (2 threads)',
  ndjson: 'columnar ndjson',
  snapshot: 'columnar snapshot',
};

/** The snapshot of the bench dataset beside its files (written once, by this format version). */
async function snapshotOf(files: Awaited<ReturnType<typeof benchFiles>>): Promise<string> {
  const { SNAPSHOT_VERSION } = await import('../src/memory/columnar/snapshot.ts');
  const { writeSnapshotFile } = await import('../src/memory/columnar/snapshot-file.ts');
  const { loadDatasetJsonFile } = await import('../src/memory/columnar/parallel.ts');
  const path = join(files.dir, `dataset-v${SNAPSHOT_VERSION}.ttsnap`);
  if (!existsSync(path)) {
    const source = await loadDatasetJsonFile(files.json);
    source.finish();
    await writeSnapshotFile(path, source);
  }
  return path;
}

async function runColumnar(form: Form): Promise<RunResult> {
  const { TablesLoader } = await import('../src/memory/columnar/load.ts');
  const { loadDatasetJsonFile } = await import('../src/memory/columnar/parallel.ts');
  const { loadSnapshotFile } = await import('../src/memory/columnar/snapshot-file.ts');
  const { TABLES } = await import('@tagtrack/dataset');
  const files = await benchFiles(EVENTS, process.env.BENCH_DIR);
  const snapshot = form === 'snapshot' ? await snapshotOf(files) : '';
  const t0 = now();
  let source: ColumnarSource;
  if (form === 'json') {
    source = await loadDatasetJsonFile(files.json);
  } else if (form === 'json2') {
    source = await loadDatasetJsonFile(files.json, { parallel: 'auto' });
  } else if (form === 'snapshot') {
    source = await loadSnapshotFile(snapshot);
  } else {
    const loader = new TablesLoader();
    for (const t of TABLES) {
      await loader.addNdjson(
        t.name,
        createReadStream(files.ndjson[t.name]!, { highWaterMark: CHUNK }),
      );
    }
    source = loader;
  }
  const t1 = now();
  const { index, resolveMs, indexMs, events } = source.finish();
  const admins = index.dataset.teams.map((team) => {
    const m = team.members.find((x) => x.accountType === 'admin')!;
    return index.callerOf(m.memberID)!;
  });
  const first = index.tags(admins[0]!, {})!;
  const t2 = now();
  const rss = rssMb();
  let n = first.length;
  for (const caller of admins) {
    n += index.tags(caller, {})!.length;
    n += index.stats(caller, { subject: { kind: 'team' } })!.length;
    n += index.contacts(caller).length;
  }
  const t3 = now();
  if (n < 0) console.error(n);
  return {
    engine: ENGINE_NAMES[form],
    events,
    loadMs: t1 - t0,
    resolveMs,
    indexMs,
    firstAnswerMs: t2 - t0,
    aggregateMs: t3 - t2,
    rssMb: rss,
  };
}

/** The counters in SQL: per tag (endpoint 2), per member and send day (6), per contact (15). */
const DUCKDB_AGGREGATES = [
  `CREATE TEMP TABLE tag_counters AS
   WITH o AS (SELECT tagID, count(*) AS total, count(DISTINCT lower(trim(email))) AS uniq,
                count(*) FILTER (device = 'desktop') AS desktop,
                count(*) FILTER (device IN ('mobile', 'tablet')) AS mobile
              FROM opens GROUP BY tagID),
        c AS (SELECT tagID, count(*) AS total, count(DISTINCT lower(trim(email))) AS uniq,
                count(*) FILTER (device = 'desktop') AS desktop,
                count(*) FILTER (device IN ('mobile', 'tablet')) AS mobile
              FROM clicks GROUP BY tagID)
   SELECT t.tagID, t.memberID, t.dateSent,
     coalesce(o.total, 0) AS totalOpens, coalesce(o.uniq, 0) AS uniqueOpens,
     coalesce(c.total, 0) AS totalClicks, coalesce(c.uniq, 0) AS uniqueClicks,
     coalesce(o.desktop, 0) AS desktopOpens, coalesce(o.mobile, 0) AS mobileOpens,
     coalesce(c.desktop, 0) AS desktopClicks, coalesce(c.mobile, 0) AS mobileClicks
   FROM tags t LEFT JOIN o USING (tagID) LEFT JOIN c USING (tagID)`,
  `SELECT memberID, CAST(dateSent AS DATE) AS day, count(*) AS totalSent,
     sum(totalOpens), sum(totalClicks), sum(uniqueOpens), sum(uniqueClicks)
   FROM tag_counters GROUP BY ALL`,
  `WITH r AS (SELECT DISTINCT tagID, lower(trim(email)) AS email FROM recipients),
        o AS (SELECT tagID, lower(trim(email)) AS email, count(*) AS n,
                count(*) FILTER (device = 'desktop') AS desktop,
                count(*) FILTER (device IN ('mobile', 'tablet')) AS mobile
              FROM opens GROUP BY ALL),
        c AS (SELECT tagID, lower(trim(email)) AS email, count(*) AS n,
                count(*) FILTER (device = 'desktop') AS desktop,
                count(*) FILTER (device IN ('mobile', 'tablet')) AS mobile
              FROM clicks GROUP BY ALL)
   SELECT r.email, count(*) AS totalSent, max(t.dateSent) AS dateLastSent,
     sum(coalesce(o.n, 0)) AS totalOpens, count(o.n) AS uniqueOpens,
     sum(coalesce(c.n, 0)) AS totalClicks, count(c.n) AS uniqueClicks,
     sum(coalesce(o.desktop, 0)), sum(coalesce(o.mobile, 0)),
     sum(coalesce(c.desktop, 0)), sum(coalesce(c.mobile, 0))
   FROM r JOIN tags t USING (tagID)
     LEFT JOIN o USING (tagID, email) LEFT JOIN c USING (tagID, email)
   GROUP BY r.email`,
];

async function runDuckdb(): Promise<RunResult> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const files = await benchFiles(EVENTS, process.env.BENCH_DIR);
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run(`SET threads = ${THREADS}`);
  const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const t0 = now();
  for (const table of ['tags', 'recipients', 'opens', 'clicks']) {
    await con.run(
      `CREATE TABLE ${table} AS SELECT * FROM read_json(${quote(files.ndjson[table]!)}, format = 'newline_delimited')`,
    );
  }
  const t1 = now();
  let n = 0;
  for (const sql of DUCKDB_AGGREGATES) n += (await con.runAndReadAll(sql)).currentRowCount;
  const t2 = now();
  const count = await con.runAndReadAll(
    'SELECT (SELECT count(*) FROM opens) + (SELECT count(*) FROM clicks)',
  );
  const events = Number(count.getRows()[0]![0]);
  if (n < 0) console.error(n);
  return {
    engine: `duckdb (${THREADS} thread${THREADS === 1 ? '' : 's'})`,
    events,
    loadMs: t1 - t0,
    aggregateMs: t2 - t1,
    rssMb: rssMb(),
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Runs one engine in a fresh process (its RSS and start-up are its own). */
function spawnRun(engine: string): RunResult {
  const r = spawnSync(
    process.execPath,
    ['--conditions=@tagtrack/source', '--import', 'tsx', fileURLToPath(import.meta.url)],
    {
      env: { ...process.env, BENCH_CHILD: engine },
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    },
  );
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.status !== 0 || !line.startsWith('{')) {
    throw new Error(`bench run ${engine} failed (exit ${r.status}): ${r.stderr}`);
  }
  return JSON.parse(line) as RunResult;
}

async function main(): Promise<void> {
  const child = process.env.BENCH_CHILD;
  if (child !== undefined) {
    const result = child === 'duckdb' ? await runDuckdb() : await runColumnar(child as Form);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const g0 = now();
  const files = await benchFiles(EVENTS, process.env.BENCH_DIR);
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `columnar bench: ~${EVENTS} events, ${RUNS} runs per engine, medians; files in ${files.dir} (${((now() - g0) / 1000).toFixed(1)} s to find or write)`,
  );
  console.log(`machine: ${cpus().length} cores (${cpu}), Node ${process.version}`);
  await snapshotOf(files);
  const engines = ['json', 'json2', 'ndjson', 'snapshot', 'duckdb'];
  const runs = new Map<string, RunResult[]>(engines.map((e) => [e, []]));
  for (let r = 0; r < RUNS; r++) for (const e of engines) runs.get(e)!.push(spawnRun(e));
  const med = (e: string, f: (r: RunResult) => number | undefined) => {
    const xs = runs
      .get(e)!
      .map(f)
      .filter((x): x is number => x !== undefined);
    return xs.length === 0 ? undefined : median(xs);
  };
  const fmt = (x: number | undefined, unit = 'ms') =>
    x === undefined ? '-' : unit === 'ms' ? `${Math.round(x)} ms` : `${Math.round(x)} MB`;
  const duck = {
    load: med('duckdb', (r) => r.loadMs)!,
    agg: med('duckdb', (r) => r.aggregateMs)!,
  };
  const rows: string[][] = [
    [
      'engine',
      'events',
      'load',
      'resolve',
      'index',
      'first answer',
      'aggregates',
      'end to end',
      'RSS',
      'vs DuckDB',
    ],
  ];
  for (const e of engines) {
    const load = med(e, (r) => r.loadMs)!;
    const resolve = med(e, (r) => r.resolveMs);
    const index = med(e, (r) => r.indexMs);
    const agg = med(e, (r) => r.aggregateMs)!;
    // end to end: ours up to the first answer (reading, resolving, the per-table form's
    // nesting, indexing) and the aggregates; DuckDB's load and aggregates
    const total = med(e, (r) => (r.firstAnswerMs ?? r.loadMs) + r.aggregateMs)!;
    const ratio = total / (duck.load + duck.agg);
    rows.push([
      runs.get(e)![0]!.engine,
      String(runs.get(e)![0]!.events),
      fmt(load),
      fmt(resolve),
      fmt(index),
      fmt(med(e, (r) => r.firstAnswerMs)),
      fmt(agg),
      fmt(total),
      fmt(
        med(e, (r) => r.rssMb),
        'MB',
      ),
      e === 'duckdb' ? '1.00' : ratio.toFixed(2),
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((x, c) => x.padEnd(widths[c]!)).join('  '));
  for (const e of ['json', 'json2', 'ndjson', 'snapshot']) {
    const events = runs.get(e)![0]!.events;
    const index = med(e, (r) => r.indexMs)!;
    console.log(
      `${runs.get(e)![0]!.engine}: index build from resolved columns ${(((events / index) * 1000) / 1e6).toFixed(1)} M events/s; load ${(med(e, (r) => r.loadMs)! / duck.load).toFixed(2)}x DuckDB's`,
    );
  }
}

await main();
