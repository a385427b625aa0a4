/**
 * Byte-level readers of JSON strings for the columnar loader: the records of the usual shape
 * are read straight from the document's UTF-8 bytes (no `JSON.parse`, no string but for a
 * value not seen before), and everything else is left to `JSON.parse` and the zod schemas.
 * RFC 8259 §7 (strings); a raw control byte inside a string is not JSON.
 */

/** Outcomes of {@link scanString}. */
export const STRING_MORE = -1;
export const STRING_BAD = 0;
export const STRING_PLAIN = 1;
export const STRING_ESCAPED = 2;

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** Where the last {@link scanString} ended: the closing quote's index, the content's hash. */
export const span = { end: 0, hash: 0 };

/** JSON whitespace (RFC 8259 §2). */
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index of the first non-whitespace byte of `b` from `i` (`to` when none before it). */
export function skipSpace(b: Uint8Array, i: number, to: number): number {
  while (i < to && isSpace(b[i]!)) i++;
  return i;
}

/**
 * Scans the content of the JSON string starting at `b[i]` (just after its opening quote) up to
 * `to`. Returns {@link STRING_PLAIN} when it has no escape (content `b[i .. span.end]`, closing
 * quote at `span.end`, `span.hash` the {@link hashBytes} of the content), {@link STRING_ESCAPED}
 * when it has one (closing quote at `span.end`; decode it with {@link decodeString}),
 * {@link STRING_BAD} for a raw control byte (not JSON), {@link STRING_MORE} when the bytes end
 * first. One pass: finding the end and hashing are the same loop.
 */
export function scanString(b: Uint8Array, i: number, to: number): number {
  let h = FNV_OFFSET;
  while (i < to) {
    const c = b[i]!;
    if (c < 0x23 && c !== 0x20 && c !== 0x21) {
      if (c !== 0x22) return STRING_BAD;
      span.end = i;
      span.hash = finalise(h);
      return STRING_PLAIN;
    }
    if (c === 0x5c) return scanEscaped(b, i, to);
    h = Math.imul(h ^ c, FNV_PRIME);
    i++;
  }
  return STRING_MORE;
}

/** {@link scanString} from an escape at `b[i]` on: finds the closing quote only. */
function scanEscaped(b: Uint8Array, i: number, to: number): number {
  while (i < to) {
    const c = b[i]!;
    if (c === 0x5c) i += 2;
    else if (c === 0x22) {
      span.end = i;
      return STRING_ESCAPED;
    } else if (c < 0x20) return STRING_BAD;
    else i++;
  }
  return STRING_MORE;
}

/** murmur3's finaliser: FNV's low bits (a table slot) depend on the bytes' low bits only. */
function finalise(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The hash {@link scanString} gives the bytes `b[from .. to]` (FNV-1a, finalised). */
export function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, FNV_PRIME);
  return finalise(h);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The value of the JSON string `b[quote .. end]` (both quotes included) as `JSON.parse`
 * reads it (escapes decoded), or `undefined` when it is not a JSON string or not UTF-8.
 */
export function decodeString(b: Uint8Array, quote: number, end: number): string | undefined {
  try {
    const v: unknown = JSON.parse(utf8.decode(b.subarray(quote, end + 1)));
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** `names` as UTF-8 bytes (object keys the readers expect). */
export function keyBytes(names: readonly string[]): Uint8Array[] {
  const enc = new TextEncoder();
  return names.map((n) => enc.encode(n));
}

/**
 * The index in `names` of the key `b[from .. to]` (plain bytes), trying `guess` first (keys
 * usually come in the same order record after record); -1 when it is none of them.
 */
export function keyIndex(
  names: readonly Uint8Array[],
  b: Uint8Array,
  from: number,
  to: number,
  guess: number,
): number {
  const len = to - from;
  const n = names.length;
  for (let k = 0; k < n; k++) {
    const f = guess + k < n ? guess + k : guess + k - n;
    const name = names[f]!;
    if (name.length !== len) continue;
    let j = 0;
    while (j < len && name[j] === b[from + j]) j++;
    if (j === len) return f;
  }
  return -1;
}

/**
 * The end (index after the closing quote) of the object key starting at `b[i]` (its opening
 * quote), its content `b[i + 1 .. end - 1]`: 0 when `b[i]` is not a quote or the key has an
 * escape or a control byte, -1 when the bytes end first.
 */
export function keyEnd(b: Uint8Array, i: number, to: number): number {
  if (i >= to) return -1;
  if (b[i] !== 0x22) return 0;
  i++;
  while (i < to) {
    const c = b[i]!;
    if (c === 0x22) return i + 1;
    if (c === 0x5c || c < 0x20) return 0;
    i++;
  }
  return -1;
}
