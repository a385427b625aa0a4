import { request as httpRequest } from 'node:http';
import {
  authorizationHeader,
  BAD_CREDENTIALS_MESSAGE,
  SIGNING_VECTORS,
  signQuery,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer } from '../src/index.ts';
import { BASE, credential, get, getJson } from './helpers.ts';

const server = createServer();
const admin = credential(1, 'admin');

describe('signing variants (spec §3)', () => {
  const decoded = 'total=a b:c/d&start=2024-01-01';
  const encoded = 'total=a%20b%3Ac%2Fd&start=2024-01-01';

  test('a signature over the query string as sent (Node, Python) is accepted', async () => {
    const res = await get(server, '/teams/tags', encoded);
    expect(res.status).toBe(200);
  });

  test('a signature over the percent-decoded query string (PHP) is accepted', async () => {
    const res = await get(server, '/teams/tags', encoded, { signed: decoded });
    expect(res.status).toBe(200);
  });

  test('PHP form encoding: + for a space, signed decoded', async () => {
    const res = await get(server, '/teams/tags', 'total=a+b', { signed: 'total=a b' });
    expect(res.status).toBe(200);
  });

  test('no query string signs the empty string', async () => {
    expect((await get(server, '/contacts', '', { signed: '' })).status).toBe(200);
    expect((await get(server, '/contacts', '', { signed: 'cursor=0' })).status).toBe(401);
  });

  test("PHP's 1 and Python's True mean true, like true", async () => {
    const a = await getJson<{ data: unknown }>(server, '/teams/tags', 'isOpened=true');
    const b = await getJson<{ data: unknown }>(server, '/teams/tags', 'isOpened=1');
    const c = await getJson<{ data: unknown }>(server, '/teams/tags', 'isOpened=True');
    const all = await getJson<{ data: unknown[] }>(server, '/stats', 'aggregateData=TRUE');
    expect(b.res.status).toBe(200);
    expect(c.res.status).toBe(200);
    expect(b.body.data).toEqual(a.body.data);
    expect(c.body.data).toEqual(a.body.data);
    expect(all.body.data).toHaveLength(1);
    const f = await getJson<{ data: unknown[] }>(server, '/teams/tags', 'isOpened=False');
    const none = await getJson<{ data: unknown[] }>(server, '/teams/tags', '');
    expect(f.body.data).toEqual(none.body.data);
  });

  test.each(SIGNING_VECTORS.map((v) => [v.name, v] as const))(
    'core signing vector "%s": its Authorization header is accepted for its query string',
    async (_name, v) => {
      // the vector's credential, given to the team 1 admin
      const dataset = {
        ...canonicalDataset,
        credentials: [
          ...canonicalDataset.credentials,
          { authId: v.authId, accessKey: v.accessKey, memberID: admin.memberID },
        ],
      };
      const vs = createServer({ dataset });
      const path = v.query.includes('type=') ? '/stats' : '/teams/tags';
      const send = (authorization: string) =>
        vs.fetch(
          new Request(`${BASE}${path}${v.query === '' ? '' : `?${v.query}`}`, {
            headers: { Authorization: authorization },
          }),
        );
      // 200, or 204 when the vector's cursor is past the end (spec §5 Revision 2)
      expect([200, 204]).toContain((await send(v.authorization)).status);
      const other = authorizationHeader(v.authId, `${v.accessKey}x`, v.signed);
      expect((await send(other)).status).toBe(401);
    },
  );
});

describe('authentication, Revision 2 (spec §3)', () => {
  const send = (authorization: string, query = '') =>
    server.fetch(
      new Request(`${BASE}/teams${query === '' ? '' : `?${query}`}`, {
        headers: { Authorization: authorization },
      }),
    );

  test('an unknown authId and a wrong signature answer the identical 401 body', async () => {
    const unknown = await get(server, '/teams', 'type=user', {
      as: { ...admin, authId: 'no-such-auth-id' },
    });
    const wrong = await get(server, '/teams', 'type=user', { as: { ...admin, accessKey: 'x' } });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    const a = await unknown.text();
    expect(a).toBe(await wrong.text());
    expect(JSON.parse(a)).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: BAD_CREDENTIALS_MESSAGE,
    });
  });

  test('the hex signature is accepted in uppercase', async () => {
    const upper = btoa(`${admin.authId}:${signQuery('type=user', admin.accessKey).toUpperCase()}`);
    expect((await send(upper, 'type=user')).status).toBe(200);
  });

  test('whitespace around the header value is ignored', async () => {
    const header = authorizationHeader(admin.authId, admin.accessKey, '');
    expect((await send(`  ${header}\t`)).status).toBe(200);
  });

  test('base64 without its padding is malformed: 401', async () => {
    const header = authorizationHeader(admin.authId, admin.accessKey, '').replace(/=+$/, '');
    if (header.length % 4 !== 0) expect((await send(header)).status).toBe(401);
  });

  test('cursor, total, rtn and next are signed: leaving one out of the signature is 401', async () => {
    for (const [query, signed] of [
      ['cursor=1&type=user', 'type=user'],
      ['total=5&type=user', 'type=user'],
      ['rtn=json&type=user', 'type=user'],
      ['next=7&type=user', 'type=user'],
      ['type=user&next=', 'type=user'],
    ] as const) {
      const res = await get(server, '/teams', query, { signed });
      expect(res.status, query).toBe(401);
      expect((await get(server, '/teams', query)).status, query).not.toBe(401);
    }
  });

  test('PHP urldecode form: + and %20 both read as a space in the decoded form', async () => {
    const sent = 'total=a+b%20c&type=user';
    expect((await get(server, '/teams', sent, { signed: 'total=a b c&type=user' })).status).toBe(
      200,
    );
    expect((await get(server, '/teams', sent, { signed: 'total=a+b c&type=user' })).status).toBe(
      401,
    );
  });
});

describe('over a real socket on 127.0.0.1', () => {
  let base = '';
  beforeAll(async () => {
    base = await server.listen(0, '127.0.0.1');
  });
  afterAll(() => server.close());

  /** Sends a raw request target (not normalised by a URL parser). */
  function raw(target: string, authorization: string, method = 'GET') {
    const url = new URL(base);
    return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        const req = httpRequest(
          { host: url.hostname, port: url.port, path: target, method, headers: { authorization } },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => {
              body += d;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
  }

  test('listen resolves the base URL and fetch works against it', async () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const qs = 'type=admin';
    const res = await fetch(`${base}/teams?${qs}`, {
      headers: { Authorization: authorizationHeader(admin.authId, admin.accessKey, qs) },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { accountType: string }[] };
    expect(body.data.every((m) => m.accountType === 'admin')).toBe(true);
  });

  test("the raw query string is signed exactly as received (e.g. ' left unencoded)", async () => {
    const qs = "total='quoted'&start=2024-01-01";
    const res = await raw(
      `/teams/tags?${qs}`,
      authorizationHeader(admin.authId, admin.accessKey, qs),
    );
    expect(res.status).toBe(200);
  });

  test('a traversal in the raw path is not normalised away: 404', async () => {
    const res = await raw(
      '/teams/../stats',
      authorizationHeader(admin.authId, admin.accessKey, ''),
    );
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  test('HEAD over the socket sends the headers and no body', async () => {
    const res = await raw('/teams', authorizationHeader(admin.authId, admin.accessKey, ''), 'HEAD');
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    expect(res.headers['x-total-count']).toBeDefined();
  });
});
