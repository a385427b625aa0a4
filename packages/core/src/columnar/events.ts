import type { DatasetEvent } from '../dataset/schema.ts';
import type { Device } from '../events.ts';
import { formatTimestamp } from '../values.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Interned strings: each distinct value once, numbered in order of first appearance
 * (dictionary encoding of a column). `valid[code]` remembers a per-value check.
 */
export class Dict {
  readonly #codes = new Map<string, number>();
  readonly values: string[] = [];
  /** 1: checked and valid, 2: checked and invalid, 0 (absent): not checked. */
  readonly checked: number[] = [];

  /** The last value looked up and its code: values often repeat from one record to the next. */
  #last: string | undefined;
  #lastCode = -1;

  /** The code of `value`, adding it when new. */
  code(value: string): number {
    if (value === this.#last) return this.#lastCode;
    let c = this.#codes.get(value);
    if (c === undefined) {
      c = this.values.length;
      this.#codes.set(value, c);
      this.values.push(value);
    }
    this.#last = value;
    this.#lastCode = c;
    return c;
  }

  /** The interned copy of `value` (the first one seen), adding it when new. */
  intern(value: string): string {
    return this.values[this.code(value)]!;
  }

  // A second index by UTF-8 bytes (open addressing, FNV-1a): `codeBytes` finds a value
  // straight from the input bytes, without making a string, except for a new value.
  #slots = new Int32Array(1024);
  #slotHash = new Int32Array(1024);
  #slotOff = new Int32Array(1024);
  #slotLen = new Int32Array(1024);
  #arena = new Uint8Array(1 << 14);
  #arenaLen = 0;
  #byteCount = 0;

  /**
   * The code of the string whose UTF-8 bytes are `bytes[from .. to]` (JSON string content
   * without escapes), adding it when new; -1 when the bytes are not UTF-8.
   */
  codeBytes(bytes: Uint8Array, from: number, to: number): number {
    let h = 0x811c9dc5;
    for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    // murmur3's finaliser: FNV's low bits (the slot) depend on the bytes' low bits only
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    const slots = this.#slots;
    const mask = slots.length - 1;
    let s = h & mask;
    for (;;) {
      const c1 = slots[s]!;
      if (c1 === 0) break;
      if (this.#slotHash[s] === h && this.#slotLen[s] === to - from) {
        const arena = this.#arena;
        let j = this.#slotOff[s]!;
        let i = from;
        while (i < to && arena[j] === bytes[i]) {
          i++;
          j++;
        }
        if (i === to) return c1 - 1;
      }
      s = (s + 1) & mask;
    }
    let value: string;
    try {
      value = utf8.decode(bytes.subarray(from, to));
    } catch {
      return -1;
    }
    const code = this.code(value);
    const len = to - from;
    if (this.#arenaLen + len > this.#arena.length) {
      const grown = new Uint8Array(Math.max(this.#arena.length * 2, this.#arenaLen + len));
      grown.set(this.#arena.subarray(0, this.#arenaLen));
      this.#arena = grown;
    }
    this.#arena.set(bytes.subarray(from, to), this.#arenaLen);
    slots[s] = code + 1;
    this.#slotHash[s] = h;
    this.#slotOff[s] = this.#arenaLen;
    this.#slotLen[s] = len;
    this.#arenaLen += len;
    if (++this.#byteCount * 2 > slots.length) this.#rehash();
    return code;
  }

  #rehash(): void {
    const n = this.#slots.length * 2;
    const [slots, hash, off, len] = [this.#slots, this.#slotHash, this.#slotOff, this.#slotLen];
    this.#slots = new Int32Array(n);
    this.#slotHash = new Int32Array(n);
    this.#slotOff = new Int32Array(n);
    this.#slotLen = new Int32Array(n);
    for (let s = 0; s < slots.length; s++) {
      if (slots[s] === 0) continue;
      let t = hash[s]! & (n - 1);
      while (this.#slots[t] !== 0) t = (t + 1) & (n - 1);
      this.#slots[t] = slots[s]!;
      this.#slotHash[t] = hash[s]!;
      this.#slotOff[t] = off[s]!;
      this.#slotLen[t] = len[s]!;
    }
  }

  /** The code of `value`, or `undefined` when it was never added. */
  find(value: string): number | undefined {
    return this.#codes.get(value);
  }

  get size(): number {
    return this.values.length;
  }
}

/**
 * The dictionaries shared by the opens and clicks of one dataset: tag ids, emails (events'
 * and recipients'), names, and the detail fields of events.
 */
export class Dicts {
  readonly tagID = new Dict();
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
   * epoch ms (JSON input only) and returns its index.
   */
  pushCodes(codes: Int32Array, ms: number): number {
    const i = this.length;
    if (i === this.tagCode.length) this.#grow(i * 2);
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

  /** Frees the spare capacity (columns cut to {@link length}). */
  trim(): void {
    const n = this.length;
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
