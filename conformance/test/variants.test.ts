import type { Dataset } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/core/canonical';
import { VARIANTS } from '@tagtrack/server';
import { expect, test } from 'vitest';
import { runInMemory } from './helpers.ts';
import { describeVariants, problems, runVariant } from './variant-matrix.ts';

/** The in-memory half of the variant matrix (see variant-matrix.ts); the transport half is variants-socket.test.ts. */
test('VARIANTS covers the freedoms of the plan, each with its clause', () => {
  expect(VARIANTS.length).toBeGreaterThanOrEqual(23);
  for (const v of VARIANTS) expect(v.freedom).toMatch(/decisions/);
});

describeVariants('in memory', (v) => !v.transport);

/**
 * The canonical dataset has no two events of a tag at the same instant, so the
 * event-ties-reversed variant runs again on a copy where every second event of a tag takes
 * the date of the one before it (decisions §3 Revision 2: such events come in any order).
 */
test('event-ties-reversed passes on a dataset with ties, and so does the unvaried order', async () => {
  const tie = (events: Dataset['opens']) => {
    const last = new Map<string, string>();
    let n = 0;
    const out = [...events]
      .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
      .map((e) => {
        const prev = last.get(e.tagID);
        if (prev !== undefined && n++ % 2 === 0) {
          last.delete(e.tagID);
          return { ...e, date: prev };
        }
        last.set(e.tagID, e.date);
        return e;
      });
    return out;
  };
  const dataset: Dataset = {
    ...canonicalDataset,
    opens: tie(canonicalDataset.opens),
    clicks: tie(canonicalDataset.clicks),
  };
  const ties = new Set(dataset.opens.map((e) => `${e.tagID} ${e.date}`)).size;
  expect(ties).toBeLessThan(dataset.opens.length - 100);
  const variant = VARIANTS.find((v) => v.name === 'event-ties-reversed')!;
  const { fixture, blind } = await runVariant(variant, dataset);
  expect([...problems(fixture), ...(blind === undefined ? [] : problems(blind))]).toEqual([]);
  const unvaried = await runInMemory({ dataset }, { dataset, numRuns: 4 });
  expect(problems(unvaried)).toEqual([]);
}, 120_000);
