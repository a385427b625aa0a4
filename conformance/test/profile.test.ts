import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { canonicalProfile } from '../src/fixtures.ts';
import { ProfileError, parseProfile } from '../src/profile.ts';

describe('profile', () => {
  test('{} is the reference profile tagtrack/v1', () => {
    expect(parseProfile({})).toEqual({
      name: 'tagtrack/v1',
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

  test('fixtures/canonical-profile.json is the canonical profile (regenerate with pnpm canonical-profile)', async () => {
    const file = JSON.parse(
      await readFile(new URL('../fixtures/canonical-profile.json', import.meta.url), 'utf8'),
    );
    expect(file).toEqual(canonicalProfile());
    expect(parseProfile(file).credentials.map((c) => c.label)).toEqual([
      'team1-admin',
      'team1-manager',
      'team1-user',
      'team2-admin',
      'team2-manager',
      'team2-user',
    ]);
  });
});
