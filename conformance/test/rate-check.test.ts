import { createServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, profileFor } from './helpers.ts';

/**
 * RATE-429-HEADERS judges X-Rate-Limit-Reset against the wall clock around the burst that
 * met the 429 (spec §7), so a burst whose other answers arrive late (a slow server, a busy
 * machine) is not a failure of the implementation; a reset in milliseconds still is.
 */
// the two tests run at the same time (each with its own server and clock): the first spends
// its seconds waiting for held answers, not on the CPU
describe.concurrent('RATE-429-HEADERS and the clock', () => {
  const rateLimit = { limit: 3, windowMs: 1000 } as const;

  /**
   * The server's fetch with the answers of a burst (requests to /teams in flight together, as
   * only the check's burst sends them) held `holdMs` after the server made them: a slow
   * network between the implementation and the suite.
   */
  function slowAllowed(faults: 'rate-limit-reset-milliseconds'[], holdMs: number) {
    const server = createServer({ publicUrl: MEMORY_BASE_URL, rateLimit, faults });
    let inFlight = 0;
    const fetch = async (r: Request) => {
      const teams = new URL(r.url).pathname === '/teams';
      if (teams) inFlight++;
      try {
        const response = await server.fetch(r);
        if (teams && inFlight > 1) await new Promise((resolve) => setTimeout(resolve, holdMs));
        return response;
      } finally {
        if (teams) inFlight--;
      }
    };
    return { server, fetch };
  }

  const run = (fetch: (r: Request) => Promise<Response>) =>
    runConformance({
      baseUrl: MEMORY_BASE_URL,
      fetch,
      profile: profileFor({ rateLimit }),
      mode: 'fixture',
      seed: 7,
      numRuns: 2,
      only: 'RATE-429-HEADERS',
      timeoutMs: 30_000,
    });

  test('a burst whose answers arrive 8 s after the server made them passes: the reset is read against when the 429 can have been made', async () => {
    const { server, fetch } = slowAllowed([], 8000);
    try {
      const result = await run(fetch);
      const check = result.checks.find((c) => c.id === 'RATE-429-HEADERS')!;
      expect(check.failures ?? []).toEqual([]);
      expect(check.status).toBe('pass');
    } finally {
      await server.close();
    }
  }, 120_000);

  test('a reset in epoch milliseconds fails, named', async () => {
    const { server, fetch } = slowAllowed(['rate-limit-reset-milliseconds'], 0);
    try {
      const result = await run(fetch);
      const check = result.checks.find((c) => c.id === 'RATE-429-HEADERS')!;
      expect(check.status).toBe('fail');
      expect(check.failures![0]!.message).toMatch(
        /X-Rate-Limit-Reset "\d{13}" is not epoch seconds within the window/,
      );
    } finally {
      await server.close();
    }
  }, 120_000);
});
