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
  Timestamp,
} from '@tagtrack/core';
import {
  canonicalTimestampMsOfBytes,
  DEVICE_DESKTOP,
  DEVICE_MOBILE,
  DEVICE_NONE,
  type EventColumns,
  MAX_PROBLEMS,
  type ResolvedDataset,
  resolveDataset,
} from '@tagtrack/core/internal';
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
import { type Dict, Dicts, EVENT_CODE_FIELDS, EventStore, RecipientStore } from './events.ts';
import { RunMemo, runToBrace } from './memo.ts';
import type { Segment, WorkerEvents } from './parallel.ts';
import {
  decodeString,
  keyBytes,
  keyEnd,
  keyIndex,
  STRING_ESCAPED,
  STRING_MORE,
  STRING_PLAIN,
  scanString,
  skipSpace,
  span,
} from './raw.ts';
import {
  SNAPSHOT_DICTS,
  type SnapshotDict,
  SnapshotError,
  type SnapshotEvents,
  type SnapshotParts,
} from './snapshot.ts';

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

const DEVICES: ReadonlySet<string> = new Set(Device.options);

/** The event fields read from bytes, in code order; the date last. */
const RAW_FIELDS = [
  'tagID',
  'email',
  'device',
  'os',
  'browser',
  'counry',
  'region',
  'city',
  'latitude',
  'longitude',
  'date',
] as const;
const RAW_DATE = 10;
const RAW_ALL = (1 << RAW_FIELDS.length) - 1;
/** The fields before an event's tail: `tagID`, `email` and `date`. */
const RAW_HEAD = 1 | 2 | (1 << RAW_DATE);
/** The fields of an event's tail: codes 2 .. 9 (device .. longitude). */
const TAIL_FIELDS = RAW_DATE - 2;
/** What `#tail` returns when the tail was read before. */
const TAIL_HIT = -2;
/** Tails remembered at most; tries per window; events skipped after a poor window. */
const TAIL_LIMIT = 4096;
const TAIL_WINDOW = 16384;
const TAIL_PAUSE = 262144;
const RAW_NAMES = keyBytes(RAW_FIELDS);
/** An event row of the per-table form: the event's fields and its `position`, last. */
const ROW_POSITION = RAW_FIELDS.length;
const ROW_NAMES = keyBytes([...RAW_FIELDS, 'position']);
const ROW_ALL = (1 << ROW_NAMES.length) - 1;

/** The tag fields read from bytes. */
const TAG_FIELDS = ['tagID', 'memberID', 'subject', 'dateSent', 'recipients'] as const;
const TAG_DATE_SENT = 3;
const TAG_RECIPIENTS = 4;
const TAG_ALL = (1 << TAG_FIELDS.length) - 1;
const TAG_NAMES = keyBytes(TAG_FIELDS);
const RECIPIENT_NAMES = keyBytes(['name', 'email']);

/** Each key as compact JSON writes it before its value: `"key":`. */
const compactKeys = (names: readonly Uint8Array[]) =>
  names.map((n) => Uint8Array.from([0x22, ...n, 0x22, 0x3a]));
const RAW_KEYS = compactKeys(RAW_NAMES);
const ROW_KEYS = compactKeys(ROW_NAMES);
const TAG_KEYS = compactKeys(TAG_NAMES);
const RECIPIENT_KEYS = compactKeys(RECIPIENT_NAMES);

/** The codes in `dict` of a field of `records` (values in the dictionary, as loaded). */
function codesOf<T>(dict: Dict, records: readonly T[], field: (r: T) => string): Int32Array {
  const values = dict.values;
  const codes = new Map<string, number>();
  for (let c = 0; c < values.length; c++) codes.set(values[c]!, c);
  return Int32Array.from(records, (r) => codes.get(field(r)) ?? -1);
}

/** Whether `s` is a date in the canonical `YYYY-MM-DDTHH:MM:SSZ` form (the fast check). */
function canonicalDate(s: string): boolean {
  return s.length === 20 && !Number.isNaN(parseTimestampMs(s));
}

/** What {@link ColumnarBuilder} string readers return besides a code: more bytes, or refused. */
const MORE = -1;
const REFUSED = -2;
/** What {@link ColumnarBuilder} separator reader returns when the object or array closes. */
const CLOSED = -3;

/** The ASCII bytes `b[from .. to]` as a string. */
function asciiString(b: Uint8Array, from: number, to: number): string {
  return String.fromCharCode.apply(null, b.subarray(from, to) as unknown as number[]);
}

/** `zod` issue paths as the dataset names fields: `.date`, `.recipients[2].email`. */
function pathOf(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

/** Problems, at most {@link MAX_PROBLEMS}, then a count of the rest. */
class Problems {
  readonly list: string[] = [];
  #dropped = 0;
  add(message: string): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push(message);
    else this.#dropped++;
  }
  addIssues(where: string, error: z.ZodError): void {
    for (const issue of error.issues) this.add(`${where}${pathOf(issue.path)}: ${issue.message}`);
  }
  get size(): number {
    return this.list.length + this.#dropped;
  }
  finish(): string[] {
    return this.#dropped > 0 ? [...this.list, `… and ${this.#dropped} more problems`] : this.list;
  }
}

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

  /** `tables`: the input is the per-table form (events carry a `position`). */
  constructor(readonly tables = false) {
    this.opens = new EventStore(this.dicts, tables);
    this.clicks = new EventStore(this.dicts, tables);
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
    if (index < 0) return 0;
    if (from >= to) return -1;
    if (key === 'opens') return this.#rawEvent(this.opens, b, from, to);
    if (key === 'clicks') return this.#rawEvent(this.clicks, b, from, to);
    if (key === 'tags') {
      const rows = this.recipients.length;
      const end = this.#rawTag(b, from, to);
      if (end <= 0) this.recipients.truncate(rows);
      return end;
    }
    return 0;
  }

  /**
   * The code in `dict` of the JSON string whose opening quote is `b[quote]` (its closing
   * quote then at `span.end`), {@link MORE} when the bytes end first, {@link REFUSED} when it
   * is not a JSON string or not UTF-8.
   */
  #stringCode(dict: Dict, b: Uint8Array, quote: number, to: number): number {
    if (quote >= to) return MORE;
    if (b[quote] !== 0x22) return REFUSED;
    const r = scanString(b, quote + 1, to);
    if (r === STRING_PLAIN) {
      const c = dict.codeBytes(b, quote + 1, span.end, span.hash);
      return c < 0 ? REFUSED : c;
    }
    if (r === STRING_MORE) return MORE;
    if (r !== STRING_ESCAPED) return REFUSED;
    const value = decodeString(b, quote, span.end);
    return value === undefined ? REFUSED : dict.code(value);
  }

  /**
   * The index of the value after the key at `b[i]` (skipping the key, the colon and
   * whitespace) with the key's index in `names` in `#field`; 0 when refused, -1 for more.
   */
  #key(names: readonly Uint8Array[], b: Uint8Array, i: number, to: number, guess: number): number {
    // the usual case: the expected key, written `"key":` (compact)
    const expected = guess < names.length ? guess : 0;
    const p = (
      names === RAW_NAMES
        ? RAW_KEYS
        : names === ROW_NAMES
          ? ROW_KEYS
          : names === TAG_NAMES
            ? TAG_KEYS
            : RECIPIENT_KEYS
    )[expected]!;
    const plen = p.length;
    if (i + plen < to) {
      let j = 0;
      while (j < plen && b[i + j] === p[j]) j++;
      if (j === plen) {
        this.#field = expected;
        return skipSpace(b, i + plen, to);
      }
    }
    const ke = keyEnd(b, i, to);
    if (ke <= 0) return ke;
    const f = keyIndex(names, b, i + 1, ke - 1, guess);
    if (f < 0) return 0;
    this.#field = f;
    i = skipSpace(b, ke, to);
    if (i >= to) return -1;
    if (b[i] !== 0x3a) return 0;
    i = skipSpace(b, i + 1, to);
    return i >= to ? -1 : i;
  }

  #field = 0;

  /**
   * Takes row `row` of table `opens` or `clicks` of the per-table form straight from its
   * bytes `b[from .. to]` (one NDJSON line) into the columns when it has the usual shape (as
   * {@link rawElement}: an event's fields and an integer `position`, nothing else, then only
   * whitespace); returns 1 when it took it, 0 when the row is to be parsed and checked.
   */
  rawRow(table: string, b: Uint8Array, from: number, to: number, row: number): number {
    if (!this.tables || (table !== 'opens' && table !== 'clicks')) return 0;
    from = skipSpace(b, from, to);
    if (from >= to) return 0;
    const end = this.#rawEvent(table === 'opens' ? this.opens : this.clicks, b, from, to, row);
    if (end <= 0) return 0;
    if (skipSpace(b, end, to) !== to) {
      // more after the row's object: undo it, and let the parser name the problem
      (table === 'opens' ? this.opens : this.clicks).length--;
      return 0;
    }
    return 1;
  }

  /**
   * {@link rawElement} of an event into `store`; with `row` >= 0, an event row of the
   * per-table form (its `position` too).
   */
  #rawEvent(store: EventStore, b: Uint8Array, from: number, to: number, row = -1): number {
    let i = from;
    if (b[i] !== 0x7b) return 0;
    i = skipSpace(b, i + 1, to);
    let seen = 0;
    let guess = 0;
    let ms = Number.NaN;
    let position = 0;
    const codes = this.#rawCodes;
    const dicts = this.#eventDicts;
    const names = row < 0 ? RAW_NAMES : ROW_NAMES;
    const all = row < 0 ? RAW_ALL : ROW_ALL;
    // the tail is looked up after tagID, email and date (and an event row's position)
    const head = row < 0 ? RAW_HEAD : RAW_HEAD | (1 << ROW_POSITION);
    let tail = -1;
    for (;;) {
      if (seen === head) {
        tail = this.#tail(b, i, to);
        if (tail === TAIL_HIT) {
          seen = all;
          break;
        }
      }
      i = this.#key(names, b, i, to, guess);
      if (i <= 0) return i;
      const f = this.#field;
      if ((seen & (1 << f)) !== 0) return 0;
      seen |= 1 << f;
      guess = f + 1;
      if (f === ROW_POSITION) {
        // a JSON integer (digits, no leading zero), at most 15 digits; else parsed
        let j = i;
        let v = 0;
        while (j < to && b[j]! >= 0x30 && b[j]! <= 0x39) {
          v = v * 10 + (b[j]! - 0x30);
          j++;
        }
        if (j === i || j - i > 15 || (b[i] === 0x30 && j - i > 1)) return 0;
        position = v;
        i = j;
      } else if (f === RAW_DATE) {
        if (i + 22 > to) return -1;
        if (b[i] !== 0x22 || b[i + 21] !== 0x22) return 0;
        ms = canonicalTimestampMsOfBytes(b, i + 1);
        if (Number.isNaN(ms)) return 0;
        i += 22;
      } else {
        // An event's tagID is usually the previous event's, and its email one of its tag's
        // recipients' as written: compared with those bytes first (no hash, no table).
        const end =
          b[i] !== 0x22
            ? -1
            : f === 0
              ? this.#sameTag(b, i + 1, to)
              : f === 1 && (seen & 1) !== 0
                ? this.#recipientEmail(codes[0]!, b, i + 1, to)
                : -1;
        if (end >= 0) {
          codes[f] = this.#matched;
          i = end + 1;
        } else {
          const c = this.#stringCode(dicts[f]!, b, i, to);
          if (c < 0) return c === MORE ? -1 : 0;
          codes[f] = c;
          if (f === 0) this.#lastTag = c;
          i = span.end + 1;
        }
      }
      i = this.#afterMember(b, i, to, 0x7d);
      if (i === CLOSED) break;
      if (i <= 0) return i;
    }
    i = this.#closed;
    if (seen !== all) return 0;
    if (tail >= 0 && i === this.#tailClose) this.#tails.fill(tail, codes, 2);
    const d = this.dicts;
    if (
      !this.#valid(d.tagID, codes[0]!, Id) ||
      !this.#valid(d.device, codes[2]!, Device) ||
      !this.#valid(d.latitude, codes[8]!, Latitude) ||
      !this.#valid(d.longitude, codes[9]!, Longitude)
    ) {
      return 0;
    }
    store.pushCodes(codes, ms, position, row);
    return i + 1;
  }

  /**
   * Event tails: the bytes from an event's first member after `tagID`, `email` and `date`
   * to its closing brace, as read before (the location and user-agent fields come in few
   * combinations), each with its {@link TAIL_FIELDS} codes. A tail read before gives its
   * codes without reading its members again.
   */
  readonly #tails = new RunMemo(TAIL_FIELDS, TAIL_LIMIT);
  /** The closing brace of the tail `#tail` looked up last. */
  #tailClose = 0;
  /** Tails tried and found in the current window, and events left before trying again. */
  #tailTries = 0;
  #tailHits = 0;
  #tailPause = 0;
  /** A view of the bytes `#tail` saw last (for {@link runToBrace}). */
  #view: DataView = new DataView(new ArrayBuffer(0));
  #viewOf: Uint8Array | undefined;

  /**
   * Looks the event tail starting at `b[i]` up: {@link TAIL_HIT} with its codes in
   * `#rawCodes` and its closing brace in `#closed` when it was read before; else the number
   * of the tail to fill once its members are read (when they end at `#tailClose`), or -1.
   * The tail is taken to end at the first `}`: when that brace is inside a string, these are
   * not the bytes of a whole tail and are never filled. Pauses for {@link TAIL_PAUSE} events
   * when fewer than a quarter of a window's {@link TAIL_WINDOW} tries are found.
   */
  #tail(b: Uint8Array, i: number, to: number): number {
    if (this.#tailPause > 0) {
      this.#tailPause--;
      return -1;
    }
    if (++this.#tailTries === TAIL_WINDOW) {
      if (this.#tailHits * 4 < TAIL_WINDOW) this.#tailPause = TAIL_PAUSE;
      this.#tailTries = 0;
      this.#tailHits = 0;
    }
    if (b !== this.#viewOf) {
      this.#viewOf = b;
      this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    }
    const view = this.#view;
    const close = runToBrace(view, b, i, to);
    if (close < 0) return -1;
    const tails = this.#tails;
    const t = tails.run(view, b, i, close, span.hash);
    if (t >= 0 && tails.filled(t)) {
      tails.copy(t, this.#rawCodes, 2);
      this.#closed = close;
      this.#tailHits++;
      return TAIL_HIT;
    }
    this.#tailClose = close;
    return t;
  }

  /**
   * After a member (or element) ending before `b[i]`: the index of the next one, past `,` and
   * whitespace; {@link CLOSED} when `close` (`}` or `]`) comes instead (its index in
   * `#closed`); 0 for anything else; -1 when the bytes end first.
   */
  #afterMember(b: Uint8Array, i: number, to: number, close: number): number {
    i = skipSpace(b, i, to);
    if (i >= to) return -1;
    if (b[i] === 0x2c) {
      i = skipSpace(b, i + 1, to);
      return i >= to ? -1 : i;
    }
    if (b[i] !== close) return 0;
    this.#closed = i;
    return CLOSED;
  }

  #closed = 0;

  /** The code {@link #sameTag} or {@link #recipientEmail} matched. */
  #matched = 0;
  /** The tagID code of the last event read from bytes (-1: none yet). */
  #lastTag = -1;
  /** Per tagID code: 1 + the index of the first tag with that tagID (0: none yet). */
  #tagOfCode = new Int32Array(1024);

  /** Notes that tag `t` has tagID code `code` (the first tag of a tagID only). */
  #noteTag(code: number, t: number): void {
    if (code >= this.#tagOfCode.length) {
      const grown = new Int32Array(Math.max(code + 1, this.#tagOfCode.length * 2));
      grown.set(this.#tagOfCode);
      this.#tagOfCode = grown;
    }
    if (this.#tagOfCode[code] === 0) this.#tagOfCode[code] = t + 1;
  }

  /** The closing quote's index when the string content at `b[from]` is the last event's tagID. */
  #sameTag(b: Uint8Array, from: number, to: number): number {
    if (this.#lastTag < 0) return -1;
    this.#matched = this.#lastTag;
    return this.dicts.tagID.matchPlain(this.#lastTag, b, from, to);
  }

  /**
   * The closing quote's index when the string content at `b[from]` is, as written, the email
   * of a recipient of the (first) tag with tagID code `tagCode`; its code in `#matched`.
   */
  #recipientEmail(tagCode: number, b: Uint8Array, from: number, to: number): number {
    const t = (this.#tagOfCode[tagCode] ?? 0) - 1;
    if (t < 0 || t >= this.recipients.tags) return -1;
    const rs = this.recipients;
    const email = this.dicts.email;
    const codes = rs.email;
    for (let r = rs.start(t), end = rs.start(t + 1); r < end; r++) {
      const c = codes[r]!;
      const q = email.matchPlain(c, b, from, to);
      if (q >= 0) {
        this.#matched = c;
        return q;
      }
    }
    return -1;
  }

  /** {@link rawElement} of a tag (its recipients pushed as they come; undone by the caller). */
  #rawTag(b: Uint8Array, from: number, to: number): number {
    let i = from;
    if (b[i] !== 0x7b) return 0;
    i = skipSpace(b, i + 1, to);
    let seen = 0;
    let guess = 0;
    let dateAt = 0;
    const codes = this.#rawCodes;
    const d = this.dicts;
    for (;;) {
      i = this.#key(TAG_NAMES, b, i, to, guess);
      if (i <= 0) return i;
      const f = this.#field;
      if ((seen & (1 << f)) !== 0) return 0;
      seen |= 1 << f;
      guess = f + 1;
      if (f === TAG_DATE_SENT) {
        if (i + 22 > to) return -1;
        if (b[i] !== 0x22 || b[i + 21] !== 0x22) return 0;
        if (Number.isNaN(canonicalTimestampMsOfBytes(b, i + 1))) return 0;
        dateAt = i + 1;
        i += 22;
      } else if (f === TAG_RECIPIENTS) {
        i = this.#rawRecipients(b, i, to);
        if (i <= 0) return i;
      } else {
        const dict = f === 0 ? d.tagID : f === 1 ? d.memberID : d.subject;
        const c = this.#stringCode(dict, b, i, to);
        if (c < 0) return c === MORE ? -1 : 0;
        codes[f] = c;
        i = span.end + 1;
      }
      i = this.#afterMember(b, i, to, 0x7d);
      if (i === CLOSED) break;
      if (i <= 0) return i;
    }
    i = this.#closed;
    if (seen !== TAG_ALL) return 0;
    if (!this.#valid(d.tagID, codes[0]!, Id) || !this.#valid(d.memberID, codes[1]!, Id)) {
      return 0;
    }
    const t = this.recipients.endTag();
    this.#noteTag(codes[0]!, t);
    this.#tags.push(
      this.recipients.tag(
        t,
        d.tagID.values[codes[0]!]!,
        d.memberID.values[codes[1]!]!,
        d.subject.values[codes[2]!]!,
        asciiString(b, dateAt, dateAt + 20),
      ),
    );
    return i + 1;
  }

  /**
   * Reads a tag's `recipients` array starting at `b[i]` into {@link recipients}; returns the
   * index after it, 0 when refused, -1 for more bytes.
   */
  #rawRecipients(b: Uint8Array, i: number, to: number): number {
    if (b[i] !== 0x5b) return 0;
    i = skipSpace(b, i + 1, to);
    if (i >= to) return -1;
    if (b[i] === 0x5d) return i + 1;
    const d = this.dicts;
    for (;;) {
      if (b[i] !== 0x7b) return 0;
      i = skipSpace(b, i + 1, to);
      let name = -1;
      let email = -1;
      let guess = 0;
      for (;;) {
        i = this.#key(RECIPIENT_NAMES, b, i, to, guess);
        if (i <= 0) return i;
        const f = this.#field;
        if ((f === 0 ? name : email) >= 0) return 0;
        guess = f + 1;
        const c = this.#stringCode(f === 0 ? d.name : d.email, b, i, to);
        if (c < 0) return c === MORE ? -1 : 0;
        if (f === 0) name = c;
        else email = c;
        i = this.#afterMember(b, span.end + 1, to, 0x7d);
        if (i === CLOSED) break;
        if (i <= 0) return i;
      }
      i = this.#closed;
      if (name < 0 || email < 0) return 0;
      this.recipients.push(name, email);
      i = this.#afterMember(b, i + 1, to, 0x5d);
      if (i === CLOSED) return this.#closed + 1;
      if (i <= 0) return i;
    }
  }

  readonly #rawCodes = new Int32Array(RAW_FIELDS.length);
  readonly #eventDicts: readonly Dict[] = [
    this.dicts.tagID,
    this.dicts.email,
    this.dicts.device,
    this.dicts.os,
    this.dicts.browser,
    this.dicts.counry,
    this.dicts.region,
    this.dicts.city,
    this.dicts.latitude,
    this.dicts.longitude,
  ];

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

  /** Whether value `code` of `dict` passes `schema` (checked once per value). */
  #valid(dict: Dict, code: number, schema: z.ZodType): boolean {
    const checked = dict.checked;
    // dense: codes are checked about in order, but not exactly
    while (checked.length <= code) checked.push(0);
    let state = checked[code]!;
    if (state === 0) {
      state = schema.safeParse(dict.values[code]).success ? 1 : 2;
      dict.checked[code] = state;
    }
    return state === 1;
  }

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
    this.#noteTag(d.tagID.code(tag.tagID), t);
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
    return this.#valid(dict, dict.code(value), schema);
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
    const res = this.#resolve(skeleton);
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
    const d = this.dicts;
    const events = (store: EventStore): SnapshotEvents => ({
      length: store.length,
      columns: {
        tagCode: store.tagCode,
        email: store.email,
        ms: store.ms,
        device: store.device,
        ...store.details,
      },
      rawDate: [...store.rawDate],
    });
    const tags = skeleton.tags;
    return {
      teams: skeleton.teams,
      credentials: skeleton.credentials,
      tags: {
        tagID: codesOf(d.tagID, tags, (t) => t.tagID),
        memberID: codesOf(d.memberID, tags, (t) => t.memberID),
        subject: codesOf(d.subject, tags, (t) => t.subject),
        dateSent: tags.map((t) => t.dateSent),
      },
      recipients: this.recipients.columns(),
      dicts: Object.fromEntries(SNAPSHOT_DICTS.map((n) => [n, d[n].values])) as Record<
        SnapshotDict,
        string[]
      >,
      opens: events(this.opens),
      clicks: events(this.clicks),
    };
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
    const d = this.dicts;
    for (const name of SNAPSHOT_DICTS) {
      // emails are looked up once more (a normalised email among the values), no other
      const repeated = d[name].adopt(p.dicts[name], name === 'email');
      if (repeated >= 0) {
        throw new SnapshotError(`snapshot dictionary ${name}: value ${repeated} repeated`);
      }
    }
    const problems = this.#problems;
    const check = (where: string, schema: z.ZodType, value: unknown) => {
      const r = schema.safeParse(value);
      if (!r.success) problems.addIssues(where, r.error);
    };
    p.teams.forEach((t, i) => {
      const r = DatasetTeamSchema.safeParse(t);
      if (r.success) this.#teams.push(r.data);
      else problems.addIssues(`snapshot teams[${i}]`, r.error);
    });
    p.credentials.forEach((c, i) => {
      const r = DatasetCredentialSchema.safeParse(c);
      if (r.success) this.#credentials.push(r.data);
      else problems.addIssues(`snapshot credentials[${i}]`, r.error);
    });
    const { start, name, email } = p.recipients;
    this.recipients.restore(start, name, email);
    const { tagID, memberID, subject, dateSent } = p.tags;
    for (let t = 0; t < tagID.length; t++) {
      const sent = dateSent[t]!;
      if (!canonicalDate(sent)) check(`snapshot tags[${t}].dateSent`, Timestamp, sent);
      this.#noteTag(tagID[t]!, t);
      this.#tags.push(
        this.recipients.tag(
          t,
          d.tagID.values[tagID[t]!]!,
          d.memberID.values[memberID[t]!]!,
          d.subject.values[subject[t]!]!,
          sent,
        ),
      );
    }
    const values = (dict: SnapshotDict, schema: z.ZodType) => {
      d[dict].values.forEach((v, i) => {
        check(`snapshot ${dict}[${i}]`, schema, v);
      });
    };
    values('tagID', Id);
    values('memberID', Id);
    values('device', Device);
    values('latitude', Latitude);
    values('longitude', Longitude);
    for (const kind of ['opens', 'clicks'] as const) {
      const e = p[kind];
      const store = this[kind];
      store.restore(e.columns, e.length, e.rawDate);
      const raw = new Map(e.rawDate);
      const ms = store.ms;
      for (let i = 0; i < e.length; i++) {
        const written = raw.get(i);
        if (written !== undefined) {
          if (!canonicalDate(written)) check(`snapshot ${kind}[${i}].date`, Timestamp, written);
          ms[i] = parseTimestampMs(written);
        } else if (!Number.isFinite(ms[i]!)) {
          problems.add(`snapshot ${kind}[${i}].date: not a date`);
        }
      }
    }
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

  /**
   * The {@link ResolvedDataset} of the teams, tags and credentials (by `resolveDataset`) and
   * of the event columns, whose references are resolved here with the same rules and words.
   */
  #resolve(skeleton: Dataset): ResolvedDataset {
    const base = resolveDataset(skeleton, this.recipients);
    const problems = new Problems();
    for (const p of base.problems) problems.add(p);
    const opens = this.#resolveEvents(this.opens, 'open', base, problems);
    const clicks = this.#resolveEvents(this.clicks, 'click', base, problems);
    const opensStore = this.opens;
    const clicksStore = this.clicks;
    let opensList: DatasetEvent[] | undefined;
    let clicksList: DatasetEvent[] | undefined;
    const dataset: Dataset = {
      teams: skeleton.teams,
      tags: skeleton.tags,
      get opens() {
        opensList ??= opensStore.toArray();
        return opensList;
      },
      get clicks() {
        clicksList ??= clicksStore.toArray();
        return clicksList;
      },
      credentials: skeleton.credentials,
    };
    return { ...base, dataset, problems: problems.finish(), opens, clicks };
  }

  /**
   * The {@link EventColumns} of one kind: each event's tag (by its tagID), recipient entry
   * (its email, normalised, among the tag's distinct recipient emails) and device code, with
   * the problems of `resolveDataset` for unknown tags, emails that are not recipients,
   * invalid dates and events dated before their tag was sent.
   */
  #resolveEvents(
    store: EventStore,
    kind: 'open' | 'click',
    base: ResolvedDataset,
    problems: Problems,
  ): EventColumns {
    const n = store.length;
    const d = this.dicts;
    const tagOfCode = Int32Array.from(d.tagID.values, (id) => base.tagIndex.get(id) ?? -1);
    const deviceOfCode = Uint8Array.from(d.device.values, (v) =>
      v === 'desktop'
        ? DEVICE_DESKTOP
        : v === 'mobile' || v === 'tablet'
          ? DEVICE_MOBILE
          : DEVICE_NONE,
    );
    const tag = new Int32Array(n);
    const entry = new Int32Array(n);
    const device = new Uint8Array(n);
    const { recipStart, recipEmail, entryKey, tagMs } = base;
    const recipients = this.recipients;
    let prevT = -2;
    let prevEmail = -1;
    let k = -1;
    for (let e = 0; e < n; e++) {
      const t = tagOfCode[store.tagCode[e]!]!;
      const em = store.email[e]!;
      device[e] = deviceOfCode[store.device[e]!]!;
      tag[e] = t;
      if (t < 0) {
        entry[e] = -1;
        problems.add(
          `${kind} #${e} refers to unknown tagID '${d.tagID.values[store.tagCode[e]!]}'`,
        );
        continue;
      }
      if (t !== prevT || em !== prevEmail) {
        prevT = t;
        prevEmail = em;
        k = -1;
        if (entryKey !== undefined) {
          // by integer keys: equal exactly when the normalised emails are
          const key = recipients.normalisedKeyOfCode(em);
          for (let j = recipStart[t]!; j < recipStart[t + 1]!; j++) {
            if (entryKey[j] === key) {
              k = j;
              break;
            }
          }
        } else {
          const norm = recipients.normalisedEmail(em);
          for (let j = recipStart[t]!; j < recipStart[t + 1]!; j++) {
            if (recipEmail[j] === norm) {
              k = j;
              break;
            }
          }
        }
      }
      entry[e] = k;
      if (k < 0) {
        problems.add(
          `${kind} #${e} of tag '${d.tagID.values[store.tagCode[e]!]}': email '${d.email.values[em]}' is not a recipient`,
        );
      }
      const ms = store.ms[e]!;
      if (Number.isNaN(ms)) {
        problems.add(
          `${kind} #${e} of tag '${d.tagID.values[store.tagCode[e]!]}' has invalid date '${store.date(e)}'`,
        );
      } else if (ms < tagMs[t]!) {
        problems.add(
          `${kind} #${e} of tag '${d.tagID.values[store.tagCode[e]!]}' is dated before the tag was sent`,
        );
      }
    }
    return { source: store, tag, entry, ms: store.ms, device };
  }
}
