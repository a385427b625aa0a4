/**
 * Scale bench of the two engines behind `tagtrack-server` (issue "Serve from a real
 * database"), side by side on generated datasets of 1 M and 10 M events:
 *
 * - **postgres**: `tagtrack-server --database-url URL` over tables loaded beforehand into a
 *   database of the local PostgreSQL (`tagtrack_bench_<events>`), streamed from the bench's
 *   per-table NDJSON files by `copyTablesFromNdjson` (COPY, then the counters' refresh; both
 *   timed and reported, not part of the start time);
 * - **memory**: `tagtrack-server --dataset X.ttsnap`, the in-memory engine from its binary
 *   snapshot (written once per size by `--dataset dataset.json --write-snapshot`).
 *
 * For each: the time from spawning the server process to the first 200 (one request polled),
 * then, for an admin, a manager and a user of the first team, the latency of the first page
 * and a middle page (cursor at about half of `X-Total-Count`) of every list endpoint (1, 2, 4,
 * 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 17) and of the single ones (3, 14, 16): REQUESTS
 * sequential signed requests per cell over HTTP on 127.0.0.1, p50 and p99 (nearest rank)
 * and the slowest; the server process's RSS (VmRSS after the first answer and at the end,
 * VmHWM: its peak) from /proc. Each cell's body is hashed: `same` says whether both engines
 * sent the same bytes (both servers get the same `--public-url`).
 *
 * The datasets' files (packages/engine/bench/files.ts), snapshots and databases are made once
 * per size and reused. Results: a markdown table on stdout, and JSON plus markdown files in
 * the temp directory (their paths are printed). Goals of the issue, flagged in the table:
 * first answer < 1 s, admin list pages p99 < 100 ms, every request < 1 s, RSS < 200 MB.
 *
 *   pnpm --filter @tagtrack/server bench:engines
 *   TAGTRACK_BENCH_EVENTS=1e6         sizes, comma-separated (default 1e6,1e7)
 *   TAGTRACK_BENCH_ENGINES=postgres   engines, in this order (default memory,postgres: the
 *                                     middle page of a list the first engine could count)
 *   TAGTRACK_BENCH_ONLY=9,11          only these endpoint numbers (default all; `ingest`:
 *                                     the postgres ingestion alone)
 *   TAGTRACK_BENCH_REQUESTS=30        requests per cell (default 30); a cell stops early (at
 *                                     3 requests or more) once it has taken 20 s
 *   TAGTRACK_BENCH_DATABASE_URL=...   the server (default: scripts/postgres-cluster.sh url);
 *                                     the role must be allowed to CREATE DATABASE
 *   TAGTRACK_BENCH_CITUS_URL=...      engine `citus`: a database on a Citus coordinator
 *                                     (default: scripts/citus-cluster.sh url), loaded as for
 *                                     postgres and laid out by team (docs/sql.md §5); Citus
 *                                     does not propagate CREATE DATABASE, so each size
 *                                     reloads this one database
 *   TAGTRACK_BENCH_RELOAD=1           reload the database and rewrite the snapshot
 *   TAGTRACK_BENCH_INGEST=100,300     ingestion rates tried (records/s; default 100,300,1000;
 *                                     0: none), each for TAGTRACK_BENCH_INGEST_S seconds (30)
 *
 * **Ingestion** (postgres, after the other cells): for each rate, `tagtrack-server
 * --database-url URL --live RATE` appends tags, opens and clicks by INSERT (the database's
 * triggers keeping the counters) while the bench asks the admin's list pages (first pages of
 * 2, 6, 9, 11 and 15, sequentially, each missing the response cache); it reports the records
 * per second the database took (pg_stat_user_tables' inserted rows of tags, opens and clicks
 * over the window), whether that kept up with the rate, and the pages' p50/p99/max. The
 * appended rows stay: the database is marked to be loaded again by the next run.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { authorizationHeader } from '@tagtrack/core';
import { copyTablesFromNdjson, openPostgres, SQL_SCHEMA_VERSION } from '@tagtrack/engine';
import { benchFiles } from '../../../packages/engine/bench/files.ts';

const SIZES = (process.env.TAGTRACK_BENCH_EVENTS ?? '1e6,1e7').split(',').map((s) => {
  const n = Number(s.trim());
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`TAGTRACK_BENCH_EVENTS: '${s}' is not a positive whole number of events`);
  return n;
});
const ENGINES = (process.env.TAGTRACK_BENCH_ENGINES ?? 'memory,postgres').split(',').map((s) => {
  const e = s.trim();
  if (e !== 'postgres' && e !== 'memory' && e !== 'citus')
    throw new Error(`TAGTRACK_BENCH_ENGINES: '${e}' is not postgres, citus or memory`);
  return e;
});
const ONLY = process.env.TAGTRACK_BENCH_ONLY?.split(',').map((s) => s.trim());
const REQUESTS = Number(process.env.TAGTRACK_BENCH_REQUESTS ?? 30);
if (!Number.isSafeInteger(REQUESTS) || REQUESTS < 1)
  throw new Error('TAGTRACK_BENCH_REQUESTS must be a positive whole number');
const RELOAD = process.env.TAGTRACK_BENCH_RELOAD === '1';
/** Only load the databases and write the snapshots (no server is measured). */
const PREPARE_ONLY = process.env.TAGTRACK_BENCH_PREPARE_ONLY === '1';
/** A cell stops early once it has taken this long (with at least one sample). */
const CELL_BUDGET_MS = 20_000;
/** A request is given up after this long (its query cancelled): the cell's p99 is then `>` it. */
const TIMEOUT_MS = Number(process.env.TAGTRACK_BENCH_TIMEOUT_MS ?? 60_000);
const PAGE_SIZE = 250;
const INGEST_RATES = (process.env.TAGTRACK_BENCH_INGEST ?? '100,300,1000')
  .split(',')
  .map((x) => Number(x.trim()))
  .filter((x) => x > 0);
const INGEST_S = Number(process.env.TAGTRACK_BENCH_INGEST_S ?? 30);
const PUBLIC_URL = 'http://bench.test';
const GOALS = { firstAnswerMs: 1000, adminListP99Ms: 100, requestMs: 1000, rssMb: 200 };

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));
const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const MAIN = join(SERVER_DIR, 'src', 'main.ts');
const TSX = import.meta.resolve('tsx');

/** The database server's URL: the variable, or the local test cluster's. */
function serverUrl(): string {
  const given = process.env.TAGTRACK_BENCH_DATABASE_URL?.trim();
  if (given) return given;
  return execFileSync('bash', [join(REPO, 'scripts', 'postgres-cluster.sh'), 'url'], {
    encoding: 'utf8',
  }).trim();
}

/** `url` with its database (the path) replaced by `name`. */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

const ms = (t: number) => Math.round(t);
const mb = (kb: number) => Math.round(kb / 1024);

/** Reads the NDJSON rows of one (small) table file. */
function rows<T>(dir: string, table: string): T[] {
  return readFileSync(join(dir, `${table}.ndjson`), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}

interface Member {
  memberID: string;
  teamID: string;
  accountType: 'admin' | 'manager' | 'user';
  groupID: string | null;
}
interface Credential {
  authId: string;
  accessKey: string;
  memberID: string;
}

/** A bench caller: one credential and what its paths name. */
interface BenchCaller {
  readonly role: 'admin' | 'manager' | 'user';
  readonly authId: string;
  readonly accessKey: string;
  readonly memberID: string;
  /** The caller's group, or the team's first group for an admin without one. */
  readonly group: string;
}

/** An admin, a manager and a user of the first team, with a group when one has it. */
function benchCallers(dir: string): BenchCaller[] {
  const members = rows<Member>(dir, 'members');
  const credentials = rows<Credential>(dir, 'credentials');
  const groups = rows<{ teamID: string; groupID: string }>(dir, 'groups');
  const team = rows<{ teamID: string }>(dir, 'teams')[0]!.teamID;
  const firstGroup = groups.find((g) => g.teamID === team)!.groupID;
  return (['admin', 'manager', 'user'] as const).map((role) => {
    const ofRole = members.filter((m) => m.teamID === team && m.accountType === role);
    const m = ofRole.find((x) => x.groupID !== null) ?? ofRole[0];
    if (!m) throw new Error(`the first team has no ${role}`);
    const c = credentials.find((x) => x.memberID === m.memberID)!;
    return {
      role,
      authId: c.authId,
      accessKey: c.accessKey,
      memberID: m.memberID,
      group: m.groupID ?? firstGroup,
    };
  });
}

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** One signed GET; the status, body, `X-Total-Count` and the time to the last byte (ms). */
async function get(
  base: string,
  caller: BenchCaller,
  path: string,
  query: string,
  timeoutMs?: number,
): Promise<{ status: number; body: Buffer; total: number | null; ms: number }> {
  const t = performance.now();
  const res = await fetch(`${base}${path}${query ? `?${query}` : ''}`, {
    headers: { authorization: authorizationHeader(caller.authId, caller.accessKey, query) },
    ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
  });
  const body = Buffer.from(await res.arrayBuffer());
  const elapsed = performance.now() - t;
  const total = res.headers.get('x-total-count');
  return { status: res.status, body, total: total === null ? null : Number(total), ms: elapsed };
}

/** VmRSS and VmHWM of a process, in kB (0 when it is gone). */
function memory(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** A server process and what it printed on stderr (its last lines, for a failure). */
interface Spawned {
  readonly child: ChildProcess;
  readonly base: string;
  stderr: string;
}

function spawnServer(args: readonly string[], port: number): Spawned {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@tagtrack/source',
      '--import',
      TSX,
      MAIN,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--public-url',
      PUBLIC_URL,
      ...args,
    ],
    { cwd: SERVER_DIR, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const s: Spawned = { child, base: `http://127.0.0.1:${port}`, stderr: '' };
  child.stderr!.on('data', (d: Buffer) => {
    s.stderr = (s.stderr + d.toString()).slice(-2000);
  });
  return s;
}

async function stopServer(s: Spawned): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** Polls `GET /teams` as `caller` until a 200; milliseconds since `t0`. */
async function firstAnswer(s: Spawned, caller: BenchCaller, t0: number): Promise<number> {
  for (;;) {
    if (s.child.exitCode !== null)
      throw new Error(`the server exited with code ${s.child.exitCode}: ${s.stderr.trim()}`);
    try {
      const r = await get(s.base, caller, '/teams', UNCACHED);
      if (r.status === 200) return performance.now() - t0;
      throw new Error(`the first answer was ${r.status}: ${r.body.toString().slice(0, 200)}`);
    } catch (e) {
      if (!(e instanceof TypeError)) throw e; // fetch failed: not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One endpoint of the table: its number(s), path template, query, and whether it pages. */
interface Target {
  readonly n: string;
  readonly path: string;
  readonly query: string;
  readonly list: boolean;
}

const TARGETS: readonly Target[] = [
  { n: '1', path: '/teams', query: '', list: true },
  { n: '2', path: '/teams/tags', query: '', list: true },
  { n: '3', path: '/teams/member/{memberID}', query: '', list: false },
  { n: '4', path: '/teams/member/{memberID}/tags', query: '', list: true },
  { n: '5', path: '/teams/group/{group}', query: '', list: true },
  { n: '6', path: '/stats', query: '', list: true },
  { n: '7', path: '/teams/stats/group/{group}', query: '', list: true },
  { n: '8', path: '/teams/stats/member/{memberID}', query: '', list: true },
  { n: '9', path: '/clicks', query: '', list: true },
  { n: '10', path: '/clicks/tag/{tagID}', query: '', list: true },
  { n: '11', path: '/opens', query: '', list: true },
  { n: '12', path: '/opens/tag/{tagID}', query: '', list: true },
  { n: '13', path: '/stats', query: 'aggregateData=true', list: true },
  { n: '14', path: '/tags/daily/{tagID}', query: 'date={date}', list: false },
  { n: '15', path: '/contacts', query: '', list: true },
  { n: '16', path: '/contacts/{contactID}', query: '', list: false },
  { n: '17', path: '/contacts/tag/{tagID}', query: '', list: true },
];

/**
 * The records of the first page of list `path` for `caller` (an empty page, 204 or an empty
 * body, has none). Throws naming the path, the caller, the status and the start of the body
 * when the answer is not a 200 JSON body with a `data` array.
 */
async function firstPageRecords(
  base: string,
  caller: BenchCaller,
  path: string,
): Promise<Record<string, unknown>[]> {
  const r = await get(base, caller, path, UNCACHED);
  const text = r.body.toString();
  if (r.status === 204 || (r.status === 200 && text.trim() === '')) return [];
  const problem = (why: string) =>
    new Error(`${path} for the ${caller.role} ${why}: ${JSON.stringify(text.slice(0, 200))}`);
  if (r.status !== 200) throw problem(`answered ${r.status}`);
  let data: unknown;
  try {
    data = (JSON.parse(text) as { data?: unknown }).data;
  } catch {
    throw problem('answered a body that is not JSON');
  }
  if (!Array.isArray(data)) throw problem('answered no data array');
  return data as Record<string, unknown>[];
}

/**
 * The path parameters of one caller: its tag with the most events on its first tags page,
 * and the first contact of its first contacts page. A caller without tags (contacts) has no
 * `tagID` and `date` (`contactID`): the cells that need them are skipped, and said so.
 */
async function pathValues(base: string, caller: BenchCaller): Promise<Record<string, string>> {
  const tags = (await firstPageRecords(base, caller, '/teams/tags')) as {
    tagID: string;
    dateSent: string;
    stats: { totalOpens: number; totalClicks: number };
  }[];
  const events = (t: (typeof tags)[number]) => t.stats.totalOpens + t.stats.totalClicks;
  const busiest = tags.reduce<(typeof tags)[number] | undefined>(
    (a, b) => (a === undefined || events(b) > events(a) ? b : a),
    undefined,
  );
  const contact = (await firstPageRecords(base, caller, '/contacts'))[0] as
    | { contactID: string }
    | undefined;
  return {
    memberID: caller.memberID,
    group: encodeURIComponent(caller.group),
    ...(busiest === undefined ? {} : { tagID: busiest.tagID, date: busiest.dateSent.slice(0, 10) }),
    ...(contact === undefined ? {} : { contactID: contact.contactID }),
  };
}

/** Latencies of one cell, in ms. */
interface Cell {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly status: number;
  readonly sha: string;
  readonly cursor: number;
  readonly total: number | null;
  /** Requests given up after {@link TIMEOUT_MS} (counted in the percentiles as that long). */
  readonly timeouts: number;
}

/**
 * The query of the bench's own requests (the first answer, the path values): a cursor of 0
 * no measured request writes, so they leave nothing in the response cache a cell would hit.
 */
const UNCACHED = `cursor=${'0'.repeat(REQUESTS + 1)}`;

/** Cancels the SQL still running for a request the bench gave up (set while postgres runs). */
let cancelRunning: (() => Promise<void>) | undefined;

/**
 * The query of request `i` of a cell: the page's cursor written with `i` leading zeros
 * (`cursor=0`, `cursor=00`, ...; the profile reads the same number), so that each request
 * misses the server's response cache (keyed by the raw query) and asks the engine again;
 * request 0 of a first page sends no cursor.
 */
function cellQuery(query: string, i: number, cursor: number): string {
  if (i === 0 && cursor === 0) return query;
  const value = `${'0'.repeat(i)}${i > 0 && cursor === 0 ? '' : cursor}`;
  return query ? `${query}&cursor=${value}` : `cursor=${value}`;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

async function measure(
  base: string,
  caller: BenchCaller,
  path: string,
  query: string,
  cursor: number,
): Promise<Cell> {
  const times: number[] = [];
  const t0 = performance.now();
  let first: Awaited<ReturnType<typeof get>> | undefined;
  let timeouts = 0;
  while (times.length < REQUESTS && (times.length < 1 || performance.now() - t0 < CELL_BUDGET_MS)) {
    let r: Awaited<ReturnType<typeof get>>;
    try {
      r = await get(base, caller, path, cellQuery(query, times.length, cursor), TIMEOUT_MS);
    } catch (e) {
      if ((e as Error).name !== 'TimeoutError') throw e;
      timeouts++;
      times.push(TIMEOUT_MS);
      await cancelRunning?.();
      break;
    }
    first ??= r;
    times.push(r.ms);
  }
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    n: times.length,
    p50: round(percentile(times, 0.5)),
    p99: round(percentile(times, 0.99)),
    max: round(times.at(-1)!),
    status: first?.status ?? 0,
    sha: first ? createHash('sha1').update(first.body).digest('hex').slice(0, 12) : '',
    cursor,
    total: first?.total ?? null,
    timeouts,
  };
}

/** One row of the results: an endpoint, a caller, a page, and each engine's cell. */
interface Row {
  readonly endpoint: string;
  readonly caller: string;
  readonly page: 'first' | 'middle' | 'single';
  readonly cells: Partial<Record<string, Cell>>;
}

interface EngineRun {
  readonly engine: string;
  readonly firstAnswerMs: number;
  readonly rssAfterFirstMb: number;
  readonly rssEndMb: number;
  readonly peakRssMb: number;
  readonly requests: number;
  readonly wallS: number;
}

/** The engine measured beside `engine`. */
function otherEngine(engine: string): string {
  return engine === 'memory' ? 'postgres' : 'memory';
}

/** The Citus coordinator's database: the variable, or the local Citus cluster's. */
function citusUrl(): string {
  const given = process.env.TAGTRACK_BENCH_CITUS_URL?.trim();
  if (given) return given;
  return execFileSync('bash', [join(REPO, 'scripts', 'citus-cluster.sh'), 'url'], {
    encoding: 'utf8',
  }).trim();
}

/** Runs every cell against one server (spawned with `args`), filling `table`. */
async function runEngine(
  engine: string,
  args: readonly string[],
  callers: readonly BenchCaller[],
  table: Map<string, Row>,
): Promise<EngineRun> {
  const port = await freePort();
  const t0 = performance.now();
  const s = spawnServer(args, port);
  try {
    const firstAnswerMs = await firstAnswer(s, callers[0]!, t0);
    const afterFirst = memory(s.child.pid!);
    console.log(
      `  ${engine}: first answer after ${ms(firstAnswerMs)} ms, RSS ${mb(afterFirst.rss)} MB`,
    );
    const t1 = performance.now();
    let requests = 0;
    for (const caller of callers) {
      const values = await pathValues(s.base, caller);
      for (const target of TARGETS.filter((t) => ONLY === undefined || ONLY.includes(t.n))) {
        const missing = [...`${target.path}${target.query}`.matchAll(/\{(\w+)\}/g)]
          .map((m) => m[1]!)
          .filter((k) => values[k] === undefined);
        if (missing.length > 0) {
          console.log(
            `  ${engine}: ${target.n} ${target.path} skipped for the ${caller.role}: its first pages name no ${missing.join(', ')}`,
          );
          continue;
        }
        const path = target.path.replace(/\{(\w+)\}/g, (_, k: string) => values[k]!);
        const query = target.query.replace(/\{(\w+)\}/g, (_, k: string) => values[k]!);
        const at = (page: Row['page']) => {
          const key = `${target.n}|${caller.role}|${page}`;
          let row = table.get(key);
          if (!row) {
            row = {
              endpoint: `${target.n} ${target.path}${target.query ? `?${target.query}` : ''}`,
              caller: caller.role,
              page,
              cells: {},
            };
            table.set(key, row);
          }
          return row;
        };
        const first = await measure(s.base, caller, path, query, 0);
        requests += first.n;
        at(target.list ? 'first' : 'single').cells[engine] = first;
        if (!target.list) continue;
        // a first page that timed out: the total another engine found (the same data)
        const total = first.total ?? at('first').cells[otherEngine(engine)]?.total ?? 0;
        const middle = Math.floor(Math.floor((total - 1) / PAGE_SIZE) / 2) * PAGE_SIZE;
        if (middle > 0) {
          const cell = await measure(s.base, caller, path, query, middle);
          requests += cell.n;
          at('middle').cells[engine] = cell;
        }
      }
      process.stdout.write(`  ${engine}: ${caller.role} done\n`);
    }
    const end = memory(s.child.pid!);
    return {
      engine,
      firstAnswerMs: ms(firstAnswerMs),
      rssAfterFirstMb: mb(afterFirst.rss),
      rssEndMb: mb(end.rss),
      peakRssMb: mb(end.hwm),
      requests,
      wallS: Math.round((performance.now() - t1) / 1000),
    };
  } finally {
    await stopServer(s);
  }
}

/** One ingestion rate: what the database took and what the admin's pages cost meanwhile. */
interface IngestRow {
  readonly rate: number;
  /** Tags, opens and clicks inserted per second over the window (pg_stat_user_tables). */
  readonly recordsPerS: number;
  readonly keptUp: boolean;
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Rows inserted so far into tags, opens and clicks (the statistics' counters). */
async function insertedRecords(url: string): Promise<number> {
  const db = await openPostgres(url, 1);
  try {
    const [row] = await db.query<{ n: string }>(
      `SELECT coalesce(sum(n_tup_ins), 0) AS n FROM pg_stat_user_tables
       WHERE relname IN ('tags', 'opens', 'clicks')`,
    );
    return Number(row!.n);
  } finally {
    await db.close();
  }
}

/** Ingestion at each of {@link INGEST_RATES} against the database at `url` (see the module comment). */
async function measureIngestion(url: string, admin: BenchCaller): Promise<IngestRow[]> {
  const rows: IngestRow[] = [];
  const pages = ['/teams/tags', '/stats', '/clicks', '/opens', '/contacts'];
  for (const rate of INGEST_RATES) {
    const port = await freePort();
    const s = spawnServer(['--database-url', url, '--live', String(rate)], port);
    try {
      await firstAnswer(s, admin, performance.now());
      // the generator reads its base and starts appending: let it settle
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const before = await insertedRecords(url);
      const t0 = performance.now();
      const times: number[] = [];
      let i = 0;
      while (performance.now() - t0 < INGEST_S * 1000) {
        const path = pages[i % pages.length]!;
        const r = await get(s.base, admin, path, cellQuery('', (i % 50) + 1, 0), TIMEOUT_MS);
        if (r.status !== 200 && r.status !== 204)
          throw new Error(`${path} answered ${r.status} during ingestion`);
        times.push(r.ms);
        i++;
      }
      // the statistics are flushed about once a second
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const seconds = (performance.now() - t0) / 1000;
      const recordsPerS = Math.round(((await insertedRecords(url)) - before) / seconds);
      times.sort((a, b) => a - b);
      const round = (x: number) => Math.round(x * 10) / 10;
      const row = {
        rate,
        recordsPerS,
        keptUp: recordsPerS >= 0.9 * rate,
        n: times.length,
        p50: round(percentile(times, 0.5)),
        p99: round(percentile(times, 0.99)),
        max: round(times.at(-1)!),
      };
      console.log(
        `  ingestion at ${rate}/s: ${recordsPerS} records/s taken${row.keptUp ? '' : ' (fell behind)'}, admin pages p50 ${row.p50} ms, p99 ${row.p99} ms, max ${row.max} ms (${row.n} requests)`,
      );
      rows.push(row);
    } finally {
      await stopServer(s);
    }
  }
  // the appended rows stay: the next run loads the database again
  const db = await openPostgres(url, 1);
  try {
    await db.query("UPDATE tagtrack_meta SET value = 'appended' WHERE key = 'schema_version'");
  } finally {
    await db.close();
  }
  return rows;
}

function ingestMarkdown(rows: readonly IngestRow[]): string {
  if (rows.length === 0) return '';
  const out = [
    `Ingestion (\`--live RATE\` appending by INSERT, triggers keeping the counters; admin first pages of 2, 6, 9, 11, 15 asked meanwhile, ${INGEST_S} s per rate):`,
    '',
    '| rate (records/s) | taken (records/s) | kept up | admin pages p50 (ms) | p99 (ms) | max (ms) | n |',
    '| ---: | ---: | --- | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows)
    out.push(
      `| ${r.rate} | ${r.recordsPerS} | ${r.keptUp ? 'yes' : 'no'} | ${r.p50} | ${r.p99}${r.p99 >= GOALS.adminListP99Ms ? ' ✗' : ''} | ${r.max} | ${r.n} |`,
    );
  const sustained = rows.filter((r) => r.keptUp && r.p99 < GOALS.adminListP99Ms).at(-1);
  out.push(
    '',
    sustained
      ? `Sustained: ${sustained.recordsPerS} records/s with the admin pages' p99 at ${sustained.p99} ms.`
      : 'Sustained: no rate tried kept up with the admin pages p99 under 100 ms.',
    '',
  );
  return out.join('\n');
}

/** Loads the size's NDJSON files into `tagtrack_bench_<events>` unless it holds them already. */
async function prepareDatabase(
  server: string,
  events: number,
  dir: string,
  expectedEvents: number,
  citus = false,
): Promise<{ url: string; load: Record<string, unknown> }> {
  const name = citus ? new URL(server).pathname.slice(1) : `tagtrack_bench_${events}`;
  const url = citus ? server : withDatabase(server, name);
  if (!citus) {
    const admin = await openPostgres(server, 1);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.length === 0) await admin.exec(`CREATE DATABASE ${name}`);
    } finally {
      await admin.close();
    }
  }
  const record = join(dir, `${citus ? 'citus' : 'postgres'}-load-${name}.json`);
  const db = await openPostgres(url, 2);
  try {
    if (!RELOAD && existsSync(record)) {
      const have = await db
        .query<{ n: string; version: string | null }>(
          `SELECT (SELECT count(*) FROM opens) + (SELECT count(*) FROM clicks) AS n,
                  (SELECT value FROM tagtrack_meta WHERE key = 'schema_version') AS version`,
        )
        .catch(() => [{ n: '-1', version: null }]);
      // tables of another version of the engine's SQL are loaded again
      if (Number(have[0]!.n) === expectedEvents && have[0]!.version === SQL_SCHEMA_VERSION) {
        console.log(`  postgres: ${name} already loaded (load times from ${record})`);
        return { url, load: { ...JSON.parse(readFileSync(record, 'utf8')), reused: true } };
      }
    }
    console.log(`  postgres: loading ${dir} into ${name} (COPY from NDJSON, then refresh)`);
    const r = await copyTablesFromNdjson(db, dir);
    const size = await db.query<{ size: string }>(
      'SELECT pg_size_pretty(pg_database_size(current_database())) AS size',
    );
    const load = {
      database: name,
      schemaVersion: SQL_SCHEMA_VERSION,
      copyS: Math.round(r.copyMs / 100) / 10,
      refreshS: Math.round(r.refreshMs / 100) / 10,
      rows: r.rows,
      databaseSize: size[0]!.size,
      at: new Date().toISOString(),
    };
    await writeFile(record, `${JSON.stringify(load, null, 2)}\n`);
    console.log(
      `  postgres: COPY ${load.copyS} s, refresh ${load.refreshS} s, ${load.databaseSize}`,
    );
    return { url, load };
  } finally {
    await db.close();
  }
}

/** Writes the size's snapshot through the CLI (`--write-snapshot`) unless it exists. */
async function prepareSnapshot(json: string, dir: string): Promise<Record<string, unknown>> {
  const path = join(dir, 'server.ttsnap');
  if (!RELOAD && existsSync(path)) return { path, bytes: statSync(path).size, reused: true };
  const port = await freePort();
  const t0 = performance.now();
  const s = spawnServer(['--dataset', json, '--write-snapshot', path], port);
  try {
    await firstAnswerAnyone(s);
  } finally {
    await stopServer(s);
  }
  const writeS = Math.round((performance.now() - t0) / 100) / 10;
  console.log(`  memory: snapshot written in ${writeS} s (${path})`);
  return { path, bytes: statSync(path).size, writeS };
}

/** Waits until the server answers anything (a snapshot is written before it listens). */
async function firstAnswerAnyone(s: Spawned): Promise<void> {
  for (;;) {
    if (s.child.exitCode !== null)
      throw new Error(`the server exited with code ${s.child.exitCode}: ${s.stderr.trim()}`);
    try {
      await fetch(`${s.base}/openapi.json`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function markdown(
  events: number,
  runs: readonly EngineRun[],
  rowsOut: readonly Row[],
  engines: readonly string[],
): string {
  const out: string[] = [];
  out.push(`### ${events.toLocaleString('en')} events`, '');
  out.push(
    '| engine | first answer (ms) | RSS after first (MB) | RSS at end (MB) | peak RSS (MB) | requests | wall (s) |',
  );
  out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of runs) {
    const flag = (ok: boolean) => (ok ? '' : ' ✗');
    out.push(
      `| ${r.engine} | ${r.firstAnswerMs}${flag(r.firstAnswerMs < GOALS.firstAnswerMs)} | ${r.rssAfterFirstMb} | ${r.rssEndMb} | ${r.peakRssMb}${flag(r.peakRssMb < GOALS.rssMb)} | ${r.requests} | ${r.wallS} |`,
    );
  }
  out.push('');
  const head = engines.flatMap((e) => [`${e} p50`, `${e} p99`, `${e} max`]);
  out.push(`| endpoint | caller | page (cursor/total) | ${head.join(' | ')} | n | same |`);
  out.push(`| --- | --- | --- | ${head.map(() => '---:').join(' | ')} | ---: | --- |`);
  for (const row of rowsOut) {
    const any = engines.map((e) => row.cells[e]).find((c) => c !== undefined)!;
    const page =
      row.page === 'single' ? 'single' : `${row.page} (${any.cursor}/${any.total ?? '?'})`;
    const vals = engines.flatMap((e) => {
      const c = row.cells[e];
      if (!c) return ['', '', ''];
      const goal =
        row.caller === 'admin' && row.page !== 'single' ? GOALS.adminListP99Ms : GOALS.requestMs;
      const bad = c.status >= 300 && c.status !== 204 ? ` (${c.status || 'no answer'})` : '';
      const over = (x: number) => (c.timeouts > 0 && x >= TIMEOUT_MS ? `>${TIMEOUT_MS}` : `${x}`);
      return [
        over(c.p50),
        `${over(c.p99)}${c.p99 >= goal ? ' ✗' : ''}${bad}`,
        `${over(c.max)}${c.max >= GOALS.requestMs ? ' ✗' : ''}`,
      ];
    });
    const shas = engines.map((e) => row.cells[e]?.sha).filter((x) => x !== undefined && x !== '');
    const same = shas.length < 2 ? '' : shas.every((x) => x === shas[0]) ? 'yes' : 'NO';
    const n = engines.map((e) => row.cells[e]?.n ?? '-').join('/');
    out.push(
      `| ${row.endpoint} | ${row.caller} | ${page} | ${vals.join(' | ')} | ${n} | ${same} |`,
    );
  }
  out.push('');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------

const pgUrl = ENGINES.includes('postgres') ? serverUrl() : undefined;
let pgVersion = '(not used)';
if (pgUrl !== undefined) {
  try {
    const db = await openPostgres(pgUrl, 1);
    pgVersion = (await db.query<{ v: string }>("SELECT current_setting('server_version') AS v"))[0]!
      .v;
    await db.close();
  } catch (e) {
    console.log(
      `no usable PostgreSQL at ${redact(pgUrl)} (${(e as Error).message}): SQL engine skipped`,
    );
    ENGINES.splice(ENGINES.indexOf('postgres'), 1);
  }
}
const machine = `${cpus().length}-core ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}, PostgreSQL ${pgVersion}`;
console.log(`machine: ${machine}`);
console.log(
  `sizes ${SIZES.join(', ')}; engines ${ENGINES.join(', ')}; ${REQUESTS} requests per cell; page size ${PAGE_SIZE}`,
);

const report: Record<string, unknown>[] = [];
const sections: string[] = [
  '## tagtrack-server engines at scale',
  '',
  `machine: ${machine}; ${REQUESTS} sequential requests per cell over HTTP on 127.0.0.1 (each request's cursor written with one more leading zero, so every request misses the response cache and reaches the engine; a cell stops after 20 s: n; a request is given up after ${TIMEOUT_MS / 1000} s: >); p99 is nearest-rank (of 30 samples, the slowest); ✗ marks a missed goal (first answer < 1 s, admin list pages p99 < 100 ms, every request < 1 s, RSS < 200 MB); same: both engines sent identical bodies.`,
  '',
];
const started = new Date().toISOString();
for (const events of SIZES) {
  console.log(`\n== ${events} events ==`);
  const files = await benchFiles(events);
  const expected = Number(readFileSync(join(files.dir, '.complete'), 'utf8'));
  const callers = benchCallers(files.dir);
  const table = new Map<string, Row>();
  const runs: EngineRun[] = [];
  let load: Record<string, unknown> | undefined;
  let citusLoad: Record<string, unknown> | undefined;
  let snapshot: Record<string, unknown> | undefined;
  let ingest: IngestRow[] = [];
  for (const engine of ENGINES) {
    if (engine === 'postgres' || engine === 'citus') {
      const citus = engine === 'citus';
      const server = citus ? citusUrl() : pgUrl!;
      const db = await prepareDatabase(server, events, files.dir, expected, citus);
      if (citus) citusLoad = db.load;
      else load = db.load;
      if (PREPARE_ONLY) continue;
      const database = new URL(db.url).pathname.slice(1);
      cancelRunning = async () => {
        const admin = await openPostgres(server, 1);
        try {
          await admin.query(
            `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
             WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()`,
            [database],
          );
        } finally {
          await admin.close();
        }
      };
      // TAGTRACK_BENCH_ONLY=ingest: the ingestion alone
      if (ONLY?.join(',') !== 'ingest')
        runs.push(await runEngine(engine, ['--database-url', db.url], callers, table));
      cancelRunning = undefined;
      // ingestion through the upkeep triggers: one server only (Citus has none: docs/sql.md §5)
      if (!citus && INGEST_RATES.length > 0) ingest = await measureIngestion(db.url, callers[0]!);
    } else {
      snapshot = await prepareSnapshot(files.json, files.dir);
      if (PREPARE_ONLY) continue;
      runs.push(await runEngine('memory', ['--dataset', snapshot.path as string], callers, table));
    }
  }
  const rowsOut = [...table.values()];
  const md = [
    markdown(events, runs, rowsOut, ENGINES),
    load
      ? `PostgreSQL load (not in the start time): COPY of the NDJSON files ${load.copyS} s, counters' refresh ${load.refreshS} s, database ${load.databaseSize}${load.reused ? ' (measured when first loaded)' : ''}.`
      : '',
    citusLoad
      ? `Citus load (not in the start time; a coordinator and two workers on this machine), as copyTablesFromNdjson times it: COPY ${citusLoad.copyS} s, then ${citusLoad.refreshS} s${citusLoad.reused ? ' (measured when first loaded)' : ''}.`
      : '',
    snapshot
      ? `Snapshot: ${Math.round((snapshot.bytes as number) / 1e6)} MB${snapshot.writeS !== undefined ? `, written in ${snapshot.writeS} s (from the JSON, through the CLI)` : ''}.`
      : '',
    '',
    ingestMarkdown(ingest),
  ].join('\n');
  console.log(`\n${md}`);
  sections.push(md);
  report.push({ events, machine, runs, load, citusLoad, snapshot, ingest, rows: rowsOut });
}
sections.push(`load average (1 min) at the end: ${loadavg()[0]!.toFixed(2)}`);
const stamp = started.replace(/[:.]/g, '-');
const jsonPath = join(tmpdir(), `tagtrack-bench-engines-${stamp}.json`);
const mdPath = join(tmpdir(), `tagtrack-bench-engines-${stamp}.md`);
await writeFile(
  jsonPath,
  `${JSON.stringify({ started, machine, requests: REQUESTS, sizes: report }, null, 2)}\n`,
);
await writeFile(mdPath, `${sections.join('\n')}\n`);
console.log(`results: ${mdPath}\n         ${jsonPath}`);
