import { expect, test } from 'vitest';
import { toHtml } from '../src/reporters/index.ts';
import { DEFAULT_NUM_RUNS } from '../src/runner.ts';
import { runInMemory } from './helpers.ts';

/** 1 MB: what a passing run's report.html must stay under (issue 12). */
const LIMIT_BYTES = 1_000_000;

test(`report.html of a passing run of the whole suite (fixture mode, ${DEFAULT_NUM_RUNS} runs per property, as pnpm demo) stays under 1 MB and lists every exchange`, async () => {
  const result = await runInMemory({}, { numRuns: DEFAULT_NUM_RUNS });
  expect(result.ok).toBe(true);
  const html = toHtml(result);
  expect(Buffer.byteLength(html)).toBeLessThan(LIMIT_BYTES);
  expect(html.match(/<tr id="x\d+">/g)).toHaveLength(result.exchanges.length);
  expect(result.exchanges.length).toBeGreaterThan(1000);
}, 180_000);
