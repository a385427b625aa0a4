import { fc, test as fcTest } from '@fast-check/vitest';
import { hmac } from '@noble/hashes/hmac.js';
import { sha1 } from '@noble/hashes/legacy.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../src/errors.ts';
import {
  authorizationHeader,
  buildQueryString,
  constantTimeEqual,
  parseAuthorization,
  signableForms,
  signQuery,
  verifySignature,
} from '../src/signing.ts';
import { SIGNING_VECTORS } from '../src/signing-vectors.ts';

// The expected values live in src/signing-vectors.ts, each computed with
// `printf '%s' "$signed" | openssl dgst -sha1 -hmac "$accessKey"` and
// `printf '%s' "$authId:$signature" | base64 -w0` (the exact command is beside each vector).

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe('signing test vectors (computed with openssl, spec §3)', () => {
  it.each(SIGNING_VECTORS)('signQuery: $name', (v) => {
    expect(signQuery(v.signed, v.accessKey)).toBe(v.signature);
  });

  // in Node signQuery takes node:crypto's HMAC; a browser takes noble's, which must agree
  const arbText = fc.string({
    unit: fc.oneof(
      fc.constantFrom('\uD800', '\uDFFF', 'é', '&'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
  });
  fcTest.prop([arbText, arbText], { numRuns: 300 })(
    "signQuery(query, key) is noble's HMAC-SHA1 of the UTF-8 bytes for any strings, lone surrogates included",
    (query, accessKey) => {
      expect(signQuery(query, accessKey)).toBe(
        bytesToHex(hmac(sha1, utf8ToBytes(accessKey), utf8ToBytes(query))),
      );
    },
  );

  it.each(SIGNING_VECTORS)('authorizationHeader: $name', (v) => {
    expect(authorizationHeader(v.authId, v.accessKey, v.signed)).toBe(v.authorization);
  });

  it.each(SIGNING_VECTORS)('parseAuthorization inverts the header: $name', (v) => {
    expect(parseAuthorization(v.authorization)).toEqual({
      authId: v.authId,
      signature: v.signature,
    });
  });

  it.each(SIGNING_VECTORS)('verifySignature accepts the query as sent: $name', (v) => {
    expect(verifySignature(v.query, v.accessKey, v.signature)).toBe(true);
    expect(verifySignature(v.query, v.accessKey, v.signature.toUpperCase())).toBe(true);
  });

  it.each(SIGNING_VECTORS)('verifySignature rejects another access key: $name', (v) => {
    expect(verifySignature(v.query, `${v.accessKey}x`, v.signature)).toBe(false);
  });

  it('signs parameters in request order, not sorted', () => {
    const rtnFirst = SIGNING_VECTORS.find((v) => v.query === 'rtn=json&start=2024-01-01')!;
    const startFirst = SIGNING_VECTORS.find((v) => v.query === 'start=2024-01-01&rtn=json')!;
    expect(rtnFirst.signature).not.toBe(startFirst.signature);
    expect(verifySignature(startFirst.query, startFirst.accessKey, rtnFirst.signature)).toBe(false);
  });

  it('the PHP-style (decoded) and Node-style (encoded) signatures differ but both verify', () => {
    const encoded = SIGNING_VECTORS.find((v) => v.name.includes('Node/Python'))!;
    const decoded = SIGNING_VECTORS.find((v) => v.name.includes('PHP style'))!;
    expect(encoded.query).toBe(decoded.query);
    expect(encoded.signature).not.toBe(decoded.signature);
    for (const v of [encoded, decoded]) {
      expect(verifySignature(v.query, v.accessKey, v.signature)).toBe(true);
    }
  });

  it('signableForms gives the raw form and the percent-decoded form with + as a space', () => {
    expect(signableForms('total=a+b%20c%2B')).toEqual(['total=a+b%20c%2B', 'total=a b c+']);
    expect(signableForms('rtn=json')).toEqual(['rtn=json']);
    expect(signableForms('total=%E0%A4')).toEqual(['total=%E0%A4']); // invalid UTF-8: raw only
    expect(signableForms('')).toEqual(['']);
  });
});

describe('buildQueryString', () => {
  it('keeps the given order and percent-encodes names and values', () => {
    expect(
      buildQueryString([
        ['rtn', 'json'],
        ['total', 'café & b'],
        ['start', '2024-01-01'],
      ]),
    ).toBe('rtn=json&total=caf%C3%A9%20%26%20b&start=2024-01-01');
    expect(buildQueryString([])).toBe('');
  });

  fcTest.prop([
    fc.array(fc.tuple(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }))),
  ])(
    'URLSearchParams decodes buildQueryString back to the same pairs in the same order',
    (pairs) => {
      expect([...new URLSearchParams(buildQueryString(pairs))]).toEqual(pairs);
    },
  );
});

describe('parseAuthorization errors (spec §3: 401)', () => {
  const cases: [string, string | undefined, RegExp][] = [
    ['missing (undefined)', undefined, /missing Authorization header/],
    ['missing (empty)', '', /missing Authorization header/],
    ['not base64', 'not base64!', /malformed Authorization header/],
    ['no colon', b64('reader-1'), /not authId:hexSignature/],
    ['empty auth id', b64(':6e4171878d4a0349b6ecb1b0f6938614515763d2'), /not authId:hexSignature/],
    ['short signature', b64('reader-1:6e4171878d'), /not 40 hex characters/],
    ['non-hex signature', b64(`reader-1:${'z'.repeat(40)}`), /not 40 hex characters/],
    [
      'Basic prefix',
      `Basic ${b64('reader-1:6e4171878d4a0349b6ecb1b0f6938614515763d2')}`,
      /without a scheme/,
    ],
    ['invalid UTF-8 inside', Buffer.from([0xff, 0x3a, 0x61]).toString('base64'), /malformed/],
  ];
  it.each(cases)('%s', (_, header, message) => {
    let error: unknown;
    try {
      parseAuthorization(header);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).statusCode).toBe(401);
    expect((error as AuthError).message).toMatch(message);
    expect((error as AuthError).code).toBe(
      header === undefined || header === '' ? 'missing_header' : 'malformed_header',
    );
  });

  it('accepts surrounding whitespace and hex in any case; splits at the first colon', () => {
    const sig = '6e4171878d4a0349b6ecb1b0f6938614515763d2';
    expect(parseAuthorization(` ${b64(`ab:${sig.toUpperCase()}`)}\t`)).toEqual({
      authId: 'ab',
      signature: sig,
    });
    // an authId never contains a colon (spec §3 Revision 2): split at the first one
    expect(() => parseAuthorization(b64(`a:b:${sig}`))).toThrow(/not 40 hex/);
  });
});

describe('laws', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 30 });

  fcTest.prop([text, text])('constantTimeEqual(a, b) is true iff a === b', (a, b) => {
    expect(constantTimeEqual(a, b)).toBe(a === b);
    expect(constantTimeEqual(a, a)).toBe(true);
  });

  fcTest.prop([
    text,
    fc.nat({ max: 29 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ])('constantTimeEqual detects a change of any single character', (a, i, c) => {
    fc.pre(a.length > 0);
    const at = i % a.length;
    const b = a.slice(0, at) + c + a.slice(at + 1);
    expect(constantTimeEqual(a, b)).toBe(a === b);
  });

  fcTest.prop([fc.string({ unit: 'grapheme', minLength: 1 }), text, text])(
    'parseAuthorization(authorizationHeader(id, key, q)) gives id and signQuery(q, key), which verifies',
    (authId, accessKey, query) => {
      const parsed = parseAuthorization(authorizationHeader(authId, accessKey, query));
      expect(parsed).toEqual({ authId, signature: signQuery(query, accessKey) });
      expect(parsed.signature).toMatch(/^[0-9a-f]{40}$/);
      expect(verifySignature(query, accessKey, parsed.signature)).toBe(true);
    },
  );

  fcTest.prop([
    fc.array(fc.tuple(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }))),
    text,
  ])(
    'a signature over the decoded query (PHP style) verifies against the encoded query sent',
    (pairs, accessKey) => {
      const sent = buildQueryString(pairs);
      const decodedForm = pairs.map(([k, v]) => `${k}=${v}`).join('&');
      expect(verifySignature(sent, accessKey, signQuery(decodedForm, accessKey))).toBe(true);
      expect(verifySignature(sent, accessKey, signQuery(sent, accessKey))).toBe(true);
    },
  );
});
