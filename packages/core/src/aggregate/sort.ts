/**
 * Sorting helpers for the indexes: a stable LSD radix sort of indices by integer keys
 * (epoch milliseconds), which orders a million events in a few passes without a comparator.
 */

const MAX_DIGIT_BITS = 20;
/** Digits of the integer path: at most 16 bits (a 256 kB count table). */
const MAX_INT_DIGIT_BITS = 16;
const INT_RANGE = 2 ** 31;

/**
 * The indices `0..keys.length-1` in ascending order of `keys`, ties in index order (stable).
 * `keys` are finite integers whose range (max - min) is below 2^53. Already sorted input
 * costs one pass. Keys that fit 31 bits after subtracting the minimum (and dividing by 1000
 * when all are whole seconds of epoch milliseconds, tried first) are sorted as 32-bit
 * integers carried along with their indices: one pass computing them and counting every
 * digit, then one scatter pass per digit (two for a million timestamps over a few years,
 * one when they span less than about 18 hours).
 */
export function sortIndicesByKey(keys: Float64Array): Int32Array {
  const n = keys.length;
  let sorted = true;
  let min = Infinity;
  let max = -Infinity;
  let prev = -Infinity;
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (k < prev) sorted = false;
    prev = k;
    if (k < min) min = k;
    if (k > max) max = k;
  }
  if (sorted) return identity(n);
  const range = max - min;
  const order =
    (range / 1000 < INT_RANGE ? radixInt(keys, min, 1000, range / 1000) : undefined) ??
    (range < INT_RANGE ? radixInt(keys, min, 1, range) : undefined);
  return order ?? radixFloat(identity(n), keys, min, range);
}

/** `0..n-1`. */
function identity(n: number): Int32Array {
  const index = new Int32Array(n);
  for (let i = 0; i < n; i++) index[i] = i;
  return index;
}

/**
 * The indices `0..keys.length-1` in ascending order of `(keys - min) / scale`, stable, or
 * `undefined` when one of these is not an integer; they lie in `[0, range]`, `range < 2^31`.
 * An LSD radix sort: one pass computes the integer keys and counts every digit, then one
 * scatter pass per digit moves indices and keys (a digit equal in every key is skipped).
 */
function radixInt(
  keys: Float64Array,
  min: number,
  scale: number,
  range: number,
): Int32Array | undefined {
  const n = keys.length;
  const bits = Math.max(1, Math.ceil(Math.log2(Math.floor(range) + 1)));
  const widest = Math.min(MAX_INT_DIGIT_BITS, Math.max(8, Math.ceil(Math.log2(n + 1))));
  const passes = Math.ceil(bits / widest);
  const digitBits = Math.ceil(bits / passes);
  const radix = 1 << digitBits;
  const mask = radix - 1;
  const ints = new Int32Array(n);
  // The counts of every digit, pass p's at `counts[p * radix ..]`.
  const counts = new Int32Array(passes * radix);
  for (let i = 0; i < n; i++) {
    const q = (keys[i]! - min) / scale;
    const k = q | 0;
    if (k !== q) return undefined;
    ints[i] = k;
    counts[k & mask]!++;
    for (let p = 1, shift = digitBits; p < passes; p++, shift += digitBits) {
      counts[p * radix + ((k >>> shift) & mask)]!++;
    }
  }
  let srcI: Int32Array | undefined; // undefined: the identity (no pass has moved anything yet)
  let srcK: Int32Array = ints;
  let dstI: Int32Array = new Int32Array(n);
  let dstK: Int32Array = new Int32Array(n);
  for (let p = 0, shift = 0; p < passes; p++, shift += digitBits) {
    const base = p * radix;
    if (counts[base + ((srcK[0]! >>> shift) & mask)] === n) continue; // nothing moves
    // Exclusive prefix sums: the first position of each digit.
    let sum = 0;
    for (let d = base; d < base + radix; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    if (srcI === undefined) {
      for (let i = 0; i < n; i++) {
        const k = srcK[i]!;
        const at = counts[base + ((k >>> shift) & mask)]!++;
        dstI[at] = i;
        dstK[at] = k;
      }
    } else if (p === passes - 1) {
      // The keys are not needed after the last pass.
      for (let i = 0; i < n; i++) dstI[counts[base + ((srcK[i]! >>> shift) & mask)]!++] = srcI[i]!;
    } else {
      for (let i = 0; i < n; i++) {
        const k = srcK[i]!;
        const at = counts[base + ((k >>> shift) & mask)]!++;
        dstI[at] = srcI[i]!;
        dstK[at] = k;
      }
    }
    const tI = srcI ?? new Int32Array(n);
    srcI = dstI;
    dstI = tI;
    const tK = srcK;
    srcK = dstK;
    dstK = tK;
  }
  return srcI ?? identity(n);
}

/** LSD radix sort of `src` (indices) by float integer `keys` of any range below 2^53. */
function radixFloat(src: Int32Array, keys: Float64Array, min: number, range: number): Int32Array {
  const n = src.length;
  // As few passes as possible, with digits of at most 20 bits (a 4 MB count table) and not
  // much wider than log2(n), so the count table never dwarfs the input.
  const bits = Math.max(1, Math.ceil(Math.log2(range + 1)));
  const widest = Math.min(MAX_DIGIT_BITS, Math.max(8, Math.ceil(Math.log2(n + 1))));
  const passes = Math.ceil(bits / widest);
  const digitBits = Math.ceil(bits / passes);
  const radix = 2 ** digitBits;
  let dst: Int32Array = new Int32Array(n);
  const count = new Int32Array(radix);
  const mask = radix - 1;
  for (let p = 0, div = 1; p < passes; p++, div *= radix) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[Math.floor((keys[src[i]!]! - min) / div) & mask]!++;
    if (count[Math.floor((keys[src[0]!]! - min) / div) & mask] === n) continue; // nothing moves
    let sum = 0;
    for (let d = 0; d < radix; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = src[i]!;
      dst[count[Math.floor((keys[k]! - min) / div) & mask]!++] = k;
    }
    const tmp = src;
    src = dst;
    dst = tmp;
  }
  return src;
}

/** Ranges up to this long are sorted by insertion, longer ones by {@link sortIndicesByKey}. */
const INSERTION_MAX = 32;

/**
 * Sorts `items[from .. to)` in place by `keys[item]` ascending, stably: items with equal keys
 * keep their relative order (so when the items come ascending, ties are in item order).
 * Short ranges (a tag's events) are sorted by insertion, in one pass when already sorted;
 * long ones by {@link sortIndicesByKey} on their keys copied aside. `keys` as for
 * {@link sortIndicesByKey}; `0 <= from <= to <= items.length`.
 */
export function sortRangeByKey(
  items: Int32Array,
  from: number,
  to: number,
  keys: Float64Array,
): void {
  const len = to - from;
  if (len > INSERTION_MAX) {
    const own = new Float64Array(len);
    for (let i = 0; i < len; i++) own[i] = keys[items[from + i]!]!;
    const order = sortIndicesByKey(own);
    const copy = items.slice(from, to);
    for (let i = 0; i < len; i++) items[from + i] = copy[order[i]!]!;
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const item = items[i]!;
    const key = keys[item]!;
    let j = i - 1;
    if (keys[items[j]!]! <= key) continue;
    do {
      items[j + 1] = items[j]!;
      j--;
    } while (j >= from && keys[items[j]!]! > key);
    items[j + 1] = item;
  }
}

/** First index `i` in `[lo, hi)` with `!before(i)` (`before` true then false along the range). */
export function partitionPoint(lo: number, hi: number, before: (i: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
