/**
 * A memo of byte runs already read: the loader reads a run of members once and finds its
 * codes again when the same bytes come back (an event's location and user-agent fields come
 * in few combinations). Equal bytes followed by the same closing byte are read the same way,
 * so a run found here needs no reading, nor any check: it was read, and checked, before.
 */

import { span } from './raw.ts';

/**
 * The index of the first `}` in `b[from .. to]` (-1: none), with the hash of the bytes
 * before it (from `from`) in `span.hash`, four bytes at a time (`view` views `b`). The hash
 * depends on those bytes only.
 */
export function runToBrace(view: DataView, b: Uint8Array, from: number, to: number): number {
  let h = 0;
  let i = from;
  for (; i + 4 <= to; i += 4) {
    const w = view.getInt32(i, true);
    const x = w ^ 0x7d7d7d7d;
    // a zero byte in x: a `}` in these four bytes
    if (((x - 0x01010101) & ~x & 0x80808080) !== 0) break;
    h = Math.imul(h ^ w, 0x9e3779b1);
    h ^= h >>> 15;
  }
  for (; i < to; i++) {
    const c = b[i]!;
    if (c === 0x7d) {
      h = Math.imul(h ^ (i - from), 0x85ebca6b);
      h ^= h >>> 13;
      span.hash = Math.imul(h, 0xc2b2ae35) ^ (h >>> 16);
      return i;
    }
    h = Math.imul(h ^ c, 0x85ebca6b);
  }
  return -1;
}

/** Whether `a[aFrom .. aFrom + n]` equals `b[bFrom .. bFrom + n]` (views `av`, `bv`). */
export function bytesEqual(
  av: DataView,
  a: Uint8Array,
  aFrom: number,
  bv: DataView,
  b: Uint8Array,
  bFrom: number,
  n: number,
): boolean {
  let k = 0;
  for (; k + 4 <= n; k += 4) {
    if (av.getInt32(aFrom + k, true) !== bv.getInt32(bFrom + k, true)) return false;
  }
  for (; k < n; k++) if (a[aFrom + k] !== b[bFrom + k]) return false;
  return true;
}

/**
 * Byte runs (at most `limit`, each with `width` codes), found by their bytes: open
 * addressing over run numbers, the bytes kept in an arena.
 */
export class RunMemo {
  readonly #width: number;
  readonly #limit: number;
  readonly #table: Int32Array;
  readonly #mask: number;
  #arena = new Uint8Array(1 << 12);
  #arenaView = new DataView(this.#arena.buffer);
  #arenaLen = 0;
  readonly #hash: Int32Array;
  readonly #off: Int32Array;
  readonly #len: Int32Array;
  /** `width` codes per run; a run's first code -1 until {@link fill}ed. */
  readonly codes: Int32Array;
  #runs = 0;

  /** `width` codes per run, at most `limit` runs (a power of two). */
  constructor(width: number, limit = 4096) {
    this.#width = width;
    this.#limit = limit;
    this.#mask = limit * 2 - 1;
    this.#table = new Int32Array(limit * 2);
    this.#hash = new Int32Array(limit);
    this.#off = new Int32Array(limit);
    this.#len = new Int32Array(limit);
    this.codes = new Int32Array(limit * width).fill(-1);
  }

  /**
   * The number of the run `b[from .. to]` (`view` views `b`; hash `h`, see
   * {@link runToBrace}), adding it when new; -1 when new and the memo is full. A new run's
   * codes are to be {@link fill}ed.
   */
  run(view: DataView, b: Uint8Array, from: number, to: number, h: number): number {
    const len = to - from;
    const table = this.#table;
    let s = h & this.#mask;
    for (;;) {
      const r1 = table[s]!;
      if (r1 === 0) break;
      const r = r1 - 1;
      if (this.#hash[r] === h && this.#len[r] === len) {
        if (bytesEqual(view, b, from, this.#arenaView, this.#arena, this.#off[r]!, len)) return r;
      }
      s = (s + 1) & this.#mask;
    }
    if (this.#runs === this.#limit) return -1;
    const r = this.#runs++;
    if (this.#arenaLen + len > this.#arena.length) {
      const grown = new Uint8Array(Math.max(this.#arena.length * 2, this.#arenaLen + len));
      grown.set(this.#arena.subarray(0, this.#arenaLen));
      this.#arena = grown;
      this.#arenaView = new DataView(grown.buffer);
    }
    this.#arena.set(b.subarray(from, to), this.#arenaLen);
    this.#hash[r] = h;
    this.#off[r] = this.#arenaLen;
    this.#len[r] = len;
    this.#arenaLen += len;
    table[s] = r + 1;
    return r;
  }

  /** Whether run `r` has its codes. */
  filled(r: number): boolean {
    return this.codes[r * this.#width]! >= 0;
  }

  /** Sets run `r`'s codes to `codes[from .. from + width]`. */
  fill(r: number, codes: Int32Array, from: number): void {
    const w = this.#width;
    for (let k = 0, at = r * w; k < w; k++) this.codes[at + k] = codes[from + k]!;
  }

  /** Copies run `r`'s codes to `codes[from .. from + width]`. */
  copy(r: number, codes: Int32Array, from: number): void {
    const w = this.#width;
    for (let k = 0, at = r * w; k < w; k++) codes[from + k] = this.codes[at + k]!;
  }
}
