const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

/**
 * A copy of `s` that shares no memory with the string it was cut from. V8 keeps a slice of a
 * long string as a view into the whole string, so a 16 KB piece of a response body kept for
 * the reports would keep the whole body alive for the rest of the run (every body of a long
 * run: hundreds of MB). The copy goes through UTF-8 (web-platform `TextEncoder`/`TextDecoder`,
 * so it runs in a browser bundle too); a lone surrogate left by a cut becomes U+FFFD.
 */
export function detached(s: string): string {
  return s.length === 0 ? s : DECODER.decode(ENCODER.encode(s));
}
