import { expect, test } from 'vitest';
import { LISTED_EXCHANGES } from '../src/report/html.ts';
import { toHtml } from '../src/report/index.ts';
import { DEFAULT_NUM_RUNS } from '../src/run/runner.ts';
import { runInMemory } from './helpers.ts';

/** 1 MB: what a passing run's report.html must stay under. */
const LIMIT_BYTES = 1_000_000;

test(`report.html of a passing run of the whole suite (fixture mode, ${DEFAULT_NUM_RUNS} runs per property, as pnpm demo) stays under 1 MB and lists its exchanges`, async () => {
  const result = await runInMemory({}, { numRuns: DEFAULT_NUM_RUNS });
  expect(result.ok).toBe(true);
  const html = toHtml(result);
  expect(Buffer.byteLength(html)).toBeLessThan(LIMIT_BYTES);
  // one line per exchange, up to the cap (the HAR export has them all)
  expect(html.match(/<tr id="x\d+">/g)).toHaveLength(
    Math.min(result.exchanges.length, LISTED_EXCHANGES),
  );
  expect(result.exchanges.length).toBeGreaterThan(1000);
}, 180_000);
