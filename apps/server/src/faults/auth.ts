import {
  AuthError,
  BAD_CREDENTIALS_MESSAGE,
  constantTimeEqual,
  signableForms,
  signQuery,
} from '@tagtrack/core';
import type { AuthLayer } from '../auth.ts';
import type { FaultInfo } from './info.ts';

/**
 * Faults of the auth middleware: Authorization forms and signatures (spec §3). Each wraps
 * the clean `AuthLayer` (auth.ts) and replaces the step it breaks.
 */
export const AUTH_FAULTS = [
  {
    name: 'signature-not-checked',
    area: 'auth',
    description: 'any well-formed signature is accepted for a known authId (spec §3)',
    detectedBy: ['AUTH-401-WRONG-KEY', 'AUTH-401-SIGNATURE-SCOPE'],
    wrap: { auth: (a) => ({ ...a, signatureMatches: () => true }) },
  },
  {
    name: 'unknown-auth-id-message',
    area: 'auth',
    description:
      'an unknown authId answers another 401 message than a wrong signature: an authId oracle (spec §3 Revision 2)',
    detectedBy: ['AUTH-401-SAME-BODY'],
    wrap: {
      // bug: the 401 tells an unknown authId apart from a wrong signature
      auth: (a) => ({
        ...a,
        unknownAuthIdMessage: (authId) => `unknown authId ${JSON.stringify(authId)}`,
      }),
    },
  },
  {
    name: 'plus-not-space',
    area: 'auth',
    description:
      'the decoded signing form decodes %XX but keeps + (PHP urldecode reads a space) (spec §3 Revision 2)',
    detectedBy: ['AUTH-ACCEPTS-DECODED-FORM'],
    wrap: {
      auth: (a) => ({
        ...a,
        // bug: decodeURIComponent alone, so a PHP client's `+` (a space) stays a `+`
        signatureMatches: (rawQuery, accessKey, signature) =>
          anyFormSigned([rawQuery, ...decodedWithoutPlus(rawQuery)], accessKey, signature),
      }),
    },
  },
  {
    name: 'hex-case-sensitive',
    area: 'auth',
    description: 'an uppercase hex signature is refused (spec §3 Revision 2)',
    detectedBy: ['AUTH-HEX-ANY-CASE'],
    wrap: {
      auth: (a) => ({
        ...a,
        parse: (authorization) => {
          const parsed = a.parse(authorization);
          // bug: the signature is compared as a string, and the server's hex is lowercase
          if (/[A-F]/.test(signatureAsSent(authorization))) {
            throw new AuthError('bad_signature', BAD_CREDENTIALS_MESSAGE);
          }
          return parsed;
        },
      }),
    },
  },
  {
    name: 'next-not-signed',
    area: 'auth',
    description:
      'a signature over the query without its `next` parameters is accepted too (spec §3 Revision 2)',
    detectedBy: ['AUTH-401-SIGNATURE-SCOPE'],
    // bug: the ignored `next` parameters are stripped before verifying, so a signature
    // leaving them out passes
    wrap: { auth: (a) => withoutParamSigned(a, 'next') },
  },
  {
    name: 'cursor-not-signed',
    area: 'auth',
    description:
      'a signature over the query without its `cursor` parameter is accepted too, as if the paging layer appended it after signing (spec §3 Revision 2)',
    detectedBy: ['AUTH-401-SIGNATURE-SCOPE'],
    // bug: the paging layer's `cursor` is stripped, as a client library that appends it after
    // signing would need, so a signature leaving it out passes
    wrap: { auth: (a) => withoutParamSigned(a, 'cursor') },
  },
  {
    name: 'auth-unpadded-accepted',
    area: 'auth',
    description:
      'an Authorization value in base64 without its = padding is accepted (spec §3 Revision 2: strict base64)',
    detectedBy: ['AUTH-HEADER-FORMS'],
    wrap: { auth: (a) => ({ ...a, parse: (authorization) => a.parse(padBase64(authorization)) }) },
  },
  {
    name: 'params-before-auth',
    area: 'auth',
    description:
      'query parameters are validated before the credentials: a bad parameter without valid credentials answers 400, not 401 (spec §5 Revision 2, order of checks)',
    detectedBy: ['INPUT-ORDER-OF-CHECKS'],
    wrap: {
      auth: (a) => ({
        ...a,
        // bug: the query is validated before the credentials, so a caller without valid
        // credentials learns which parameters an endpoint takes
        beforeCredentials: (parseQuery) => {
          a.beforeCredentials(parseQuery);
          parseQuery();
        },
      }),
    },
  },
] as const satisfies readonly FaultInfo[];

/** Whether `signature` signs one of `forms` with `accessKey` (every form is computed). */
function anyFormSigned(forms: readonly string[], accessKey: string, signature: string): boolean {
  let ok = false;
  for (const form of forms) {
    if (constantTimeEqual(signQuery(form, accessKey), signature)) ok = true;
  }
  return ok;
}

/** `a` where a signature over the query without parameter `name` passes too. */
function withoutParamSigned(a: AuthLayer, name: string): AuthLayer {
  return {
    ...a,
    signatureMatches: (rawQuery, accessKey, signature) => {
      const stripped = rawQuery
        .split('&')
        .filter((part) => part.split('=')[0] !== name)
        .join('&');
      const forms = [...signableForms(rawQuery)];
      if (stripped !== rawQuery) forms.push(...signableForms(stripped));
      return (
        a.signatureMatches(rawQuery, accessKey, signature) ||
        anyFormSigned(forms, accessKey, signature)
      );
    },
  };
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
