import { createHmac } from 'node:crypto';
import {
  ENDPOINT_LIST,
  type Endpoint,
  parseAuthorization,
  SIGNING_VECTORS,
  verifySignature,
} from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import {
  AbortError,
  ApiError,
  InvalidArgumentError,
  NetworkError,
  ResponseValidationError,
  TimeoutError,
} from '../src/errors.ts';
import { createClient, retryDelayMs } from '../src/index.ts';
import { contacts, FakeClock, fakeFetch, json, listHandler, never } from './fakes.ts';

const BASE = 'http://127.0.0.1:9';
const CREDS = { authId: 'auth-1', accessKey: 'key with spaces & symbols' };

const MEMBER = {
  memberID: 'm1',
  firstname: 'Ada',
  lastname: 'Lovelace',
  email: 'ada@example.com',
  accountType: 'admin',
};
const COUNTERS = {
  totalOpens: 2,
  uniqueOpens: 1,
  totalClicks: 0,
  uniqueClicks: 0,
  desktopOpens: 1,
  mobileOpens: 1,
  desktopClicks: 0,
  mobileClicks: 0,
};
const CONTACT = {
  contactID: 'c1',
  name: 'Bob',
  email: 'bob@example.com',
  dateLastSent: '2024-01-02T03:04:05Z',
  stats: { ...COUNTERS, totalSent: 1 },
};
const TAG = {
  tagID: 't1',
  subject: 'Hello',
  dateSent: '2024-01-02T03:04:05Z',
  recipients: [{ name: 'Bob', email: 'bob@example.com' }],
  stats: COUNTERS,
};

function paging(cursor: number, count: number, total: number) {
  return {
    cursors: {
      previous: Math.max(cursor - count, 0),
      next: Math.min(cursor + count, total),
      total,
    },
    previousURL: null,
    nextURL: null,
  };
}

/** A valid JSON answer for any endpoint: an empty list page or a sample record. */
function validAnswer(e: Endpoint): unknown {
  if (e.response === 'list') return { data: [], paging: paging(0, 0, 0) };
  if (e.id === 'tags.daily') return { data: { opens: 1, clicks: 0 } };
  if (e.id === 'contacts.get') return { data: CONTACT };
  return { data: MEMBER };
}

function methodOf(client: unknown, e: Endpoint): (...args: unknown[]) => Promise<unknown> {
  const [resource, action] = e.id.split('.') as [string, string];
  return (client as Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>)[
    resource
  ]![action]!;
}

describe('methods and requests', () => {
  test('every catalogue endpoint has a method named after its id, requesting its path with GET', async () => {
    for (const e of ENDPOINT_LIST) {
      const f = fakeFetch(() => json(validAnswer(e)));
      const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
      const ids = e.pathParams.map((p) => `${p}-x`);
      const query = e.requiredQuery.includes('date') ? { date: '2024-01-05' } : undefined;
      const result = await methodOf(client, e)(...ids, query);
      expect(result).toEqual(validAnswer(e));
      expect(f.requests).toHaveLength(1);
      const expectedPath = e.path.replace(/\{(\w+)\}/g, (_, name: string) => `${name}-x`);
      expect(f.requests[0]!.url.pathname).toBe(expectedPath);
      expect(f.requests[0]!.method).toBe('GET');
    }
  });

  test('path parameters are percent-encoded and the base URL path prefix is kept', async () => {
    const f = fakeFetch(() => json({ data: [], paging: paging(0, 0, 0) }));
    const client = createClient({ baseUrl: 'http://localhost:9/api/v1/', ...CREDS, fetch: f });
    await client.stats.group('Sales East/2');
    await client.teams.memberTags('m1');
    expect(f.requests.map((r) => r.url.href)).toEqual([
      'http://localhost:9/api/v1/teams/stats/group/Sales%20East%2F2',
      'http://localhost:9/api/v1/teams/member/m1/tags',
    ]);
  });

  test('query parameters go out in the documented catalogue order, whatever the object order', async () => {
    const f = fakeFetch(() => new Response('x'));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    await client.teams.tags(
      { isOpened: true, cursor: 7, end: '2024-01-31', isUnclicked: false, start: '2024-01-01' },
      { rtn: 'text' },
    );
    await client.stats.team(
      { type: 'user', aggregateData: true, start: '2024-02-01' },
      { rtn: 'html' },
    );
    expect(f.requests.map((r) => r.url.search)).toEqual([
      '?start=2024-01-01&end=2024-01-31&isUnclicked=false&isOpened=true&rtn=text&cursor=7',
      '?start=2024-02-01&aggregateData=true&type=user&rtn=html',
    ]);
  });

  test('a parameter the endpoint does not take is refused before any request, naming the allowed ones', async () => {
    const f = fakeFetch(() => json({}));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    const call = () => client.teams.list({ isOpen: true } as never);
    await expect(call()).rejects.toThrow(InvalidArgumentError);
    await expect(call()).rejects.toThrow(/'isOpen'; allowed: type, cursor/);
    await expect(
      (client.tags.daily as unknown as (id: string) => Promise<unknown>)('t1'),
    ).rejects.toThrow(/requires.*'date'/);
    await expect(client.teams.member('')).rejects.toThrow(/memberID/);
    expect(f.requests).toHaveLength(0);
  });

  test('rtn text and html return the body as a string', async () => {
    const f = fakeFetch((r) =>
      r.url.searchParams.get('rtn') === 'html'
        ? new Response('<!doctype html><table></table>', {
            headers: { 'content-type': 'text/html' },
          })
        : new Response('memberID\tfirstname\nm1\tAda\n'),
    );
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    expect(await client.teams.list({ type: 'admin' }, { rtn: 'text' })).toBe(
      'memberID\tfirstname\nm1\tAda\n',
    );
    expect(await client.contacts.get('c1', {}, { rtn: 'html' })).toBe(
      '<!doctype html><table></table>',
    );
    expect(f.requests[0]!.url.search).toBe('?type=admin&rtn=text');
  });

  test('raw sends a signed request with the pairs in the given order and never throws on status', async () => {
    const f = fakeFetch(() => json({ statusCode: 404, error: 'Not Found', message: 'nope' }, 404));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    const res = await client.raw('/nowhere', [
      ['z', '1'],
      ['a', 'b c'],
    ]);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body).message).toBe('nope');
    expect(f.requests[0]!.url.search).toBe('?z=1&a=b%20c');
    const { signature } = parseAuthorization(f.requests[0]!.authorization);
    expect(verifySignature('z=1&a=b%20c', CREDS.accessKey, signature)).toBe(true);
  });
});

describe('common parameters cursor, total, next (spec §5 Revision 2)', () => {
  test('every catalogue parameter of every endpoint (besides rtn, a call option) is accepted and sent in catalogue order', async () => {
    const VALUES: Record<string, string | number | boolean> = {
      start: '2024-01-01',
      end: '2024-01-31',
      date: '2024-01-05',
      isClicked: true,
      isUnclicked: false,
      isOpened: true,
      isUnopened: false,
      aggregateData: true,
      type: 'user',
      cursor: 3,
      total: 9,
      next: 'x',
    };
    for (const e of ENDPOINT_LIST) {
      const f = fakeFetch(() => new Response('x'));
      const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
      const names = e.query.filter((q) => q !== 'rtn');
      expect(names.slice(-3), e.id).toEqual(['cursor', 'total', 'next']);
      const query = Object.fromEntries(names.map((q) => [q, VALUES[q]]).reverse());
      await methodOf(client, e)(...e.pathParams.map((p) => `${p}-x`), query, { rtn: 'text' });
      const sent = [...f.requests[0]!.url.searchParams.keys()];
      expect(sent, e.id).toEqual([...names.slice(0, -3), 'rtn', 'cursor', 'total', 'next']);
    }
  });

  test('total and next are sent as given (strings, numbers, empty) and signed', async () => {
    const f = fakeFetch(() => json({ data: [], paging: paging(0, 0, 0) }));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    await client.contacts.list({ cursor: 0, total: 0, next: 0 });
    await client.teams.tags({ isOpened: true, total: 'a b+c&', next: '' });
    await client.teams.member('m1', { next: 250 }).catch(() => undefined);
    expect(f.requests.map((r) => r.url.search)).toEqual([
      '?cursor=0&total=0&next=0',
      '?isOpened=true&total=a%20b%2Bc%26&next=',
      '?next=250',
    ]);
    for (const req of f.requests) {
      const { signature } = parseAuthorization(req.authorization);
      expect(verifySignature(req.url.search.slice(1), CREDS.accessKey, signature)).toBe(true);
    }
  });

  test('.all() sends total and next as given on every page, cursor advancing', async () => {
    const records = contacts(5);
    const f = fakeFetch(listHandler(records, 2, 'no-content'));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    const got = [];
    for await (const c of client.contacts.list.all({ total: 5, next: 0 })) got.push(c);
    expect(got).toEqual(records);
    expect(f.requests.map((r) => r.url.search)).toEqual([
      '?total=5&next=0',
      '?cursor=2&total=5&next=0',
      '?cursor=4&total=5&next=0',
    ]);
  });
});

describe('signing (spec §3)', () => {
  test('Authorization is base64(authId:hex HMAC-SHA1 of the query string as sent), checked with node:crypto', async () => {
    const f = fakeFetch(() => json({ data: [], paging: paging(0, 0, 0) }));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    await client.teams.tags({ start: '2024-01-01', isOpened: true, cursor: 250 });
    await client.contacts.list();
    for (const req of f.requests) {
      const qs = req.url.search.replace(/^\?/, '');
      const hex = createHmac('sha1', CREDS.accessKey).update(qs).digest('hex');
      expect(req.authorization).toBe(
        Buffer.from(`${CREDS.authId}:${hex}`, 'utf8').toString('base64'),
      );
      expect(req.authorization).not.toMatch(/^Basic /);
    }
    // no query string signs the empty string
    expect(f.requests[1]!.url.search).toBe('');
  });
});

describe('the client signs exactly the query string it sends (spec §3)', () => {
  test.each([
    ['quote and parentheses', "it's (a) b!*~"],
    ['space, plus, ampersand, equals, hash', 'a b+c&d=e#f'],
    ['non-ASCII and percent', 'café 100%'],
    ['brackets, pipe, backtick', '[x]|`y`{z}^'],
  ])('%s: the signature is HMAC-SHA1 of the query as received', async (_, value) => {
    const f = fakeFetch(() => json({ data: [], paging: paging(0, 0, 0) }));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    await client.teams.tags({ isOpened: true, total: value });
    await client.raw('/contacts', [['next', value]]);
    for (const req of f.requests) {
      // what a server receives: the URL as fetch serialises it
      const received = req.url.search.slice(1);
      const hex = createHmac('sha1', CREDS.accessKey).update(received).digest('hex');
      expect(req.authorization).toBe(
        Buffer.from(`${CREDS.authId}:${hex}`, 'utf8').toString('base64'),
      );
      expect(
        new URLSearchParams(received).get(req.url.pathname === '/contacts' ? 'next' : 'total'),
      ).toBe(value);
    }
  });
});

describe('signing interop with core SIGNING_VECTORS (computed with openssl)', () => {
  // The client signs what it sends (Node/Python style): the vectors whose signed string is the
  // query as sent and whose encoding is encodeURIComponent's.
  const asSent = SIGNING_VECTORS.filter((v) => v.signed === v.query && !v.query.includes('+'));

  test('there are vectors the client style covers', () => {
    expect(asSent.length).toBeGreaterThanOrEqual(4);
  });

  test.each(asSent.map((v) => [v.name, v] as const))('%s', async (_, v) => {
    const pairs =
      v.query === ''
        ? []
        : v.query.split('&').map((kv) => {
            const i = kv.indexOf('=');
            return [
              decodeURIComponent(kv.slice(0, i)),
              decodeURIComponent(kv.slice(i + 1)),
            ] as const;
          });
    const f = fakeFetch(() => json({}));
    const client = createClient({
      baseUrl: BASE,
      authId: v.authId,
      accessKey: v.accessKey,
      fetch: f,
    });
    await client.raw('/stats', pairs);
    expect(f.requests[0]!.url.search.replace(/^\?/, '')).toBe(v.query);
    expect(f.requests[0]!.authorization).toBe(v.authorization);
  });
});

describe('errors', () => {
  test('a JSON error body becomes an ApiError with statusCode, error, message, url and method', async () => {
    const f = fakeFetch(() =>
      json({ statusCode: 404, error: 'Not Found', message: "no member 'zz'" }, 404),
    );
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    const err = await client.teams.member('zz').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      code: 'api_error',
      statusCode: 404,
      error: 'Not Found',
      message: "no member 'zz'",
      url: `${BASE}/teams/member/zz`,
      method: 'GET',
    });
  });

  test('a non-JSON error body still gives an ApiError with the status and the body text', async () => {
    const f = fakeFetch(() => new Response('unknown parameter isOpen\n', { status: 400 }));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    const err = await client.teams.list().catch((e: unknown) => e);
    expect(err).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: 'unknown parameter isOpen',
    });
  });

  test('a response of the wrong shape is a ResponseValidationError naming the field path', async () => {
    const bad = { ...TAG, stats: { ...COUNTERS, uniqueOpens: -1 } };
    const f = fakeFetch(() => json({ data: [TAG, bad], paging: paging(0, 2, 2) }));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    const err = await client.teams.tags().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as ResponseValidationError).path).toBe('data[1].stats.uniqueOpens');
    expect((err as Error).message).toContain('data[1].stats.uniqueOpens');

    const lax = createClient({ baseUrl: BASE, ...CREDS, fetch: f, validate: false });
    expect((await lax.teams.tags()).data[1]).toEqual(bad);
  });

  test('a missing envelope and a body that is not JSON are validation errors too', async () => {
    const f = fakeFetch((_, i) => (i === 0 ? json([MEMBER]) : new Response('<html>')));
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f });
    const first = await client.teams.list().catch((e: unknown) => e);
    expect(first).toMatchObject({ code: 'response_validation', path: '' });
    const second = await client.teams.list().catch((e: unknown) => e);
    expect(second).toMatchObject({ code: 'response_validation', path: '' });
    expect((second as Error).message).toMatch(/not JSON/);
  });

  test('no answer within timeoutMs is a TimeoutError, not an AbortError', async () => {
    const f = fakeFetch(() => never());
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f, timeoutMs: 30 });
    const err = await client.contacts.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ timeoutMs: 30, method: 'GET' });
    expect(f.requests).toHaveLength(1); // timeouts are not retried
  });

  test("the caller's AbortSignal gives an AbortError, before or during the request", async () => {
    const f = fakeFetch(() => never());
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f, timeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = client.teams.list({}, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user gave up')), 5);
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(err).not.toBeInstanceOf(TimeoutError);
    expect((err as AbortError).reason).toEqual(new Error('user gave up'));

    const before = await client.teams
      .list({}, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(before).toBeInstanceOf(AbortError);
    expect(f.requests).toHaveLength(1);
  });

  test('network errors on GET are retried with doubling backoff, then a NetworkError', async () => {
    const clock = new FakeClock();
    const f = fakeFetch(() => {
      throw new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') });
    }, clock);
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f, clock });
    const err = await client.teams.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ attempts: 3 });
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(f.requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([250, 500]);
  });

  test('a network error followed by an answer returns the answer', async () => {
    const clock = new FakeClock();
    const f = fakeFetch((_, i) => {
      if (i === 0) throw new TypeError('fetch failed');
      return json({ data: MEMBER });
    }, clock);
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f, clock });
    expect(await client.teams.member('m1')).toEqual({ data: MEMBER });
  });
});

describe('rate limit (spec §7)', () => {
  test('a 429 waits per Retry-After and retries', async () => {
    const clock = new FakeClock();
    const f = fakeFetch(
      (_, i) =>
        i === 0
          ? json({ statusCode: 429, error: 'Too Many Requests', message: 'slow down' }, 429, {
              'retry-after': '2',
            })
          : json({ data: MEMBER }),
      clock,
    );
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f, clock });
    expect(await client.teams.member('m1')).toEqual({ data: MEMBER });
    expect(f.requests[1]!.at - f.requests[0]!.at).toBe(2000);
  });

  test('without Retry-After a 429 waits until X-Rate-Limit-Reset (epoch seconds)', async () => {
    const clock = new FakeClock();
    const resetAt = Math.ceil(clock.now() / 1000) + 3;
    const f = fakeFetch(
      (_, i) =>
        i === 0
          ? json({ statusCode: 429, error: 'Too Many Requests', message: 'x' }, 429, {
              'x-rate-limit-reset': String(resetAt),
            })
          : json({ data: MEMBER }),
      clock,
    );
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f, clock });
    await client.teams.member('m1');
    expect(f.requests[1]!.at).toBe(resetAt * 1000);
  });

  test('429 retries are bounded: the last 429 is thrown as an ApiError', async () => {
    const clock = new FakeClock();
    const f = fakeFetch(
      () =>
        json({ statusCode: 429, error: 'Too Many Requests', message: 'slow down' }, 429, {
          'retry-after': '1',
        }),
      clock,
    );
    const client = createClient({
      baseUrl: BASE,
      ...CREDS,
      fetch: f,
      clock,
      retries: { rateLimited: 2 },
    });
    const err = await client.teams.list().catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 429, message: 'slow down' });
    expect(f.requests).toHaveLength(3);
  });

  test('retryDelayMs reads Retry-After seconds, an HTTP date, X-Rate-Limit-Reset, else the fallback', () => {
    const now = Date.now();
    expect(retryDelayMs(new Headers({ 'retry-after': '3' }), 0, 99)).toBe(3000);
    const date = new Date(now + 10_000).toUTCString();
    const fromDate = retryDelayMs(new Headers({ 'retry-after': date }), 0, 99);
    expect(fromDate).toBeGreaterThan(8000);
    expect(fromDate).toBeLessThanOrEqual(10_000);
    expect(retryDelayMs(new Headers({ 'x-rate-limit-reset': '105' }), 100_000, 99)).toBe(5000);
    expect(retryDelayMs(new Headers({ 'x-rate-limit-reset': '50' }), 100_000, 99)).toBe(0);
    expect(retryDelayMs(new Headers(), 0, 99)).toBe(99);
  });

  test('a paced client keeps the configured rate: consecutive requests 1000/rate ms apart', async () => {
    const clock = new FakeClock();
    const f = fakeFetch(() => json({ data: MEMBER }), clock);
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f, clock, rateLimit: 4 });
    for (let i = 0; i < 6; i++) await client.teams.member('m1');
    const gaps = f.requests.slice(1).map((r, i) => r.at - f.requests[i]!.at);
    expect(gaps).toEqual([250, 250, 250, 250, 250]);
  });

  test('pacing does not wait when the caller is already slower than the rate', async () => {
    const clock = new FakeClock();
    const f = fakeFetch(() => json({ data: MEMBER }), clock);
    const client = createClient({ baseUrl: BASE, ...CREDS, fetch: f, clock, rateLimit: 1 });
    await client.teams.member('m1');
    clock.time += 5000;
    await client.teams.member('m1');
    expect(clock.sleeps).toEqual([]);
  });

  test('default pacing is 1 request/s for a remote host and none for loopback hosts', () => {
    const rate = (baseUrl: string) => createClient({ baseUrl, ...CREDS }).rateLimit;
    expect(rate('https://api.example.com')).toBe(1);
    expect(rate('http://localhost:8080')).toBe(0);
    expect(rate('http://127.0.0.1:8080')).toBe(0);
    expect(rate('http://[::1]:8080')).toBe(0);
    expect(createClient({ baseUrl: 'https://x.example', ...CREDS, rateLimit: 5 }).rateLimit).toBe(
      5,
    );
  });

  test('a bad base URL or missing credentials fail at createClient', () => {
    expect(() => createClient({ baseUrl: 'not a url', ...CREDS })).toThrow(/baseUrl/);
    expect(() => createClient({ baseUrl: 'ftp://x', ...CREDS })).toThrow(/http/);
    expect(() => createClient({ baseUrl: BASE, authId: '', accessKey: 'k' })).toThrow(/authId/);
  });
});
