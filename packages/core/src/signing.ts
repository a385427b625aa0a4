import { hmac } from '@noble/hashes/hmac.js';
import { sha1 } from '@noble/hashes/legacy.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { AuthError } from './errors.ts';

/**
 * Request signing of spec §3. Pure JavaScript (no Node-only imports), so it also runs
 * in a browser bundle.
 */

/**
 * Builds a query string from `[name, value]` pairs in the given order, percent-encoding
 * names and values with `encodeURIComponent` (what the Node and Python clients sign).
 * No leading `?`; `[]` gives `''`.
 */
export function buildQueryString(params: Iterable<readonly [string, string]>): string {
  const parts: string[] = [];
  for (const [k, v] of params) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return parts.join('&');
}

/**
 * The signature of a query string: lowercase hex of HMAC-SHA1 keyed with the access key
 * (UTF-8) over the query string (UTF-8), 40 characters (spec §3).
 */
export function signQuery(queryString: string, accessKey: string): string {
  if (nodeHmac !== undefined) return nodeHmac(accessKey, queryString);
  return bytesToHex(hmac(sha1, utf8ToBytes(accessKey), utf8ToBytes(queryString)));
}

/** What {@link signQuery} needs of `node:crypto`. */
interface NodeCrypto {
  createHmac(
    algorithm: 'sha1',
    key: string,
  ): { update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string } };
}

/**
 * HMAC-SHA1 in lowercase hex through the runtime's `node:crypto`, when it has one (Node
 * 20.16+, Bun, Deno: `process.getBuiltinModule`), found at run time so that no bundle imports
 * it; `undefined` elsewhere (a browser), where noble's JavaScript HMAC signs. The same bytes
 * either way (UTF-8 of key and message, a lone surrogate as U+FFFD), at about half the cost
 * per request.
 */
const nodeHmac: ((key: string, message: string) => string) | undefined = (() => {
  try {
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
      .process;
    const crypto = runtime?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
    if (typeof crypto?.createHmac !== 'function') return undefined;
    return (key: string, message: string) =>
      crypto.createHmac('sha1', key).update(message, 'utf8').digest('hex');
  } catch {
    return undefined;
  }
})();

/**
 * The `Authorization` header value: `base64(authId + ":" + hexSignature)`, no scheme prefix
 * (spec §3). `queryString` has no leading `?`.
 */
export function authorizationHeader(
  authId: string,
  accessKey: string,
  queryString: string,
): string {
  return base64Encode(`${authId}:${signQuery(queryString, accessKey)}`);
}

/** The two parts of a decoded `Authorization` header. */
export interface ParsedAuthorization {
  readonly authId: string;
  readonly signature: string;
}

/** The one message of every 401 for a credential that does not verify (spec §3 Revision 2). */
export const BAD_CREDENTIALS_MESSAGE =
  'invalid credentials: unknown authId or a signature that does not match the query string';

/**
 * Decodes an `Authorization` header value (spec §3 Revision 2): surrounding whitespace
 * is ignored; the value is strict base64 (padding required) of `authId:hexSignature`, split
 * at the first `:`; both parts non-empty; the signature is 40 hex digits in any case
 * (returned lowercase). Throws {@link AuthError} `missing_header` for `undefined`/empty and
 * `malformed_header` otherwise.
 */
export function parseAuthorization(header: string | null | undefined): ParsedAuthorization {
  if (header === undefined || header === null || header.trim() === '') {
    throw new AuthError('missing_header', 'missing Authorization header');
  }
  const value = header.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) {
    throw new AuthError(
      'malformed_header',
      'malformed Authorization header: expected base64(authId:hexSignature) without a scheme',
    );
  }
  const decoded = base64Decode(value);
  const colon = decoded === undefined ? -1 : decoded.indexOf(':');
  if (decoded === undefined || colon <= 0) {
    throw new AuthError(
      'malformed_header',
      'malformed Authorization header: decoded value is not authId:hexSignature',
    );
  }
  const signature = decoded.slice(colon + 1);
  if (!/^[0-9a-fA-F]{40}$/.test(signature)) {
    throw new AuthError(
      'malformed_header',
      'malformed Authorization header: the signature is not 40 hex characters (HMAC-SHA1)',
    );
  }
  return { authId: decoded.slice(0, colon), signature: signature.toLowerCase() };
}

/** Compares two strings in time that depends only on their lengths (spec §3). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = utf8ToBytes(a);
  const y = utf8ToBytes(b);
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * The forms of a received query string that a valid signature may cover (spec §3 and
 * its Revision 2): the raw string as received, and its percent-decoded form, which decodes
 * `%XX` and reads `+` as a space (PHP's `urldecode`, what the PHP client signs). Invalid
 * percent-encoding yields only the raw form.
 */
export function signableForms(rawQuery: string): string[] {
  const forms = [rawQuery];
  try {
    const decoded = decodeURIComponent(rawQuery.replace(/\+/g, ' '));
    if (decoded !== rawQuery) forms.push(decoded);
  } catch {
    // raw form only
  }
  return forms;
}

/**
 * Checks `signature` (hex, any case) against the raw query string of a request and its
 * percent-decoded form, each compared in constant time (spec §3). For an unknown
 * authId, call it with a dummy key so both failures take the same time (Revision 2).
 */
export function verifySignature(rawQuery: string, accessKey: string, signature: string): boolean {
  let ok = false;
  for (const form of signableForms(rawQuery)) {
    // no early exit: every form is compared
    if (constantTimeEqual(signQuery(form, accessKey), signature.toLowerCase())) ok = true;
  }
  return ok;
}

function base64Encode(text: string): string {
  const bytes = utf8ToBytes(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

function base64Decode(b64: string): string | undefined {
  try {
    const bin = atob(b64);
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
