import { createServer, type FaultName } from '@tagtrack/server';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  coverageWords,
  mergeCoverage,
  sampledCursors,
  seededPicks,
  seededSample,
} from '../src/check/coverage.ts';
import { formatSummary } from '../src/report/console.ts';
import { toHtml } from '../src/report/html.ts';
import { ResultsJson, toResultsJson } from '../src/report/json.ts';
import { toMarkdown } from '../src/report/markdown.ts';
import { type RunResult, runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';

describe('seeded picks', () => {
  test('law: the same seed picks the same k distinct indexes, ascending, the first always among them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer(),
        (n, k, seed) => {
          const a = seededPicks(n, k, seed, 0);
          expect(seededPicks(n, k, seed, 0)).toEqual(a);
          expect(a).toHaveLength(Math.min(n, k));
          expect(new Set(a).size).toBe(a.length);
          expect(a.every((i, j) => i >= 0 && i < n && (j === 0 || a[j - 1]! < i))).toBe(true);
          expect(a[0]).toBe(0);
        },
      ),
    );
  });

  test('law: a list at or below the bound is read whole, a longer one as whole pages at seeded cursors', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer(),
        (total, pageSize, bound, seed) => {
          const cursors = sampledCursors(total, pageSize, bound, seed);
          const pages = Math.ceil(total / pageSize);
          if (total <= bound || pages <= 1)
            expect(cursors).toEqual(Array.from({ length: pages }, (_, i) => i * pageSize));
          else {
            expect(cursors).toHaveLength(Math.min(pages, Math.max(1, Math.ceil(bound / pageSize))));
            expect(cursors[0]).toBe(0);
            expect(cursors.every((c) => c % pageSize === 0 && c < total)).toBe(true);
          }
        },
      ),
    );
  });

  test('a seeded sample of records keeps their order and differs with the seed', () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const a = seededSample(items, 20, 1);
    expect(a).toEqual(seededSample(items, 20, 1));
    expect(a).toEqual([...a].sort((x, y) => x - y));
    expect(seededSample(items, 20, 2)).not.toEqual(a);
    expect(seededSample(items.slice(0, 5), 20, 1)).toEqual(items.slice(0, 5));
  });

  test('coverage of one subject adds up, and reads as the reports state it', () => {
    const merged = mergeCoverage([
      { subject: 'contacts', verified: 200, of: 48_113, sampled: true },
      { subject: 'tags', verified: 300, of: 300, sampled: false },
      { subject: 'contacts', verified: 40, of: 40, sampled: false },
    ]);
    expect(merged.map(coverageWords)).toEqual([
      'verified 240 of 48,153 contacts (seeded sample)',
      'verified all 300 tags',
    ]);
  });
});

/** The checks that read long lists through `sampledList`. */
const SAMPLING_CHECKS = [
  'REL-CONTACTS-TAGS',
  'AGG-UNIQUE-LE-TOTAL',
  'SCHEMA-VALUE-DOMAINS',
  'REL-EVENT-RECIPIENT',
  'REL-FILTER-CONJUNCTION',
];

/**
 * A blind run of {@link SAMPLING_CHECKS} as team1's admin against the reference server over
 * the canonical dataset with pages of 40 records (about 10 pages of contacts), `faults` on.
 */
async function blindRun(
  options: { sampleAbove?: number; concurrency?: number; faults?: FaultName[] } = {},
): Promise<RunResult> {
  const server = createServer({
    publicUrl: MEMORY_BASE_URL,
    pageSize: 40,
    faults: options.faults ?? [],
  });
  try {
    return await runConformance({
      baseUrl: MEMORY_BASE_URL,
      fetch: (r) => server.fetch(r),
      profile: profileFor({ pageSize: 40 }),
      mode: 'blind',
      authId: team1Admin.authId,
      accessKey: team1Admin.accessKey,
      seed: 5,
      numRuns: 3,
      only: SAMPLING_CHECKS.join(','),
      concurrency: options.concurrency ?? 1,
      ...(options.sampleAbove === undefined ? {} : { sampleAbove: options.sampleAbove }),
    });
  } finally {
    await server.close();
  }
}

describe('long lists verified on a seeded sample, coverage stated', () => {
  test('at the canonical size every record is verified: no check samples, none states a coverage', async () => {
    const result = await blindRun();
    expect(result.checks.map((c) => [c.id, c.status]).sort()).toEqual(
      SAMPLING_CHECKS.map((id) => [id, 'pass']).sort(),
    );
    expect(result.checks.filter((c) => c.coverage !== undefined)).toEqual([]);
    expect(formatSummary(result)).not.toMatch(/SAMPLED|seeded sample/);
    expect(toMarkdown(result)).not.toMatch(/Sampled/);
  }, 120_000);

  test('above the bound: the same sample and verdict at any concurrency, the coverage in results.json, the console and report.html', async () => {
    const one = await blindRun({ sampleAbove: 80, concurrency: 1 });
    const four = await blindRun({ sampleAbove: 80, concurrency: 4 });
    const contacts = one.checks.find((c) => c.id === 'REL-CONTACTS-TAGS')!;
    expect(contacts.status).toBe('pass');
    const [coverage] = contacts.coverage ?? [];
    expect(coverage).toMatchObject({ subject: 'contacts', sampled: true });
    // two whole pages of 40 per caller the check runs as (blind mode: every declared caller)
    expect(coverage!.verified).toBeGreaterThanOrEqual(80);
    expect(coverage!.verified).toBeLessThan(coverage!.of);
    const targets = (r: RunResult, id: string) => {
      const ids = new Set(r.checks.find((c) => c.id === id)!.exchangeIds);
      return r.exchanges
        .filter((ex) => ids.has(ex.id))
        .map((ex) => ex.target)
        .sort();
    };
    for (const id of SAMPLING_CHECKS) {
      const a = one.checks.find((c) => c.id === id)!;
      const b = four.checks.find((c) => c.id === id)!;
      expect([b.status, b.coverage]).toEqual([a.status, a.coverage]);
      expect(targets(four, id)).toEqual(targets(one, id));
    }
    const words = coverageWords(coverage!);
    expect(words).toMatch(/^verified [0-9,]+ of [0-9,]+ contacts \(seeded sample\)$/);
    const json = ResultsJson.parse(toResultsJson(one));
    expect(json.checks.find((c) => c.id === 'REL-CONTACTS-TAGS')?.coverage).toEqual(
      contacts.coverage,
    );
    expect(formatSummary(one)).toContain(`REL-CONTACTS-TAGS: ${words}`);
    expect(toHtml(one)).toContain(words);
    expect(toMarkdown(one)).toMatch(/\*\*Sampled:\*\* [0-9]+ checks verified seeded samples/);
  }, 240_000);

  test('a sampled check still catches a wrong contact counter on a list above the bound', async () => {
    const result = await blindRun({ sampleAbove: 80, faults: ['contact-unique-opens-as-total'] });
    const contacts = result.checks.find((c) => c.id === 'REL-CONTACTS-TAGS')!;
    expect(contacts.coverage?.[0]?.sampled).toBe(true);
    expect(contacts.status).toBe('fail');
    expect(contacts.failures[0]?.message).toMatch(/stats\.uniqueOpens/);
  }, 120_000);

  test.each(['ignore-is-opened', 'tags-filtered-oldest-first'] as const)(
    'the sampled pages of a filtered tag list still catch fault %s',
    async (fault) => {
      const result = await blindRun({ sampleAbove: 80, faults: [fault] });
      const check = result.checks.find((c) => c.id === 'REL-FILTER-CONJUNCTION')!;
      expect(check.coverage?.find((c) => c.subject === 'filtered tags')?.sampled).toBe(true);
      expect(check.status).toBe('fail');
    },
    120_000,
  );
});
