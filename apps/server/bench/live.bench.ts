/**
 * The cost of a version swap of the live data (`--live`, src/live.ts): appending a batch of
 * records and building the new version (core's index, the store, the application), on the
 * canonical dataset and on generated ones, and the first answers after a swap (the index's
 * lazy parts and the caches start cold in every version).
 *
 * Run: `node --conditions=@tagtrack/source --import tsx bench/live.bench.ts [scale...]`
 * (default scales: canonical and medium; seed 1). The clock is controlled: each tick adds
 * 250 ms, i.e. 12 or 13 records at 50 records/s.
 */
import { authorizationHeader, type Dataset } from '@tagtrack/core';
import { generateDataset } from '@tagtrack/dataset';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { createServer, type ServerOptions } from '../src/index.ts';

const RATE = 50;
const STEP_MS = 250;
const TICKS = 20;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

async function bench(label: string, dataset: Dataset, extra: ServerOptions = {}): Promise<void> {
  let now = Date.parse('2026-03-01T12:00:00Z');
  const server = createServer({
    ...extra,
    dataset,
    live: { rate: RATE, seed: 1, clock: () => now },
  });
  const team = dataset.teams[0]!;
  const admin = dataset.credentials.find((c) => c.memberID === team.members[0]!.memberID)!;
  const ask = async (path: string, query: string) => {
    const t0 = performance.now();
    const res = await server.fetch(
      new Request(`http://bench.test${path}?${query}`, {
        headers: { Authorization: authorizationHeader(admin.authId, admin.accessKey, query) },
      }),
    );
    await res.arrayBuffer();
    return performance.now() - t0;
  };
  const swap: number[] = [];
  const stats: number[] = [];
  const tags: number[] = [];
  for (let i = 0; i < TICKS; i++) {
    now += STEP_MS;
    const t0 = performance.now();
    server.live!.tick();
    swap.push(performance.now() - t0);
    stats.push(await ask('/stats', 'aggregateData=true'));
    tags.push(await ask('/teams/tags', 'cursor=0'));
  }
  await server.close();
  const events = dataset.opens.length + dataset.clicks.length;
  console.log(
    `${label} (${events} events, ${dataset.tags.length} tags): swap (append ${(RATE * STEP_MS) / 1000} records + build) median ${median(swap).toFixed(1)} ms, max ${Math.max(...swap).toFixed(1)} ms; first /stats after a swap ${median(stats).toFixed(1)} ms; first /teams/tags page ${median(tags).toFixed(1)} ms`,
  );
}

const scales = process.argv.slice(2);
for (const scale of scales.length > 0 ? scales : ['canonical', 'medium']) {
  const dataset =
    scale === 'canonical'
      ? canonicalDataset
      : generateDataset({ seed: 1, scale: scale as 'tiny' | 'small' | 'medium' | 'large' });
  await bench(scale, dataset);
  await bench(`${scale} with --fault tablet-not-mobile`, dataset, {
    faults: ['tablet-not-mobile'],
  });
}
