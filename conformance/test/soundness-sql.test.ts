import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  arbSoundnessConfig,
  runSoundness,
  type SoundnessConfig,
  type SoundnessEngine,
  type SoundnessOutcome,
  soundnessDatabaseUrl,
} from './soundness.ts';

/**
 * The suite against the reference server answering from SQL (issue 23): the SQL engine on
 * embedded PGlite, and on the PostgreSQL server of TAGTRACK_TEST_DATABASE_URL when one is set
 * (`.ci/run` sets it). Fixture mode and blind mode with every canonical credential declared
 * pass, and so do drawn configurations on generated datasets with every edge case. Any failed
 * check is a bug of the SQL engine (its answers differ from the rules) or of the suite.
 */

const NUM_RUNS = 3;

const ENGINES: SoundnessEngine[] =
  soundnessDatabaseUrl() === undefined ? ['pglite'] : ['pglite', 'postgres'];

function expectSound(outcome: SoundnessOutcome): void {
  const found = outcome.failures.map((f) => `${f.id} [${f.status}]: ${f.message}`);
  expect(found, `${outcome.label}\nconfig: ${JSON.stringify(outcome.config)}`).toEqual([]);
  // a run that compared nothing proves nothing: most checks must have passed
  expect(outcome.passed, outcome.label).toBeGreaterThan(outcome.checks / 2);
}

describe('soundness: the reference server on the SQL engine passes the suite', () => {
  test.each(ENGINES)(
    'engine %s, canonical dataset, all 12 credentials declared: blind mode and fixture mode pass',
    async (engine) => {
      const [drawn] = fc.sample(arbSoundnessConfig({ canonical: true }), { seed: 23, numRuns: 1 });
      for (const caller of [{ kind: 'all' }, { kind: 'fixture' }] as const) {
        const config: SoundnessConfig = { ...drawn!, caller, engine };
        const outcome = await runSoundness(config, NUM_RUNS);
        expectSound(outcome);
        expect(outcome.label).toContain('all 12 credentials');
        expect(outcome.label).toContain(`engine ${engine}`);
      }
    },
  );

  test('for generated datasets with every edge case, any credential and option, on PGlite, no check fails', async () => {
    await fc.assert(
      fc.asyncProperty(
        arbSoundnessConfig({ rateLimit: true, engines: ['pglite'] }),
        async (config) => {
          expectSound(await runSoundness(config, NUM_RUNS));
        },
      ),
      { seed: 2023, numRuns: 2, endOnFailure: true },
    );
  });
});
