import { defineProject } from 'vitest/config';
import { tier } from '../../vitest.tiers.ts';

export default defineProject({
  resolve: { conditions: ['@tagtrack/source'] },
  ssr: { resolve: { conditions: ['@tagtrack/source'] } },
  test: {
    name: 'client',
    ...tier('client', ['src/**/*.test.ts', 'test/**/*.test.ts']),
    // one module graph per worker, not per file: the test files share the same heavy imports
    // (core, the client, the reference server) and restore what they change (process.env)
    isolate: false,
    // Busy machines (CI, a laptop compiling beside the tests) run a test many times slower than
    // an idle one: no test may fail for wall time, so the defaults are generous everywhere.
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
