/**
 * Sorting helpers for the indexes: a stable LSD radix sort of indices by integer keys
 * (epoch milliseconds), which orders a million events in a few passes without a comparator.
 */

const MAX_DIGIT_BITS = 20;

/**
 * The indices `0..keys.length-1` in ascending order of `keys`, ties in index order (stable).
 * `keys` are finite integers whose range (max - min) is below 2^53. Already sorted input
 * costs one pass.
 */
export function sortIndicesByKey(keys: Float64Array): Int32Array {
  const n = keys.length;
  let src = new Int32Array(n);
  for (let i = 0; i < n; i++) src[i] = i;
  let sorted = true;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (i > 0 && k < keys[i - 1]!) sorted = false;
    if (k < min) min = k;
    if (k > max) max = k;
  }
  if (sorted) return src;
  const range = max - min;
  // As few passes as possible, with digits of at most 20 bits (a 4 MB count table) and not
  // much wider than log2(n), so the count table never dwarfs the input.
  const bits = Math.max(1, Math.ceil(Math.log2(range + 1)));
  const widest = Math.min(MAX_DIGIT_BITS, Math.max(8, Math.ceil(Math.log2(n + 1))));
  const passes = Math.ceil(bits / widest);
  const digitBits = Math.ceil(bits / passes);
  const radix = 2 ** digitBits;
  let dst = new Int32Array(n);
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
