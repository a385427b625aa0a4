/**
 * Byte-level pieces of `JsonObjectStream`'s scan (`../json-stream.ts`): JSON's structural
 * bytes, the reader's states, the end of a string.
 */

/** JSON's structural bytes. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/** Whether byte `c` is JSON whitespace (space, LF, CR, tab). */
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Where the reader is, between values of the top-level object. */
export type State =
  | 'start'
  | 'key-or-end'
  | 'key'
  | 'colon'
  | 'value'
  | 'first-element'
  | 'element'
  | 'after-element'
  | 'after-value'
  | 'done';

/** Scanning state inside one value, kept across chunks. */
export interface ValueScan {
  depth: number;
  /** A byte >= 0x80 was seen (the text is not ASCII). */
  high: boolean;
  inString: boolean;
  /** Scalar (number, true, false, null) at depth 0. */
  scalar: boolean;
}

/**
 * Node's `Buffer` latin1 decoding, when available: for ASCII bytes it is the UTF-8 decoding,
 * several times faster than `TextDecoder` (elsewhere `TextDecoder` is used).
 */
export const latin1Slice = (
  globalThis as { Buffer?: { prototype: { latin1Slice?: (from: number, to: number) => string } } }
).Buffer?.prototype.latin1Slice;

/**
 * The index after the closing quote of the string whose content starts at `from`, or -1
 * when `buf` ends first.
 */
export function stringEnd(buf: Uint8Array, from: number): number {
  let i = from;
  for (;;) {
    const q = buf.indexOf(QUOTE, i);
    if (q < 0) return -1;
    let backslashes = 0;
    for (let j = q - 1; j >= from && buf[j] === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}
