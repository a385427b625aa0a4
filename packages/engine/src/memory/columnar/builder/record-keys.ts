import type * as z from 'zod';
import type { Dict } from '../dict.ts';
import { keyBytes } from '../raw.ts';

/**
 * The record fields the byte reader ({@link RecordBytesReader} in `record-bytes.ts`) knows, as
 * key bytes, and the check of a dictionary value it applies.
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
export const RAW_NAMES = keyBytes(RAW_FIELDS);
export const ROW_NAMES = keyBytes([...RAW_FIELDS, 'position']);

/** The tag fields read from bytes. */
export const TAG_FIELDS = ['tagID', 'memberID', 'subject', 'dateSent', 'recipients'] as const;
export const TAG_NAMES = keyBytes(TAG_FIELDS);
export const RECIPIENT_NAMES = keyBytes(['name', 'email']);

/** Each key as compact JSON writes it before its value: `"key":`. */
export const compactKeys = (names: readonly Uint8Array[]) =>
  names.map((n) => Uint8Array.from([0x22, ...n, 0x22, 0x3a]));
export const RAW_KEYS = compactKeys(RAW_NAMES);
export const ROW_KEYS = compactKeys(ROW_NAMES);
export const TAG_KEYS = compactKeys(TAG_NAMES);
export const RECIPIENT_KEYS = compactKeys(RECIPIENT_NAMES);

/** The ASCII bytes `b[from .. to]` as a string. */
export function asciiString(b: Uint8Array, from: number, to: number): string {
  return String.fromCharCode.apply(null, b.subarray(from, to) as unknown as number[]);
}

/** Whether value `code` of `dict` passes `schema` (checked once per value, kept in `dict.checked`). */
export function validCode(dict: Dict, code: number, schema: z.ZodType): boolean {
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
