import { describe, expect, test } from 'vitest';
import {
  ConnectionError,
  type Exchange,
  HttpClient,
  type HttpClientOptions,
  KEPT_BODY_CHARS,
} from '../src/http/client.ts';
import { listen } from './helpers.ts';

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

const client = (fetch: (r: Request) => Promise<Response>, retries?: number) =>
  new HttpClient({ baseUrl: 'http://x.invalid', auth: 'bearer', fetch, timeoutMs: 1000, retries });
const credential = { label: 'c', authId: 'a', accessKey: 'k' };

describe('HttpClient: keep-alive or not is free (spec §8 Revision 2)', () => {
  test('a GET whose reused connection was reset is sent again once, even with --retries 0', async () => {
    const f = flaky([reset('ECONNRESET')]);
    const ex = await client(f.fetch, 0).request({ path: '/teams', credential });
    expect(ex.status).toBe(200);
    expect(f.calls()).toBe(2);
    expect(ex.retries?.map((r) => r.cause)).toEqual(['ECONNRESET (socket)']);
  });

  test('with --retries 0, a second reset, a refused connection or a non-GET method is a ConnectionError', async () => {
    const twice = flaky([reset('UND_ERR_SOCKET'), reset('ECONNRESET')]);
    await expect(client(twice.fetch, 0).request({ path: '/teams', credential })).rejects.toThrow(
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

describe('HttpClient: rawQuery (probes of the signed forms, spec §3)', () => {
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

describe('HttpClient: bounded by construction', () => {
  const over = (url: string, options: Partial<HttpClientOptions> = {}) =>
    new HttpClient({ baseUrl: url, auth: 'hmac-sha1', timeoutMs: 500, ...options });

  test('an endless body stops at the cap with a ConnectionError naming it; memory stays flat', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const s = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (res.write(chunk)) {}
      };
      res.on('drain', pump);
      pump();
    });
    try {
      const before = process.memoryUsage().rss;
      const started = performance.now();
      await expect(
        over(s.url, { maxBodyBytes: 4 * 1024 * 1024, timeoutMs: 10_000 }).request({
          path: '/teams',
          credential,
        }),
      ).rejects.toThrow(/response body exceeds the 4 MiB cap \(--max-body-bytes\)/);
      expect(performance.now() - started).toBeLessThan(60_000);
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await s.close();
    }
  });

  test('a Content-Length over the cap is refused before reading', async () => {
    const s = await listen((_req, res) => {
      res.writeHead(200, { 'content-length': String(200 * 1024 * 1024) });
      res.write('{"data":');
    });
    try {
      await expect(over(s.url).request({ path: '/teams', credential })).rejects.toThrow(
        /exceeds the 32 MiB cap/,
      );
    } finally {
      await s.close();
    }
  });

  test('a server that never answers, and one that sends headers then stalls, time out', async () => {
    const silent = await listen(() => {});
    const stall = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
    });
    try {
      for (const url of [silent.url, stall.url]) {
        const started = performance.now();
        await expect(
          over(url, { timeoutMs: 300 }).request({ path: '/teams', credential }),
        ).rejects.toThrow(/request timed out|aborted/);
        expect(performance.now() - started).toBeLessThan(60_000);
      }
    } finally {
      await silent.close();
      await stall.close();
    }
  });

  test('a redirect is never followed: the exchange holds the 3xx', async () => {
    let hits = 0;
    const s = await listen((_req, res) => {
      hits++;
      res.writeHead(302, { location: '/teams' }).end();
    });
    try {
      const ex = await over(s.url).request({ path: '/teams', credential });
      expect(ex.status).toBe(302);
      expect(ex.responseHeaders.location).toBe('/teams');
      expect(hits).toBe(1);
    } finally {
      await s.close();
    }
  });

  test('the exchange resolved holds the whole body; the copy kept for reports a truncated one', async () => {
    const big = JSON.stringify({ data: 'y'.repeat(KEPT_BODY_CHARS * 3) });
    const http = new HttpClient({
      baseUrl: 'http://x.invalid',
      auth: 'hmac-sha1',
      fetch: async () => new Response(big, { status: 200 }),
      timeoutMs: 1000,
    });
    const ex = await http.request({ path: '/teams', credential });
    expect(ex.body).toBe(big);
    expect(ex.bodyBytes).toBe(Buffer.byteLength(big));
    expect(http.exchanges[0]!.body).toBe(big.slice(0, KEPT_BODY_CHARS));
    expect(http.exchanges[0]!.bodyBytes).toBe(Buffer.byteLength(big));
  });

  test('past the budget of kept bodies an exchange is kept as a compact record (no headers, a 60-character body), unless a failure cites it', async () => {
    // eight bodies of 1 MiB fill the budget; the requests after it are kept compact
    const http = new HttpClient({
      baseUrl: 'http://x.invalid',
      auth: 'hmac-sha1',
      fetch: async (r) => {
        const big = new URL(r.url).pathname === '/big';
        return new Response(big ? 'b'.repeat(KEPT_BODY_CHARS) : `{"data":"${'s'.repeat(2000)}"}`, {
          status: 200,
          headers: { 'content-type': 'application/json', 'x-total-count': '3' },
        });
      },
      timeoutMs: 1000,
    });
    for (let i = 0; i < 8 * 64; i++)
      await http.request({ path: '/big', query: [['i', String(i)]], credential, cache: false });
    const later = await http.request({ path: '/teams', credential });
    const cited = await http.request({ path: '/teams/tags', credential });
    const [a, b] = http.exchanges.slice(-2);
    for (const x of [a!, b!]) {
      expect(x.body).toBe(`{"data":"${'s'.repeat(51)}`);
      expect(x.requestHeaders).toEqual({});
      expect(x.responseHeaders).toEqual({ 'content-type': 'application/json' });
      expect([x.method, x.status, x.bodyBytes]).toEqual(['GET', 200, 2011]);
    }
    expect(a!.target).toBe('/teams');
    // the check's log still holds the report's fuller copy while the check runs
    expect(http.forLog(later).body).toHaveLength(1024);
    expect(http.forLog(later).responseHeaders['x-total-count']).toBe('3');
    // a failure cites the second: the report keeps its headers and its first 1,024 characters
    http.keepForReport(cited);
    expect(http.exchanges.at(-1)!.body).toHaveLength(1024);
    expect(http.exchanges.at(-1)!.requestHeaders.authorization).toBe('<credential c>');
    expect(http.exchanges.at(-2)!.body).toHaveLength(60);
  });

  test('a body over 1 MiB is kept (compressed): asked again it is not sent again, the same exchange (id and body) handed out', async () => {
    let calls = 0;
    const http = new HttpClient({
      baseUrl: 'http://x.invalid',
      auth: 'hmac-sha1',
      fetch: async (r) => {
        calls++;
        const big = new URL(r.url).pathname === '/big';
        return new Response(big ? 'z'.repeat(2 * 1024 * 1024) : '{}', { status: 200 });
      },
      timeoutMs: 1000,
    });
    const big: Exchange[] = [];
    for (let i = 0; i < 2; i++) {
      await http.request({ path: '/small', credential });
      big.push(await http.request({ path: '/big', credential }));
    }
    expect(calls).toBe(2);
    expect(http.cacheHits).toBe(2);
    expect(big[1]!.id).toBe(big[0]!.id);
    expect(big[1]!.body).toBe(big[0]!.body);
  });

  test('the kept copy holds no secret a server echoed back (a 401 body quoting the header)', async () => {
    const http = new HttpClient({
      baseUrl: 'http://x.invalid',
      auth: 'hmac-sha1',
      fetch: async (r) =>
        new Response(`{"message":"bad header ${r.headers.get('authorization')}"}`, {
          status: 401,
          headers: { 'x-echo': r.headers.get('authorization')! },
        }),
      timeoutMs: 1000,
      credentials: [credential],
    });
    const ex = await http.request({ path: '/teams', credential });
    const { authorizationHeader } = await import('@tagtrack/core');
    const sent = authorizationHeader('a', 'k', '');
    expect(ex.body).toContain(sent);
    expect(http.exchanges[0]!.body).toBe('{"message":"bad header <credential c>"}');
    expect(http.exchanges[0]!.responseHeaders['x-echo']).toBe('<credential c>');
  });

  test('exchanges name the signing credential; a probe header shows no secret', async () => {
    const http = new HttpClient({
      baseUrl: 'http://x.invalid',
      auth: 'hmac-sha1',
      fetch: async () => new Response('{}', { status: 401 }),
      timeoutMs: 1000,
      credentials: [credential],
    });
    const signed = await http.request({ path: '/teams', credential });
    expect(signed.requestHeaders.authorization).toBe('<credential c>');
    const probeHeader = `Basic ${Buffer.from(`a:${'ab12'.repeat(10)}`).toString('base64')}`;
    const probe = await http.request({
      path: '/teams',
      credential: null,
      headers: { authorization: probeHeader },
    });
    expect(probe.credential).toBeNull();
    expect(probe.requestHeaders.authorization).toBe('Basic <redacted>');
    expect(http.reproduce(signed)).toBe(
      "tagtrack-conformance request GET '/teams' --base-url 'http://x.invalid' --credential 'c'",
    );
    expect(http.reproduce(probe)).toMatch(
      /--no-credential {2}# the check sent its own Authorization header: Basic <redacted>$/,
    );
  });
});
