import type { FaultName } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import type { RunResult } from '../src/run/runner.ts';
import { DECLARED, profileFor, runInMemory, team1Admin } from './helpers.ts';

/**
 * Blind mode with several declared credentials: a blind profile lists
 * credentials with their team and account type but no member id, and no dataset is loaded.
 * Then the scoping, isolation and cache-key checks run in blind mode too, and catch the
 * faults that one admin credential cannot observe (their `blind: { unobservable }` in the
 * server's fault list), under the three seeds of the fault matrix.
 */

const SEEDS = [7, 1_000_003, 424_242] as const;
const NUM_RUNS = 4;

/** The faults one admin credential cannot observe, and the ids that catch them with several. */
const CAUGHT: Partial<Record<FaultName, readonly string[]>> = {
  'scope-leak-team': ['SCOPE-TEAM-ISOLATION'],
  'out-of-scope-403': ['SCOPE-404-OUT-OF-SCOPE'],
  'contacts-all-team-tags': ['REL-CONTACTS-TAGS'],
  'out-of-scope-message': ['SCOPE-404-SAME-AS-UNKNOWN'],
  'cache-key-url-only': ['SCOPE-CACHE-PER-CALLER'],
};

const IDS = [...new Set([...Object.values(CAUGHT).flat(), 'SCOPE-ACCOUNT-TYPE'])];

async function runBlind(faults: FaultName[], seed: number, only: readonly string[]) {
  return runInMemory(
    { faults },
    {
      profile: { ...profileFor(), credentials: DECLARED },
      mode: 'blind',
      seed,
      numRuns: NUM_RUNS,
      only: only.join(','),
      authId: team1Admin.authId,
      accessKey: team1Admin.accessKey,
    },
  );
}

function statusOf(result: RunResult, id: string): string | undefined {
  return result.checks.find((c) => c.id === id)?.status;
}

describe('blind mode with several declared credentials (team and account type, no dataset)', () => {
  test('the unfaulted server passes the scoping, isolation and cache-key checks, none skipped', async () => {
    const result = await runBlind([], SEEDS[0], IDS);
    expect(result.mode).toBe('blind');
    const outcome = (status: string, why = '') => `${status}${why === '' ? '' : `: ${why}`}`;
    expect(
      Object.fromEntries(
        result.checks.map((c) => [
          c.id,
          outcome(c.status, c.reason ?? c.failures[0]?.message ?? ''),
        ]),
      ),
    ).toEqual(Object.fromEntries(IDS.map((id) => [id, 'pass'])));
  });

  test.each(Object.entries(CAUGHT))(
    'fault %s, unobservable with one admin credential, is caught by %s under three seeds',
    async (fault, ids) => {
      const runs = await Promise.all(
        SEEDS.map((seed) => runBlind([fault as FaultName], seed, ids!)),
      );
      for (const [i, result] of runs.entries()) {
        expect(result.ok, `seed ${SEEDS[i]}`).toBe(false);
        expect(
          ids!.map((id) => statusOf(result, id)),
          `seed ${SEEDS[i]}`,
        ).toContain('fail');
      }
    },
    60_000,
  );
});
