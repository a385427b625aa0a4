/**
 * Benchmark of a full fixture-mode run against a slow service: the reference server answers
 * every request 200 ms late (in memory, through `server.fetch`, so the delay is the only
 * cost of the network). Prints, per concurrency, the wall time, requests sent and the
 * slowest checks (the critical path). Target: under 60 s at concurrency 16.
 *
 * Run: `npx tsx --conditions=@tagtrack/source bench/latency.bench.ts [concurrency ...]`
 * from conformance/ (default: 16 then 1; the run at 1 takes several minutes).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer } from '@tagtrack/server';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import { DEFAULT_NUM_RUNS, runConformance } from '../src/run/runner.ts';

const LATENCY_MS = 200;
const TARGET_MS = 60_000;
const BASE_URL = 'http://tagtrack.memory';
const levels = process.argv.slice(2).map(Number);

for (const concurrency of levels.length > 0 ? levels : [16, 1]) {
  const server = createServer({ publicUrl: BASE_URL });
  try {
    const t0 = performance.now();
    const result = await runConformance({
      baseUrl: BASE_URL,
      fetch: async (request) => {
        await sleep(LATENCY_MS);
        return server.fetch(request);
      },
      profile: canonicalProfile(),
      mode: 'fixture',
      seed: 1,
      concurrency,
      // the one check that needs a socket waits for its timeout in memory
      exclude: 'AUTH-HEADER-NAME-ANY-CASE',
    });
    const ms = Math.round(performance.now() - t0);
    const slowest = [...result.checks]
      .sort((a, b) => b.durationMs - a.durationMs)
      .slice(0, 5)
      .map((c) => `${c.id} ${(c.durationMs / 1000).toFixed(1)} s`);
    console.log(
      `${LATENCY_MS} ms per response, concurrency ${concurrency}, ${DEFAULT_NUM_RUNS} runs per property: ` +
        `${result.checks.length} checks (${result.summary.pass} pass, ${result.summary.fail} fail, ` +
        `${result.summary.error} error, ${result.summary.skip} skip) in ${(ms / 1000).toFixed(1)} s; ` +
        `${result.requests.sent} requests sent, ${result.requests.cacheHits} from the run cache; ` +
        `slowest: ${slowest.join(', ')}`,
    );
    if (!result.ok) throw new Error('the reference server did not pass');
    if (concurrency >= 16 && ms > TARGET_MS)
      console.log(`over the target: ${ms} ms > ${TARGET_MS} ms at concurrency ${concurrency}`);
  } finally {
    await server.close();
  }
}
