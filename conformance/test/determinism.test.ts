import { describe, expect, test } from 'vitest';
import { cacheShares } from '../src/http/byte-cache.ts';
import type { RunResult } from '../src/run/runner.ts';
import { checkRequestLists, profileFor, runInMemory, team1Admin } from './helpers.ts';

/**
 * Same seed, same requests, whatever the concurrency, where the run's caches are smaller than
 * what it reads: the walks, discoveries and whole answers they let go are rebuilt from the kept
 * answers, so which of them are still held (timing, concurrency, the garbage collector) saves
 * CPU and never decides a request.
 */

/** The caches of the run: far below what the relation checks read, above their kept answers. */
const CACHE_BYTES = 16 * 1024 * 1024;

/** A blind run of the relation checks as team1-admin against the canonical server. */
function relations(concurrency: number): Promise<RunResult> {
  return runInMemory(
    {},
    {
      mode: 'blind',
      authId: team1Admin.authId,
      accessKey: team1Admin.accessKey,
      profile: profileFor(),
      seed: 5,
      numRuns: 2,
      only: 'rel',
      cacheBytes: CACHE_BYTES,
      concurrency,
    },
  );
}

/** Every request sent (method, target, credential), sorted: the run's requests as a multiset. */
function sent(r: RunResult): string[] {
  return r.exchanges.map((e) => `${e.method} ${e.target} ${e.credential ?? '-'}`).sort();
}

describe('determinism where the caches bind', () => {
  test('same seed, caches smaller than the run reads: the same requests (as a multiset and per check, in order) and counts at concurrency 1 and 8, and in two runs at 8', async () => {
    const one = await relations(1);
    const eight = await relations(8);
    const again = await relations(8);
    expect([one.concurrency, eight.concurrency]).toEqual([1, 8]);
    expect(one.ok).toBe(true);
    // the caches that only save CPU hold less than the bodies the run read (a walk counts
    // three times its bodies)
    const { walks, hotResponses, discoveries } = cacheShares(CACHE_BYTES);
    const read = one.exchanges.reduce((n, e) => n + e.bodyBytes, 0);
    expect(read).toBeGreaterThan(walks + hotResponses + discoveries);
    for (const other of [eight, again]) {
      expect(sent(other)).toEqual(sent(one));
      expect(checkRequestLists(other)).toEqual(checkRequestLists(one));
      expect(other.requests.sent).toBe(one.requests.sent);
      expect(other.requests.cacheHits).toBe(one.requests.cacheHits);
    }
  }, 600_000);
});
