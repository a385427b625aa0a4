import { request as httpRequest } from 'node:http';
import { authorizationHeader, SIGNING_VECTORS } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/core/canonical';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer } from '../src/index.ts';
import { BASE, credential, get, getJson } from './helpers.ts';

const server = createServer();
const admin = credential(1, 'admin');

describe('signing variants (decisions §1)', () => {
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
      expect((await send(v.authorization)).status).toBe(200);
      const other = authorizationHeader(v.authId, `${v.accessKey}x`, v.signed);
      expect((await send(other)).status).toBe(401);
    },
  );
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
