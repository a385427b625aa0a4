import { hashBytes } from './raw.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A {@link Dict}'s values as UTF-8 bytes ({@link Dict.exportBytes}). */
export interface DictBytes {
  readonly arena: Uint8Array;
  readonly offset: Int32Array;
  readonly length: Int32Array;
  readonly illFormed: readonly [number, string][];
}

/** Slot layout of {@link Dict}'s table: code + 1 (0: empty), hash, arena offset, byte length. */
const SLOT = 4;

/** Node's `Buffer` latin1 decoding when available (for ASCII, the UTF-8 decoding, faster). */
const latin1Slice = (
  globalThis as { Buffer?: { prototype: { latin1Slice?: (from: number, to: number) => string } } }
).Buffer?.prototype.latin1Slice;

const encoder = new TextEncoder();

/** Whether `s` has no lone surrogate (has a UTF-8 form): ES2024 `isWellFormed`. */
function wellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/**
 * Interned strings: each distinct value once, numbered in order of first appearance
 * (dictionary encoding of a column). `checked[code]` remembers a per-value check.
 *
 * Values are found by their UTF-8 bytes ({@link codeBytes}: open addressing over one
 * interleaved table, the bytes kept in an arena), so the loader finds a value straight from
 * the input without making a string but for a new value; {@link code} of a string goes
 * through its bytes too, so both ways give the same codes.
 */
export class Dict {
  readonly values: string[] = [];
  /** 1: checked and valid, 2: checked and invalid, 0 (absent): not checked. */
  readonly checked: number[] = [];

  /** The last string looked up and its code: values often repeat from one record to the next. */
  #last: string | undefined;
  #lastCode = -1;

  #table = new Int32Array(1024 * SLOT);
  #mask = 1023;
  #arena = new Uint8Array(1 << 14);
  #arenaLen = 0;
  /** Per code: where its UTF-8 bytes are in the arena, their length (-1: none, ill-formed). */
  #codeOff = new Int32Array(64);
  #codeLen = new Int32Array(64);
  /** Per code: 1 when its bytes hold no quote, backslash or control byte (JSON as is). */
  #plain = new Uint8Array(64);
  #scratch = new Uint8Array(256);

  /** The code of `value`, adding it when new. */
  code(value: string): number {
    if (value === this.#last) return this.#lastCode;
    if (!wellFormed(value)) return this.#illFormed(value);
    // UTF-8 is at most 3 bytes per UTF-16 unit
    if (value.length * 3 > this.#scratch.length) {
      this.#scratch = new Uint8Array(Math.max(value.length * 3, this.#scratch.length * 2));
    }
    const { written } = encoder.encodeInto(value, this.#scratch);
    const c = this.#lookup(this.#scratch, 0, written, hashBytes(this.#scratch, 0, written), value);
    this.#last = value;
    this.#lastCode = c;
    return c;
  }

  /** Strings with a lone surrogate (no UTF-8 form: only from JSON escapes), by value. */
  #odd: Map<string, number> | undefined;

  #illFormed(value: string): number {
    this.#odd ??= new Map();
    let c = this.#odd.get(value);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(value);
      this.#odd.set(value, c);
      this.#ensureCode(c);
      this.#codeLen[c] = -1;
      this.#plain[c] = 0;
    }
    return c;
  }

  /** The interned copy of `value` (the first one seen), adding it when new. */
  intern(value: string): string {
    return this.values[this.code(value)]!;
  }

  /**
   * The code of the string whose UTF-8 bytes are `bytes[from .. to]` (JSON string content
   * without escapes) and whose {@link hashBytes} is `hash`, adding it when new; -1 when the
   * bytes are not UTF-8.
   */
  codeBytes(
    bytes: Uint8Array,
    from: number,
    to: number,
    hash = hashBytes(bytes, from, to),
  ): number {
    return this.#lookup(bytes, from, to, hash, undefined);
  }

  /** The code of the bytes, adding them (as `value`, or decoded) when new; -1: not UTF-8. */
  #lookup(
    bytes: Uint8Array,
    from: number,
    to: number,
    h: number,
    value: string | undefined,
  ): number {
    const found = this.#probe(bytes, from, to, h);
    if (found >= 0) return found;
    const s = -1 - found;
    const len = to - from;
    const table = this.#table;
    const mask = this.#mask;
    if (value === undefined) {
      value = decodeUtf8(bytes, from, to);
      if (value === undefined) return -1;
    }
    const code = this.values.length;
    this.values.push(value);
    this.#ensureCode(code);
    this.#codeOff[code] = this.#arenaLen;
    this.#codeLen[code] = len;
    this.#plain[code] = jsonPlain(bytes, from, to) ? 1 : 0;
    if (this.#arenaLen + len > this.#arena.length) {
      const grown = new Uint8Array(Math.max(this.#arena.length * 2, this.#arenaLen + len));
      grown.set(this.#arena.subarray(0, this.#arenaLen));
      this.#arena = grown;
    }
    this.#arena.set(bytes.subarray(from, to), this.#arenaLen);
    const at = s * SLOT;
    table[at] = code + 1;
    table[at + 1] = h;
    table[at + 2] = this.#arenaLen;
    table[at + 3] = len;
    this.#arenaLen += len;
    if (this.values.length * 2 > mask + 1) this.#rehash();
    return code;
  }

  /**
   * The code of the bytes `bytes[from .. to]` whose {@link hashBytes} is `hash`, or -1 when
   * they are not a value (nothing is added).
   */
  findBytes(bytes: Uint8Array, from: number, to: number, hash: number): number {
    const found = this.#probe(bytes, from, to, hash);
    return found >= 0 ? found : -1;
  }

  /** The code of the bytes (hash `h`), or -1 - the empty slot where they would go. */
  #probe(bytes: Uint8Array, from: number, to: number, h: number): number {
    if (this.#released) throw new Error('dictionary released: values can no longer be looked up');
    const table = this.#table;
    const mask = this.#mask;
    const len = to - from;
    let s = h & mask;
    for (;;) {
      const at = s * SLOT;
      const c1 = table[at]!;
      if (c1 === 0) return -1 - s;
      if (table[at + 1] === h && table[at + 3] === len) {
        const arena = this.#arena;
        let j = table[at + 2]!;
        let i = from;
        while (i < to && arena[j] === bytes[i]) {
          i++;
          j++;
        }
        if (i === to) return c1 - 1;
      }
      s = (s + 1) & mask;
    }
  }

  /** Room for code `code` in the per-code columns. */
  #ensureCode(code: number): void {
    if (code < this.#codeOff.length) return;
    const n = Math.max(code + 1, this.#codeOff.length * 2);
    const off = new Int32Array(n);
    off.set(this.#codeOff);
    this.#codeOff = off;
    const l = new Int32Array(n);
    l.set(this.#codeLen);
    this.#codeLen = l;
    const p = new Uint8Array(n);
    p.set(this.#plain);
    this.#plain = p;
  }

  /**
   * Whether the bytes `b[from .. from + n]`, followed by a quote, are the JSON string content
   * of value `code` (`n` its UTF-8 length): they equal the value's UTF-8 bytes, which hold no
   * quote, backslash or control byte (so the JSON text has no escape). Returns the index of
   * that quote, or -1 when not (also when the bytes at hand end first).
   */
  matchPlain(code: number, b: Uint8Array, from: number, to: number): number {
    const n = this.#codeLen[code]!;
    const end = from + n;
    if (this.#plain[code] === 0 || end >= to || b[end] !== 0x22) return -1;
    const arena = this.#arena;
    let j = this.#codeOff[code]!;
    for (let i = from; i < end; i++, j++) if (arena[j] !== b[i]) return -1;
    return end;
  }

  /**
   * The values as UTF-8 bytes, for another thread's dictionary: value `c` is
   * `arena[offset[c] .. offset[c] + length[c]]`, or (length -1) `illFormed`'s string.
   * Copies (transferable).
   */
  exportBytes(): DictBytes {
    const n = this.values.length;
    const illFormed: [number, string][] = [];
    for (let c = 0; c < n; c++) if (this.#codeLen[c]! < 0) illFormed.push([c, this.values[c]!]);
    return {
      arena: this.#arena.slice(0, this.#arenaLen),
      offset: this.#codeOff.slice(0, n),
      length: this.#codeLen.slice(0, n),
      illFormed,
    };
  }

  /** For each value of `other` (an exported dictionary), its code here (added when new). */
  codesOf(other: DictBytes): Int32Array {
    const n = other.offset.length;
    const map = new Int32Array(n);
    const odd = new Map(other.illFormed);
    for (let c = 0; c < n; c++) {
      const len = other.length[c]!;
      if (len < 0) map[c] = this.code(odd.get(c)!);
      else {
        const off = other.offset[c]!;
        map[c] = this.codeBytes(other.arena, off, off + len);
      }
    }
    return map;
  }

  #rehash(): void {
    const old = this.#table;
    const n = (this.#mask + 1) * 2;
    const mask = n - 1;
    const table = new Int32Array(n * SLOT);
    for (let at = 0; at < old.length; at += SLOT) {
      if (old[at] === 0) continue;
      let t = old[at + 1]! & mask;
      while (table[t * SLOT] !== 0) t = (t + 1) & mask;
      table.set(old.subarray(at, at + SLOT), t * SLOT);
    }
    this.#table = table;
    this.#mask = mask;
  }

  /**
   * Frees the lookup structures (the byte table and arena), keeping {@link values}: for a
   * dictionary that is complete. Looking values up afterwards throws.
   */
  release(): void {
    this.#table = new Int32Array(0);
    this.#arena = new Uint8Array(0);
    this.#codeOff = new Int32Array(0);
    this.#codeLen = new Int32Array(0);
    this.#plain = new Uint8Array(0);
    this.#released = true;
  }

  #released = false;

  /**
   * Takes `values` (in code order: a snapshot's) as this empty dictionary's values. With
   * `lookups`, they are also entered in the byte table (for {@link find} and more codes) and
   * must be distinct: returns the index of a value that repeats an earlier one, else -1.
   * Without, they are taken as they are (a repeated value is then two codes of one string,
   * which only a dictionary compared by code, as emails are, could tell apart) and the
   * dictionary is complete ({@link release}d); returns -1.
   */
  adopt(values: readonly string[], lookups: boolean): number {
    if (lookups) {
      for (let i = 0; i < values.length; i++) if (this.code(values[i]!) !== i) return i;
      return -1;
    }
    for (let i = 0; i < values.length; i++) this.values.push(values[i]!);
    this.release();
    return -1;
  }

  /** The code of `value`, or `undefined` when it was never added. */
  find(value: string): number | undefined {
    if (this.#released) throw new Error('dictionary released: values can no longer be looked up');
    if (!wellFormed(value)) return this.#odd?.get(value);
    if (value.length * 3 > this.#scratch.length) {
      this.#scratch = new Uint8Array(Math.max(value.length * 3, this.#scratch.length * 2));
    }
    const bytes = this.#scratch;
    const { written } = encoder.encodeInto(value, bytes);
    const found = this.#probe(bytes, 0, written, hashBytes(bytes, 0, written));
    return found >= 0 ? found : undefined;
  }

  get size(): number {
    return this.values.length;
  }
}

/** Whether `bytes[from .. to]` hold no quote, backslash or control byte (JSON text as is). */
function jsonPlain(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = bytes[i]!;
    if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** `bytes[from .. to]` decoded as UTF-8 (ASCII by latin1, faster), `undefined` if not UTF-8. */
/**
 * The string of the UTF-8 bytes `bytes[from .. to]`, `undefined` when they are not UTF-8
 * (ASCII through Node's latin1 decoding when there is one).
 */
export function decodeUtf8(bytes: Uint8Array, from: number, to: number): string | undefined {
  let ascii = true;
  for (let i = from; i < to && ascii; i++) ascii = bytes[i]! < 0x80;
  if (ascii && latin1Slice) return latin1Slice.call(bytes, from, to);
  try {
    return utf8.decode(bytes.subarray(from, to));
  } catch {
    return undefined;
  }
}

/**
 * The dictionaries shared by the tags, opens and clicks of one dataset: tag ids, senders'
 * member ids, subjects, emails (events' and recipients'), recipients' names, and the detail
 * fields of events.
 */
export class Dicts {
  readonly tagID = new Dict();
  readonly memberID = new Dict();
  readonly subject = new Dict();
  readonly email = new Dict();
  readonly name = new Dict();
  readonly device = new Dict();
  readonly os = new Dict();
  readonly browser = new Dict();
  readonly counry = new Dict();
  readonly region = new Dict();
  readonly city = new Dict();
  readonly latitude = new Dict();
  readonly longitude = new Dict();

  /** {@link Dict.release} of every dictionary. */
  release(): void {
    for (const d of Object.values(this)) if (d instanceof Dict) d.release();
  }
}
