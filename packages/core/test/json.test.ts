import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parseJsonExact, stringifyJson } from '../src/json.ts';

/** JSON values with integers of any size (bigints beyond 2^53 - 1 among them). */
const arbExactJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc
      .bigInt({ min: -(10n ** 40n), max: 10n ** 40n })
      .map((n) =>
        n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(n)
          : n,
      ),
    // a double that is an integer beyond ±(2^53 − 1) and under 1e21 is written as plain digits,
    // which read back as the bigint of that value (the text cannot tell them apart)
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .filter(
        (d) =>
          !Object.is(d, -0) &&
          !(Number.isInteger(d) && !Number.isSafeInteger(d) && Math.abs(d) < 1e21),
      ),
    fc.string({ unit: 'binary' }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('JSON with integers of any size (docs/spec.md §5)', () => {
  fcTest.prop([arbExactJson, fc.constantFrom(undefined, 2)])(
    'parseJsonExact(stringifyJson(v)) is v: every bigint round-trips with all its digits',
    (value, space) => {
      expect(parseJsonExact(stringifyJson(value, space))).toEqual(value);
    },
  );

  fcTest.prop([arbExactJson])(
    'stringifyJson writes JSON: JSON.parse reads it, and without a bigint it is JSON.stringify',
    (value) => {
      const text = stringifyJson(value);
      expect(() => JSON.parse(text)).not.toThrow();
      const noBigint = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
      expect(stringifyJson(JSON.parse(noBigint))).toBe(noBigint);
    },
  );

  it('writes a bigint as a number literal and reads it back exactly', () => {
    const text = stringifyJson({ paging: { cursors: { previous: 99999999999999999749n } } });
    expect(text).toBe('{"paging":{"cursors":{"previous":99999999999999999749}}}');
    expect(parseJsonExact(text)).toEqual({
      paging: { cursors: { previous: 99999999999999999749n } },
    });
    expect(JSON.parse(text).paging.cursors.previous).toBe(1e20);
  });

  it('strings that look like markers or numbers stay strings', () => {
    const value = { a: '\u000199999999999999999999', b: '99999999999999999999', c: 12n ** 30n };
    expect(parseJsonExact(stringifyJson(value))).toEqual(value);
    expect(parseJsonExact('["\\u0001123456789012345678", 123456789012345678]')).toEqual([
      '\u0001123456789012345678',
      123456789012345678n,
    ]);
  });

  it('keeps safe integers, fractions and exponents as numbers, and throws on text that is not JSON', () => {
    expect(
      parseJsonExact('[9007199254740991, 1.5e300, 1234567890123456.5, -9007199254740993]'),
    ).toEqual([9007199254740991, 1.5e300, 1234567890123456.5, -9007199254740993n]);
    expect(() => parseJsonExact('{"a": 12345678901234567890')).toThrow(SyntaxError);
  });
});
