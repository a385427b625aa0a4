/**
 * The one place the test run's fast-check settings are made (every project lists this file in
 * `setupFiles`). A property's own `numRuns` or `seed` overrides them, so a file sets one only
 * where its cost demands it (a property that builds a database per run).
 *
 * - `numRuns`: 100 runs per property in `pnpm test`, 10 in `pnpm test:fast`
 *   (`TAGTRACK_TEST_TIER=fast`); `FC_NUM_RUNS=N` overrides either.
 * - `seed`: fast-check's own (a new one each run, printed with the path of any failure) unless
 *   `FC_SEED=N` fixes it: `FC_SEED=N FC_NUM_RUNS=M npx vitest run FILE -t NAME` replays a
 *   reported failure (CONTRIBUTING.md, "Tests").
 */
import fc from 'fast-check';

/** A non-negative integer from the environment variable `name`, or undefined when unset. */
function intFromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  }
  return n;
}

const fast = process.env.TAGTRACK_TEST_TIER === 'fast';
const seed = intFromEnv('FC_SEED');
fc.configureGlobal({
  ...fc.readConfigureGlobal(),
  numRuns: intFromEnv('FC_NUM_RUNS') ?? (fast ? 10 : 100),
  ...(seed === undefined ? {} : { seed }),
});
