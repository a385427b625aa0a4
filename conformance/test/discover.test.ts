import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { createServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { newWalkCache } from '../src/check/context/walk-cache.ts';
import type { RunServices } from '../src/check/context.ts';
import { DEFAULT_SAMPLE_ABOVE } from '../src/check/coverage.ts';
import type { SuiteCredential } from '../src/check/types.ts';
import { WALK_MAX_RECORDS } from '../src/check/walk.ts';
import { HttpClient } from '../src/http/client.ts';
import { parseProfile } from '../src/profile/profile.ts';
import { discover } from '../src/run/discover.ts';
import { MEMORY_BASE_URL, profileFor } from './helpers.ts';

/**
 * The discovery of a credential (`discover.ts`) against a fake API whose member list reports
 * `members` records (pages of 250, every cursor answered) and whose tag and contact lists are
 * empty. Records the cursors of `/teams` asked.
 */
async function discoverWith(members: number, sampleAbove = DEFAULT_SAMPLE_ABOVE) {
  const cursors: number[] = [];
  const page = (cursor: number, total: number) => {
    const n = Math.max(0, Math.min(250, total - cursor));
    return {
      data: Array.from({ length: n }, (_, k) => ({
        memberID: `m${cursor + k}`,
        firstname: 'Ada',
        lastname: `Member ${cursor + k}`,
        email: `m${cursor + k}@example.com`,
        accountType: 'user',
        groupID: 'g1',
        groupName: 'Group one',
      })),
      paging: {
        cursors: { previous: Math.max(0, cursor - 250), next: cursor + n, total },
        previousURL: null,
        nextURL: null,
      },
    };
  };
  const http = new HttpClient({
    baseUrl: 'http://x.invalid',
    auth: 'hmac-sha1',
    timeoutMs: 5000,
    fetch: async (r) => {
      const url = new URL(r.url);
      if (url.pathname !== '/teams') return new Response(null, { status: 204 });
      const cursor = Number(url.searchParams.get('cursor') ?? '0');
      cursors.push(cursor);
      return new Response(JSON.stringify(page(cursor, members)), {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
    },
  });
  const credential: SuiteCredential = { label: 'admin', authId: 'a', accessKey: 'k' };
  return { d: await discoverAs(http, credential, sampleAbove), cursors };
}

/** The discovery of `credential` through `http`, in blind mode with the canonical profile. */
function discoverAs(http: HttpClient, credential: SuiteCredential, sampleAbove?: number) {
  const services: RunServices = {
    http,
    env: {
      profile: parseProfile(profileFor()),
      mode: 'blind',
      probeMethods: false,
      credentials: [credential],
      oracle: undefined,
    },
    primary: credential,
    numRuns: 1,
    baseSeed: 1,
    walkCache: newWalkCache(64 * 1024 * 1024),
    ...(sampleAbove === undefined ? {} : { sampleAbove }),
    discover: (c) => discover(services, c),
  };
  return discover(services, credential);
}

describe('discovery of lists longer than the suite walks', () => {
  test('a list up to the walk bound is walked whole, whatever --sample-above says', async () => {
    const { d, cursors } = await discoverWith(12_000);
    expect(d.members).toHaveLength(12_000);
    expect(d.sampled).toEqual([]);
    expect(cursors.filter((c) => c > 0)).toHaveLength(12_000 / 250 - 1);
  });

  test('a longer list is read at seeded cursors (about --sample-above records), the part named sampled, the same pages each time', async () => {
    const members = WALK_MAX_RECORDS + 20_000;
    const a = await discoverWith(members);
    expect(a.d.sampled).toEqual(['members']);
    expect(a.d.problems).toEqual([]);
    // the first page, then whole pages at seeded cursors: about the bound's number of records
    expect(a.d.members.length).toBeGreaterThanOrEqual(DEFAULT_SAMPLE_ABOVE);
    expect(a.d.members.length).toBeLessThanOrEqual(DEFAULT_SAMPLE_ABOVE + 250);
    expect(a.cursors.length).toBeLessThanOrEqual(DEFAULT_SAMPLE_ABOVE / 250 + 2);
    expect(a.cursors.every((c) => c % 250 === 0 && c < members)).toBe(true);
    expect(Math.max(...a.cursors)).toBeGreaterThan(WALK_MAX_RECORDS / 2);
    // the members' groups are found from the sample
    expect(a.d.groups).toEqual([{ groupID: 'g1', groupName: 'Group one' }]);
    const b = await discoverWith(members);
    expect(b.cursors).toEqual(a.cursors);
  });

  test('with sampling off (--sample-above Infinity) a list too long to walk is walked and skips the check', async () => {
    await expect(discoverWith(WALK_MAX_RECORDS + 1, Number.POSITIVE_INFINITY)).rejects.toThrow(
      /reads at most 100,000 records of one list whole/,
    );
  });
});

describe('the discovery logs its exchanges in one order', () => {
  test('whichever list is answered first, the exchanges are those of the members, then the tags, then the contacts', async () => {
    const server = createServer({ publicUrl: MEMORY_BASE_URL });
    const admin = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;
    const credential: SuiteCredential = {
      label: admin.label,
      authId: admin.authId,
      accessKey: admin.accessKey,
    };
    // `slow`: the paths answered 30 ms late
    const discoverWithSlow = async (slow: readonly string[]) => {
      const http = new HttpClient({
        baseUrl: MEMORY_BASE_URL,
        auth: 'hmac-sha1',
        timeoutMs: 5000,
        fetch: async (r) => {
          if (slow.includes(new URL(r.url).pathname)) await new Promise((ok) => setTimeout(ok, 30));
          return server.fetch(r);
        },
      });
      const d = await discoverAs(http, credential);
      return d.exchanges!.map((x) => x.target);
    };
    try {
      const contactsLate = await discoverWithSlow(['/contacts']);
      const othersLate = await discoverWithSlow(['/teams', '/teams/tags']);
      expect(contactsLate.length).toBeGreaterThan(3);
      expect(othersLate).toEqual(contactsLate);
      expect(contactsLate[0]).toBe('/teams');
    } finally {
      await server.close();
    }
  });
});
