/**
 * Benchmark of the aggregation indexes (`pnpm bench:index` in packages/core; `pnpm bench` is
 * the columnar engine against DuckDB: columnar.bench.ts).
 *
 * For generated datasets of about 10k, 100k and 1M events (opens + clicks), it times
 * `buildIndex` (median of several runs), then answers every endpoint of the catalogue once
 * for an admin (first call, which also builds the lazy per-scope caches such as the team's
 * contacts, and a second, warm call), and prints events/s, memory, and the build plus all
 * first answers (what a server pays before every endpoint has answered once). The dataset goes through a JSON round trip
 * first, as a dataset loaded from a file would.
 *
 * A full garbage collection runs before each timed build (outside the timing).
 * Environment: `BENCH_SIZES=10000,100000` picks the sizes; `BENCH_RUNS=5` the build runs.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Dataset, EndpointRequest, ReportingIndex } from '@tagtrack/core';
import { contactIdOf, defaultQueryParams, ENDPOINT_LIST, type PathParamName } from '@tagtrack/core';
import { generateDataset, scaleForEvents } from '@tagtrack/dataset';
import { buildIndex } from '../src/memory/build.ts';

const sizes = (process.env.BENCH_SIZES ?? '10000,100000,1000000')
  .split(',')
  .map((s) => Number(s.trim()));
const runsOverride =
  process.env.BENCH_RUNS === undefined ? undefined : Number(process.env.BENCH_RUNS);

// A full GC before each timed build, so a run does not pay for collecting the previous
// run's index (a server builds once).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

let peakRss = 0;
function sampleMemory(): NodeJS.MemoryUsage {
  const m = process.memoryUsage();
  if (m.rss > peakRss) peakRss = m.rss;
  return m;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A generated dataset after a JSON round trip (flat strings, as when read from a file). */
function load(events: number): Dataset {
  return JSON.parse(JSON.stringify(generateDataset({ seed: 1, scale: scaleForEvents(events) })));
}

/** The floor: reading the four fields every index needs from every event, once. */
function touchEvents(dataset: Dataset): number {
  const t0 = performance.now();
  let n = 0;
  for (const list of [dataset.opens, dataset.clicks]) {
    for (const e of list) n += e.tagID.length + e.email.length + e.date.length + e.device.length;
  }
  if (n < 0) console.log(n);
  return performance.now() - t0;
}

/** One request per endpoint, with path parameters naming existing records of team 0. */
function requests(dataset: Dataset): EndpointRequest[] {
  const team = dataset.teams[0]!;
  const member = team.members[0]!;
  const memberIDs = new Set(team.members.map((m) => m.memberID));
  const tag = dataset.tags.find((t) => memberIDs.has(t.memberID))!;
  const params: Record<PathParamName, string> = {
    memberID: member.memberID,
    group: team.groups[0]?.groupName ?? 'none',
    tagID: tag.tagID,
    contactID: contactIdOf(tag.recipients[0]!.email),
  };
  return ENDPOINT_LIST.map((e) => {
    const pathParams: Partial<Record<PathParamName, string>> = {};
    for (const p of e.pathParams) pathParams[p] = params[p];
    const query = defaultQueryParams();
    if (e.id === 'tags.daily') query.date = tag.dateSent.slice(0, 10);
    return { endpoint: e.id, pathParams, query };
  });
}

function size(answer: ReturnType<ReportingIndex['answer']>): string {
  if (answer.kind === 'list') return `${answer.records.length} records`;
  return answer.kind;
}

const summary: {
  events: number;
  buildMs: number;
  firstAnswersMs: number;
  perEventNs: number;
  rate: number;
}[] = [];

console.log(
  `tagtrack core benchmark — Node ${process.version}, ${process.platform}/${process.arch}`,
);
{
  // Warm-up: let the JIT compile the build before anything is timed.
  const warm = generateDataset({ seed: 2, scale: scaleForEvents(20_000) });
  for (let i = 0; i < 5; i++) buildIndex(warm);
}
for (const target of sizes) {
  const dataset = load(target);
  const events = dataset.opens.length + dataset.clicks.length;
  collectGarbage();
  const before = sampleMemory();
  console.log(
    `\n== ${events.toLocaleString('en')} events (${dataset.tags.length.toLocaleString('en')} tags, ` +
      `${dataset.teams.reduce((n, t) => n + t.members.length, 0)} members, ${dataset.teams.length} teams); ` +
      `dataset heap ${mb(before.heapUsed)}`,
  );

  const runs = runsOverride ?? (events > 500_000 ? 3 : 5);
  const times: number[] = [];
  const cpu: number[] = [];
  let index: ReportingIndex | undefined;
  for (let r = 0; r < runs; r++) {
    index = undefined;
    collectGarbage();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    index = buildIndex(dataset);
    times.push(performance.now() - t0);
    cpu.push(process.cpuUsage(c0).user / 1000);
    sampleMemory();
  }
  const buildMs = median(times);
  const floorMs = touchEvents(dataset);
  const after = sampleMemory();
  console.log(
    `buildIndex: median ${ms(buildMs)} of ${runs} (runs ${times.map((t) => t.toFixed(0)).join(', ')} ms; ` +
      `cpu median ${ms(median(cpu))}) → ${Math.round(events / (buildMs / 1000)).toLocaleString('en')} events/s`,
  );
  console.log(`floor: reading tagID, email, date, device of every event once takes ${ms(floorMs)}`);
  console.log(
    `memory after build: rss ${mb(after.rss)}, heapUsed ${mb(after.heapUsed)}, ` +
      `arrayBuffers ${mb(after.arrayBuffers)} (index arrays live outside the heap)`,
  );
  const row = {
    events,
    buildMs,
    firstAnswersMs: 0,
    perEventNs: (buildMs * 1e6) / events,
    rate: events / (buildMs / 1000),
  };
  summary.push(row);

  const idx = index!;
  const admin = idx.callerOf(
    dataset.teams[0]!.members.find((m) => m.accountType === 'admin')!.memberID,
  )!;
  let cold = 0;
  let warm = 0;
  const rows: string[] = [];
  for (const request of requests(dataset)) {
    const t0 = performance.now();
    const first = idx.answer(admin, request);
    const t1 = performance.now();
    idx.answer(admin, request);
    const t2 = performance.now();
    cold += t1 - t0;
    warm += t2 - t1;
    rows.push(
      `  ${request.endpoint.padEnd(18)} first ${ms(t1 - t0).padStart(10)}  again ${ms(t2 - t1).padStart(10)}  ${size(first)}`,
    );
  }
  sampleMemory();
  row.firstAnswersMs = cold;
  console.log(`answer every endpoint once as admin: first ${ms(cold)}, again ${ms(warm)}`);
  for (const row of rows) console.log(row);
}

console.log(`\npeak rss ${mb(peakRss)}`);
if (summary.length > 1) {
  console.log('growth (build time per event; linear growth keeps it flat):');
  for (const s of summary) {
    console.log(
      `  ${s.events.toLocaleString('en').padStart(10)} events: ${s.perEventNs.toFixed(0).padStart(6)} ns/event, ` +
        `${Math.round(s.rate).toLocaleString('en')} events/s; build + first answers ${ms(s.buildMs + s.firstAnswersMs)}`,
    );
  }
}
