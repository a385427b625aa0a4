import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@tagtrack/source'] },
  ssr: { resolve: { conditions: ['@tagtrack/source'] } },
  test: {
    projects: ['packages/*', 'apps/*', 'conformance'],
    // Two test files at a time: the variant and fault matrices are CPU-bound and the CI machine
    // has 2 cores (vitest's default leaves one idle there).
    maxWorkers: 2,
  },
});
