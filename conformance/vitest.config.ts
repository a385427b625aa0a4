import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@tagtrack/source'] },
  ssr: { resolve: { conditions: ['@tagtrack/source'] } },
  test: { name: 'conformance', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
