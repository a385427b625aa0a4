import { endpointById, matchEndpoint, signableForms } from '@tagtrack/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { resolveGroupSegment } from '../src/check/groups.ts';
import { setParam } from '../src/check/sample.ts';
import { formEncode, phpUrldecode } from '../src/checks/auth/requests.ts';
import { encodedPath, groupNearMisses } from '../src/checks/input/paths.ts';
import { keptParamsProblem } from '../src/checks/input/same-answer.ts';
import { namesWord } from '../src/checks/input/values.ts';

describe('input checks: pure helpers', () => {
  test('keptParamsProblem: the same URL with the sent total/next kept is fine, in any place', () => {
    const plain = 'http://api.test/v1/teams/tags?isOpened=true&cursor=40';
    expect(
      keptParamsProblem(
        plain,
        'http://api.test/v1/teams/tags?total=&isOpened=true&next=a%20b&cursor=40',
        [
          ['total', ''],
          ['next', 'a b'],
        ],
      ),
    ).toBeUndefined();
    // + and %20 are the same decoded value
    expect(
      keptParamsProblem(plain, 'http://api.test/v1/teams/tags?isOpened=true&cursor=40&next=a+b', [
        ['next', 'a b'],
      ]),
    ).toBeUndefined();
  });

  test('keptParamsProblem: a dropped total/next, another cursor, another path or another parameter is a problem', () => {
    const plain = 'http://api.test/teams/tags?isOpened=true&cursor=40';
    const kept: [string, string][] = [['next', '1']];
    expect(
      keptParamsProblem(plain, 'http://api.test/teams/tags?isOpened=true&cursor=40', kept),
    ).toMatch(/does not keep the sent next=1/);
    expect(
      keptParamsProblem(plain, 'http://api.test/teams/tags?isOpened=true&next=1&cursor=80', kept),
    ).toMatch(/only total and next added/);
    expect(
      keptParamsProblem(plain, 'http://other.test/teams/tags?isOpened=true&next=1&cursor=40', kept),
    ).toMatch(/points at http:\/\/other.test/);
    expect(
      keptParamsProblem(
        plain,
        'http://api.test/teams/tags?isOpened=true&next=1&next=1&cursor=40',
        kept,
      ),
    ).toMatch(/does not keep/);
  });

  test('setParam replaces the first occurrence in place, else appends', () => {
    expect(
      setParam(
        [
          ['date', '2024-01-01'],
          ['rtn', 'json'],
        ],
        'date',
        '',
      ),
    ).toEqual([
      ['date', ''],
      ['rtn', 'json'],
    ]);
    expect(setParam([['date', '2024-01-01']], 'cursor', '1')).toEqual([
      ['date', '2024-01-01'],
      ['cursor', '1'],
    ]);
  });

  test('namesWord finds a parameter name only as a whole word', () => {
    expect(namesWord('allowed: start, end, isOpened', 'end')).toBe(true);
    expect(namesWord('allowed: dateLastSent', 'date')).toBe(false);
    expect(namesWord("unknown 'isUnopened'", 'isOpened')).toBe(false);
    expect(namesWord('rtn', 'rtn')).toBe(true);
  });

  test('encodedPath: /%74eams is /teams; every choice decodes to the plain path (law: decode(encode(p)) = p)', () => {
    expect(encodedPath(endpointById('teams.list'), {}, (i) => i === 0, false)).toBe('/%74eams');
    expect(
      encodedPath(endpointById('teams.member'), { memberID: 'ab' }, (i) => i === 11, true),
    ).toBe('/teams/member/%61b');
    fc.assert(
      fc.property(
        fc.constantFrom('teams.group', 'contacts.get', 'tags.daily', 'stats.group'),
        fc
          .string({ unit: 'grapheme', minLength: 1, maxLength: 8 })
          .filter((s) => s !== '.' && s !== '..'),
        fc.array(fc.boolean(), { minLength: 1 }),
        fc.boolean(),
        (id, value, mask, upper) => {
          const e = endpointById(id);
          const params = Object.fromEntries(e.pathParams.map((p) => [p, value]));
          const path = encodedPath(e, params, (i) => mask[i % mask.length]!, upper);
          const m = matchEndpoint(path);
          expect(m?.endpoint.id).toBe(id);
          expect(Object.values(m!.pathParams)).toEqual([value]);
        },
      ),
    );
  });

  test('groupNearMisses: other letter cases and proper prefixes, none of them a visible id or name', () => {
    const groups = [
      { groupID: 'g1', groupName: 'Key Accounts' },
      { groupID: 'g2', groupName: 'key accounts' },
    ];
    const taken = new Set(['g1', 'g2', 'Key Accounts', 'key accounts']);
    const misses = groupNearMisses(groups, taken).map((m) => m.segment);
    expect(misses).toContain('KEY ACCOUNTS');
    expect(misses).toContain('kEY aCCOUNTS');
    expect(misses).toContain('Key Account');
    expect(misses).toContain('Key Ac');
    expect(misses).toContain('g');
    expect(misses).not.toContain('key accounts');
    expect(new Set(misses).size).toBe(misses.length);
    // a prefix never splits a surrogate pair
    expect(
      groupNearMisses([{ groupID: 'x1', groupName: 'a😀' }], new Set()).map((m) => m.segment),
    ).toContain('a');
  });

  test('resolveGroupSegment: exact id first, else the lowest id among exact names', () => {
    const groups = [
      { groupID: 'b', groupName: 'Sales' },
      { groupID: 'a', groupName: 'Sales' },
      { groupID: 'Sales2', groupName: 'b' },
    ];
    expect(resolveGroupSegment(groups, 'Sales')?.groupID).toBe('a');
    expect(resolveGroupSegment(groups, 'b')?.groupID).toBe('b');
    expect(resolveGroupSegment(groups, 'sales')).toBeUndefined();
  });
});

describe('auth checks: pure helpers', () => {
  test('phpUrldecode reads + as a space and %XX in either case', () => {
    expect(phpUrldecode('total=a+b%2Bc%2bd%20e&next=%C3%A9')).toBe('total=a b+c+d e&next=é');
    expect(phpUrldecode('a=%zz%4')).toBe('a=%zz%4');
  });

  test('formEncode then phpUrldecode gives the value back, and core signs that decoded form (law: round trip)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 1 }),
        fc.boolean(),
        (value, plus, upper) => {
          const raw = `total=${formEncode(
            value,
            (i) => plus[i % plus.length]!,
            () => upper,
          )}`;
          expect(phpUrldecode(raw)).toBe(`total=${value}`);
          expect(signableForms(raw)).toContain(`total=${value}`);
        },
      ),
    );
  });

  test('formEncode: a space as + or %20, a literal + always encoded', () => {
    expect(
      formEncode(
        'a b+c',
        () => true,
        () => true,
      ),
    ).toBe('a+b%2Bc');
    expect(
      formEncode(
        'a b+c',
        () => false,
        () => false,
      ),
    ).toBe('a%20b%2bc');
  });
});
