import { authorizationHeader, signQuery } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { createServer } from '../src/index.ts';
import { BASE, credential, expectError, get } from './helpers.ts';

const server = createServer();
const admin = credential(1, 'admin');

describe('bad query parameters answer 400 naming the parameter (spec §6, §6)', () => {
  const cases: [string, string, string, string[]][] = [
    ['not a calendar day', '/teams/tags', 'start=2024-02-30', ['start', '2024-02-30']],
    ['not YYYY-MM-DD', '/teams/tags', 'end=2024-3-5', ['end']],
    ['a timestamp as a date', '/stats', 'start=2024-03-05T00:00:00Z', ['start']],
    ['start after end', '/stats', 'start=2024-05-02&end=2024-05-01', ['start', 'end']],
    ['a boolean that is not true/false/1/0', '/teams/tags', 'isOpened=yes', ['isOpened']],
    ['aggregateData=2', '/stats', 'aggregateData=2', ['aggregateData']],
    ['an unknown account type', '/teams', 'type=owner', ['type']],
    ['an unknown format', '/teams', 'rtn=xml', ['rtn']],
    ['a missing required date', `/tags/daily/${'a'.repeat(24)}`, '', ['date']],
    ['a bad date on endpoint 14', `/tags/daily/${'a'.repeat(24)}`, 'date=2023-02-29', ['date']],
    ['a typo of a parameter', '/teams/tags', 'isOpen=true', ['isOpen', 'isOpened', 'isUnopened']],
    ['a parameter of another endpoint', '/teams', 'start=2024-01-01', ['start', 'allowed']],
    ['a repeated parameter', '/teams', 'type=user&type=admin', ['type']],
    ['a negative cursor', '/teams', 'cursor=-1', ['cursor']],
    ['a cursor that is not a number', '/contacts', 'cursor=ten', ['cursor']],
    ['an empty parameter name', '/teams', '=x', ['allowed']],
    // Revision 2 (spec §5, §6)
    ['an empty value', '/teams', 'type=', ['type']],
    ['an empty boolean', '/teams/tags', 'isOpened=', ['isOpened']],
    [
      'a parameter of the API that this endpoint lacks',
      '/contacts',
      'start=2024-01-01',
      ['start', 'allowed'],
    ],
    ['a bad date on endpoint 4', `/teams/member/${admin.memberID}/tags`, 'end=2024-02-30', ['end']],
    ['a bad date on endpoint 7', '/teams/stats/group/x', 'start=2024-13-01', ['start']],
    [
      'a bad date on endpoint 8',
      `/teams/stats/member/${admin.memberID}`,
      'start=2023-02-29',
      ['start'],
    ],
    ['a bad date on endpoint 9', '/clicks', 'start=20240101', ['start']],
    ['year 0000', '/teams/tags', 'start=0000-01-01', ['start']],
    ['a cursor with a sign', '/contacts', 'cursor=+1', ['cursor']],
    ['an empty cursor', '/contacts', 'cursor=', ['cursor']],
    ['a bad cursor on endpoint 3', `/teams/member/${admin.memberID}`, 'cursor=x', ['cursor']],
    ['a bad cursor on endpoint 14', '/tags/daily/x', 'date=2024-01-01&cursor=1.5', ['cursor']],
    ['a bad cursor on endpoint 16', '/contacts/x', 'cursor=-0', ['cursor']],
    ['rtn in uppercase', '/teams', 'rtn=JSON', ['rtn']],
    ['type in uppercase', '/teams', 'type=Admin', ['type']],
  ];
  test.each(cases)('%s: GET %s?%s', async (_what, path, query, mentions) => {
    await expectError(await get(server, path, query), 400, mentions);
  });

  test('the error body is JSON even when rtn=text or rtn=html was asked for', async () => {
    await expectError(await get(server, '/teams', 'rtn=text&type=nobody'), 400, ['type']);
    await expectError(await get(server, '/teams/tags', 'rtn=html&start=bad'), 400, ['start']);
    await expectError(await get(server, '/teams/member/nope', 'rtn=html'), 404);
  });
});

describe('accepted and ignored (spec §5, §6 Revision 2)', () => {
  test('next and total, any value, empty or repeated, change nothing', async () => {
    const plain = await get(server, '/contacts', 'cursor=3');
    const body = await plain.text();
    for (const extra of ['next=9', 'next=', 'total=', 'next=1&next=2', 'total=a&total=b&next=x']) {
      const res = await get(server, '/contacts', `cursor=3&${extra}`);
      expect(res.status, extra).toBe(200);
      expect(res.headers.get('x-total-count')).toBe(plain.headers.get('x-total-count'));
      const data = (await res.json()) as { data: unknown; paging: { cursors: unknown } };
      const want = JSON.parse(body) as typeof data;
      expect(data.data).toEqual(want.data);
      expect(data.paging.cursors).toEqual(want.paging.cursors);
    }
  });

  test('a valid cursor on a single-object endpoint is ignored; leading zeros are fine', async () => {
    const a = await get(server, `/teams/member/${admin.memberID}`);
    const b = await get(server, `/teams/member/${admin.memberID}`, 'cursor=000250');
    expect(b.status).toBe(200);
    expect(await b.text()).toBe(await a.text());
  });

  test('path segments are percent-decoded before matching: /%74eams/tags is /teams/tags', async () => {
    const a = await get(server, '/teams/tags');
    const b = await get(server, '/%74eams/%74ags');
    expect(b.status).toBe(200);
    expect(((await b.json()) as { data: unknown }).data).toEqual(
      ((await a.json()) as { data: unknown }).data,
    );
  });

  test('the group segment: exact id or exact name; another case or a prefix is 404', async () => {
    const { canonicalDataset } = await import('@tagtrack/dataset/canonical');
    const group = canonicalDataset.teams[0]!.groups[0]!;
    const byName = await get(server, `/teams/group/${encodeURIComponent(group.groupName)}`);
    expect(byName.status).toBe(200);
    for (const segment of [
      group.groupName.toUpperCase(),
      group.groupName.toLowerCase(),
      group.groupName.slice(0, 3),
    ]) {
      if (segment === group.groupName) continue;
      await expectError(await get(server, `/teams/group/${encodeURIComponent(segment)}`), 404);
    }
  });

  test('out-of-scope and unknown ids answer the same 404 message but for the echoed id', async () => {
    const { canonicalDataset } = await import('@tagtrack/dataset/canonical');
    const other = canonicalDataset.teams[1]!.members[0]!.memberID;
    const unknown = '0'.repeat(24);
    const a = await expectError(await get(server, `/teams/member/${other}`), 404);
    const b = await expectError(await get(server, `/teams/member/${unknown}`), 404);
    expect(a.message.replace(other, 'ID')).toBe(b.message.replace(unknown, 'ID'));
  });
});

describe('authentication (spec §3): 401', () => {
  test('missing Authorization header', async () => {
    await expectError(await get(server, '/teams', '', { as: null }), 401, ['Authorization']);
  });
  test.each([
    ['Basic prefix', `Basic ${btoa(`${admin.authId}:${signQuery('', admin.accessKey)}`)}`],
    ['not base64', 'not base64!'],
    ['no colon', btoa('justanid')],
    ['short signature', btoa(`${admin.authId}:abc123`)],
  ])('malformed header: %s', async (_what, header) => {
    const res = await server.fetch(
      new Request(`${BASE}/teams`, { headers: { Authorization: header } }),
    );
    await expectError(res, 401);
  });
  test('wrong access key', async () => {
    const res = await get(server, '/teams', '', { as: { ...admin, accessKey: 'wrong' } });
    await expectError(res, 401, ['signature']);
  });
  test('unknown authId', async () => {
    const res = await get(server, '/teams', '', { as: { ...admin, authId: 'NOSUCHID' } });
    await expectError(res, 401);
  });
  test('signature of another query string', async () => {
    const res = await get(server, '/teams', 'type=user', { signed: 'type=admin' });
    await expectError(res, 401);
  });
  test('signature over sorted parameters when the request has another order', async () => {
    const res = await get(server, '/teams/tags', 'start=2024-01-01&end=2024-02-01', {
      signed: 'end=2024-02-01&start=2024-01-01',
    });
    await expectError(res, 401);
  });
  test('a header that was valid for one query string is refused for another', async () => {
    const header = authorizationHeader(admin.authId, admin.accessKey, 'type=user');
    const send = (query: string) =>
      server.fetch(new Request(`${BASE}/teams?${query}`, { headers: { Authorization: header } }));
    expect((await send('type=user')).status).toBe(200);
    expect((await send('type=user')).status).toBe(200);
    await expectError(await send('type=admin'), 401);
  });
  test('header name is case-insensitive', async () => {
    const res = await server.fetch(
      new Request(`${BASE}/teams`, {
        headers: { authorization: authorizationHeader(admin.authId, admin.accessKey, '') },
      }),
    );
    expect(res.status).toBe(200);
  });
});

describe('routing, methods and the order of checks', () => {
  test.each(['/nope', '/teams/', '/teams/member', '/stats/extra', '/', '/opens/tag'])(
    'unknown path %s: 404',
    async (path) => {
      await expectError(await get(server, path), 404, ['unknown path']);
    },
  );
  test.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
    '%s on an endpoint: 405 with Allow: GET, HEAD',
    async (method) => {
      const res = await get(server, '/teams/tags', '', { method });
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      await expectError(res, 405);
    },
  );
  test('unknown path comes before method, method before auth', async () => {
    await expectError(await get(server, '/nope', '', { as: null, method: 'POST' }), 404);
    await expectError(await get(server, '/teams', '', { as: null, method: 'POST' }), 405);
    await expectError(
      await get(server, '/teams', 'type=bogus', {
        as: { ...admin, accessKey: 'x' },
        method: 'PUT',
      }),
      405,
    );
  });
  test('auth comes before the rate limit, the rate limit before parameters', async () => {
    const limited = createServer({ rateLimit: { limit: 1, windowMs: 60_000 } });
    expect((await get(limited, '/teams')).status).toBe(200);
    await expectError(await get(limited, '/teams', '', { as: null }), 401);
    await expectError(await get(limited, '/teams', 'type=bogus'), 429);
  });
  test('auth comes before parameter validation', async () => {
    await expectError(await get(server, '/teams', 'type=bogus', { as: null }), 401);
    await expectError(
      await get(server, '/teams', 'type=bogus', { as: { ...admin, accessKey: 'x' } }),
      401,
    );
  });
  test('parameters come before the scope check', async () => {
    await expectError(await get(server, '/teams/member/unknown', 'type=user'), 400, ['type']);
    await expectError(await get(server, '/teams/member/unknown'), 404);
  });
  test('unknown ids: 404', async () => {
    for (const path of [
      '/teams/member/000000000000000000000000',
      '/teams/member/000000000000000000000000/tags',
      '/teams/group/No%20Such%20Group',
      '/teams/stats/group/nope',
      '/teams/stats/member/nope',
      '/clicks/tag/nope',
      '/opens/tag/nope',
      '/contacts/nope',
      '/contacts/tag/nope',
    ]) {
      await expectError(await get(server, path), 404);
    }
    await expectError(await get(server, '/tags/daily/nope', 'date=2024-01-01'), 404);
  });
});
