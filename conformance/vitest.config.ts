import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@tagtrack/source'] },
  ssr: { resolve: { conditions: ['@tagtrack/source'] } },
  test: {
    name: 'conformance',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // one module graph per worker, not per file: the test files share the same heavy imports
    // (core, the server, the suite) and restore what they change (process.env, stdout spies)
    isolate: false,
    // a larger young generation: the suite's runs allocate fast (a scavenge every few ms with
    // the default semi-space), and about a third less time goes to garbage collection
    execArgv: ['--max-semi-space-size=64'],
  },
});
