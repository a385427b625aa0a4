import { describe, expect, test } from 'vitest';
import { createServer, parseRate } from '../src/index.ts';
import { credential, expectError, get } from './helpers.ts';

describe('rate limit per credential (spec §7)', () => {
  function setup(faults: 'rate-limit-no-retry-after'[] = []) {
    let now = Date.UTC(2025, 0, 1, 12, 0, 0, 250);
    const server = createServer({
      rateLimit: { limit: 2, windowMs: 1000 },
      clock: () => now,
      faults,
    });
    return { server, advance: (ms: number) => (now += ms) };
  }

  test('answers 429 with X-Rate-Limit-* and Retry-After once the limit is used up', async () => {
    const { server, advance } = setup();
    const first = await get(server, '/teams');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-rate-limit-limit')).toBe('2');
    expect(first.headers.get('x-rate-limit-remaining')).toBe('1');
    // the clock reads 12:00:00.250; the one-second window ends at 12:00:01
    const resetAt = Date.UTC(2025, 0, 1, 12, 0, 1) / 1000;
    expect(first.headers.get('x-rate-limit-reset')).toBe(String(resetAt));

    const second = await get(server, '/teams');
    expect(second.status).toBe(200);
    expect(second.headers.get('x-rate-limit-remaining')).toBe('0');

    const third = await get(server, '/teams');
    expect(third.headers.get('x-rate-limit-limit')).toBe('2');
    expect(third.headers.get('x-rate-limit-remaining')).toBe('0');
    expect(third.headers.get('x-rate-limit-reset')).toBe(String(resetAt));
    expect(third.headers.get('retry-after')).toBe('1');
    await expectError(third, 429, ['rate limit']);

    // another credential has its own window
    expect((await get(server, '/teams', '', { as: credential(1, 'user') })).status).toBe(200);

    advance(800);
    expect((await get(server, '/teams')).status).toBe(200);
  });

  test('unauthenticated requests are answered 401 and do not use up the limit', async () => {
    const { server } = setup();
    for (let i = 0; i < 5; i++) {
      expect((await get(server, '/teams', '', { as: null })).status).toBe(401);
    }
    expect((await get(server, '/teams')).status).toBe(200);
  });

  test('no X-Rate-Limit headers without a limit', async () => {
    const res = await get(createServer(), '/teams');
    expect(res.headers.get('x-rate-limit-limit')).toBeNull();
  });

  test('parseRate reads N/s and N/m and rejects the rest', () => {
    expect(parseRate('1/s')).toEqual({ limit: 1, windowMs: 1000 });
    expect(parseRate('120/m')).toEqual({ limit: 120, windowMs: 60_000 });
    expect(parseRate('5/min')).toEqual({ limit: 5, windowMs: 60_000 });
    for (const bad of ['', '0/s', '1/h', 'x/s', '1', '-1/s']) {
      expect(() => parseRate(bad), bad).toThrow(/N\/s or N\/m/);
    }
  });
});
