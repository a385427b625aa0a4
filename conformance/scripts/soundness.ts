/**
 * The soundness sweep (`pnpm soundness` at the root): runs the suite against the reference
 * server over configurations drawn from `arbSoundnessConfig` (generated datasets with every
 * edge case, any credential, any profile option the server can serve, any seed) until the time
 * budget is spent, printing each configuration tried and what it found. Exit 0 when no check
 * failed anywhere, 1 with the counterexamples (each a suite bug, or a reference server bug).
 *
 * Each configuration also draws what answers: the in-memory index, the SQL engine on
 * embedded PGlite, or (when TAGTRACK_TEST_DATABASE_URL is set) on that PostgreSQL server.
 *
 *   pnpm soundness [--budget SECONDS (default 600)] [--seed N] [--num-runs N (default 10)]
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import {
  arbSoundnessConfig,
  runSoundness,
  type SoundnessConfig,
  type SoundnessEngine,
  type SoundnessOutcome,
  soundnessDatabaseUrl,
} from '../test/soundness.ts';

const { values } = parseArgs({
  options: {
    budget: { type: 'string', default: '600' },
    seed: { type: 'string' },
    'num-runs': { type: 'string', default: '10' },
  },
});
const budgetMs = Number(values.budget) * 1000;
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const numRuns = Number(values['num-runs']);
if (!(budgetMs > 0) || !Number.isInteger(seed) || !(numRuns > 0)) {
  console.error('soundness: --budget, --seed and --num-runs take positive numbers');
  process.exit(2);
}

console.log(
  `soundness sweep: seed ${seed}, budget ${values.budget} s, ${numRuns} runs per property`,
);
// what answers: the in-memory index, the SQL engine on PGlite, and on the PostgreSQL server
// of TAGTRACK_TEST_DATABASE_URL when one is set (.ci/run sets it)
const engines: SoundnessEngine[] = ['memory', 'pglite'];
if (soundnessDatabaseUrl() !== undefined) engines.push('postgres');
console.log(`engines: ${engines.join(', ')}`);
const started = Date.now();
const configs = fc.sample(
  fc.oneof(
    { weight: 1, arbitrary: arbSoundnessConfig({ canonical: true, engines }) },
    { weight: 3, arbitrary: arbSoundnessConfig({ rateLimit: true, engines }) },
  ),
  { seed, numRuns: 10_000 },
);
const found: SoundnessOutcome[] = [];
let tried = 0;
let requests = 0;
for (const config of configs as SoundnessConfig[]) {
  if (Date.now() - started > budgetMs) break;
  const outcome = await runSoundness(config, numRuns);
  tried++;
  requests += outcome.requests;
  const verdict =
    outcome.failures.length === 0
      ? `ok (${outcome.passed} passed, ${outcome.skipped} skipped, ${outcome.requests} requests)`
      : `FOUND ${outcome.failures.map((f) => `${f.id} [${f.status}]: ${f.message}`).join(' | ')}`;
  console.log(`${String(tried).padStart(4)}. ${outcome.label}: ${verdict}`);
  if (outcome.failures.length > 0) found.push(outcome);
}
const seconds = ((Date.now() - started) / 1000).toFixed(0);
console.log(
  `\n${tried} configurations in ${seconds} s, ${requests} requests; ${found.length} with a failure`,
);
for (const f of found) console.log(`  counterexample: ${JSON.stringify(f.config)}`);
process.exit(found.length === 0 ? 0 : 1);
