import type { FaultName } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { SEEDS } from './fault-matrix.ts';
import { blindFaults, type LiveCaller, liveFaultRun, liveRun } from './live-runs.ts';

/**
 * The budgeted sample of `pnpm live-sweep` (scripts/live-sweep.ts, which runs all of it):
 * the suite blind against the live reference server (tags, opens and clicks appended at
 * `rate` records per second while it reads, spec §5 Revision 3), in memory, appending
 * what is due before each answer.
 *
 * - Whole runs at 1 and 10 records per second, seed 1, as team1-admin, and at 1 with the
 *   canonical profile's twelve credentials: no check fails on data that moves.
 * - Six faults of the fault matrix, one or two per layer, each caught at 10 records per
 *   second (and one at 1) by one of the ids it declares for blind mode, narrowed to them as
 *   the matrix does: detection survives moving data.
 */

/** fast-check runs per property of the whole runs (the sweep uses 5). */
const NUM_RUNS = 2;

/**
 * The live server's clock moves 2 ms per request the suite sends (as if it sent 500 a second,
 * about an idle machine's pace in memory), not with the wall clock: the records appended per
 * request, and so the verdicts, are the same on a busy machine (`pnpm live-sweep` uses the
 * wall clock).
 */
const MS_PER_REQUEST = 2;

/** Whole runs: rate, caller. */
const RUNS: readonly { rate: number; caller: LiveCaller }[] = [
  { rate: 1, caller: 'team1-admin' },
  { rate: 10, caller: 'team1-admin' },
  { rate: 1, caller: 'canonical' },
];

/**
 * The sampled faults, by layer: comparisons of a whole check (stats against the tags'
 * counters), of one call in two formats, of a query and its equivalent, of a walk's paging
 * URLs, of a rendered table, and of a signature. The first is also run at 1 record per second.
 */
const SAMPLE: readonly FaultName[] = [
  'unique-opens-as-total',
  'tables-ignore-window',
  'undecodable-ignored-param-400',
  'paging-url-sorted-params',
  'html-unescaped',
  'cursor-not-signed',
];

describe('against the live reference server (createServer({ live }))', () => {
  test.each(RUNS)(
    'rate $rate/s, seed 1, blind as $caller: no check fails',
    async ({ rate, caller }) => {
      const row = await liveRun({
        rate,
        seed: 1,
        caller,
        numRuns: NUM_RUNS,
        msPerRequest: MS_PER_REQUEST,
      });
      console.log(
        `live rate ${rate}/s seed 1 as ${caller}: ${row.appended} records appended, ${row.checks} checks, ` +
          `${row.passed} passed, ${row.failed} failed, ${row.inconclusive} inconclusive, ${row.errors} errors; ` +
          `${row.rerunChecks} checks ran again (${row.reruns} runs); ${row.requests} requests (${row.watermarkRequests} watermark)` +
          row.problems.map((p) => `\n  ${p}`).join(''),
      );
      expect(row.checks).toBeGreaterThan(50);
      expect(row.failed, row.problems.join('\n')).toBe(0);
      expect(row.errors, row.problems.join('\n')).toBe(0);
    },
  );

  test('the paging walks and SCOPE-CACHE-PER-CALLER confirm still data per walk: at 10 records/s they conclude (pass), none inconclusive', async () => {
    // one check at a time, the clock moving 20 ms per request (a remote service answering 50
    // requests a second): each check's reads meet the same appends on every machine, one
    // every 5 requests, and a whole check spans hundreds of requests, so only a confirmation
    // per walk (per property run, per pair) concludes; rerunning whole checks, all four ended
    // inconclusive here
    const ids = [
      'PAGE-CURSOR-ARITHMETIC',
      'PAGE-WALK-NEXT-URL',
      'PAGE-TOTAL-NEXT-IGNORED',
      'SCOPE-CACHE-PER-CALLER',
    ];
    const row = await liveRun({
      rate: 10,
      seed: 1,
      caller: 'canonical',
      numRuns: 5,
      msPerRequest: 20,
      only: ids.join(','),
      concurrency: 1,
    });
    console.log(
      `paging walks at 10/s: ${row.appended} records appended, ${row.rerunChecks} checks ran again, ${row.requests} requests (${row.watermarkRequests} watermark)${row.problems.map((p) => `\n  ${p}`).join('')}`,
    );
    expect(row.appended).toBeGreaterThan(20);
    expect(Object.fromEntries(ids.map((id) => [id, row.statuses[id]]))).toEqual(
      Object.fromEntries(ids.map((id) => [id, 'pass'])),
    );
  });

  test('the sampled faults come from five layers and are all caught by blind mode on still data', async () => {
    const areas = new Set(
      SAMPLE.map((name) => blindFaults().find((f) => f.name === name)?.area ?? 'not blind'),
    );
    expect([...areas].sort()).toEqual(['auth', 'paging', 'params', 'render', 'store']);
    const still = await Promise.all(
      SAMPLE.map(
        async (fault) => (await liveFaultRun({ fault, rate: undefined, seed: SEEDS[0] }))!,
      ),
    );
    expect(still.filter((r) => !r.caught).map((r) => r.fault)).toEqual([]);
  });

  test.each([...SAMPLE.map((fault) => ({ fault, rate: 10 })), { fault: SAMPLE[0]!, rate: 1 }])(
    'fault $fault at $rate records/s: blind mode still fails one of its declared ids',
    async ({ fault, rate }) => {
      const row = (await liveFaultRun({
        fault,
        rate,
        seed: SEEDS[0],
        msPerRequest: MS_PER_REQUEST,
      }))!;
      console.log(
        `fault ${fault} at ${rate}/s: ${row.caught ? 'caught' : 'MISSED'} (failing ${row.failed.join(', ') || 'none'}), ` +
          `${row.appended} appended, ${row.rerunChecks} ran again, ${row.requests} requests` +
          row.problems.map((p) => `\n  ${p}`).join(''),
      );
      expect(row.errors).toEqual([]);
      expect(row.caught, `declared ${row.declared.join(', ')}: ${row.problems.join('; ')}`).toBe(
        true,
      );
    },
  );
});
