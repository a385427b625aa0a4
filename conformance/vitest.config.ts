import { defineProject } from 'vitest/config';
import { tier } from '../vitest.tiers.ts';

export default defineProject({
  resolve: { conditions: ['@tagtrack/source'] },
  ssr: { resolve: { conditions: ['@tagtrack/source'] } },
  test: {
    name: 'conformance',
    ...tier('conformance', ['src/**/*.test.ts', 'test/**/*.test.ts']),
    // one module graph per worker, not per file: the test files share the same heavy imports
    // (core, the server, the suite) and restore what they change (process.env, stdout spies)
    isolate: false,
    // Busy machines (CI, a laptop compiling beside the tests) run a test many times slower than
    // an idle one: no test may fail for wall time, so the defaults are generous everywhere.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // a larger young generation: the suite's runs allocate fast (a scavenge every few ms with
    // the default semi-space), and about a third less time goes to garbage collection
    execArgv: ['--max-semi-space-size=64'],
  },
});
