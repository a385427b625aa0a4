/**
 * JSON with integers of any size (docs/spec.md §5: a paging cursor has no size limit, and
 * `paging.cursors.previous` = cursor − pageSize is written with all its digits). JSON numbers
 * are arbitrary precision in the text; JavaScript's `JSON.stringify` cannot write a `bigint`
 * and `JSON.parse` rounds an integer above 2^53 − 1 to the nearest double. These two
 * functions carry such integers exactly, as `bigint` values, and are otherwise `JSON.parse`
 * and `JSON.stringify`.
 */

/**
 * `JSON.stringify(value, null, space)`, except that a `bigint` anywhere in `value` is written
 * as a JSON number literal with all its digits (`123456789012345678901`), where
 * `JSON.stringify` throws. A JSON parser reads it back as a number (a double in JavaScript;
 * {@link parseJsonExact} reads it exactly). `space` as for `JSON.stringify`.
 */
export function stringifyJson(value: unknown, space?: number): string {
  // fast path: a value without a bigint (the usual case) is JSON.stringify itself, which
  // throws a TypeError on the first bigint; a replacer function would cost a call per value
  try {
    return JSON.stringify(value, null, space);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  let bigints = 0;
  const marked = (tag: string) =>
    JSON.stringify(
      value,
      (_key, v: unknown) => {
        if (typeof v !== 'bigint') return v;
        bigints++;
        return `${tag}${v}`;
      },
      space,
    );
  // a TypeError without a bigint (a cycle) is thrown again here
  const plain = marked('');
  if (bigints === 0) return plain;
  // a bigint becomes a string `<tag><digits>`, then its quotes and tag are taken away; the
  // tag is a control character (escaped as \u00XX in any JSON string) that no string of the
  // value produces: every match is then one of ours
  for (const code of MARKER_CODES) {
    const escaped = `\\u${code.toString(16).padStart(4, '0')}`;
    if (plain.includes(escaped)) continue;
    bigints = 0;
    const text = marked(String.fromCharCode(code));
    return text.replace(new RegExp(`"\\${escaped}(-?[0-9]+)"`, 'g'), '$1');
  }
  throw new Error('stringifyJson: every marker character occurs in the value');
}

/**
 * Control characters that JSON.stringify writes as `\u00XX` (no short escape such as `\n`),
 * usable as markers of big integers in {@link stringifyJson} and {@link parseJsonExact}.
 */
const MARKER_CODES = [
  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0b, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
  0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
];

/** A string token or a number token of a JSON text (strings first, so their digits are skipped). */
const TOKENS = /"(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g;

/** A digit run long enough to be beyond 2^53 − 1 (16 digits); texts without one parse as is. */
const LONG_DIGITS = /[0-9]{16}/;

/**
 * `JSON.parse(text)`, except that an integer literal (no fraction, no exponent) beyond
 * ±(2^53 − 1) gives a `bigint` with its exact value instead of a rounded double; every other
 * number is a `number` as usual. Throws the `SyntaxError` of `JSON.parse` for a text that is
 * not JSON.
 */
export function parseJsonExact(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  // the raw text holds no \u00XX escape of the marker: no string of it can decode to one
  const lower = text.toLowerCase();
  const code = MARKER_CODES.find((c) => !lower.includes(`\\u${c.toString(16).padStart(4, '0')}`));
  if (code === undefined)
    throw new Error('parseJsonExact: every marker character occurs in the text');
  const escaped = `\\u${code.toString(16).padStart(4, '0')}`;
  let found = false;
  const marked = text.replace(TOKENS, (token) => {
    if (token.charCodeAt(0) === 34 || !/^-?[0-9]+$/.test(token)) return token;
    if (Number.isSafeInteger(Number(token))) return token;
    found = true;
    return `"${escaped}${token}"`;
  });
  if (!found) return JSON.parse(text);
  return JSON.parse(marked, (_key, v: unknown) =>
    typeof v === 'string' && v.length > 1 && v.charCodeAt(0) === code ? BigInt(v.slice(1)) : v,
  );
}
