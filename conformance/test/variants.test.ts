import { VARIANTS } from '@tagtrack/server';
import { expect, test } from 'vitest';
import { describeVariants } from './variant-matrix.ts';

/** The in-memory half of the variant matrix (see variant-matrix.ts); the transport half is variants-socket.test.ts. */
test('VARIANTS covers the freedoms of the plan, each with its clause', () => {
  expect(VARIANTS.length).toBeGreaterThanOrEqual(23);
  for (const v of VARIANTS) expect(v.freedom).toMatch(/decisions/);
});

describeVariants('in memory', (v) => !v.transport);
