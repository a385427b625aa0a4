import type { ReportingIndex } from '@tagtrack/core';
import {
  type Dataset,
  type DatasetCredential,
  DatasetCredential as DatasetCredentialSchema,
  DatasetError,
  type DatasetEvent,
  DatasetEvent as DatasetEventSchema,
  type DatasetTag,
  DatasetTag as DatasetTagSchema,
  type DatasetTeam,
  DatasetTeam as DatasetTeamSchema,
  Device,
  Id,
  Latitude,
  Longitude,
  parseTimestampMs,
} from '@tagtrack/core';
import {
  CredentialRow,
  EventRow,
  GroupRow,
  MemberRow,
  RecipientRow,
  type TableName,
  TablesError,
  TagRow,
  TeamRow,
  tablesToDataset,
} from '@tagtrack/dataset';
import type * as z from 'zod';
import { type BuildIndexOptions, indexOfResolved } from '../build.ts';
import { Problems } from './builder/problems.ts';
import { RecordBytesReader } from './builder/record-bytes.ts';
import { validCode } from './builder/record-keys.ts';
import { resolveColumns } from './builder/resolve.ts';
import { restoreSnapshot, snapshotPartsOf } from './builder/snapshot-parts.ts';
import { type Dict, Dicts } from './dict.ts';
import { EVENT_CODE_FIELDS, EventStore } from './event-store.ts';
import { RecipientStore } from './recipient-store.ts';
import { SnapshotError, type SnapshotParts } from './snapshot.ts';
import type { Segment, WorkerEvents } from './worker-events.ts';

/** The top-level arrays of the dataset JSON document, in the order they are written. */
export const DATASET_KEYS = ['teams', 'tags', 'opens', 'clicks', 'credentials'] as const;
export type DatasetKey = (typeof DATASET_KEYS)[number];

/** A dataset loaded into columns: its reporting index and what it took. */
export interface ColumnarDataset {
  /** The index answering every endpoint (`index.dataset` materialises events on access). */
  readonly index: ReportingIndex;
  /** Opens and clicks loaded. */
  readonly events: number;
  /** Milliseconds spent resolving references (tags' recipients, each event's tag and entry). */
  readonly resolveMs: number;
  /** Milliseconds spent building the indexes from the resolved columns. */
  readonly indexMs: number;
}

const _DEVICES: ReadonlySet<string> = new Set(Device.options);

const DEVICES: ReadonlySet<string> = new Set(Device.options);

/** Rows of the six small tables, as the per-table form gives them. */
interface SmallTables {
  teams: TeamRow[];
  groups: GroupRow[];
  members: MemberRow[];
  credentials: CredentialRow[];
  tags: TagRow[];
  recipients: RecipientRow[];
}

const ROW_SCHEMAS = {
  teams: TeamRow,
  groups: GroupRow,
  members: MemberRow,
  credentials: CredentialRow,
  tags: TagRow,
  recipients: RecipientRow,
} as const;

/**
 * Builds a dataset's columns record by record, as a streaming reader hands them over, then
 * its {@link ReportingIndex} ({@link finish}). Takes either the dataset document's top-level
 * arrays ({@link elements}: `teams`, `tags`, `opens`, `clicks`, `credentials`) or the rows of
 * the per-table form ({@link rows}: the tables of `dataset/tables.ts`), not both.
 *
 * Events go into {@link EventStore} columns (dictionary codes, epoch ms), never kept as
 * objects; teams, tags (recipient names and emails interned) and credentials are kept as
 * records. Each record is checked against its zod schema as it comes (a fast check of the
 * usual event shape first; zod names the field when it fails); problems name the record and
 * field, e.g. `opens[123456].date: Invalid ISO datetime`.
 */
export class ColumnarBuilder {
  readonly dicts = new Dicts();
  readonly opens: EventStore;
  readonly clicks: EventStore;
  /** The tags' recipients, tag by tag in the order of the tags. */
  readonly recipients = new RecipientStore(this.dicts);
  readonly #teams: DatasetTeam[] = [];
  readonly #tags: DatasetTag[] = [];
  readonly #credentials: DatasetCredential[] = [];
  readonly #tables: SmallTables = {
    teams: [],
    groups: [],
    members: [],
    credentials: [],
    tags: [],
    recipients: [],
  };
  readonly #problems = new Problems();
  readonly #seen = new Set<string>();
  /** The fast path: tags and events read straight from their bytes into the columns. */
  readonly #bytes: RecordBytesReader;

  /** `tables`: the input is the per-table form (events carry a `position`). */
  constructor(readonly tables = false) {
    this.opens = new EventStore(this.dicts, tables);
    this.clicks = new EventStore(this.dicts, tables);
    const { dicts, opens, clicks, recipients } = this;
    this.#bytes = new RecordBytesReader(dicts, opens, clicks, recipients, this.#tags, tables);
  }

  /** Events added so far. */
  get events(): number {
    return this.opens.length + this.clicks.length;
  }

  /** Problems found so far (schema problems of records). */
  get problemCount(): number {
    return this.#problems.size;
  }

  /**
   * The document's top-level array `key` starts (a problem when it came before); returns
   * true for `tags`, `opens` and `clicks`, whose elements are read from their bytes when they
   * can be.
   */
  array(key: string): boolean {
    if (!(DATASET_KEYS as readonly string[]).includes(key)) return false;
    if (this.#seen.has(key)) this.#problems.add(`${key}: the key appears twice`);
    this.#seen.add(key);
    return !this.tables && (key === 'opens' || key === 'clicks' || key === 'tags');
  }

  /**
   * Takes element `index` of `tags`, `opens` or `clicks` straight from its bytes into the
   * columns when it has the usual shape: an object of exactly the record's fields (an event's
   * eleven strings; a tag's four strings and its `recipients`, objects of exactly `name` and
   * `email`), in any order, whitespace anywhere JSON allows, dates in the canonical
   * `YYYY-MM-DDTHH:MM:SSZ`, ids and coordinates valid. Strings are found in the dictionaries
   * by their bytes (no string is made but for a new value; a string with escapes is decoded
   * by `JSON.parse`). It does not take anything else, which is then parsed and checked as a
   * record (zod names the problem).
   * `b[from ..]` starts the element and `to` is the end of the bytes at hand; returns the
   * index after the element when it took it, 0 when it is to be parsed, -1 when the bytes at
   * hand end first (called again with more).
   */
  rawElement(key: string, b: Uint8Array, from: number, to: number, index: number): number {
    return this.#bytes.element(key, b, from, to, index);
  }

  /**
   * Takes row `row` of table `opens` or `clicks` of the per-table form straight from its
   * bytes `b[from .. to]` (one NDJSON line) into the columns when it has the usual shape (as
   * {@link rawElement}: an event's fields and an integer `position`, nothing else, then only
   * whitespace); returns 1 when it took it, 0 when the row is to be parsed and checked.
   */
  rawRow(table: string, b: Uint8Array, from: number, to: number, row: number): number {
    return this.#bytes.row(table, b, from, to, row);
  }

  /**
   * The events read so far (all in {@link opens}) as columns and dictionaries for another
   * thread, with the runs `segments` they form (`parallel.ts`).
   */
  exportEvents(segments: readonly Segment[]): WorkerEvents {
    return {
      segments,
      columns: this.opens.exportColumns(),
      dicts: EVENT_CODE_FIELDS.map((f) => this.dicts[f].exportBytes()),
    };
  }

  /**
   * Appends events `first .. first + count` another thread read (`events`, see
   * {@link exportEvents}) to `opens` or `clicks`, their dictionary codes translated.
   */
  appendEvents(key: 'opens' | 'clicks', events: WorkerEvents, first: number, count: number): void {
    let maps = this.#maps.get(events);
    if (maps === undefined) {
      maps = EVENT_CODE_FIELDS.map((f, k) => this.dicts[f].codesOf(events.dicts[k]!));
      this.#maps.set(events, maps);
    }
    (key === 'opens' ? this.opens : this.clicks).appendMapped(events.columns, first, count, maps);
  }

  readonly #maps = new WeakMap<WorkerEvents, Int32Array[]>();

  /** Elements `first ..` of the document's top-level array `key` (unknown keys are ignored). */
  elements(key: string, values: unknown[], first: number): void {
    if (!(DATASET_KEYS as readonly string[]).includes(key)) return;
    switch (key as DatasetKey) {
      case 'teams':
        values.forEach((v, j) => {
          const p = DatasetTeamSchema.safeParse(v);
          if (p.success) this.#teams.push(p.data);
          else this.#problems.addIssues(`teams[${first + j}]`, p.error);
        });
        return;
      case 'tags':
        for (let j = 0; j < values.length; j++) this.#tag(values[j], first + j);
        return;
      case 'credentials':
        values.forEach((v, j) => {
          const p = DatasetCredentialSchema.safeParse(v);
          if (p.success) this.#credentials.push(p.data);
          else this.#problems.addIssues(`credentials[${first + j}]`, p.error);
        });
        return;
      case 'opens':
      case 'clicks': {
        const store = key === 'opens' ? this.opens : this.clicks;
        for (let j = 0; j < values.length; j++) this.#event(store, key, values[j], first + j);
        return;
      }
    }
  }

  /** A top-level value that is not an array: a problem for the dataset's keys. */
  value(key: string, value: unknown): void {
    if (!(DATASET_KEYS as readonly string[]).includes(key)) return;
    if (this.#seen.has(key)) this.#problems.add(`${key}: the key appears twice`);
    this.#seen.add(key);
    const got = value === null ? 'null' : typeof value;
    this.#problems.add(`${key}: expected an array, got ${got}`);
  }

  #tag(v: unknown, i: number): void {
    const p = DatasetTagSchema.safeParse(v);
    if (!p.success) {
      this.#problems.addIssues(`tags[${i}]`, p.error);
      return;
    }
    this.#tags.push(this.#columnarTag(p.data));
  }

  /** A parsed tag, its recipients moved into {@link recipients} (strings interned). */
  #columnarTag(tag: DatasetTag): DatasetTag {
    const d = this.dicts;
    for (const r of tag.recipients)
      this.recipients.push(d.name.code(r.name), d.email.code(r.email));
    const t = this.recipients.endTag();
    this.#bytes.noteTag(d.tagID.code(tag.tagID), t);
    return this.recipients.tag(
      t,
      d.tagID.intern(tag.tagID),
      d.memberID.intern(tag.memberID),
      d.subject.intern(tag.subject),
      tag.dateSent,
    );
  }

  /**
   * Checks and stores one event. The fast check accepts only what the zod schema accepts
   * (string fields, a known device, a canonical 20-character date, ids and coordinates
   * checked once per distinct value); anything else goes through zod, which names the field.
   */
  #event(store: EventStore, key: string, v: unknown, i: number, position = 0): void {
    const e = v as DatasetEvent;
    let ms = this.#fastMs(v);
    const fast = !Number.isNaN(ms);
    if (!fast) {
      const p = (this.tables ? EventRow : DatasetEventSchema).safeParse(
        this.tables ? { ...(v as object), position } : v,
      );
      if (!p.success) {
        this.#problems.addIssues(`${key}[${i}]`, p.error);
        return;
      }
      ms = parseTimestampMs(e.date);
    }
    store.push(e, ms, position, i);
  }

  /**
   * The date of event `v` in epoch ms when it passes the fast check (which implies the zod
   * schema), else NaN.
   */
  #fastMs(v: unknown): number {
    const e = v as DatasetEvent;
    const ok =
      typeof v === 'object' &&
      v !== null &&
      typeof e.tagID === 'string' &&
      typeof e.email === 'string' &&
      typeof e.date === 'string' &&
      typeof e.device === 'string' &&
      typeof e.os === 'string' &&
      typeof e.browser === 'string' &&
      typeof e.counry === 'string' &&
      typeof e.region === 'string' &&
      typeof e.city === 'string' &&
      typeof e.latitude === 'string' &&
      typeof e.longitude === 'string' &&
      DEVICES.has(e.device) &&
      e.date.length === 20 &&
      this.#checked(this.dicts.tagID, e.tagID, Id) &&
      this.#checked(this.dicts.latitude, e.latitude, Latitude) &&
      this.#checked(this.dicts.longitude, e.longitude, Longitude);
    return ok ? parseTimestampMs(e.date) : Number.NaN;
  }

  /** Whether `value` passes `schema`, checked once per distinct value of `dict`. */
  #checked(dict: Dict, value: string, schema: z.ZodType): boolean {
    return validCode(dict, dict.code(value), schema);
  }

  /**
   * Rows `first ..` of table `table` of the per-table form (`opens`, `clicks` rows carry a
   * `position`; unknown tables are ignored). Rows are checked against the table's row schema.
   */
  rows(table: TableName | string, rows: unknown[], first: number): void {
    if (table === 'opens' || table === 'clicks') {
      const store = table === 'opens' ? this.opens : this.clicks;
      for (let j = 0; j < rows.length; j++) {
        const row = rows[j] as { position?: unknown };
        const pos = row !== null && typeof row === 'object' ? row.position : undefined;
        if (typeof pos !== 'number' || !Number.isInteger(pos) || pos < 0) {
          const p = EventRow.safeParse(row);
          if (!p.success) this.#problems.addIssues(`${table}[${first + j}]`, p.error);
          continue;
        }
        this.#event(store, table, row, first + j, pos);
      }
      return;
    }
    if (!(table in ROW_SCHEMAS)) return;
    const name = table as keyof SmallTables;
    const schema = ROW_SCHEMAS[name] as z.ZodType;
    const out = this.#tables[name] as unknown[];
    rows.forEach((row, j) => {
      const p = schema.safeParse(row);
      if (!p.success) this.#problems.addIssues(`${table}[${first + j}]`, p.error);
      else out.push(p.data);
    });
  }

  /**
   * Resolves the references (the problems of `validateDataset`, in its words) and builds the
   * index from the columns. Throws core's {@link DatasetError} listing the schema problems
   * of records (by record and field), or else the referential problems, when there are any.
   */
  finish(options: BuildIndexOptions = {}): ColumnarDataset {
    if (!this.tables) {
      for (const key of DATASET_KEYS) {
        if (!this.#seen.has(key)) this.#problems.add(`${key}: missing (expected an array)`);
      }
    }
    let skeleton: Dataset;
    if (this.tables) {
      this.#order(this.opens, 'opens');
      this.#order(this.clicks, 'clicks');
      skeleton = this.#skeletonOfTables();
    } else {
      skeleton = {
        teams: this.#teams,
        tags: this.#tags,
        opens: [],
        clicks: [],
        credentials: this.#credentials,
      };
    }
    if (this.#problems.size > 0) throw new DatasetError(this.#problems.finish());
    this.#skeleton = skeleton;
    this.opens.trim();
    this.clicks.trim();
    this.recipients.trim();
    const t0 = performance.now();
    const res = resolveColumns(skeleton, this.dicts, this.recipients, this);
    const t1 = performance.now();
    const index = indexOfResolved(res, options);
    const t2 = performance.now();
    // the strings stay (records are materialised from them); the byte lookups go
    this.dicts.release();
    return { index, events: this.events, resolveMs: t1 - t0, indexMs: t2 - t1 };
  }

  /** The teams, tags and credentials, once {@link finish} found them valid. */
  #skeleton: Dataset | undefined;

  /**
   * What a snapshot of this dataset holds (`snapshot.ts`), after {@link finish}: the columns
   * and dictionaries as they are (not copied), the tags' fields, teams and credentials.
   * Throws when not finished.
   */
  snapshotParts(): SnapshotParts {
    const skeleton = this.#skeleton;
    if (skeleton === undefined) throw new Error('snapshotParts: finish the dataset first');
    return snapshotPartsOf(skeleton, this.dicts, this.recipients, this);
  }

  /**
   * A builder holding the dataset of a snapshot's parts ({@link parseSnapshot}), to
   * {@link finish} as after loading its JSON: the values are checked with the dataset
   * schemas (problems named `snapshot <part>[i]`), the references resolved as for any
   * dataset. Throws {@link SnapshotError} when a dictionary repeats a value.
   */
  static fromSnapshot(parts: SnapshotParts): ColumnarBuilder {
    const b = new ColumnarBuilder();
    b.#restore(parts);
    return b;
  }

  #restore(p: SnapshotParts): void {
    restoreSnapshot(p, {
      dicts: this.dicts,
      recipients: this.recipients,
      opens: this.opens,
      clicks: this.clicks,
      teams: this.#teams,
      credentials: this.#credentials,
      tags: this.#tags,
      problems: this.#problems,
      noteTag: (code, t) => this.#bytes.noteTag(code, t),
    });
    for (const key of DATASET_KEYS) this.#seen.add(key);
  }

  /** The teams, tags and credentials of the per-table form, nested (no events). */
  #skeletonOfTables(): Dataset {
    const t = this.#tables;
    try {
      const skeleton = tablesToDataset({ ...t, opens: [], clicks: [] });
      skeleton.tags = skeleton.tags.map((tag) => this.#columnarTag(tag));
      return skeleton;
    } catch (e) {
      if (!(e instanceof TablesError)) throw e;
      for (const p of e.problems) this.#problems.add(p);
      return { teams: [], tags: [], opens: [], clicks: [], credentials: [] };
    } finally {
      this.#tables.recipients = [];
    }
  }

  /** Puts per-table events in `position` order (stable), noting repeated positions. */
  #order(store: EventStore, table: string): void {
    const n = store.length;
    const pos = store.position;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = pos[i - 1]! < pos[i]!;
    if (sorted) return;
    const order = Int32Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => pos[a]! - pos[b]! || a - b);
    for (let j = 1; j < n; j++) {
      if (pos[order[j]!] === pos[order[j - 1]!]) {
        this.#problems.add(
          `${table}[${store.row[order[j]!]}].position: position ${pos[order[j]!]} repeated`,
        );
      }
    }
    store.permute(order);
  }
}
