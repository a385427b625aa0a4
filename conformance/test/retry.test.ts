import {
  Agent,
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@tagtrack/core';
import { createServer, type FaultName } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { ConnectionError, HttpClient } from '../src/http/client.ts';
import { RetriesExhausted, withRetries } from '../src/http/retry.ts';
import { formatSummary, toHtml } from '../src/report/index.ts';
import { toResultsJson } from '../src/report/json.ts';
import { toJUnit } from '../src/report/junit.ts';
import { runConformance } from '../src/run/runner.ts';
import { failing, fakeClock, profileFor, team1Admin } from './helpers.ts';

const credential = { label: 'c', authId: 'a', accessKey: 'k' };

/** A fetch answering with `answers` one after another (a status, or an error thrown). */
function scripted(
  answers: readonly (number | Error | 'hang')[],
  headers: Record<string, string> = {},
) {
  let calls = 0;
  const fetch = async (r: Request): Promise<Response> => {
    const a = answers[Math.min(calls++, answers.length - 1)]!;
    if (a === 'hang')
      return new Promise((_, reject) =>
        r.signal.addEventListener('abort', () => reject(r.signal.reason), { once: true }),
      );
    if (a instanceof Error) throw a;
    return new Response(a === 200 ? '{"data":[]}' : `status ${a}`, { status: a, headers });
  };
  return { fetch, calls: () => calls };
}

const reset = () =>
  Object.assign(new TypeError('fetch failed'), {
    cause: { code: 'ECONNRESET', message: 'socket hang up' },
  });

const client = (
  fetch: (r: Request) => Promise<Response>,
  extra: { retries?: number; timeoutMs?: number } = {},
) =>
  new HttpClient({
    baseUrl: 'http://x.invalid',
    auth: 'bearer',
    fetch,
    timeoutMs: extra.timeoutMs ?? 5000,
    retries: extra.retries,
    retryBackoffMs: 1,
  });

describe('withRetries: one composable retry step (spec §8, transport faults)', () => {
  const step = (clock: Clock, retries = 2) => ({
    retries,
    backoffMs: 100,
    clock,
    faultOfAnswer: (a: number) => (a >= 502 && a <= 504 ? { cause: `answered ${a}` } : undefined),
    faultOfError: (e: unknown) =>
      (e as Error).message === 'reset' ? { cause: 'ECONNRESET' } : undefined,
  });

  test('a fault is retried with a doubling backoff; the answer and the failed tries come back', async () => {
    const clock = fakeClock();
    const answers = [503, 504, 200];
    const { answer, retries } = await withRetries(async (i) => answers[i]!, step(clock));
    expect(answer).toBe(200);
    expect(clock.slept).toEqual([100, 200]);
    expect(retries.map((r) => r.cause)).toEqual(['answered 503', 'answered 504']);
  });

  test('a Retry-After is honoured instead of the backoff', async () => {
    const clock = fakeClock();
    const answers = [503, 200];
    await withRetries(async (i) => answers[i]!, {
      ...step(clock),
      faultOfAnswer: (a: number) =>
        a === 503 ? { cause: 'answered 503', retryAfterMs: 7000 } : undefined,
    });
    expect(clock.slept).toEqual([7000]);
  });

  test('a 500 (or any answer that is no fault) is returned as it came: one try', async () => {
    let tries = 0;
    const { answer, retries } = await withRetries(async () => {
      tries++;
      return 500;
    }, step(fakeClock()));
    expect([answer, tries, retries]).toEqual([500, 1, []]);
  });

  test('every try failing throws RetriesExhausted naming each cause; a non-fault error is rethrown at once', async () => {
    const e = await withRetries(async () => {
      throw new Error('reset');
    }, step(fakeClock())).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RetriesExhausted);
    expect((e as RetriesExhausted).tries).toHaveLength(3);
    expect((e as Error).message).toBe('ECONNRESET (each of 3 tries)');
    let tries = 0;
    await expect(
      withRetries(async () => {
        tries++;
        throw new Error('refused');
      }, step(fakeClock())),
    ).rejects.toThrow('refused');
    expect(tries).toBe(1);
  });
});

describe('HttpClient: a GET whose transport failed is retried and the retries recorded', () => {
  test('a 503 then a 200: the exchange holds the 200 and its failed try', async () => {
    const s = scripted([503, 200], { 'retry-after': '0' });
    const ex = await client(s.fetch).request({ path: '/teams', credential });
    expect(ex.status).toBe(200);
    expect(ex.retries?.map((r) => r.cause)).toEqual(['answered 503']);
    expect(s.calls()).toBe(2);
  });

  test('a try that times out is retried; the answer of the next try counts', async () => {
    const s = scripted(['hang', 200]);
    const http = client(s.fetch, { timeoutMs: 50 });
    const ex = await http.request({ path: '/teams', credential });
    expect(ex.status).toBe(200);
    expect(ex.retries?.map((r) => r.cause)).toEqual(['request timed out']);
    expect(http.retriedCount).toBe(1);
  });

  test('a 500 is never retried: it is the answer', async () => {
    const s = scripted([500, 200]);
    const ex = await client(s.fetch).request({ path: '/teams', credential });
    expect(ex.status).toBe(500);
    expect(ex.retries).toBeUndefined();
    expect(s.calls()).toBe(1);
  });

  test('a request that gets no answer on any try is a ConnectionError naming the cause and the tries', async () => {
    const hangs = scripted(['hang']);
    await expect(
      client(hangs.fetch, { timeoutMs: 20 }).request({ path: '/teams', credential }),
    ).rejects.toThrow(/request timed out \(each of 3 tries\) \(--retries 2\)/);
    const resets = scripted([reset()]);
    const e = await client(resets.fetch, { retries: 1 })
      .request({ path: '/teams', credential })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as Error).message).toMatch(/ECONNRESET \(socket hang up\) \(each of 2 tries\)/);
  });

  test('a 504 on every try: the last one is the answer (a 5xx, judged as one), the tries before recorded', async () => {
    const gateway = scripted([504]);
    const ex = await client(gateway.fetch).request({ path: '/teams', credential });
    expect(ex.status).toBe(504);
    expect(ex.retries?.map((r) => r.cause)).toEqual(['answered 504', 'answered 504']);
    expect(gateway.calls()).toBe(3);
  });

  test('a POST is never retried: its 503 is the answer, its reset an error', async () => {
    const s = scripted([503, 200]);
    const ex = await client(s.fetch).request({ method: 'POST', path: '/teams', credential });
    expect([ex.status, ex.retries, s.calls()]).toEqual([503, undefined, 1]);
    const r = scripted([reset(), 200]);
    await expect(
      client(r.fetch).request({ method: 'POST', path: '/teams', credential }),
    ).rejects.toThrow(ConnectionError);
    expect(r.calls()).toBe(1);
  });
});

/**
 * How often the proxy breaks a request, by the order requests arrive (deterministic for a
 * given order): the connection of one request in {@link RESET_EVERY} is reset (2%), the
 * answer of one in {@link HOLD_EVERY} held past the suite's timeout (0.4%). A held answer
 * costs the run a whole timeout, so they are rarer: a run of about 2,500 requests meets
 * about 50 resets and 10 held answers.
 */
const RESET_EVERY = 50;
const HOLD_EVERY = 250;

/**
 * An HTTP proxy in front of `target` that resets the connection of one request in
 * {@link RESET_EVERY} and holds the answer of one in {@link HOLD_EVERY} for `holdMs` (past
 * the suite's timeout).
 */
async function faultyProxy(holdMs: number) {
  let target = '';
  let n = 0;
  const faults = { reset: 0, held: 0 };
  const agent = new Agent({ keepAlive: true });
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    if (res.destroyed) return;
    const up = httpRequest(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    up.end(body);
  };
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const i = n++;
      if (i % RESET_EVERY === 7) {
        faults.reset++;
        req.socket.destroy();
        return;
      }
      if (i % HOLD_EVERY === 32) {
        faults.held++;
        const t = setTimeout(() => {
          timers.delete(t);
          forward(req, res, Buffer.concat(chunks));
        }, holdMs);
        timers.add(t);
        return;
      }
      forward(req, res, Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    faults,
    setTarget: (t: string) => {
      target = t;
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A blind run (team1's admin) of the reference server (with `faults`) behind the faulty proxy. */
async function runBehindProxy(faults: FaultName[]) {
  const timeoutMs = 2000;
  const proxy = await faultyProxy(timeoutMs + 1000);
  const server = createServer({ publicUrl: proxy.url, faults });
  try {
    proxy.setTarget(await server.listen(0, '127.0.0.1'));
    const result = await runConformance({
      baseUrl: proxy.url,
      profile: { ...profileFor(), credentials: [] },
      authId: team1Admin.authId,
      accessKey: team1Admin.accessKey,
      mode: 'blind',
      seed: 3,
      numRuns: 5,
      timeoutMs,
      retryBackoffMs: 20,
    });
    return { result, faults: proxy.faults };
  } finally {
    await Promise.all([server.close(), proxy.close()]);
  }
}

// the two runs go at the same time (each with its own proxy and server): each spends seconds
// waiting for held answers to time out, which the other's work fills
describe.concurrent('through a proxy that resets 2% of connections and holds 0.4% of answers past the timeout', () => {
  test('the reference server still PASSes, the retried requests listed in every report', {
    timeout: 600_000,
  }, async () => {
    const { result, faults } = await runBehindProxy([]);
    expect(faults.reset).toBeGreaterThan(0);
    expect(faults.held).toBeGreaterThan(0);
    expect(failing(result)).toEqual([]);
    expect(result.ok).toBe(true);
    const retried = result.checks.filter((c) => c.retried !== undefined);
    expect(retried.length).toBeGreaterThan(0);
    // most faults hit the client's requests (a few a check's own socket probes, retried too)
    expect(result.requests.retried).toBeGreaterThan((faults.reset + faults.held) / 2);
    const causes = retried.flatMap((c) => c.retried!.flatMap((q) => q.causes));
    expect(causes).toContain('request timed out');
    expect(causes.some((c) => /ECONNRESET|UND_ERR_SOCKET|other side closed/.test(c))).toBe(true);
    // each listed request names the exchange of the answer that was compared
    for (const c of retried)
      for (const q of c.retried!) {
        const ex = result.exchanges.find((x) => x.id === q.exchangeId);
        expect(ex?.target).toBe(q.target);
        expect(ex?.retries?.length).toBe(q.tries - 1);
      }
    const first = retried[0]!;
    expect(formatSummary(result)).toMatch(/RETRIED: \d+ checks? needed retries/);
    expect(formatSummary(result)).toContain(
      `${first.id} (${first.status}): ${first.retried![0]!.method}`,
    );
    expect(toHtml(result)).toContain(`id="retried-${first.id}"`);
    expect(toJUnit(result)).toContain('name="flaky" value="true"');
    expect(toResultsJson(result).checks.find((c) => c.id === first.id)?.retried).toEqual(
      first.retried,
    );
  });

  test('a server whose answers are wrong still FAILs through it', {
    timeout: 600_000,
  }, async () => {
    const { result, faults } = await runBehindProxy(['unique-opens-as-total']);
    expect(faults.reset + faults.held).toBeGreaterThan(0);
    expect(result.ok).toBe(false);
    expect(result.checks.some((c) => c.status === 'fail')).toBe(true);
    expect(result.requests.retried).toBeGreaterThan(0);
  });
});
