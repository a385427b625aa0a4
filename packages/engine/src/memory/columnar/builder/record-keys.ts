import { keyBytes } from '../raw.ts';

/**
 * The record fields the byte reader ({@link RecordBytesReader} in `record-bytes.ts`) knows, as
 * key bytes, and what its readers return besides an index.
 */

/** The event fields read from bytes, in code order; the date last. */
export const RAW_FIELDS = [
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
export const RAW_DATE = 10;
export const RAW_ALL = (1 << RAW_FIELDS.length) - 1;
/** The fields before an event's tail: `tagID`, `email` and `date`. */
export const RAW_HEAD = 1 | 2 | (1 << RAW_DATE);
/** The fields of an event's tail: codes 2 .. 9 (device .. longitude). */
export const TAIL_FIELDS = RAW_DATE - 2;
/** What `#tail` returns when the tail was read before. */
export const TAIL_HIT = -2;
/** Tails remembered at most; tries per window; events skipped after a poor window. */
export const TAIL_LIMIT = 4096;
export const TAIL_WINDOW = 16384;
export const TAIL_PAUSE = 262144;
export const RAW_NAMES = keyBytes(RAW_FIELDS);
/** An event row of the per-table form: the event's fields and its `position`, last. */
export const ROW_POSITION = RAW_FIELDS.length;
export const ROW_NAMES = keyBytes([...RAW_FIELDS, 'position']);
export const ROW_ALL = (1 << ROW_NAMES.length) - 1;

/** The tag fields read from bytes. */
export const TAG_FIELDS = ['tagID', 'memberID', 'subject', 'dateSent', 'recipients'] as const;
export const TAG_DATE_SENT = 3;
export const TAG_RECIPIENTS = 4;
export const TAG_ALL = (1 << TAG_FIELDS.length) - 1;
export const TAG_NAMES = keyBytes(TAG_FIELDS);
export const RECIPIENT_NAMES = keyBytes(['name', 'email']);

/** Each key as compact JSON writes it before its value: `"key":`. */
export const compactKeys = (names: readonly Uint8Array[]) =>
  names.map((n) => Uint8Array.from([0x22, ...n, 0x22, 0x3a]));
export const RAW_KEYS = compactKeys(RAW_NAMES);
export const ROW_KEYS = compactKeys(ROW_NAMES);
export const TAG_KEYS = compactKeys(TAG_NAMES);
export const RECIPIENT_KEYS = compactKeys(RECIPIENT_NAMES);

/** What {@link RecordBytesReader} string readers return besides a code: more bytes, or refused. */
export const MORE = -1;
export const REFUSED = -2;
/** What {@link RecordBytesReader} separator reader returns when the object or array closes. */
export const CLOSED = -3;

/** The ASCII bytes `b[from .. to]` as a string. */
export function asciiString(b: Uint8Array, from: number, to: number): string {
  return String.fromCharCode.apply(null, b.subarray(from, to) as unknown as number[]);
}
