import { fc, test as fcTest } from '@fast-check/vitest';
import { expect } from 'vitest';
import { sortByKey, sortIndicesByKey, sortRangeByKey } from '../src/memory/sort.ts';

const arbKeys = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 200 }),
  fc.array(fc.integer({ min: 946_684_800_000, max: 4_133_980_799_000 }), { maxLength: 200 }),
  // any safe integers whose range (max - min) is below 2^53, sortByKey's stated domain: two
  // keys drawn from the whole safe range can lie 2^54 apart (a seed found one), past it
  fc.array(
    fc.maxSafeInteger().map((k) => Math.trunc(k / 2)),
    { maxLength: 50 },
  ),
);

fcTest.prop([arbKeys])(
  'sortIndicesByKey orders by key, ties in index order (a stable sort)',
  (keys) => {
    const expected = keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
    expect(Array.from(sortIndicesByKey(Float64Array.from(keys)))).toEqual(expected);
  },
);

fcTest.prop([fc.array(fc.integer({ min: 946_684_800, max: 2_840_000_000 }), { maxLength: 200 })])(
  'sortIndicesByKey orders whole-second epoch milliseconds stably (a 32-bit path: 2000-2059)',
  (secs) => {
    const keys = secs.map((s) => s * 1000);
    const expected = keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
    expect(Array.from(sortIndicesByKey(Float64Array.from(keys)))).toEqual(expected);
  },
);

/** The indices of `keys` stably sorted by key (the law the radix sorts must follow). */
function stableOrder(keys: readonly number[]): number[] {
  return keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
}

/**
 * The first position where `sortIndicesByKey(keys)` differs from the stable order, -1 when
 * none (a cheap comparison: failing cases of thousands of keys shrink quickly).
 */
function firstDifference(keys: readonly number[]): number {
  const actual = sortIndicesByKey(Float64Array.from(keys));
  const expected = stableOrder(keys);
  if (actual.length !== expected.length) return Math.min(actual.length, expected.length);
  return expected.findIndex((e, i) => actual[i] !== e);
}

fcTest.prop([fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 300 })])(
  'radix sort of keys of at most 8 bits (one pass) is the stable sort by key',
  (keys) => {
    expect(Array.from(sortIndicesByKey(Float64Array.from(keys)))).toEqual(stableOrder(keys));
  },
);

/**
 * `n` pseudo-random integers in `[0, 2^bits)` from `seed` (mulberry32): long key lists whose
 * failing cases shrink by their length, not element by element.
 */
function randomKeys(seed: number, n: number, bits: number): number[] {
  let a = seed | 0;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out.push(((t ^ (t >>> 14)) >>> 0) % 2 ** bits);
  }
  return out;
}

fcTest.prop([
  fc.integer({ min: 9, max: 20 }),
  fc.nat({ max: 12 }),
  fc.integer({ min: 2, max: 3000 }),
  fc.integer(),
])(
  'radix sort of keys of 9 to 20 bits (all digits counted in one pass; a digit shared by all keys skipped) is the stable sort by key',
  (bits, zeroBits, n, seed) => {
    // The low `zeroBits` bits are zero: a low digit equal in every key moves nothing.
    const keys = randomKeys(seed, n, bits).map((k) => (k >>> zeroBits) << zeroBits);
    expect(firstDifference(keys)).toBe(-1);
  },
);

fcTest.prop([
  fc.integer({ min: 1_600_000_000, max: 1_800_000_000 }),
  fc.integer({ min: 2, max: 2000 }),
  fc.integer(),
  fc.nat({ max: 5 }),
])(
  'radix sort of whole-second epoch ms keys over weeks, with repeats, is the stable sort by key',
  (base, n, seed, repeats) => {
    // Up to 40 days of seconds; repeated values (same second), as events of one tag come.
    const offsets = randomKeys(seed, n, 22).map((o) => o % (40 * 86_400));
    const secs = offsets.flatMap((o, i) => (i % 7 === 0 ? Array(repeats + 1).fill(o) : [o]));
    const keys = secs.map((s) => (base + s) * 1000);
    expect(firstDifference(keys)).toBe(-1);
  },
);

fcTest.prop([
  fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 120, size: 'max' }),
  fc.nat({ max: 120 }),
  fc.nat({ max: 120 }),
])(
  'sortRangeByKey sorts items[from..to) stably by key (short ranges by insertion, long by radix) and leaves the rest',
  (keyList, x, y) => {
    const n = keyList.length;
    const from = Math.min(x, y, n);
    const to = Math.min(Math.max(x, y), n);
    const keys = Float64Array.from(keyList, (k) => 1_700_000_000_000 + k * 1000);
    // Items are a permutation with the range's items ascending (as a tag's events come).
    const items = Int32Array.from({ length: n }, (_, i) => n - 1 - i);
    items.subarray(from, to).sort();
    const before = Array.from(items);
    sortRangeByKey(items, from, to, keys);
    const range = before.slice(from, to);
    const expected = range
      .map((item, i) => ({ item, i }))
      .sort((a, b) => keys[a.item]! - keys[b.item]! || a.i - b.i)
      .map((r) => r.item);
    expect(Array.from(items.subarray(from, to))).toEqual(expected);
    expect(Array.from(items.subarray(0, from))).toEqual(before.slice(0, from));
    expect(Array.from(items.subarray(to))).toEqual(before.slice(to));
  },
);

fcTest.prop([
  fc.constantFrom('sorted', 'seconds', 'milliseconds', 'wide'),
  fc.integer({ min: 0, max: 600 }),
  fc.integer(),
  fc.nat({ max: 20 }),
])(
  'sortByKey carries each value with its key and gives the keys in order (or integers equal exactly where they are)',
  (kind, n, seed, spread) => {
    // Whole seconds (the integer path by seconds), milliseconds within days (by ms), a range
    // beyond 2^31 ms not in whole seconds (the float path), or already sorted.
    const raw = randomKeys(seed, n, 20).map((x) => x % (spread * 50 + 1));
    const keys =
      kind === 'seconds'
        ? raw.map((x) => 1_700_000_000_000 + x * 1000)
        : kind === 'milliseconds'
          ? raw.map((x) => 1_700_000_000_000 + x * 7)
          : kind === 'wide'
            ? raw.map((x) => 1_000_000_000_000 + x * 1_000_003_001)
            : raw.sort((a, b) => a - b);
    const carry = Int32Array.from(keys, (_, i) => i * 3 + 1);
    const { order, carried, sortedKeys } = sortByKey(Float64Array.from(keys), carry, true);
    const expected = stableOrder(keys);
    // One comparison per law (cheap, so a failing case of hundreds of keys shrinks quickly).
    const orderOk = expected.every((e, i) => order[i] === e);
    const carriedOk = carried!.every((c, i) => c === carry[order[i]!]);
    const carryKept = carry.every((c, i) => c === i * 3 + 1); // not written into
    let keysOk = sortedKeys!.length === n;
    for (let i = 1; i < n && keysOk; i++) {
      const same = keys[order[i]!] === keys[order[i - 1]!];
      keysOk =
        (sortedKeys![i] === sortedKeys![i - 1]) === same &&
        sortedKeys![i]! > sortedKeys![i - 1]! !== same;
    }
    expect({ orderOk, carriedOk, carryKept, keysOk }).toEqual({
      orderOk: true,
      carriedOk: true,
      carryKept: true,
      keysOk: true,
    });
    expect(sortByKey(Float64Array.from(keys)).carried).toBeUndefined();
  },
  // up to 600 keys x 100 runs: seconds when the machine is shared (a timeout, not a speed target)
  30_000,
);
