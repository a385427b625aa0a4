import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { type EndpointId, endpointById } from '../src/endpoints.ts';
import { QueryParamError } from '../src/errors.ts';
import { parseQuery, type QueryParams } from '../src/params.ts';

/** Parses `query` (a raw query string) with the rules of endpoint `id` (spec §6). */
function parse(id: EndpointId, query: string): QueryParams {
  const e = endpointById(id);
  return parseQuery(new URLSearchParams(query), {
    allowed: e.query,
    required: e.requiredQuery,
  });
}

/** The QueryParamError thrown by `fn`, or a failure when nothing is thrown. */
function errorOf(fn: () => unknown): QueryParamError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(QueryParamError);
    return e as QueryParamError;
  }
  throw new Error('expected a QueryParamError, nothing was thrown');
}

describe('defaults', () => {
  it('gives rtn json, cursor 0 and false booleans when nothing is sent', () => {
    expect(parse('teams.tags', '')).toEqual({
      rtn: 'json',
      cursor: 0,
      isClicked: false,
      isUnclicked: false,
      isOpened: false,
      isUnopened: false,
      aggregateData: false,
    });
  });
});

describe('dates: strict YYYY-MM-DD and a real calendar day (spec §6)', () => {
  it.each(['2024-02-29', '2000-02-29', '2023-12-31', '2024-01-01', '0001-01-01', '9999-12-31'])(
    'accepts %s (years 0001 to 9999, Revision 2)',
    (d) => {
      expect(parse('teams.tags', `start=${d}`).start).toBe(d);
      expect(parse('tags.daily', `date=${d}`).date).toBe(d);
    },
  );

  it.each([
    '0000-01-01',
    '10000-01-01',
    '2023-02-29',
    '1900-02-29',
    '2024-13-01',
    '2024-04-31',
    '2024-00-10',
    '2024-1-1',
    '20240101',
    '2024-01-01T00:00:00Z',
    ' 2024-01-01',
    '2024/01/01',
    '',
  ])('rejects %j with 400 naming the parameter', (d) => {
    for (const name of ['start', 'end'] as const) {
      const err = errorOf(() => parse('stats.team', `${name}=${encodeURIComponent(d)}`));
      expect(err).toMatchObject({ statusCode: 400, code: 'invalid_value', parameter: name });
      expect(err.message).toContain(`'${name}'`);
      expect(err.message).toContain('YYYY-MM-DD');
    }
  });

  it('start after end is 400 on parameter start; start equal to end is fine', () => {
    const err = errorOf(() => parse('teams.tags', 'start=2024-03-02&end=2024-03-01'));
    expect(err).toMatchObject({ code: 'invalid_range', parameter: 'start', statusCode: 400 });
    expect(err.message).toMatch(/'start' \(2024-03-02\) is after 'end' \(2024-03-01\)/);
    expect(parse('teams.tags', 'start=2024-03-01&end=2024-03-01')).toMatchObject({
      start: '2024-03-01',
      end: '2024-03-01',
    });
  });

  it('date is required on tags.daily', () => {
    const err = errorOf(() => parse('tags.daily', 'rtn=json'));
    expect(err).toMatchObject({ code: 'missing_parameter', parameter: 'date', statusCode: 400 });
    expect(err.message).toMatch(/'date' is required/);
    expect(parse('tags.daily', 'date=2024-03-01').date).toBe('2024-03-01');
  });

  const arbDay = fc.date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2100-12-31T23:59:59Z'),
    noInvalidDate: true,
  });
  fcTest.prop([arbDay, arbDay])(
    'any calendar day in 2000-2100 parses to itself, and a pair parses iff start <= end',
    (a, b) => {
      const [start, end] = [a.toISOString().slice(0, 10), b.toISOString().slice(0, 10)];
      const query = `start=${start}&end=${end}`;
      if (start <= end) expect(parse('stats.team', query)).toMatchObject({ start, end });
      else expect(errorOf(() => parse('stats.team', query)).parameter).toBe('start');
    },
  );

  fcTest.prop([
    fc.integer({ min: 2000, max: 2100 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 29, max: 31 }),
  ])('a day past the end of its month is rejected, a day within it is accepted', (y, m, d) => {
    const iso = `${y}-${String(m).padStart(2, '0')}-${d}`;
    const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
    if (d <= daysInMonth) expect(parse('tags.daily', `date=${iso}`).date).toBe(iso);
    else expect(errorOf(() => parse('tags.daily', `date=${iso}`)).parameter).toBe('date');
  });
});

describe('booleans: true/false/1/0 in any case (spec §6)', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    ['TRUE', true],
    ['True', true],
    ['fAlSe', false],
  ])('accepts %s as %s', (raw, value) => {
    expect(parse('teams.tags', `isOpened=${raw}`).isOpened).toBe(value);
    expect(parse('stats.member', `aggregateData=${raw}`).aggregateData).toBe(value);
  });

  it.each(['yes', 'no', '2', '', 'on', ' true', 'true '])('rejects %j with 400', (raw) => {
    const err = errorOf(() => parse('teams.tags', `isClicked=${encodeURIComponent(raw)}`));
    expect(err).toMatchObject({ code: 'invalid_value', parameter: 'isClicked' });
    expect(err.message).toContain('true, false, 1 or 0');
  });

  fcTest.prop([fc.string({ unit: 'grapheme', maxLength: 8 })])(
    'a value is accepted iff it is true, false, 1 or 0 ignoring case',
    (raw) => {
      const valid = ['true', 'false', '1', '0'].includes(raw.toLowerCase());
      const query = `isUnopened=${encodeURIComponent(raw)}`;
      if (valid)
        expect(parse('teams.tags', query).isUnopened).toBe(
          raw === '1' || raw.toLowerCase() === 'true',
        );
      else expect(errorOf(() => parse('teams.tags', query)).parameter).toBe('isUnopened');
    },
  );
});

describe('enums (spec §6)', () => {
  it.each(['admin', 'manager', 'user'])('type=%s is accepted', (t) => {
    expect(parse('teams.list', `type=${t}`).type).toBe(t);
  });
  it.each(['Admin', 'owner', ''])('type=%j is 400 listing the allowed values', (t) => {
    const err = errorOf(() => parse('teams.list', `type=${t}`));
    expect(err).toMatchObject({ code: 'invalid_value', parameter: 'type' });
    expect(err.message).toContain('admin, manager, user');
  });
  it.each(['json', 'text', 'html'])('rtn=%s is accepted', (r) => {
    expect(parse('contacts.list', `rtn=${r}`).rtn).toBe(r);
  });
  it.each(['xml', 'JSON', 'csv'])('rtn=%s is 400 listing the allowed values', (r) => {
    const err = errorOf(() => parse('contacts.list', `rtn=${r}`));
    expect(err).toMatchObject({ code: 'invalid_value', parameter: 'rtn' });
    expect(err.message).toContain('json, text, html');
  });
});

describe('unknown and repeated parameters (spec §6)', () => {
  it('an unknown parameter (typo isOpen) is 400 and the message lists the allowed names', () => {
    const err = errorOf(() => parse('teams.tags', 'isOpen=true'));
    expect(err).toMatchObject({ code: 'unknown_parameter', parameter: 'isOpen', statusCode: 400 });
    for (const name of endpointById('teams.tags').query) expect(err.message).toContain(name);
  });

  it('a parameter of another endpoint is unknown here (type on /contacts, date on /stats)', () => {
    expect(errorOf(() => parse('contacts.list', 'type=admin')).code).toBe('unknown_parameter');
    expect(errorOf(() => parse('stats.team', 'date=2024-01-01')).code).toBe('unknown_parameter');
    expect(errorOf(() => parse('stats.member', 'type=admin')).code).toBe('unknown_parameter');
  });

  it('a repeated parameter is 400, even with the same value', () => {
    const err = errorOf(() => parse('teams.tags', 'rtn=json&rtn=json'));
    expect(err).toMatchObject({ code: 'repeated_parameter', parameter: 'rtn', statusCode: 400 });
    expect(err.message).toMatch(/'rtn' is repeated/);
  });
});

describe('cursor and total (spec §5)', () => {
  it.each([
    ['0', 0],
    ['250', 250],
    ['007', 7],
  ])('cursor=%s is %d', (raw, n) => {
    expect(parse('contacts.list', `cursor=${raw}`).cursor).toBe(n);
  });
  it.each(['-1', '1.5', 'abc', '', '1e3', ' 1'])('cursor=%j is 400', (raw) => {
    const err = errorOf(() => parse('contacts.list', `cursor=${encodeURIComponent(raw)}`));
    expect(err).toMatchObject({ code: 'invalid_value', parameter: 'cursor' });
    expect(err.message).toContain('non-negative integer');
  });
  it('total and next are accepted on every endpoint and ignored, even empty or repeated', () => {
    const parsed = parse('tags.daily', 'date=2024-01-01&total=whatever&cursor=0&next=x');
    expect(parsed).not.toHaveProperty('total');
    expect(parsed).not.toHaveProperty('next');
    for (const ignored of ['total=17', 'next=250', 'total=&next=', 'total=1&total=2&next=3&next=3'])
      expect(parse('teams.member', ignored)).toEqual(parse('teams.member', ''));
  });
  it('a huge cursor is valid and read exactly, a bigint above 2^53 - 1 (Revision 2)', () => {
    expect(parse('teams.list', `cursor=${'9'.repeat(40)}`).cursor).toBe(BigInt('9'.repeat(40)));
    expect(parse('teams.list', 'cursor=00099999999999999999999').cursor).toBe(
      99999999999999999999n,
    );
    expect(parse('teams.list', 'cursor=9007199254740991').cursor).toBe(Number.MAX_SAFE_INTEGER);
    expect(parse('teams.list', 'cursor=9007199254740992').cursor).toBe(9007199254740992n);
    expect(parse('teams.list', 'cursor=0000').cursor).toBe(0);
  });
  it('cursor is validated on single-object endpoints too (Revision 2)', () => {
    expect(errorOf(() => parse('teams.member', 'cursor=-1'))).toMatchObject({
      code: 'invalid_value',
      parameter: 'cursor',
    });
  });
  fcTest.prop([fc.nat()])('any non-negative integer cursor parses to itself', (n) => {
    expect(parse('teams.list', `cursor=${n}`).cursor).toBe(n);
  });
  fcTest.prop([fc.bigInt({ min: 0n, max: 10n ** 60n }), fc.nat({ max: 5 })])(
    'any cursor, leading zeros and any size, parses to its exact value (a number iff safe)',
    (n, zeros) => {
      const cursor = parse('teams.list', `cursor=${'0'.repeat(zeros)}${n}`).cursor;
      expect(BigInt(cursor)).toBe(n);
      expect(typeof cursor).toBe(n <= BigInt(Number.MAX_SAFE_INTEGER) ? 'number' : 'bigint');
    },
  );
});
