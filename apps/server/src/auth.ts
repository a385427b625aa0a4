import {
  AuthError,
  BAD_CREDENTIALS_MESSAGE,
  type Caller,
  type ParsedAuthorization,
  parseAuthorization,
  verifySignature,
} from '@tagtrack/core';
import type { Store } from './store.ts';

/** A request that passed authentication: who is calling, and with which credential. */
export interface Authenticated {
  readonly caller: Caller;
  readonly authId: string;
}

/**
 * The key an unknown authId's signature is checked against, so an unknown authId and a wrong
 * signature take the same time (spec §3 Revision 2). Its result is never used.
 */
const DUMMY_ACCESS_KEY = 'tagtrack-dummy-access-key-for-unknown-auth-ids';

/**
 * The steps of authentication a fault wraps (`faults/auth.ts`), each clean unless a fault
 * replaced it (spec §3 and its Revision 2).
 */
export interface AuthLayer {
  /**
   * Runs on every request before the credentials are read; `parseQuery` validates the query
   * string (throwing core's `QueryParamError`). Clean: nothing (parameters come after auth).
   */
  beforeCredentials(parseQuery: () => unknown): void;
  /** The `Authorization` header decoded (core's {@link parseAuthorization}); throws {@link AuthError}. */
  parse(authorization: string | undefined): ParsedAuthorization;
  /** The 401 message for an authId no credential has: {@link BAD_CREDENTIALS_MESSAGE}. */
  unknownAuthIdMessage(authId: string): string;
  /** Whether `signature` (hex) signs `rawQuery` as received or percent-decoded with `accessKey`. */
  signatureMatches(rawQuery: string, accessKey: string, signature: string): boolean;
}

/** The clean {@link AuthLayer}. */
export const AUTH_LAYER: AuthLayer = {
  beforeCredentials: () => {},
  parse: (authorization) => parseAuthorization(authorization),
  unknownAuthIdMessage: () => BAD_CREDENTIALS_MESSAGE,
  signatureMatches: (rawQuery, accessKey, signature) =>
    verifySignature(rawQuery, accessKey, signature),
};

/**
 * Step 3 of the order of checks (spec §3 and its Revision 2): decodes the
 * `Authorization` header (core's {@link parseAuthorization}: strict base64 of
 * `authId:hexSignature`, split at the first `:`, hex in any case) and verifies the signature
 * over the raw query string as received or its percent-decoded form (`+` read as a space).
 * An unknown authId and a wrong signature throw the same {@link AuthError} message,
 * {@link BAD_CREDENTIALS_MESSAGE}; a missing or malformed header throws core's own message.
 * `layer` is {@link AUTH_LAYER} or the steps as the auth faults break them.
 */
export function authenticate(
  store: Store,
  layer: AuthLayer,
  authorization: string | undefined,
  rawQuery: string,
): Authenticated {
  const auth = layer.parse(authorization);
  const credential = store.credential(auth.authId);
  if (!credential) {
    verifySignature(rawQuery, DUMMY_ACCESS_KEY, auth.signature);
    throw new AuthError('unknown_credential', layer.unknownAuthIdMessage(auth.authId));
  }
  if (!layer.signatureMatches(rawQuery, credential.accessKey, auth.signature)) {
    throw new AuthError('bad_signature', BAD_CREDENTIALS_MESSAGE);
  }
  return { caller: credential.caller, authId: auth.authId };
}
