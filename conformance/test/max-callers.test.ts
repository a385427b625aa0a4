import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type CallerClass, type ClassifiedCaller, pickCallers } from '../src/check/callers.ts';
import { coverageWords } from '../src/check/coverage.ts';
import type { RunResult } from '../src/run/runner.ts';
import { checkRequestLists, DECLARED, profileFor, runInMemory } from './helpers.ts';

/**
 * The bound on callers (`--max-callers`, callers.ts `sampledCallers`): with more distinct
 * callers declared than the bound, the per-caller checks and the checks pairing callers judge
 * a seeded sample of them, the primary first and every account type and group holding among
 * them, with the coverage stated; within the bound the run sends what it sent without one.
 */

async function run(
  only: string,
  maxCallers?: number,
  extra: { cacheBytes?: number } = {},
): Promise<RunResult> {
  return runInMemory(
    {},
    {
      profile: { ...profileFor(), credentials: DECLARED },
      mode: 'blind',
      seed: 7,
      numRuns: 4,
      only,
      ...(maxCallers === undefined ? {} : { maxCallers }),
      ...extra,
    },
  );
}

/**
 * The labels of the credentials a check's requests were sent as, but the member lists
 * (`GET /teams`) every credential's class is read from.
 */
function callersOf(r: RunResult, id: string): Set<string> {
  const byId = new Map(r.exchanges.map((e) => [e.id, e]));
  const check = r.checks.find((c) => c.id === id)!;
  return new Set(
    check
      .exchangeIds!.map((x) => byId.get(x)!)
      .filter((e) => e.target !== '/teams')
      .map((e) => e.credential ?? '-'),
  );
}

/** {@link checkRequestLists} without the member lists (`GET /teams`) the callers' classes are read from. */
function withoutClassReads(lists: ReturnType<typeof checkRequestLists>) {
  return lists.map((c) => ({
    ...c,
    requests: c.requests.filter((x) => !x.startsWith('GET /teams ')),
  }));
}

const TYPES = ['admin', 'manager', 'user'] as const;
const HOLDINGS = ['group', 'no group', 'unknown'] as const;

/** Classified callers: a primary and others of random teams, account types and holdings. */
const callersArb = fc
  .array(
    fc.record({
      teamID: fc.constantFrom('t1', 't2', 't3', 't4'),
      accountType: fc.constantFrom(...TYPES),
      group: fc.constantFrom(...HOLDINGS),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((classes): ClassifiedCaller[] =>
    classes.map((cls: CallerClass, i) => ({
      credential: { label: `c${i}`, authId: `a${i}`, accessKey: 'k' },
      class: cls,
    })),
  );

const kindOf = (c: ClassifiedCaller) => `${c.class?.accountType} ${c.class?.group}`;

describe('pickCallers: a seeded sample of the distinct callers', () => {
  test('law: at most max callers, all of them within the bound, the primary first, every kind while the bound allows, in the classes order, the same for the same seed', () => {
    fc.assert(
      fc.property(callersArb, fc.integer({ min: 1, max: 15 }), fc.integer(), (all, max, seed) => {
        const a = pickCallers(all, max, seed);
        expect(pickCallers(all, max, seed)).toEqual(a);
        const labels = all.map((c) => c.credential.label);
        const picked = a.callers.map((c) => c.label);
        expect(picked).toHaveLength(Math.min(max, all.length));
        expect(picked[0]).toBe(labels[0]);
        // the classes' order kept
        expect(picked).toEqual(labels.filter((l) => picked.includes(l)));
        const kinds = new Set(all.map(kindOf));
        const coveredKinds = new Set(
          all.filter((c) => picked.includes(c.credential.label)).map(kindOf),
        );
        expect(coveredKinds.size).toBe(Math.min(kinds.size, max));
        if (all.length <= max) expect(a.coverage).toBeUndefined();
        else
          expect(a.coverage).toEqual({
            subject: 'callers',
            verb: 'as',
            verified: max,
            of: all.length,
            sampled: true,
            detail:
              coveredKinds.size === kinds.size
                ? 'every account type and group holding covered'
                : `${coveredKinds.size} of ${kinds.size} account type and group holdings covered`,
          });
      }),
    );
  });

  test('the coverage in words', () => {
    const all = Array.from({ length: 30 }, (_, i) => ({
      credential: { label: `c${i}`, authId: `a${i}`, accessKey: 'k' },
      class: { teamID: `t${i % 10}`, accountType: TYPES[i % 3]!, group: 'group' as const },
    }));
    expect(coverageWords(pickCallers(all, 12, 1).coverage!)).toBe(
      'as 12 of 30 callers (seeded sample; every account type and group holding covered)',
    );
  });
});

describe('--max-callers in blind runs with the canonical credentials (ten distinct callers)', () => {
  const ONLY = [
    'REL-RANGE-SPLIT',
    'REL-CALLER-WITHIN-ADMIN',
    'REL-CONTACTS-TAGS',
    'SCOPE-TEAM-ISOLATION',
    'SCOPE-ACCOUNT-TYPE',
    'SCOPE-404-OUT-OF-SCOPE',
    'SCOPE-404-SAME-AS-UNKNOWN',
    'SCOPE-CACHE-PER-CALLER',
  ];

  test('within the bound (the default 12, and exactly 10) each check sends the requests of a run without a bound, and states no coverage', async () => {
    const only = ONLY.join(',');
    const [byDefault, ten, unbounded] = await Promise.all([
      run(only),
      run(only, 10),
      run(only, Number.POSITIVE_INFINITY),
    ]);
    // twelve credentials, the default bound: nothing is even classified
    expect(checkRequestLists(byDefault)).toEqual(checkRequestLists(unbounded));
    expect(byDefault.requests.sent).toBe(unbounded.requests.sent);
    // ten classes, bound 10: the classes are read (member lists, walked for the run), then
    // every credential is judged as without a bound
    expect(withoutClassReads(checkRequestLists(ten))).toEqual(
      withoutClassReads(checkRequestLists(unbounded)),
    );
    expect(ten.requests.sent).toBe(unbounded.requests.sent);
    for (const c of unbounded.checks) {
      expect(c.status, c.id).toBe('pass');
      expect(c.coverage, c.id).toBeUndefined();
    }
  }, 300_000);

  test('over the bound the checks judge the same seeded sample of callers, both sides of every pair from it, and say so', async () => {
    const [six, again] = await Promise.all([run(ONLY.join(','), 6), run(ONLY.join(','), 6)]);
    const words =
      'as 6 of 10 callers (seeded sample; every account type and group holding covered)';
    const sample = callersOf(six, 'REL-RANGE-SPLIT');
    expect(sample.size).toBe(6);
    expect(sample.has('team1-admin')).toBe(true);
    for (const c of six.checks) {
      expect(c.status, c.id).toBe('pass');
      expect(c.coverage?.map(coverageWords), c.id).toContain(words);
      // every request of every check is sent as one of the sampled callers (or, for a check
      // comparing a caller with its team's admin, as that admin)
      const teams = new Set([...sample].map((l) => l.split('-')[0]));
      for (const label of callersOf(six, c.id))
        expect(
          sample.has(label) ||
            (c.id === 'REL-CALLER-WITHIN-ADMIN' &&
              teams.has(label.split('-')[0]) &&
              label.endsWith('-admin')),
          `${c.id} ${label}`,
        ).toBe(true);
    }
    // the pairing checks ask as several of them
    expect(callersOf(six, 'SCOPE-404-OUT-OF-SCOPE').size).toBeGreaterThan(2);
    expect(callersOf(six, 'SCOPE-CACHE-PER-CALLER').size).toBeGreaterThan(2);
    // the same seed, the same callers and requests
    expect(checkRequestLists(again)).toEqual(checkRequestLists(six));
  }, 300_000);

  test('a request naming an out-of-scope id is sent once per caller, however many other callers see the id', async () => {
    const r = await run('SCOPE-404-OUT-OF-SCOPE,SCOPE-404-SAME-AS-UNKNOWN');
    const byId = new Map(r.exchanges.map((e) => [e.id, e]));
    for (const c of r.checks) {
      expect(c.status, c.id).toBe('pass');
      const sent = c.exchangeIds!.map((x) => byId.get(x)!).filter((e) => e.status === 404);
      const keys = sent.map((e) => `${e.target} ${e.credential}`);
      expect(keys.length, c.id).toBeGreaterThan(0);
      expect(new Set(keys).size, c.id).toBe(keys.length);
    }
  }, 300_000);

  test('a scope check pairing callers reads the discovery of each caller once, even when the caches of the run hold none of them', async () => {
    // caches of 64 KB: every discovery and walk leaves them at once, so each read is sent
    const r = await run(
      'SCOPE-TEAM-ISOLATION,SCOPE-404-OUT-OF-SCOPE,SCOPE-404-SAME-AS-UNKNOWN',
      undefined,
      { cacheBytes: 64 * 1024 },
    );
    const byId = new Map(r.exchanges.map((e) => [e.id, e]));
    for (const c of r.checks) {
      expect(c.status, c.id).toBe('pass');
      // the first page of each caller's tag list, once per caller
      const firstPages = c
        .exchangeIds!.map((x) => byId.get(x)!)
        .filter((e) => e.target === '/teams/tags')
        .map((e) => e.credential);
      expect(firstPages.length, c.id).toBeGreaterThan(0);
      const perCaller = new Map<string | null, number>();
      for (const label of firstPages) perCaller.set(label, (perCaller.get(label) ?? 0) + 1);
      expect(Math.max(...perCaller.values()), c.id).toBeLessThanOrEqual(2);
    }
  }, 300_000);

  test('a bound that is no positive integer is a configuration error', async () => {
    await expect(run('REL-RANGE-SPLIT', 0)).rejects.toThrow(
      'max-callers must be a positive integer',
    );
  });
});
