import { createServer } from '@tagtrack/server';
import { afterAll, expect, test } from 'vitest';
import { defineConformanceSuite } from '../src/vitest.ts';
import { MEMORY_BASE_URL, team1Admin } from './helpers.ts';

// What a vendor writes: the suite registers one vitest test per requirement id.
const server = createServer();
let runs = 0;
afterAll(async () => {
  await server.close();
});

defineConformanceSuite(
  {
    baseUrl: MEMORY_BASE_URL,
    fetch: (r) => server.fetch(r),
    authId: team1Admin.authId,
    accessKey: team1Admin.accessKey,
    mode: 'blind',
    only: 'AUTH,PAGE-WALK-ONCE,METHOD',
    numRuns: 5,
    seed: 1,
  },
  {
    name: 'reference server (blind, in memory)',
    onResult: () => {
      runs++;
    },
  },
);

test('the suite ran once for all its requirement tests', () => {
  expect(runs).toBe(1);
});
