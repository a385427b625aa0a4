import type { DatasetEvent, DatasetTag, Device } from '@tagtrack/core';
import { formatTimestamp, normaliseEmail } from '@tagtrack/core';
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

/** The dictionary-encoded detail fields of an event, in {@link EventStore} order. */
export const DETAIL_FIELDS = [
  'os',
  'browser',
  'counry',
  'region',
  'city',
  'latitude',
  'longitude',
] as const;
type DetailField = (typeof DETAIL_FIELDS)[number];

const INITIAL_CAPACITY = 1024;

/** The dictionary fields of an event's codes, in {@link EventStore.pushCodes} order. */
export const EVENT_CODE_FIELDS = [
  'tagID',
  'email',
  'device',
  ...DETAIL_FIELDS,
] as const satisfies readonly (keyof Dicts)[];

/** An {@link EventStore}'s columns, as sent between threads. */
export interface EventColumnsData {
  readonly tagCode: Int32Array;
  readonly email: Int32Array;
  readonly ms: Float64Array;
  readonly device: Uint8Array;
  readonly details: Readonly<Record<DetailField, Int32Array>>;
}

/**
 * The open (or click) events of a dataset as columns, appended one event at a time:
 * the tagID and email as written (dictionary codes), the date as epoch ms (the text kept only
 * when it is not the canonical `YYYY-MM-DDTHH:MM:SSZ`), the device and the detail fields as
 * dictionary codes, and (per-table input) the event's `position`. About 50 bytes an event.
 * {@link at} materialises one event as the dataset wrote it.
 */
export class EventStore {
  length = 0;
  tagCode: Int32Array;
  email: Int32Array;
  ms: Float64Array;
  device: Uint8Array;
  readonly details: Record<DetailField, Int32Array>;
  /** `position` of each event (per-table input only), else empty. */
  position: Float64Array;
  /** The row of each event in its table (per-table input only), else empty. */
  row: Int32Array;
  /** Dates as written, of the events whose date is not canonical (or not a date). */
  readonly rawDate = new Map<number, string>();

  constructor(
    readonly dicts: Dicts,
    readonly withPositions = false,
  ) {
    const n = INITIAL_CAPACITY;
    this.tagCode = new Int32Array(n);
    this.email = new Int32Array(n);
    this.ms = new Float64Array(n);
    this.device = new Uint8Array(n);
    this.details = Object.fromEntries(DETAIL_FIELDS.map((f) => [f, new Int32Array(n)])) as Record<
      DetailField,
      Int32Array
    >;
    this.position = new Float64Array(withPositions ? n : 0);
    this.row = new Int32Array(withPositions ? n : 0);
  }

  /** Room for `capacity` events (the columns are copied into larger arrays). */
  #grow(capacity: number): void {
    const grow = <A extends Int32Array | Float64Array | Uint8Array>(a: A): A => {
      const b = new (a.constructor as new (n: number) => A)(capacity);
      b.set(a.subarray(0, this.length));
      return b;
    };
    this.tagCode = grow(this.tagCode);
    this.email = grow(this.email);
    this.ms = grow(this.ms);
    this.device = grow(this.device);
    for (const f of DETAIL_FIELDS) this.details[f] = grow(this.details[f]);
    if (this.withPositions) {
      this.position = grow(this.position);
      this.row = grow(this.row);
    }
  }

  /**
   * Appends an event (schema-valid; `ms` its date parsed, NaN when not a date; per-table
   * input: its `position` and row in the table) and returns its index.
   */
  push(e: DatasetEvent, ms: number, position = 0, row = 0): number {
    const i = this.length;
    if (i === this.tagCode.length) this.#grow(i * 2);
    const d = this.dicts;
    this.tagCode[i] = d.tagID.code(e.tagID);
    this.email[i] = d.email.code(e.email);
    this.ms[i] = ms;
    if (e.date.length !== 20 || Number.isNaN(ms)) this.rawDate.set(i, e.date);
    this.device[i] = d.device.code(e.device);
    const x = this.details;
    x.os[i] = d.os.code(e.os);
    x.browser[i] = d.browser.code(e.browser);
    x.counry[i] = d.counry.code(e.counry);
    x.region[i] = d.region.code(e.region);
    x.city[i] = d.city.code(e.city);
    x.latitude[i] = d.latitude.code(e.latitude);
    x.longitude[i] = d.longitude.code(e.longitude);
    if (this.withPositions) {
      this.position[i] = position;
      this.row[i] = row;
    }
    this.length = i + 1;
    return i;
  }

  /**
   * Appends an event given as dictionary codes (of {@link dicts}) and a canonical date's
   * epoch ms (per-table input: its `position` and row in the table) and returns its index.
   */
  pushCodes(codes: Int32Array, ms: number, position = 0, row = 0): number {
    const i = this.length;
    if (i === this.tagCode.length) this.#grow(i * 2);
    if (this.withPositions) {
      this.position[i] = position;
      this.row[i] = row;
    }
    this.tagCode[i] = codes[0]!;
    this.email[i] = codes[1]!;
    this.ms[i] = ms;
    this.device[i] = codes[2]!;
    const x = this.details;
    x.os[i] = codes[3]!;
    x.browser[i] = codes[4]!;
    x.counry[i] = codes[5]!;
    x.region[i] = codes[6]!;
    x.city[i] = codes[7]!;
    x.latitude[i] = codes[8]!;
    x.longitude[i] = codes[9]!;
    this.length = i + 1;
    return i;
  }

  /**
   * Appends events `from .. from + count` of `other` (canonical dates, no positions: read
   * from bytes by another thread), their codes translated by `maps` (per field of
   * {@link EVENT_CODE_FIELDS}: `other`'s code -> this store's code).
   */
  appendMapped(
    other: EventColumnsData,
    from: number,
    count: number,
    maps: readonly Int32Array[],
  ): void {
    const n = this.length + count;
    if (n > this.tagCode.length) this.#grow(Math.max(n, this.tagCode.length * 2));
    const at = this.length;
    const copy = (src: Int32Array, dst: Int32Array, map: Int32Array) => {
      for (let i = 0; i < count; i++) dst[at + i] = map[src[from + i]!]!;
    };
    copy(other.tagCode, this.tagCode, maps[0]!);
    copy(other.email, this.email, maps[1]!);
    const dev = maps[2]!;
    for (let i = 0; i < count; i++) this.device[at + i] = dev[other.device[from + i]!]!;
    DETAIL_FIELDS.forEach((f, k) => {
      copy(other.details[f], this.details[f], maps[3 + k]!);
    });
    this.ms.set(other.ms.subarray(from, from + count), at);
    this.length = n;
  }

  /** The columns (cut to {@link length}), for another thread ({@link appendMapped}). */
  exportColumns(): EventColumnsData {
    const n = this.length;
    return {
      tagCode: this.tagCode.slice(0, n),
      email: this.email.slice(0, n),
      ms: this.ms.slice(0, n),
      device: this.device.slice(0, n),
      details: Object.fromEntries(
        DETAIL_FIELDS.map((f) => [f, this.details[f].slice(0, n)]),
      ) as Record<DetailField, Int32Array>,
    };
  }

  /**
   * Takes `length` events' columns (a snapshot's, checked by its reader: `ms` a
   * `Float64Array`, `device` a `Uint8Array`, the others `Int32Array`s) and the dates written
   * otherwise than canonically.
   */
  restore(
    columns: Readonly<Record<string, Int32Array | Float64Array | Uint8Array>>,
    length: number,
    rawDate: readonly (readonly [number, string])[],
  ): void {
    this.tagCode = columns.tagCode as Int32Array;
    this.email = columns.email as Int32Array;
    this.ms = columns.ms as Float64Array;
    this.device = columns.device as Uint8Array;
    for (const f of DETAIL_FIELDS) this.details[f] = columns[f] as Int32Array;
    this.length = length;
    this.rawDate.clear();
    for (const [i, raw] of rawDate) this.rawDate.set(i, raw);
  }

  /** Frees the spare capacity (columns cut to {@link length}). */
  trim(): void {
    const n = this.length;
    if (this.tagCode.length === n) return;
    this.tagCode = this.tagCode.slice(0, n);
    this.email = this.email.slice(0, n);
    this.ms = this.ms.slice(0, n);
    this.device = this.device.slice(0, n);
    for (const f of DETAIL_FIELDS) this.details[f] = this.details[f].slice(0, n);
    if (this.withPositions) {
      this.position = this.position.slice(0, n);
      this.row = this.row.slice(0, n);
    }
  }

  /**
   * Reorders the events so that `order[j]` becomes event `j` (`order` a permutation of
   * `0 .. length`).
   */
  permute(order: Int32Array): void {
    const n = this.length;
    const re = <A extends Int32Array | Float64Array | Uint8Array>(a: A): A => {
      const b = new (a.constructor as new (n: number) => A)(n);
      for (let j = 0; j < n; j++) b[j] = a[order[j]!]!;
      return b;
    };
    this.tagCode = re(this.tagCode);
    this.email = re(this.email);
    this.ms = re(this.ms);
    this.device = re(this.device);
    for (const f of DETAIL_FIELDS) this.details[f] = re(this.details[f]);
    if (this.withPositions) {
      this.position = re(this.position);
      this.row = re(this.row);
    }
    if (this.rawDate.size > 0) {
      const back = new Int32Array(n);
      for (let j = 0; j < n; j++) back[order[j]!] = j;
      const moved = [...this.rawDate].map(([i, raw]) => [back[i]!, raw] as const);
      this.rawDate.clear();
      for (const [j, raw] of moved) this.rawDate.set(j, raw);
    }
  }

  /** The date of event `i` as written. */
  date(i: number): string {
    return this.rawDate.get(i) ?? formatTimestamp(this.ms[i]!);
  }

  /** Event `i` as the dataset wrote it (a new object), `undefined` outside `0 .. length`. */
  at(i: number): DatasetEvent | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    const d = this.dicts;
    const x = this.details;
    return {
      counry: d.counry.values[x.counry[i]!]!,
      region: d.region.values[x.region[i]!]!,
      city: d.city.values[x.city[i]!]!,
      latitude: d.latitude.values[x.latitude[i]!]!,
      longitude: d.longitude.values[x.longitude[i]!]!,
      device: d.device.values[this.device[i]!]! as Device,
      os: d.os.values[x.os[i]!]!,
      browser: d.browser.values[x.browser[i]!]!,
      tagID: d.tagID.values[this.tagCode[i]!]!,
      email: d.email.values[this.email[i]!]!,
      date: this.date(i),
    };
  }

  /** Every event, materialised (for small datasets and tests: one object per event). */
  toArray(): DatasetEvent[] {
    const out: DatasetEvent[] = new Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.at(i)!;
    return out;
  }
}

/**
 * The recipients of a dataset's tags as columns (decisions §9 event log): tag `t`'s recipients
 * are rows `start(t) .. start(t + 1)`, in the order the tag lists them, each its name and
 * email as written (dictionary codes of {@link Dicts.name} and {@link Dicts.email}). Rows are
 * pushed tag by tag ({@link push}, then {@link endTag}). About 8 bytes a recipient. Implements
 * core's `RecipientSource` (tag index, position in the tag's list).
 */
export class RecipientStore {
  /** Rows pushed. */
  length = 0;
  name: Int32Array = new Int32Array(INITIAL_CAPACITY);
  email: Int32Array = new Int32Array(INITIAL_CAPACITY);
  /** Tags ended. */
  tags = 0;
  #start: Int32Array = new Int32Array(INITIAL_CAPACITY);
  #norm: string[] = [];
  #normKey = new Int32Array(0);
  /** Keys of normalised emails that are not in the dictionary themselves. */
  #extraKeys: Map<string, number> | undefined;

  constructor(readonly dicts: Dicts) {}

  /** Appends a recipient (codes of its name and email) to the tag being read. */
  push(name: number, email: number): void {
    const i = this.length;
    if (i === this.name.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(i * 2);
        b.set(a);
        return b;
      };
      this.name = grow(this.name);
      this.email = grow(this.email);
    }
    this.name[i] = name;
    this.email[i] = email;
    this.length = i + 1;
  }

  /** Drops the rows pushed after the first `length` (a record read in part). */
  truncate(length: number): void {
    this.length = Math.min(this.length, length);
  }

  /** Ends the tag being read (its rows: those pushed since the last end); returns its index. */
  endTag(): number {
    const t = this.tags++;
    if (this.tags + 1 > this.#start.length) {
      const b = new Int32Array(this.#start.length * 2);
      b.set(this.#start);
      this.#start = b;
    }
    this.#start[t + 1] = this.length;
    return t;
  }

  /** The columns (cut to the rows; tag `t`'s rows `start[t] .. start[t + 1]`), not copied. */
  columns(): { start: Int32Array; name: Int32Array; email: Int32Array } {
    return {
      start: this.#start.subarray(0, this.tags + 1),
      name: this.name.subarray(0, this.length),
      email: this.email.subarray(0, this.length),
    };
  }

  /** Takes columns as {@link columns} gives them (a snapshot's; checked by its reader). */
  restore(start: Int32Array, name: Int32Array, email: Int32Array): void {
    this.#start = start;
    this.name = name;
    this.email = email;
    this.tags = start.length - 1;
    this.length = name.length;
  }

  /** Frees the spare capacity. */
  trim(): void {
    if (this.name.length === this.length && this.#start.length === this.tags + 1) return;
    this.name = this.name.slice(0, this.length);
    this.email = this.email.slice(0, this.length);
    this.#start = this.#start.slice(0, this.tags + 1);
  }

  /** The first row of tag `t` (its rows: `start(t) .. start(t + 1)`). */
  start(t: number): number {
    return this.#start[t]!;
  }

  /** Recipients of tag `t`. */
  count(t: number): number {
    return this.#start[t + 1]! - this.#start[t]!;
  }

  /** The name of recipient `pos` of tag `t`, as written. */
  nameOf(t: number, pos: number): string {
    return this.dicts.name.values[this.name[this.#start[t]! + pos]!]!;
  }

  /** The email of recipient `pos` of tag `t`, as written. */
  emailOf(t: number, pos: number): string {
    return this.dicts.email.values[this.email[this.#start[t]! + pos]!]!;
  }

  /** The normalised email (the contact key, decisions §9) of recipient `pos` of tag `t`. */
  normalisedEmailOf(t: number, pos: number): string {
    return this.normalisedEmail(this.email[this.#start[t]! + pos]!);
  }

  /**
   * `normaliseEmail` of email code `code` (computed once per code; the value itself when it
   * is already normalised, so equal strings are usually the same string).
   */
  normalisedEmail(code: number): string {
    if (code >= this.#norm.length) this.#normalise();
    return this.#norm[code]!;
  }

  /**
   * An integer equal for two recipients exactly when their normalised emails are equal
   * (core's `RecipientSource.normalisedKeyOf`): the email code of the normalised email when
   * it is in the dictionary, else a number above every code.
   */
  normalisedKeyOf(t: number, pos: number): number {
    return this.normalisedKeyOfCode(this.email[this.#start[t]! + pos]!);
  }

  /** {@link normalisedKeyOf} of email code `code` (of {@link Dicts.email}). */
  normalisedKeyOfCode(code: number): number {
    if (code >= this.#norm.length) this.#normalise();
    return this.#normKey[code]!;
  }

  /**
   * Normalises the emails not yet normalised, all at once, into dense arrays (filling them
   * code by code out of order would make a sparse array, slow at millions of emails).
   */
  #normalise(): void {
    const dict = this.dicts.email;
    const values = dict.values;
    const norm = this.#norm;
    const keys = new Int32Array(values.length);
    keys.set(this.#normKey.subarray(0, norm.length));
    for (let c = norm.length; c < values.length; c++) {
      const email = values[c]!;
      const n = normaliseEmail(email);
      if (n === email) {
        norm.push(email);
        keys[c] = c;
        continue;
      }
      norm.push(n);
      let key = dict.find(n);
      if (key === undefined) {
        this.#extraKeys ??= new Map();
        key = this.#extraKeys.get(n);
        if (key === undefined) {
          key = 0x40000000 + this.#extraKeys.size;
          this.#extraKeys.set(n, key);
        }
      }
      keys[c] = key;
    }
    this.#normKey = keys;
  }

  /** Tag `t`'s recipients as the dataset wrote them (new objects). */
  list(t: number): DatasetTag['recipients'] {
    const from = this.#start[t]!;
    const to = this.#start[t + 1]!;
    const d = this.dicts;
    const out: DatasetTag['recipients'] = new Array(to - from);
    for (let i = from; i < to; i++) {
      out[i - from] = {
        name: d.name.values[this.name[i]!]!,
        email: d.email.values[this.email[i]!]!,
      };
    }
    return out;
  }

  /**
   * Tag `t` as a dataset record whose `recipients` (an enumerable getter) are materialised
   * from the columns on each access.
   */
  tag(t: number, tagID: string, memberID: string, subject: string, dateSent: string): DatasetTag {
    const store = this;
    return {
      tagID,
      memberID,
      subject,
      dateSent,
      get recipients() {
        return store.list(t);
      },
    };
  }
}
