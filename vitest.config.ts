import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@tagtrack/source'] },
  ssr: { resolve: { conditions: ['@tagtrack/source'] } },
  test: {
    projects: ['packages/*', 'apps/*', 'conformance'],
  },
});
