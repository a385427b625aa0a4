import type { DatasetEvent, Device } from '@tagtrack/core';
import { formatTimestamp } from '@tagtrack/core';
import type { Dicts } from './dict.ts';

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

/** Rows a store allocates before its first growth. */
export const INITIAL_CAPACITY = 1024;

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
