/**
 * Benchmark of a full fixture-mode run with the default num-runs against the reference
 * server over a real socket on 127.0.0.1: wall time, requests sent and cache hits.
 * Target: under 60 s. Run with `pnpm bench` (or `pnpm --filter @tagtrack/conformance bench`).
 */
import { createServer } from '@tagtrack/server';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import { DEFAULT_NUM_RUNS, runConformance } from '../src/run/runner.ts';

const TARGET_MS = 60_000;
const server = createServer();
const baseUrl = await server.listen(0, '127.0.0.1');
try {
  const t0 = performance.now();
  const result = await runConformance({
    baseUrl,
    profile: canonicalProfile(),
    mode: 'fixture',
    seed: 1,
  });
  const ms = Math.round(performance.now() - t0);
  const perRequest = (ms / result.requests.sent).toFixed(2);
  console.log(
    `full fixture run, ${DEFAULT_NUM_RUNS} runs per property: ${result.checks.length} checks ` +
      `(${result.summary.pass} pass, ${result.summary.fail} fail, ${result.summary.error} error, ${result.summary.skip} skip) ` +
      `in ${ms} ms; ${result.requests.sent} requests sent (${perRequest} ms each), ${result.requests.cacheHits} served from the run cache`,
  );
  if (!result.ok) throw new Error('the reference server did not pass');
  if (ms > TARGET_MS) throw new Error(`full run took ${ms} ms, target ${TARGET_MS} ms`);
} finally {
  await server.close();
}
