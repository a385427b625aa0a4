import { authorizationHeader, signQuery } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { createServer } from '../src/index.ts';
import { BASE, credential, expectError, get } from './helpers.ts';

const server = createServer();
const admin = credential(1, 'admin');

describe('bad query parameters answer 400 naming the parameter (decisions §4, §5)', () => {
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

describe('authentication (decisions §1): 401', () => {
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
