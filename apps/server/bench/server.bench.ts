/**
 * HTTP benchmark of the reference server: autocannon (load generated in a worker thread)
 * against an in-process server over a `large` generated dataset (>= 1M events), 64
 * connections, 10 s per endpoint, signed as the first team's admin.
 * Target (issue "Reference server"): p99 latency < 20 ms.
 *
 * Columns: autocannon's req/s and latency against the server; the "ceiling" of the same
 * autocannon setup against a bare node:http server replaying the identical response bytes
 * (what the load generator itself can absorb); and the server's in-memory service time.
 *
 *   pnpm --filter @tagtrack/server bench
 *   (BENCH_DURATION=3 for a quick run; BENCH_ONLY=/stats for the endpoints with that path prefix)
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { authorizationHeader, type Caller } from '@tagtrack/core';
import { generateDataset } from '@tagtrack/dataset';
import autocannon from 'autocannon';
import { createServer } from '../src/index.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 64;
const P99_TARGET_MS = 20;

function mb(bytes: number): string {
  return `${Math.round(bytes / 1e6)} MB`;
}

let t0 = performance.now();
const dataset = generateDataset({ seed: 1, scale: 'large' });
const events = dataset.opens.length + dataset.clicks.length;
console.log(
  `dataset: large, seed 1: ${dataset.tags.length} tags, ${events} events (generated in ${Math.round(performance.now() - t0)} ms)`,
);
t0 = performance.now();
const server = createServer({ dataset });
console.log(
  `index built in ${Math.round(performance.now() - t0)} ms, RSS ${mb(process.memoryUsage().rss)}`,
);

const team = dataset.teams[0]!;
const adminMember = team.members.find((m) => m.accountType === 'admin')!;
const cred = dataset.credentials.find((c) => c.memberID === adminMember.memberID)!;
const caller: Caller = {
  memberID: adminMember.memberID,
  teamID: team.teamID,
  accountType: 'admin',
};
const busiest = server
  .index!.tags(caller, {})!
  .reduce((a, b) => (b.stats.totalOpens > a.stats.totalOpens ? b : a));

const base = await server.listen(0, '127.0.0.1');
const only = process.env.BENCH_ONLY;
const targets = (
  [
    ['/teams/tags', ''],
    ['/stats', 'aggregateData=true'],
    ['/contacts', ''],
    [`/opens/tag/${busiest.tagID}`, ''],
  ] as [string, string][]
).filter(([path]) => only === undefined || path.startsWith(only));

/**
 * Service time of the server alone: `server.fetch` in memory, one request at a time, no
 * socket and no load generator competing for the CPU. Percentiles in milliseconds.
 */
async function serviceTime(path: string, query: string): Promise<{ p50: number; p99: number }> {
  const headers = { authorization: authorizationHeader(cred.authId, cred.accessKey, query) };
  const url = `http://bench.test${path}${query ? `?${query}` : ''}`;
  const times: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    const res = await server.fetch(new Request(url, { headers }));
    await res.arrayBuffer();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.floor(q * (times.length - 1))]! * 1000) / 1000;
  return { p50: at(0.5), p99: at(0.99) };
}

/**
 * The load generator's own ceiling for a response: a bare `node:http` server replaying the
 * exact bytes and headers the reference server sent, under the same autocannon settings.
 * autocannon's worker decodes every body, so large non-ASCII JSON bodies (subjects and
 * names in many scripts) cap the request rate whatever the server does.
 */
async function ceiling(path: string, query: string): Promise<autocannon.Result> {
  const headers = { authorization: authorizationHeader(cred.authId, cred.accessKey, query) };
  const res = await server.fetch(
    new Request(`http://bench.test${path}${query ? `?${query}` : ''}`, { headers }),
  );
  const body = new Uint8Array(await res.arrayBuffer());
  const sent: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    sent[name] = value;
  });
  const replay = createHttpServer((_req, out) => {
    out.writeHead(200, sent);
    out.end(body);
  });
  await new Promise<void>((resolve) => replay.listen(0, '127.0.0.1', resolve));
  const { port } = replay.address() as AddressInfo;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: CONNECTIONS,
    duration: Math.max(2, Math.round(DURATION_S / 2)),
    workers: 1,
  });
  replay.closeAllConnections();
  replay.close();
  return result;
}

interface Row {
  endpoint: string;
  'req/s': number;
  'p50 ms': number;
  'p99 ms': number;
  'ceiling req/s': number;
  'ceiling p99 ms': number;
  'service p50 ms': number;
  'service p99 ms': number;
  errors: number;
  non2xx: number;
  RSS: string;
}
const rows: Row[] = [];
for (const [path, query] of targets) {
  const url = `${base}${path}${query ? `?${query}` : ''}`;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    workers: 1,
    headers: { authorization: authorizationHeader(cred.authId, cred.accessKey, query) },
  });
  const service = await serviceTime(path, query);
  const bare = await ceiling(path, query);
  rows.push({
    endpoint: `${path}${query ? `?${query}` : ''}`.replace(busiest.tagID, '{tagID}'),
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'ceiling req/s': Math.round(bare.requests.average),
    'ceiling p99 ms': bare.latency.p99,
    'service p50 ms': service.p50,
    'service p99 ms': service.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    RSS: mb(process.memoryUsage().rss),
  });
}
await server.close();

console.table(rows);
console.log(
  `load average (1 min) at the end: ${loadavg()[0]!.toFixed(2)} on ${cpus().length} CPUs`,
);
const missed = rows.filter((r) => r['p99 ms'] >= P99_TARGET_MS || r.errors > 0 || r.non2xx > 0);
console.log(
  missed.length === 0
    ? `all endpoints: p99 < ${P99_TARGET_MS} ms, no errors`
    : `MISSED (p99 >= ${P99_TARGET_MS} ms or errors): ${missed.map((r) => r.endpoint).join(', ')}`,
);
