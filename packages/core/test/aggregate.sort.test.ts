import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { groupStable, sortIndicesByKey } from '../src/aggregate/sort.ts';

const arbKeys = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 200 }),
  fc.array(fc.integer({ min: 946_684_800_000, max: 4_133_980_799_000 }), { maxLength: 200 }),
  fc.array(fc.maxSafeInteger(), { maxLength: 50 }),
);

test.prop([arbKeys], { numRuns: 200 })(
  'sortIndicesByKey orders by key, ties in index order (a stable sort)',
  (keys) => {
    const expected = keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
    expect(Array.from(sortIndicesByKey(Float64Array.from(keys)))).toEqual(expected);
  },
);

test.prop([fc.array(fc.nat({ max: 6 }), { maxLength: 100 })], { numRuns: 200 })(
  'groupStable groups items by group, keeping their order inside a group',
  (groups) => {
    const order = Int32Array.from(groups.map((_, i) => i).reverse());
    const { items, start } = groupStable(order, 7, (i) => groups[i]!);
    for (let g = 0; g < 7; g++) {
      const expected = Array.from(order).filter((i) => groups[i] === g);
      expect(Array.from(items.subarray(start[g]!, start[g + 1]!))).toEqual(expected);
    }
  },
);

test.prop([fc.array(fc.nat({ max: 4 }), { maxLength: 60 })], { numRuns: 100 })(
  'groupStable over a count groups 0..n-1 in ascending order inside a group',
  (groups) => {
    const { items, start } = groupStable(groups.length, 5, (i) => groups[i]!);
    for (let g = 0; g < 5; g++) {
      const expected = groups.map((_, i) => i).filter((i) => groups[i] === g);
      expect(Array.from(items.subarray(start[g]!, start[g + 1]!))).toEqual(expected);
    }
  },
);

test.prop([fc.array(fc.integer({ min: 946_684_800, max: 2_840_000_000 }), { maxLength: 200 })], {
  numRuns: 100,
})(
  'sortIndicesByKey orders whole-second epoch milliseconds stably (a 32-bit path: 2000-2059)',
  (secs) => {
    const keys = secs.map((s) => s * 1000);
    const expected = keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
    expect(Array.from(sortIndicesByKey(Float64Array.from(keys)))).toEqual(expected);
  },
);
