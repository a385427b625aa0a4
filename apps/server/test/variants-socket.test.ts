import { gunzipSync, inflateSync } from 'node:zlib';
import { authorizationHeader } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { createServer, REASON_PHRASE_VARIANT, VARIANTS, type VariantName } from '../src/index.ts';
import { credential, get, rawRequest } from './helpers.ts';

/**
 * The transport variants (spec §8 Revision 2: content coding, chunking, keep-alive and
 * the reason phrase are free) over a real socket, where they are observable; variants.test.ts
 * shows that they change nothing in memory.
 */

const PUBLIC = 'http://public.example';
const PAGE = 40;
const adminCred = credential(1, 'admin');
const plain = createServer({ publicUrl: PUBLIC, pageSize: PAGE });

describe('transport variants over a socket', () => {
  const auth = (qs: string) => authorizationHeader(adminCred.authId, adminCred.accessKey, qs);

  /** Starts a server with `variants`, runs `fn` against its URL, and closes it. */
  async function withSocket(
    variants: VariantName[],
    fn: (base: string) => Promise<void>,
  ): Promise<void> {
    const s = createServer({ publicUrl: PUBLIC, pageSize: PAGE, variants });
    const base = await s.listen(0, '127.0.0.1');
    try {
      await fn(base);
    } finally {
      await s.close();
    }
  }

  const plainTeams = async () => await (await get(plain, '/teams')).text();

  test('gzip: compressed only when Accept-Encoding asks; fetch decodes it', async () => {
    await withSocket(['gzip'], async (base) => {
      const asked = await rawRequest(base, '/teams', {
        headers: { authorization: auth(''), 'accept-encoding': 'gzip, deflate' },
      });
      expect(asked.headers['content-encoding']).toBe('gzip');
      expect(asked.headers.vary).toBe('Accept-Encoding');
      expect(gunzipSync(asked.body).toString('utf8')).toBe(await plainTeams());
      for (const ae of [undefined, 'identity', 'gzip;q=0, deflate', 'br']) {
        const res = await rawRequest(base, '/teams', {
          headers: { authorization: auth(''), ...(ae ? { 'accept-encoding': ae } : {}) },
        });
        expect(res.headers['content-encoding'], String(ae)).toBeUndefined();
        expect(res.body.toString('utf8')).toBe(await plainTeams());
      }
      const res = await fetch(`${base}/teams`, { headers: { Authorization: auth('') } });
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(await res.text()).toBe(await plainTeams());
    });
  });

  test('deflate: zlib-wrapped deflate when asked; gzip preferred when both variants are on', async () => {
    await withSocket(['deflate'], async (base) => {
      const res = await rawRequest(base, '/teams', {
        headers: { authorization: auth(''), 'accept-encoding': 'deflate' },
      });
      expect(res.headers['content-encoding']).toBe('deflate');
      expect(inflateSync(res.body).toString('utf8')).toBe(await plainTeams());
      const fetched = await fetch(`${base}/teams`, { headers: { Authorization: auth('') } });
      expect(fetched.headers.get('content-encoding')).toBe('deflate');
      expect(await fetched.text()).toBe(await plainTeams());
    });
    await withSocket(['gzip', 'deflate'], async (base) => {
      const both = await rawRequest(base, '/teams', {
        headers: { authorization: auth(''), 'accept-encoding': 'deflate, gzip' },
      });
      expect(both.headers['content-encoding']).toBe('gzip');
      const deflateOnly = await rawRequest(base, '/teams', {
        headers: { authorization: auth(''), 'accept-encoding': 'deflate' },
      });
      expect(deflateOnly.headers['content-encoding']).toBe('deflate');
    });
  });

  test('chunked: Transfer-Encoding chunked and no Content-Length; HEAD and 204 stay empty', async () => {
    await withSocket(['chunked'], async (base) => {
      const res = await rawRequest(base, '/teams/tags', { headers: { authorization: auth('') } });
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.body.toString('utf8')).toBe(await (await get(plain, '/teams/tags')).text());
      const past = await rawRequest(base, '/contacts?cursor=99999', {
        headers: { authorization: auth('cursor=99999') },
      });
      expect(past.status).toBe(204);
      expect(past.headers['transfer-encoding']).toBeUndefined();
      const head = await rawRequest(base, '/teams', {
        method: 'HEAD',
        headers: { authorization: auth('') },
      });
      expect(head.status).toBe(200);
      expect(head.body.byteLength).toBe(0);
      expect(head.headers['x-total-count']).toBeDefined();
    });
  });

  test('connection-close: Connection: close, and successive requests still work', async () => {
    await withSocket(['connection-close'], async (base) => {
      const res = await rawRequest(base, '/teams', { headers: { authorization: auth('') } });
      expect(res.headers.connection).toBe('close');
      for (let i = 0; i < 3; i++) {
        const f = await fetch(`${base}/teams`, { headers: { Authorization: auth('') } });
        expect(f.status).toBe(200);
        expect(await f.text()).toBe(await plainTeams());
      }
    });
  });

  test('reason-phrase: a non-standard status text on every status line', async () => {
    await withSocket(['reason-phrase'], async (base) => {
      const cases: [string, string, number, string][] = [
        ['/teams', auth(''), 200, REASON_PHRASE_VARIANT[200]!],
        ['/contacts?cursor=99999', auth('cursor=99999'), 204, REASON_PHRASE_VARIANT[204]!],
        ['/teams?type=x', auth('type=x'), 400, REASON_PHRASE_VARIANT[400]!],
        ['/teams', 'bad', 401, REASON_PHRASE_VARIANT[401]!],
        ['/nope', auth(''), 404, REASON_PHRASE_VARIANT[404]!],
      ];
      for (const [target, authorization, status, phrase] of cases) {
        const res = await rawRequest(base, target, { headers: { authorization } });
        expect(res.status).toBe(status);
        expect(res.statusMessage).toBe(phrase);
      }
      const f = await fetch(`${base}/teams`, { headers: { Authorization: auth('') } });
      expect(f.statusText).toBe('Here You Go');
      // the error body keeps the HTTP reason phrase of spec §6
      const err = await fetch(`${base}/nope`);
      expect(((await err.json()) as { error: string }).error).toBe('Not Found');
    });
  });

  test('every transport variant at once: fetch still reads the same answers', async () => {
    const transport = VARIANTS.filter((v) => v.layer === 'transport').map((v) => v.name);
    await withSocket(transport, async (base) => {
      for (const [path, qs] of [
        ['/teams', ''],
        ['/teams/tags', 'rtn=html'],
        ['/contacts', 'rtn=text&cursor=3'],
      ] as const) {
        const f = await fetch(`${base}${path}${qs === '' ? '' : `?${qs}`}`, {
          headers: { Authorization: auth(qs) },
        });
        expect(f.status).toBe(200);
        expect(await f.text()).toBe(await (await get(plain, path, qs)).text());
      }
    });
  });
});
