import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { QueryParamError } from '../src/errors.ts';
import { decodeFormComponent, parseQuery, parseQueryString } from '../src/params.ts';
import { buildQueryString } from '../src/signing.ts';

/*
 * The query string as application/x-www-form-urlencoded (spec §6 Revision 3): how
 * parseQueryString splits and decodes it, and how parseQuery judges an undecodable value.
 */

/** Names and values as a client writes them: any text, escaped by buildQueryString. */
const arbPairs = fc.array(
  fc.tuple(fc.string({ minLength: 1, unit: 'grapheme' }), fc.string({ unit: 'grapheme' })),
  { maxLength: 6 },
);

describe('parseQueryString (spec §6 Revision 3)', () => {
  fcTest.prop([arbPairs])(
    'parseQueryString(buildQueryString(pairs)) gives back the pairs, in order',
    (pairs) => {
      expect(parseQueryString(buildQueryString(pairs))).toEqual(pairs);
    },
  );

  fcTest.prop([arbPairs, fc.array(fc.nat({ max: 6 }), { maxLength: 4 })])(
    'empty pieces (a leading, trailing or doubled &) change nothing',
    (pairs, at) => {
      const pieces = buildQueryString(pairs)
        .split('&')
        .filter((p) => p !== '');
      for (const i of at) pieces.splice(Math.min(i, pieces.length), 0, '');
      expect(parseQueryString(pieces.join('&'))).toEqual(parseQueryString(buildQueryString(pairs)));
    },
  );

  fcTest.prop([fc.string({ unit: 'grapheme' })])(
    'decodeFormComponent agrees with decodeURIComponent after + is read as a space',
    (text) => {
      const sent = encodeURIComponent(text);
      expect(decodeFormComponent(sent)).toBe(decodeURIComponent(sent));
      expect(decodeFormComponent(sent.replace(/%20/g, '+'))).toBe(text);
    },
  );

  test('a piece without = is the name with an empty value; an empty name is kept', () => {
    expect(parseQueryString('rtn&=json&=&total')).toEqual([
      ['rtn', ''],
      ['', 'json'],
      ['', ''],
      ['total', ''],
    ]);
    expect(parseQueryString('')).toEqual([]);
    expect(parseQueryString('&&&')).toEqual([]);
  });

  test('+ is a space and %XX a UTF-8 byte, in names and values; characters sent unescaped stay', () => {
    expect(parseQueryString('a+b=c+d&%72tn=%6Ason&e=%C3%A9t%C3%A9&f=été')).toEqual([
      ['a b', 'c d'],
      ['rtn', 'json'],
      ['e', 'été'],
      ['f', 'été'],
    ]);
  });

  test('a value with a malformed escape or bytes that are not UTF-8 is kept as sent and marked', () => {
    expect(parseQueryString('a=%zz&b=%&c=json%4&d=%FF&e=%C3&f=%ED%A0%80&g=%C0%AF')).toEqual([
      ['a', '%zz', 'malformed-escape'],
      ['b', '%', 'malformed-escape'],
      ['c', 'json%4', 'malformed-escape'],
      ['d', '%FF', 'not-utf8'],
      ['e', '%C3', 'not-utf8'],
      ['f', '%ED%A0%80', 'not-utf8'],
      ['g', '%C0%AF', 'not-utf8'],
    ]);
    // a name that cannot be decoded is kept as sent: it names no parameter
    expect(parseQueryString('%zz=1')).toEqual([['%zz', '1']]);
  });
});

describe('parseQuery on undecodable values (spec §6 Revision 3)', () => {
  const parse = (raw: string) =>
    parseQuery(parseQueryString(raw), { allowed: ['rtn', 'start', 'total', 'next'] });
  const error = (raw: string) => {
    try {
      parse(raw);
    } catch (e) {
      if (e instanceof QueryParamError) return e;
      throw e;
    }
    throw new Error(`no error for ${raw}`);
  };

  test('a malformed escape is a bad value: 400 naming the parameter, the value echoed as sent', () => {
    const e = error('rtn=js%zzon');
    expect([e.code, e.parameter]).toEqual(['invalid_value', 'rtn']);
    expect(e.message).toBe(
      `invalid value "js%zzon" for query parameter 'rtn': malformed percent-encoding (a % must be followed by two hex digits)`,
    );
  });

  test('bytes that are not UTF-8 are a bad value, echoed as sent (no replacement character)', () => {
    const e = error('start=%FF');
    expect([e.code, e.parameter]).toEqual(['invalid_value', 'start']);
    expect(e.message).toBe(
      `invalid value "%FF" for query parameter 'start': its percent-encoded bytes are not UTF-8`,
    );
    expect(e.message).not.toContain('\uFFFD');
  });

  test('total and next stay ignored whatever they hold; an unknown name stays unknown', () => {
    expect(parse('total=%zz&next=%FF&rtn=text').rtn).toBe('text');
    expect(error('nope=%zz').code).toBe('unknown_parameter');
    expect(error('=json').code).toBe('unknown_parameter');
    expect(error('rtn').code).toBe('invalid_value');
  });
});
