import { describe, expect, test } from 'vitest';
import { coverageWords } from '../src/check/coverage.ts';
import type { RunResult } from '../src/run/runner.ts';
import { checkRequestLists, DECLARED, profileFor, runInMemory } from './helpers.ts';

/**
 * Whole lists of the callers other than the primary when a run samples callers
 * (caller-lists.ts): past `--sample-above` records, a list is read whole only as the run's
 * primary credential; a check needing it whole as another caller leaves that caller out and
 * states it. Within the bound on callers, nothing changes.
 */

/** Checks that need lists whole as several callers, and checks that sample them. */
const ONLY = [
  'AGG-CONTACTS-SUM-TAGS',
  'REL-STATS-SUM-TAGS',
  'REL-CONTACTS-TAGS',
  'REL-CONTACT-IDS-CONSISTENT',
  'REL-CONTACT-CALLER-TAGS',
  'REL-CALLER-WITHIN-ADMIN',
  'REL-MANAGER-GROUP-STATS',
  'SCOPE-TEAM-ISOLATION',
].join(',');

/** A bound of records low enough that the canonical team admins' lists pass it. */
const BOUND = 40;

function run(maxCallers: number, sampleAbove = BOUND): Promise<RunResult> {
  // pages of 20 records: a list longer than the bound is read in three pages or more
  return runInMemory(
    { pageSize: 20 },
    {
      profile: { ...profileFor({ pageSize: 20 }), credentials: DECLARED },
      mode: 'blind',
      seed: 7,
      numRuns: 4,
      only: ONLY,
      maxCallers,
      sampleAbove,
    },
  );
}

/** The cursors each credential read of each list (path and query without `cursor`). */
function cursorsRead(r: RunResult): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of r.exchanges) {
    if (e.credential === null || e.method !== 'GET') continue;
    const [path, query = ''] = e.target.split('?');
    const params = new URLSearchParams(query);
    const cursor = params.get('cursor') ?? '0';
    params.delete('cursor');
    const key = `${e.credential} ${path}?${params}`;
    out.set(key, (out.get(key) ?? new Set()).add(cursor));
  }
  return out;
}

describe('with callers sampled, long lists are read whole only as the primary credential', () => {
  test('another caller reads no page past the first of a list longer than the bound, and the checks that needed one say whom they left out', async () => {
    const [r, unbounded] = await Promise.all([run(6), run(Number.POSITIVE_INFINITY)]);
    const primary = DECLARED[0]!.label;
    const before = cursorsRead(unbounded);
    let cut = 0;
    for (const [key, cursors] of cursorsRead(r)) {
      const whole = before.get(key);
      // four pages of 20 or more (the last may be the end's empty page): over BOUND records
      if (whole === undefined || whole.size < 4) continue;
      if (key.startsWith(`${primary} `)) {
        // the primary still reads its long lists whole
        expect(cursors, key).toEqual(whole);
        continue;
      }
      // as another caller: its first page (which tells its length), and the pages of a
      // seeded sample of about BOUND records, never the whole list
      expect(cursors.size, key).toBeLessThanOrEqual(Math.ceil(BOUND / 20));
      expect(cursors.size, key).toBeLessThan(whole.size);
      cut++;
    }
    expect(cut).toBeGreaterThan(0);

    const stated = r.checks.flatMap((c) =>
      (c.coverage ?? [])
        .filter((x) => x.verb === 'whole lists as')
        .map((x) => ({ id: c.id, words: coverageWords(x), x })),
    );
    expect(stated.map((s) => s.id)).toEqual(
      expect.arrayContaining(['AGG-CONTACTS-SUM-TAGS', 'REL-STATS-SUM-TAGS']),
    );
    for (const { id, words, x } of stated) {
      expect(x.of, id).toBe(6);
      expect(x.verified, id).toBeLessThan(6);
      expect(x.verified, id).toBeGreaterThan(0);
      expect(words, id).toMatch(
        /^whole lists as \d of 6 callers \(seeded sample; \d left out: a list longer than --sample-above is read whole only as the primary credential\)$/,
      );
    }
    for (const c of r.checks) {
      expect(c.status, `${c.id} ${c.reason ?? ''}`).not.toBe('fail');
      expect(c.status, `${c.id} ${c.reason ?? ''}`).not.toBe('error');
    }
    // the same seed, the same requests
    expect(checkRequestLists(await run(6))).toEqual(checkRequestLists(r));
  }, 300_000);

  test('within the bound on callers, every caller reads its lists whole, as without a bound', async () => {
    const [within, unbounded] = await Promise.all([run(12), run(Number.POSITIVE_INFINITY)]);
    expect(checkRequestLists(within)).toEqual(checkRequestLists(unbounded));
    for (const c of within.checks)
      expect(
        (c.coverage ?? []).filter((x) => x.verb === 'whole lists as'),
        c.id,
      ).toEqual([]);
  }, 300_000);
});
