import { readFileSync } from 'node:fs';
import type { Dataset } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { VARIANTS } from '@tagtrack/server';
import { expect, test } from 'vitest';
import { runInMemory } from './helpers.ts';
import { MATRIX_FILES, problems, runVariant, variantsOfPart } from './variant-matrix.ts';

/**
 * The variant matrix (see variant-matrix.ts) runs in the files variants-memory-N.test.ts and
 * variants-socket-N.test.ts, one per part; this file checks that they take every variant.
 */
test('VARIANTS covers the freedoms of the plan, each with its clause', () => {
  expect(VARIANTS.length).toBeGreaterThanOrEqual(23);
  for (const v of VARIANTS) expect(v.freedom).toMatch(/\bspec\b/);
});

test('the files of the variant matrix take every variant once', () => {
  const taken = Object.entries(MATRIX_FILES).flatMap(([kind, { parts }]) =>
    Array.from({ length: parts }, (_, i) => {
      const file = new URL(`./variants-${kind}-${i + 1}.test.ts`, import.meta.url);
      // the file exists and declares its part
      expect(readFileSync(file, 'utf8')).toContain(`describeVariants('${kind}', ${i + 1});`);
      return variantsOfPart(kind as keyof typeof MATRIX_FILES, i + 1).map((v) => v.name);
    }).flat(),
  );
  // an old rule kept as a variant is audited both ways in revisions.test.ts
  const current = VARIANTS.filter((v) => !('revision' in v));
  expect(taken.sort()).toEqual(current.map((v) => v.name).sort());
  expect(new Set(taken).size).toBe(current.length);
});

/**
 * The canonical dataset has no two events of a tag at the same instant, so the
 * event-ties-reversed variant runs again on a copy where every second event of a tag takes
 * the date of the one before it (spec §5 Revision 2: such events come in any order).
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
  const { fixture, blind } = await runVariant(variant, dataset, { blind: true });
  expect([...problems(fixture), ...(blind === undefined ? [] : problems(blind))]).toEqual([]);
  const unvaried = await runInMemory({ dataset }, { dataset, numRuns: 4 });
  expect(problems(unvaried)).toEqual([]);
}, 600_000);
