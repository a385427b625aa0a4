import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { createServer } from '@tagtrack/server';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';
import {
  arbSoundnessConfig,
  openSoundnessEngine,
  runSoundness,
  type SoundnessConfig,
  type SoundnessEngine,
  type SoundnessOutcome,
  soundnessDatabaseUrl,
} from './soundness.ts';

/**
 * The budgeted sample of the soundness search that `pnpm test` runs: every
 * canonical credential at least once, all of them declared together, and generated datasets
 * with every edge case under drawn profile options. `pnpm soundness` runs the larger sweep.
 * The runs with all credentials declared answer from the SQL engine (embedded
 * PGlite, and the PostgreSQL server of TAGTRACK_TEST_DATABASE_URL when set), the single
 * credential runs from the in-memory index, and the generated ones draw either.
 * Any failed check here is a suite bug (or a reference server bug): the message names the
 * configuration that reproduces it.
 */

const NUM_RUNS = 3;

/** The SQL engines the declared-credential runs use: PGlite, and PostgreSQL when configured. */
const SQL_ENGINES: SoundnessEngine[] =
  soundnessDatabaseUrl() === undefined ? ['pglite'] : ['pglite', 'postgres'];

/** Options drawn for the canonical runs, one per credential, the same on every run of the test. */
const CANONICAL_OPTIONS = fc.sample(arbSoundnessConfig({ canonical: true }), {
  seed: 19,
  numRuns: CANONICAL_CREDENTIALS.length,
});

function expectSound(outcome: SoundnessOutcome): void {
  const found = outcome.failures.map((f) => `${f.id} [${f.status}]: ${f.message}`);
  expect(found, `${outcome.label}\nconfig: ${JSON.stringify(outcome.config)}`).toEqual([]);
  // a run that compared nothing proves nothing: most checks must have passed
  expect(outcome.passed, outcome.label).toBeGreaterThan(outcome.checks / 2);
}

describe('soundness: the reference server passes the suite whatever the caller, data and options', () => {
  test.each(CANONICAL_CREDENTIALS.map((c, index) => [c.label, index] as const))(
    'canonical dataset, blind mode as %s alone, under drawn profile options',
    async (_label, index) => {
      const drawn = CANONICAL_OPTIONS[index]!;
      const config: SoundnessConfig = { ...drawn, caller: { kind: 'one', index } };
      expectSound(await runSoundness(config, NUM_RUNS));
    },
  );

  test.each(SQL_ENGINES)(
    'canonical dataset on the SQL engine (%s), all 12 credentials declared: blind mode and fixture mode pass, and the blind run finds no answer differing from the in-memory engine',
    async (engine) => {
      const base: SoundnessConfig = { ...CANONICAL_OPTIONS[0]!, engine };
      // one database for both runs (the server only reads it), and the fixture run gets the
      // recorded answer to each question the blind run asked already
      const shared = { engine: await openSoundnessEngine(base), answers: new Map() };
      try {
        for (const caller of [{ kind: 'all' }, { kind: 'fixture' }] as const) {
          // the blind run is diff-sql.test.ts's audit of the canonical dataset too
          const outcome = await runSoundness({ ...base, caller }, NUM_RUNS, {
            ...shared,
            diffAgainstMemory: caller.kind === 'all',
          });
          expectSound(outcome);
          // no scoping check is left out for want of credentials
          expect(outcome.label).toContain('all 12 credentials');
          expect(outcome.label).toContain(`engine ${engine}`);
        }
      } finally {
        await shared.engine?.close();
      }
    },
    // the SQL engine on PGlite answers from WebAssembly in the test's own process: minutes on
    // a busy machine
    600_000,
  );

  test('for any generated dataset with every edge case, any credential, any profile option the server serves and either engine, no check fails', async () => {
    await fc.assert(
      fc.asyncProperty(
        arbSoundnessConfig({ rateLimit: true, engines: ['memory', 'pglite'] }),
        async (config) => {
          expectSound(await runSoundness(config, NUM_RUNS));
        },
      ),
      { seed: 2024, numRuns: 2, endOnFailure: true },
    );
  }, 600_000);
});

describe('soundness regressions: counterexamples the search found, kept', () => {
  test('team2-admin of the canonical dataset: "Key Accounts" names two groups, it resolves to the lower groupID', async () => {
    const index = CANONICAL_CREDENTIALS.findIndex((c) => c.label === 'team2-admin');
    const outcome = await runSoundness(
      { ...CANONICAL_OPTIONS[0]!, pageSize: 250, caller: { kind: 'one', index }, seed: 1 },
      NUM_RUNS,
    );
    expectSound(outcome);
  });

  test('an admin sees an empty group of a shared name with the lower groupID, which no list shows', async () => {
    expectSound(
      await runSoundness(
        {
          data: { kind: 'generated', seed: 999_985, scale: 'tiny', edgeCases: true },
          pageSize: 4,
          pagingEnd: 'empty-page',
          memberWithoutGroup: 'empty',
          rtn: ['json'],
          rateLimit: null,
          caller: { kind: 'all' },
          seed: 25,
        },
        NUM_RUNS,
      ),
    );
  });

  test('a declared rate limit: a burst slower than the window is a skip, a fast one without 429 a failure', async () => {
    // the server enforces no limit while the profile declares 3 per second: a fast burst of
    // 7 (2 × 3 + 1) without a 429 is a failure; the same burst answered one request at a time
    // proves nothing when it spans more than the window: skipped, never failed. A request to
    // the burst's path (/teams) that comes while another is in flight waits 200 ms after the
    // one before it, so the six after the first take 1.2 s, more than the 1 s window; the
    // run's one-at-a-time requests (discovery) are not held
    const server = createServer({ publicUrl: MEMORY_BASE_URL });
    let queue = Promise.resolve();
    let inFlight = 0;
    const slow = async (r: Request): Promise<Response> => {
      if (new URL(r.url).pathname !== '/teams') return server.fetch(r);
      inFlight++;
      try {
        if (inFlight > 1) {
          const turn = queue.then(() => new Promise<void>((ok) => setTimeout(ok, 200)));
          queue = turn;
          await turn;
        }
        return await server.fetch(r);
      } finally {
        inFlight--;
      }
    };
    try {
      const run = (fetch: (r: Request) => Promise<Response>) =>
        runConformance({
          baseUrl: MEMORY_BASE_URL,
          fetch,
          profile: { ...profileFor(), rateLimit: { limit: 3, windowMs: 1000, retryAfter: true } },
          mode: 'blind',
          authId: team1Admin.authId,
          accessKey: team1Admin.accessKey,
          only: 'RATE-429-HEADERS',
          seed: 1,
          numRuns: 1,
          rateLimit: 1000,
        });
      const fast = await run((r) => server.fetch(r));
      expect(fast.checks[0]?.status).toBe('fail');
      const spread = await run(slow);
      expect(spread.checks[0]?.status).toBe('skip');
      expect(spread.checks[0]?.reason).toMatch(/longer than the declared window/);
    } finally {
      await server.close();
    }
  });
});
