import { readFile } from 'node:fs/promises';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { describe, expect, test } from 'vitest';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import { closest, ProfileError, parseProfile } from '../src/profile/profile.ts';

describe('profile', () => {
  test('{} is the reference profile tagtrack/v1 at the current revision', () => {
    expect(parseProfile({})).toEqual({
      name: 'tagtrack/v1',
      revision: 3,
      auth: 'hmac-sha1',
      pageSize: 250,
      pagingEnd: 'no-content',
      memberWithoutGroup: 'omit',
      rateLimit: null,
      rtn: ['json', 'text', 'html'],
      credentials: [],
    });
  });

  test.each([
    [{ pageSize: 0 }, 'pageSize'],
    [{ memberWithoutGroup: 'null' }, 'memberWithoutGroup'],
    [{ pagingEnd: 'empty' }, 'pagingEnd'],
    [{ rtn: ['xml'] }, 'rtn'],
    [{ auth: 'basic' }, 'auth'],
    [{ rateLimit: { limit: 1 } }, 'rateLimit.windowMs'],
    [{ credentials: [{ label: 'a', authId: 'x' }] }, 'credentials[0].accessKey'],
    [
      { credentials: [{ label: 'a', authId: 'x', accessKey: 'k', accountType: 'owner' }] },
      'credentials[0].accountType',
    ],
    [{ pagesize: 10 }, 'pagesize'],
  ])('an invalid profile %j is rejected naming %s', (value, field) => {
    expect(() => parseProfile(value)).toThrow(ProfileError);
    expect(() => parseProfile(value)).toThrow(field);
  });

  test('the error is one line naming every field; an unknown key gets a did-you-mean', () => {
    const message = (value: unknown) => {
      try {
        parseProfile(value, 'profile p.json');
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(message({ pagesize: 10 })).toBe(
      'invalid profile p.json: unknown key "pagesize" (did you mean "pageSize"?)',
    );
    expect(message({ pageSize: 0, pagingend: 'empty-page' })).toMatch(
      /^invalid profile p\.json: pageSize: [^\n;]+; unknown key "pagingend" \(did you mean "pagingEnd"\?\)$/,
    );
    expect(
      message({
        credentials: [{ label: 'a', authId: 'x', acessKey: 'k' }],
        rateLimit: { limit: 1, window: 5 },
      }),
    ).toMatch(
      /^invalid profile p\.json: (?=.*credentials\[0\]: unknown key "acessKey" \(did you mean "accessKey"\?\))(?=.*credentials\[0\]\.accessKey: )(?=.*rateLimit: unknown key "window" \(did you mean "windowMs"\?\))[^\n]*$/,
    );
    // nothing close: no suggestion
    expect(message({ vendor: 'acme' })).toBe('invalid profile p.json: unknown key "vendor"');
  });

  test('closest: the same word in another case, else the nearest within a third of its length', () => {
    expect(closest('PAGESIZE', ['pageSize', 'pagingEnd'])).toBe('pageSize');
    expect(closest('rtns', ['rtn', 'auth'])).toBe('rtn');
    expect(closest('xyz', ['rtn', 'auth'])).toBeUndefined();
  });

  test('fixtures/canonical-profile.json is the canonical profile (regenerate with pnpm canonical-profile)', async () => {
    const file = JSON.parse(
      await readFile(new URL('../fixtures/canonical-profile.json', import.meta.url), 'utf8'),
    );
    expect(file).toEqual(canonicalProfile());
    expect(parseProfile(file).credentials.map((c) => c.label)).toEqual(
      CANONICAL_CREDENTIALS.map((c) => c.label),
    );
  });
});
