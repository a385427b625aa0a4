import type { DatasetTag } from '@tagtrack/core';
import { Device, Id, Latitude, Longitude } from '@tagtrack/core';
import { canonicalTimestampMsOfBytes } from '@tagtrack/core/internal';
import type { Dict, Dicts } from '../dict.ts';
import type { EventStore } from '../event-store.ts';
import { RunMemo, runToBrace } from '../memo.ts';
import {
  decodeString,
  keyEnd,
  keyIndex,
  STRING_ESCAPED,
  STRING_MORE,
  STRING_PLAIN,
  scanString,
  skipSpace,
  span,
} from '../raw.ts';
import type { RecipientStore } from '../recipient-store.ts';
import {
  asciiString,
  RAW_FIELDS,
  RAW_KEYS,
  RAW_NAMES,
  RECIPIENT_KEYS,
  RECIPIENT_NAMES,
  ROW_KEYS,
  ROW_NAMES,
  TAG_FIELDS,
  TAG_KEYS,
  TAG_NAMES,
  validCode,
} from './record-keys.ts';

// The numbers the hot loops compare with are constants of this module: imported from
// record-keys.ts, they made the JSON load of 200,000 events about 20% slower (bench/columnar).
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
/** An event row of the per-table form: the event's fields and its `position`, last. */
const ROW_POSITION = RAW_FIELDS.length;
const ROW_ALL = (1 << ROW_NAMES.length) - 1;
const TAG_DATE_SENT = 3;
const TAG_RECIPIENTS = 4;
const TAG_ALL = (1 << TAG_FIELDS.length) - 1;
/** What {@link RecordBytesReader} string readers return besides a code: more bytes, or refused. */
const MORE = -1;
const REFUSED = -2;
/** What {@link RecordBytesReader} separator reader returns when the object or array closes. */
const CLOSED = -3;

/**
 * The fast path of {@link ColumnarBuilder}: reads tags and events straight from their JSON
 * bytes into the builder's columns (`opens`, `clicks`, `recipients`, `tags`) when they have the
 * usual shape; anything else it refuses, to be parsed and checked as a record.
 */
export class RecordBytesReader {
  constructor(
    readonly dicts: Dicts,
    readonly opens: EventStore,
    readonly clicks: EventStore,
    readonly recipients: RecipientStore,
    readonly tags: DatasetTag[],
    /** The input is the per-table form (events carry a `position`). */
    readonly tables: boolean,
  ) {
    this.#eventDicts = [
      dicts.tagID,
      dicts.email,
      dicts.device,
      dicts.os,
      dicts.browser,
      dicts.counry,
      dicts.region,
      dicts.city,
      dicts.latitude,
      dicts.longitude,
    ];
  }

  /** `ColumnarBuilder.rawElement`: element `index` of `tags`, `opens` or `clicks` from its bytes. */
  element(key: string, b: Uint8Array, from: number, to: number, index: number): number {
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

  /** `ColumnarBuilder.rawRow`: row `row` of table `opens` or `clicks` from its bytes. */
  row(table: string, b: Uint8Array, from: number, to: number, row: number): number {
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
   * {@link element} of an event into `store`; with `row` >= 0, an event row of the
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
      !validCode(d.tagID, codes[0]!, Id) ||
      !validCode(d.device, codes[2]!, Device) ||
      !validCode(d.latitude, codes[8]!, Latitude) ||
      !validCode(d.longitude, codes[9]!, Longitude)
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
  noteTag(code: number, t: number): void {
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

  /** {@link element} of a tag (its recipients pushed as they come; undone by the caller). */
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
    if (!validCode(d.tagID, codes[0]!, Id) || !validCode(d.memberID, codes[1]!, Id)) {
      return 0;
    }
    const t = this.recipients.endTag();
    this.noteTag(codes[0]!, t);
    this.tags.push(
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
  readonly #eventDicts: readonly Dict[];
}
