import { describe, expect, test } from 'vitest';
import { ConnectionError, HttpClient } from '../src/http.ts';

function reset(code: string): Error {
  return Object.assign(new TypeError('fetch failed'), { cause: { code, message: 'socket' } });
}

/** A fetch that fails with `failures` one after another, then answers 200. */
function flaky(failures: Error[]) {
  let calls = 0;
  const fetch = async (_r: Request) => {
    const f = failures[calls++];
    if (f !== undefined) throw f;
    return new Response('{}', { status: 200 });
  };
  return { fetch, calls: () => calls };
}

const client = (fetch: (r: Request) => Promise<Response>) =>
  new HttpClient({ baseUrl: 'http://x.invalid', auth: 'bearer', fetch, timeoutMs: 1000 });
const credential = { label: 'c', authId: 'a', accessKey: 'k' };

describe('HttpClient: keep-alive or not is free (decisions §7 Revision 2)', () => {
  test('a GET whose reused connection was reset is sent again once', async () => {
    const f = flaky([reset('ECONNRESET')]);
    const ex = await client(f.fetch).request({ path: '/teams', credential });
    expect(ex.status).toBe(200);
    expect(f.calls()).toBe(2);
  });

  test('a second reset, a refused connection or a non-GET method is a ConnectionError', async () => {
    const twice = flaky([reset('UND_ERR_SOCKET'), reset('ECONNRESET')]);
    await expect(client(twice.fetch).request({ path: '/teams', credential })).rejects.toThrow(
      ConnectionError,
    );
    const refused = flaky([reset('ECONNREFUSED')]);
    await expect(client(refused.fetch).request({ path: '/teams', credential })).rejects.toThrow(
      /ECONNREFUSED/,
    );
    expect(refused.calls()).toBe(1);
    const post = flaky([reset('ECONNRESET')]);
    await expect(
      client(post.fetch).request({ method: 'POST', path: '/teams', credential }),
    ).rejects.toThrow(ConnectionError);
    expect(post.calls()).toBe(1);
  });
});

describe('HttpClient: rawQuery (probes of the signed forms, decisions §1)', () => {
  test('sends the query verbatim and signs exactly what it sends', async () => {
    const seen: Request[] = [];
    const http = new HttpClient({
      baseUrl: 'http://x.invalid',
      auth: 'hmac-sha1',
      fetch: async (r) => {
        seen.push(r);
        return new Response('{}', { status: 200 });
      },
      timeoutMs: 1000,
    });
    const raw = 'total=a+b%2bc%20d&rtn=json';
    const ex = await http.request({ path: '/teams', rawQuery: raw, credential });
    expect(new URL(seen[0]!.url).search).toBe(`?${raw}`);
    expect(ex.target).toBe(`/teams?${raw}`);
    const { authorizationHeader } = await import('@tagtrack/core');
    expect(seen[0]!.headers.get('authorization')).toBe(authorizationHeader('a', 'k', raw));
  });
});
