import { authorizationHeader, mergeAllStats, type StatsSummary } from '@tagtrack/core';
import { canonicalDataset as ds } from '@tagtrack/dataset/canonical';
import { describe, expect, test } from 'vitest';
import { createServer } from '../src/index.ts';
import { BASE, credential, expectError, get } from './helpers.ts';

/*
 * spec §6 Revision 3 on the reference server: the query string's syntax
 * (application/x-www-form-urlencoded), false meaning absent, and `type` on the stats endpoints.
 */

const server = createServer();
const admin = credential(1, 'admin');
const group = ds.teams[0]!.groups[0]!;

/**
 * What `GET path?query` (signed over `query` exactly as sent) means: its status, X-Total-Count,
 * records and paging cursors (the paging URLs keep the parameters as sent, so they differ).
 */
async function answer(path: string, query: string) {
  const res = await get(server, path, query);
  const body = (await res.json()) as { data?: unknown; paging?: { cursors?: unknown } };
  return {
    status: res.status,
    total: res.headers.get('x-total-count'),
    data: body.data,
    cursors: body.paging?.cursors,
  };
}

/** Asserts that the two queries get the same answer on `path`, and that it is a 200. */
async function expectSame(path: string, query: string, plain: string) {
  const want = await answer(path, plain);
  expect(want.status).toBe(200);
  expect(await answer(path, query)).toEqual(want);
}

/** The records of a 200 JSON answer; none for a 204 (an empty list, paging end no-content). */
async function records<T>(path: string, query: string): Promise<T[]> {
  const res = await get(server, path, query);
  if (res.status === 204) return [];
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: T[] }).data;
}

describe('query-string syntax (spec §6 Revision 3)', () => {
  test.each([
    ['a doubled &', 'type=user&&rtn=json'],
    ['a leading &', '&type=user&rtn=json'],
    ['a trailing &', 'type=user&rtn=json&'],
    ['only &s around', '&&type=user&&&rtn=json&&'],
  ])('an empty piece is ignored: %s', async (_what, query) => {
    await expectSame('/teams', query, 'type=user&rtn=json');
  });

  test('a bare ? is an empty query', async () => {
    const url = `${BASE}/teams?`;
    const authorization = authorizationHeader(admin.authId, admin.accessKey, '');
    const res = await server.fetch(new Request(url, { headers: { authorization } }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual(
      (await answer('/teams', '')).data,
    );
  });

  test('the signature covers the query as sent, empty pieces included', async () => {
    const signedWithout = await get(server, '/teams', 'type=user&&rtn=json', {
      signed: 'type=user&rtn=json',
    });
    await expectError(signedWithout, 401);
  });

  test.each([
    ['type', '/teams'],
    ['rtn', '/teams'],
    ['cursor', '/contacts'],
    ['isOpened', '/teams/tags'],
    ['start', '/stats'],
    ['aggregateData', '/stats'],
  ])(
    'a bare name (%s, no =) is that parameter with an empty value: 400 naming it',
    async (name, path) => {
      await expectError(await get(server, path, name), 400, [name]);
    },
  );

  test('a bare total or next is ignored like any total and next', async () => {
    await expectSame('/teams', 'total&next&type=user', 'type=user');
  });

  test.each([['=json'], ['='], ['type=user&=1']])(
    'a piece with an empty name (%s) is an unknown parameter: 400 listing the allowed ones',
    async (query) => {
      const body = await expectError(await get(server, '/teams', query), 400, ['allowed']);
      expect(body.message).toContain('unknown query parameter ""');
    },
  );

  test.each([['RTN=json'], ['Type=user'], ['isopened=true'], ['TOTAL=1'], ['Next=1']])(
    'names are case-sensitive: %s is unknown, 400 naming it',
    async (query) => {
      const name = query.slice(0, query.indexOf('='));
      const path = name === 'isopened' ? '/teams/tags' : '/teams';
      await expectError(await get(server, path, query), 400, [`"${name}"`, 'allowed']);
    },
  );

  test('values are percent-decoded, + is a space (names alike)', async () => {
    await expectSame('/teams', 'rtn=%6A%73%6f%6e&type=%75ser', 'rtn=json&type=user');
    await expectSame(
      '/stats',
      'start=2024%2D01%2D01&aggregateData=%54rue',
      'start=2024-01-01&aggregateData=True',
    );
    await expectSame('/teams', '%72tn=json', 'rtn=json');
    // `+` is a space: the bad value shows it decoded
    const body = await expectError(await get(server, '/teams', 'type=+admin'), 400, ['type']);
    expect(body.message).toContain('" admin"');
  });

  test.each([
    ['rtn', '/teams', '%zz'],
    ['type', '/teams', 'user%'],
    ['cursor', '/contacts', '%4'],
    ['isOpened', '/teams/tags', 'tr%G0ue'],
    ['aggregateData', '/stats', '%'],
    ['start', '/stats', '2024-01-0%1'],
    ['date', `/tags/daily/${ds.tags[0]!.tagID}`, '%zz'],
  ])(
    'a malformed escape in %s is a bad value: 400 naming it, echoing the value as sent',
    async (name, path, raw) => {
      const body = await expectError(await get(server, path, `${name}=${raw}`), 400, [
        `'${name}'`,
        JSON.stringify(raw),
        'malformed percent-encoding',
      ]);
      expect(body.message).not.toContain('\uFFFD');
    },
  );

  test.each([
    ['start', '/stats', '%FF'],
    ['rtn', '/teams', 'json%FF'],
    ['type', '/teams', 'user%C3'],
    ['end', '/teams/tags', '2024-01-01%ED%A0%80'],
    ['isClicked', '/teams/tags', '%C0%AF'],
  ])(
    'bytes that are not UTF-8 in %s are a bad value: 400 naming it, the escapes echoed (no replacement character)',
    async (name, path, raw) => {
      const body = await expectError(await get(server, path, `${name}=${raw}`), 400, [
        `'${name}'`,
        JSON.stringify(raw),
        'not UTF-8',
      ]);
      expect(body.message).not.toContain('\uFFFD');
    },
  );

  test('total and next stay ignored with undecodable values', async () => {
    await expectSame('/teams', 'total=%zz&next=%FF&type=user&total=%', 'type=user');
  });
});

describe('false means absent (spec §6 Revision 3)', () => {
  test.each([['false'], ['False'], ['FALSE'], ['0'], ['fAlSe']])(
    'every tag filter set to %s answers like no filter',
    async (spelling) => {
      for (const filter of ['isOpened', 'isUnopened', 'isClicked', 'isUnclicked']) {
        await expectSame('/teams/tags', `${filter}=${spelling}`, '');
        await expectSame(`/teams/member/${admin.memberID}/tags`, `${filter}=${spelling}`, '');
      }
    },
  );

  test.each([['false'], ['False'], ['0']])(
    'aggregateData=%s gives the per-day records, like no aggregateData',
    async (spelling) => {
      for (const path of ['/stats', '/teams/stats', `/teams/stats/group/${group.groupID}`]) {
        await expectSame(path, `aggregateData=${spelling}`, '');
        const days = await records<StatsSummary>(path, `aggregateData=${spelling}`);
        expect(days.length).toBeGreaterThan(1);
        expect(days.every((d) => d.date !== undefined)).toBe(true);
      }
    },
  );
});

describe('type on the stats endpoints keeps the tags of senders of that type (spec §6 Revision 3)', () => {
  const TYPES = ['admin', 'manager', 'user'] as const;
  const paths = ['/stats', '/teams/stats', `/teams/stats/group/${group.groupID}`];

  test.each(paths.map((p) => [p]))(
    '%s: the typed aggregated stats merge to the untyped, and each is the merge of its senders’ stats',
    async (path) => {
      const whole = (await records<StatsSummary>(path, 'aggregateData=true'))[0]!;
      const parts: StatsSummary[] = [];
      for (const type of TYPES) {
        const typed = (await records<StatsSummary>(path, `type=${type}&aggregateData=true`))[0]!;
        // the members of that type (in the group on endpoint 7), from endpoints 1 and 5
        const list = path.includes('/group/') ? `/teams/group/${group.groupID}` : '/teams';
        const members = await records<{ memberID: string }>(list, `type=${type}`);
        const own: StatsSummary[] = [];
        for (const m of members)
          own.push(
            (
              await records<StatsSummary>(`/teams/stats/member/${m.memberID}`, 'aggregateData=true')
            )[0]!,
          );
        expect(typed).toEqual(mergeAllStats(own));
        parts.push(typed);
      }
      expect(mergeAllStats(parts)).toEqual(whole);
    },
  );

  test.each(paths.map((p) => [p]))(
    '%s: the typed per-day records merge day by day to the untyped ones',
    async (path) => {
      const whole = await records<StatsSummary>(path, '');
      const typed = (
        await Promise.all(TYPES.map((type) => records<StatsSummary>(path, `type=${type}`)))
      ).flat();
      for (const day of whole) {
        const { date: _date, ...merged } = {
          date: day.date,
          ...mergeAllStats(typed.filter((r) => r.date === day.date)),
        };
        const { date: _d, ...expected } = day;
        expect(merged).toEqual(expected);
      }
      expect(typed.every((r) => whole.some((d) => d.date === r.date))).toBe(true);
    },
  );
});
