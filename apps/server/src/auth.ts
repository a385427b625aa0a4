import {
  AuthError,
  BAD_CREDENTIALS_MESSAGE,
  type Caller,
  constantTimeEqual,
  parseAuthorization,
  signableForms,
  signQuery,
  verifySignature,
} from '@tagtrack/core';
import type { FaultSet } from './faults/index.ts';
import type { Store } from './store.ts';

/** A request that passed authentication: who is calling, and with which credential. */
export interface Authenticated {
  readonly caller: Caller;
  readonly authId: string;
}

/**
 * The key an unknown authId's signature is checked against, so an unknown authId and a wrong
 * signature take the same time (decisions §1 Revision 2). Its result is never used.
 */
const DUMMY_ACCESS_KEY = 'tagtrack-dummy-access-key-for-unknown-auth-ids';

/**
 * Step 3 of the order of checks (decisions §1 and its Revision 2): decodes the
 * `Authorization` header (core's {@link parseAuthorization}: strict base64 of
 * `authId:hexSignature`, split at the first `:`, hex in any case) and verifies the signature
 * over the raw query string as received or its percent-decoded form (`+` read as a space).
 * An unknown authId and a wrong signature throw the same {@link AuthError} message,
 * {@link BAD_CREDENTIALS_MESSAGE}; a missing or malformed header throws core's own message.
 *
 * Auth-layer faults: `signature-not-checked`, `unknown-auth-id-message`, `plus-not-space`,
 * `hex-case-sensitive`, `next-not-signed`, `cursor-not-signed`, `auth-unpadded-accepted`.
 */
export function authenticate(
  store: Store,
  faults: FaultSet,
  authorization: string | undefined,
  rawQuery: string,
): Authenticated {
  const auth = parseAuthorization(
    faults.has('auth-unpadded-accepted') ? padBase64(authorization) : authorization,
  );
  if (faults.has('hex-case-sensitive') && /[A-F]/.test(signatureAsSent(authorization))) {
    // bug: the signature is compared as a string, and the server's hex is lowercase
    throw new AuthError('bad_signature', BAD_CREDENTIALS_MESSAGE);
  }
  const credential = store.credential(auth.authId);
  if (!credential) {
    verifySignature(rawQuery, DUMMY_ACCESS_KEY, auth.signature);
    throw new AuthError(
      'unknown_credential',
      faults.has('unknown-auth-id-message')
        ? `unknown authId ${JSON.stringify(auth.authId)}`
        : BAD_CREDENTIALS_MESSAGE,
    );
  }
  if (
    !faults.has('signature-not-checked') &&
    !signatureMatches(faults, rawQuery, credential.accessKey, auth.signature)
  ) {
    throw new AuthError('bad_signature', BAD_CREDENTIALS_MESSAGE);
  }
  return { caller: credential.caller, authId: auth.authId };
}

function signatureMatches(
  faults: FaultSet,
  rawQuery: string,
  accessKey: string,
  signature: string,
): boolean {
  if (!faults.hasAny(['plus-not-space', 'next-not-signed', 'cursor-not-signed'])) {
    return verifySignature(rawQuery, accessKey, signature);
  }
  const forms = faults.has('plus-not-space')
    ? // bug: decodeURIComponent alone, so a PHP client's `+` (a space) stays a `+`
      [rawQuery, ...decodedWithoutPlus(rawQuery)]
    : signableForms(rawQuery);
  // bug (`next-not-signed`): the ignored `next` parameters are stripped before verifying;
  // bug (`cursor-not-signed`): the paging layer's `cursor` is stripped, as a client library
  // that appends it after signing would need; either way a signature leaving them out passes
  for (const [fault, name] of [
    ['next-not-signed', 'next'],
    ['cursor-not-signed', 'cursor'],
  ] as const) {
    if (!faults.has(fault)) continue;
    const stripped = rawQuery
      .split('&')
      .filter((part) => part.split('=')[0] !== name)
      .join('&');
    if (stripped !== rawQuery) forms.push(...signableForms(stripped));
  }
  let ok = false;
  for (const form of forms) {
    if (constantTimeEqual(signQuery(form, accessKey), signature)) ok = true;
  }
  return ok;
}

function decodedWithoutPlus(rawQuery: string): string[] {
  try {
    const decoded = decodeURIComponent(rawQuery);
    return decoded === rawQuery ? [] : [decoded];
  } catch {
    return [];
  }
}

/** The hex signature of a well-formed `Authorization` header, in the case it was sent. */
function signatureAsSent(authorization: string | undefined): string {
  const decoded = atob((authorization ?? '').trim());
  return decoded.slice(decoded.indexOf(':') + 1);
}

/** Fault `auth-unpadded-accepted`: base64 without its `=` padding is padded before decoding. */
function padBase64(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const value = authorization.trim();
  // bug: a lenient decoder, as atob is, accepts the missing padding
  return /^[A-Za-z0-9+/]+$/.test(value)
    ? value.padEnd(Math.ceil(value.length / 4) * 4, '=')
    : value;
}
