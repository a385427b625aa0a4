/**
 * Sorting helpers for the indexes: a stable LSD radix sort by integer keys (epoch
 * milliseconds) that carries a value per key along (`sortByKey`), which orders a million
 * events in a few passes without a comparator; a stable sort of a short range (a tag's
 * events, `sortRangeByKey`); a binary search (`partitionPoint`).
 */

const MAX_DIGIT_BITS = 20;
/**
 * Digits of the integer path: at most 11 bits, and about 16 keys per digit value or more, so
 * each pass writes to few enough places at once to stay in cache (three passes for epoch
 * seconds over a few years).
 */
const MAX_INT_DIGIT_BITS = 11;
const INT_RANGE = 2 ** 31;

/** The result of {@link sortByKey}: a stable order by key, with what was asked along it. */
export interface KeyOrder {
  /** The indices `0..keys.length-1` in ascending order of `keys`, ties in index order. */
  readonly order: Int32Array;
  /** `carry[order[i]]` at each `i`, when a `carry` was given. */
  readonly carried: Int32Array | undefined;
  /**
   * The keys in order, when asked for: `keys[order[i]]` at each `i` (`keys` itself when it was
   * already sorted), or the integers `(keys[order[i]] - min) / scale` the radix sort compared
   * (equal exactly where the keys are equal). Not to be mutated.
   */
  readonly sortedKeys: Float64Array | Int32Array | undefined;
}

/**
 * The indices `0..keys.length-1` in ascending order of `keys`, ties in index order (stable):
 * {@link sortByKey} without anything carried along.
 */
export function sortIndicesByKey(keys: Float64Array): Int32Array {
  return sortByKey(keys).order;
}

/**
 * Sorts `keys` stably (ties in index order), carrying `carry` (one value per key) and, with
 * `withKeys`, the keys themselves along, so a caller reads what it needs of each position in
 * order instead of looking it up at random (`carry[order[i]]`: a cache miss per key).
 * `keys` are finite integers whose range (max - min) is below 2^53. Already sorted input
 * costs one pass. Keys that fit 31 bits after subtracting the minimum (and dividing by 1000
 * when all are whole seconds of epoch milliseconds, tried first) are sorted by an LSD radix
 * sort of 32-bit integers: one pass computing them and counting every digit, then one scatter
 * pass per digit of at most 11 bits (three for timestamps over a few years, two for a few
 * weeks); other keys by a radix sort of the floats.
 */
export function sortByKey(keys: Float64Array, carry?: Int32Array, withKeys = false): KeyOrder {
  const n = keys.length;
  const { min, max, sorted } = scanKeys(keys);
  if (sorted) {
    return { order: identity(n), carried: carry?.slice(), sortedKeys: withKeys ? keys : undefined };
  }
  const range = max - min;
  const int =
    (range / 1000 < INT_RANGE ? radixInt(keys, min, 1000, range / 1000, carry) : undefined) ??
    (range < INT_RANGE ? radixInt(keys, min, 1, range, carry) : undefined);
  if (int) {
    return { order: int.order, carried: int.carried, sortedKeys: withKeys ? int.keys : undefined };
  }
  const order = radixFloat(identity(n), keys, min, range);
  let carried: Int32Array | undefined;
  let sortedKeys: Float64Array | undefined;
  if (carry) {
    carried = new Int32Array(n);
    for (let i = 0; i < n; i++) carried[i] = carry[order[i]!]!;
  }
  if (withKeys) {
    sortedKeys = new Float64Array(n);
    for (let i = 0; i < n; i++) sortedKeys[i] = keys[order[i]!]!;
  }
  return { order, carried, sortedKeys };
}

/** The least and greatest key, and whether the keys ascend. */
function scanKeys(keys: Float64Array): { min: number; max: number; sorted: boolean } {
  let sorted = true;
  let min = Infinity;
  let max = -Infinity;
  let prev = -Infinity;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k < prev) sorted = false;
    prev = k;
    if (k < min) min = k;
    if (k > max) max = k;
  }
  return { min, max, sorted };
}

/** `0..n-1`. */
function identity(n: number): Int32Array {
  const index = new Int32Array(n);
  for (let i = 0; i < n; i++) index[i] = i;
  return index;
}

/**
 * The stable order of `(keys - min) / scale`, or `undefined` when one of these is not an
 * integer; they lie in `[0, range]`, `range < 2^31`. An LSD radix sort: one pass computes the
 * integer keys and counts every digit, then one scatter pass per digit moves indices, keys
 * and carried values (a digit equal in every key is skipped). Returns the order, the integer
 * keys in order, and `carry` in order.
 *
 * Each hot loop is a small function of its own: on a cold start each is compiled once (a
 * small function quickly), and the passes after the second run compiled code.
 */
function radixInt(
  keys: Float64Array,
  min: number,
  scale: number,
  range: number,
  carry: Int32Array | undefined,
): { order: Int32Array; keys: Int32Array; carried: Int32Array | undefined } | undefined {
  const n = keys.length;
  const bits = Math.max(1, Math.ceil(Math.log2(Math.floor(range) + 1)));
  const widest = Math.min(MAX_INT_DIGIT_BITS, Math.max(8, Math.ceil(Math.log2(n + 1)) - 4));
  const passes = Math.ceil(bits / widest);
  const digitBits = Math.ceil(bits / passes);
  const radix = 1 << digitBits;
  const mask = radix - 1;
  const ints = new Int32Array(n);
  // The counts of every digit, pass p's at `counts[p * radix ..]`.
  const counts = new Int32Array(passes * radix);
  if (!countDigits(keys, min, scale, ints, counts, passes, digitBits)) return undefined;
  // `null` indices: the identity (no pass has moved anything yet).
  let srcI: Int32Array | null = null;
  let srcK: Int32Array = ints;
  let srcC: Int32Array | null = carry ?? null;
  let dstI: Int32Array = new Int32Array(n);
  let dstK: Int32Array = new Int32Array(n);
  let dstC: Int32Array | null = carry ? new Int32Array(n) : null;
  for (let p = 0, shift = 0; p < passes; p++, shift += digitBits) {
    const base = p * radix;
    if (counts[base + ((srcK[0]! >>> shift) & mask)] === n) continue; // nothing moves
    startsOf(counts, base, base + radix);
    if (srcI === null) scatterFirst(counts, base, shift, mask, srcK, srcC, dstK, dstI, dstC);
    else scatterNext(counts, base, shift, mask, srcK, srcI, srcC, dstK, dstI, dstC);
    const tI = srcI ?? new Int32Array(n);
    srcI = dstI;
    dstI = tI;
    const tK = srcK;
    srcK = dstK;
    dstK = tK;
    if (dstC) {
      // Never write into the caller's `carry`.
      const tC = srcC === carry ? new Int32Array(n) : srcC;
      srcC = dstC;
      dstC = tC;
    }
  }
  return {
    order: srcI ?? identity(n),
    keys: srcK,
    carried: carry && (srcC === carry ? carry.slice() : srcC!),
  };
}

/**
 * Computes `ints[i] = (keys[i] - min) / scale` and counts the `passes` digits of `digitBits`
 * bits of each into `counts` (pass `p`'s at `counts[p << digitBits ..]`); false as soon as
 * one is not an integer.
 */
function countDigits(
  keys: Float64Array,
  min: number,
  scale: number,
  ints: Int32Array,
  counts: Int32Array,
  passes: number,
  digitBits: number,
): boolean {
  const mask = (1 << digitBits) - 1;
  for (let i = 0; i < keys.length; i++) {
    const q = (keys[i]! - min) / scale;
    const k = q | 0;
    if (k !== q) return false;
    ints[i] = k;
    counts[k & mask]!++;
    for (let p = 1, shift = digitBits; p < passes; p++, shift += digitBits) {
      counts[(p << digitBits) + ((k >>> shift) & mask)]!++;
    }
  }
  return true;
}

/** Exclusive prefix sums of `counts[from .. to)` in place: the first position of each digit. */
function startsOf(counts: Int32Array, from: number, to: number): void {
  let sum = 0;
  for (let d = from; d < to; d++) {
    const c = counts[d]!;
    counts[d] = sum;
    sum += c;
  }
}

/**
 * The first LSD pass that moves anything: moves each key of `srcK` (with its index `i`, and
 * its carried value when `srcC` is not null) to the next position of its digit
 * (`(key >>> shift) & mask`), whose next positions are `counts[base + digit]`. (Apart from
 * {@link scatterNext}, whose reads of indices it does not make: compiled code of one would
 * be thrown away when the other case came.)
 */
function scatterFirst(
  counts: Int32Array,
  base: number,
  shift: number,
  mask: number,
  srcK: Int32Array,
  srcC: Int32Array | null,
  dstK: Int32Array,
  dstI: Int32Array,
  dstC: Int32Array | null,
): void {
  for (let i = 0; i < srcK.length; i++) {
    const k = srcK[i]!;
    const at = counts[base + ((k >>> shift) & mask)]!++;
    dstK[at] = k;
    dstI[at] = i;
    if (srcC !== null && dstC !== null) dstC[at] = srcC[i]!;
  }
}

/** A later LSD pass: as {@link scatterFirst}, the indices read from `srcI`. */
function scatterNext(
  counts: Int32Array,
  base: number,
  shift: number,
  mask: number,
  srcK: Int32Array,
  srcI: Int32Array,
  srcC: Int32Array | null,
  dstK: Int32Array,
  dstI: Int32Array,
  dstC: Int32Array | null,
): void {
  for (let i = 0; i < srcK.length; i++) {
    const k = srcK[i]!;
    const at = counts[base + ((k >>> shift) & mask)]!++;
    dstK[at] = k;
    dstI[at] = srcI[i]!;
    if (srcC !== null && dstC !== null) dstC[at] = srcC[i]!;
  }
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
