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
 * when all are whole seconds of epoch milliseconds) are sorted as 32-bit integers carried
 * along with their indices, in two passes for a million timestamps over a few years.
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
  const index = new Int32Array(n);
  for (let i = 0; i < n; i++) index[i] = i;
  if (sorted) return index;
  const range = max - min;
  const scale = range < INT_RANGE ? 1 : range / 1000 < INT_RANGE ? 1000 : 0;
  const small = scale === 0 ? undefined : integerKeys(keys, min, scale);
  if (small) return radixInt(index, small, Math.ceil(Math.log2(range / scale + 1)));
  return radixFloat(index, keys, min, range);
}

/** `(keys - min) / scale` as 32-bit integers, or `undefined` when one is not an integer. */
function integerKeys(keys: Float64Array, min: number, scale: number): Int32Array | undefined {
  const out = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const q = (keys[i]! - min) / scale;
    const v = q | 0;
    if (v !== q) return undefined;
    out[i] = v;
  }
  return out;
}

/** LSD radix sort of `index` by non-negative 31-bit `keys` of `bits` bits (both reordered). */
function radixInt(index: Int32Array, keys: Int32Array, bits: number): Int32Array {
  const n = index.length;
  const widest = Math.min(MAX_INT_DIGIT_BITS, Math.max(8, Math.ceil(Math.log2(n + 1))));
  const passes = Math.ceil(Math.max(1, bits) / widest);
  const digitBits = Math.ceil(Math.max(1, bits) / passes);
  const mask = (1 << digitBits) - 1;
  const count = new Int32Array(mask + 1);
  let srcI = index;
  let srcK = keys;
  let dstI: Int32Array = new Int32Array(n);
  let dstK: Int32Array = new Int32Array(n);
  for (let p = 0, shift = 0; p < passes; p++, shift += digitBits) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[(srcK[i]! >>> shift) & mask]!++;
    if (count[(srcK[0]! >>> shift) & mask] === n) continue; // nothing moves
    let sum = 0;
    for (let d = 0; d <= mask; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = srcK[i]!;
      const at = count[(k >>> shift) & mask]!++;
      dstI[at] = srcI[i]!;
      dstK[at] = k;
    }
    [srcI, dstI] = [dstI, srcI];
    [srcK, dstK] = [dstK, srcK];
  }
  return srcI;
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

/**
 * A stable counting sort: the items of `order` (or `0..order-1` when a count is given)
 * grouped by `groupOf(item)` in `0..groups-1`, keeping their relative order inside a group.
 * Returns the grouped items and `start` (length `groups + 1`): group `g` is
 * `items[start[g] .. start[g+1])`. `groupOf` is called twice per item and must be pure.
 */
export function groupStable(
  order: Int32Array | number,
  groups: number,
  groupOf: (item: number) => number,
): { items: Int32Array; start: Int32Array } {
  const start = new Int32Array(groups + 1);
  const n = typeof order === 'number' ? order : order.length;
  const at = typeof order === 'number' ? (i: number) => i : (i: number) => order[i]!;
  for (let i = 0; i < n; i++) start[groupOf(at(i)) + 1]!++;
  for (let k = 0; k < groups; k++) start[k + 1]! += start[k]!;
  const pos = start.slice(0, groups);
  const items = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const item = at(i);
    items[pos[groupOf(item)]!++] = item;
  }
  return { items, start };
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
