import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runInSlices, TimeSlice, tagsNewestFirst } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { type EachHost, runEach } from '../src/check/context/each.ts';
import {
  boundaryWindows,
  boundaryWindowsInSlices,
  flattenEvents,
  flattenEventsInSlices,
  nearMidnight,
  nearMidnightSteps,
} from '../src/check/sample.ts';
import { applyLaw, firstNotIn, setInSlices } from '../src/check/slices.ts';
import { firstIndexHolding } from '../src/checks/rel/forms.ts';
import { HttpClient } from '../src/http/client.ts';

const credential = { label: 'c', authId: 'a', accessKey: 'k' };

/** Keeps the event loop busy for `ms` milliseconds (the suite's own work, e.g. a long law). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

describe('a request timeout measures the wire, not the suite’s own work', () => {
  test('an answer that arrived before the deadline is no timeout, however long the loop was busy after', async () => {
    let sent: (() => void) | undefined;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[]}', () => sent?.());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // the first request loads the transport (slow, synchronous work of its own)
      await new HttpClient({ baseUrl: url, auth: 'bearer', timeoutMs: 60_000 }).request({
        path: '/warm-up',
        credential,
      });
      // a busy machine may not answer within the timeout at all: then try a longer one
      for (let timeoutMs = 200; ; timeoutMs *= 4) {
        const answered = new Promise<'answered'>((r) => {
          sent = () => r('answered');
        });
        // no retries: a late timer would be a ConnectionError, not a retried request
        const http = new HttpClient({ baseUrl: url, auth: 'bearer', timeoutMs, retries: 0 });
        const request = http.request({ path: '/teams', credential });
        const first = await Promise.race([
          answered,
          request.then(
            () => 'settled',
            () => 'settled',
          ),
        ]);
        if (first !== 'answered') continue;
        // the answer is on the wire; a law then keeps the loop busy past the request's timeout
        busy(timeoutMs * 5);
        const ex = await request;
        expect(ex.status).toBe(200);
        expect(ex.body).toBe('{"data":[]}');
        expect(ex.retries).toBeUndefined();
        return;
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('the suite’s long loops let the event loop turn', () => {
  /** A slice that pauses every `stride` steps, whatever the machine's speed. */
  const everyStride = (stride: number) => new TimeSlice({ budgetMs: 0, stride });
  /** A loop's context that records nothing: the items judge without failing. */
  const host: EachHost = {
    active: () => ({ comparisons: 0, log: [] }),
    fail: () => {},
    record: () => {},
    stopAt: () => {},
    onStillData: (fn) => fn(false),
    leaveOut: () => {},
  };

  test('ctx.each over many items that judge without a request: a timer set before fires before it ends', async () => {
    const order: string[] = [];
    let judged = 0;
    setTimeout(() => order.push(`timer after ${judged} items`), 0);
    const items = Array.from({ length: 5_000 }, (_, i) => i);
    await runEach(
      host,
      items,
      () => {
        judged++;
      },
      { slice: everyStride(100) },
    );
    order.push('loop');
    expect(order).toHaveLength(2);
    expect(order[1]).toBe('loop');
    expect(order[0]).toMatch(/^timer after \d+ items$/);
    expect(Number(/\d+/.exec(order[0]!)![0])).toBeLessThan(items.length);
  });

  test('ctx.each in batches (concurrency 8) over items that judge without a request: a timer set before fires before it ends', async () => {
    const order: string[] = [];
    let judged = 0;
    setTimeout(() => order.push(`timer after ${judged} items`), 0);
    const items = Array.from({ length: 5_000 }, (_, i) => i);
    await runEach(
      host,
      items,
      () => {
        judged++;
      },
      { concurrency: 8, slice: everyStride(10) },
    );
    order.push('loop');
    expect(order).toHaveLength(2);
    expect(order[1]).toBe('loop');
    expect(Number(/\d+/.exec(order[0]!)![0])).toBeLessThan(items.length);
  });

  test('applyLaw runs a law of a whole list in slices: a timer set before fires before the verdict', async () => {
    const order: string[] = [];
    const t0 = Date.UTC(2024, 0, 1);
    const tags = Array.from({ length: 50_000 }, (_, i) => ({
      tagID: `t${String(i).padStart(6, '0')}`,
      dateSent: new Date(t0 - i * 1000).toISOString().replace('.000Z', 'Z'),
    }));
    setTimeout(() => order.push('timer'), 0);
    const verdict = await applyLaw(tagsNewestFirst, tags, everyStride(1000));
    order.push('law');
    expect(verdict).toBeUndefined();
    expect(order).toEqual(['timer', 'law']);
    // and the same verdict as the plain form on a list out of order
    const swapped = [tags[1]!, tags[0]!, ...tags.slice(2)];
    expect(await applyLaw(tagsNewestFirst, swapped, everyStride(1000))).toBe(
      tagsNewestFirst.check(swapped),
    );
  });
});

describe('answers that arrive in the same turn are judged over several turns', () => {
  test('ten answers read at once, each followed by 8 ms of its caller’s work: a timer due meanwhile runs between them', async () => {
    // a transport that answers the ten requests in the same turn, one callback each (as one
    // poll of I/O can), with a 0 ms timer set as the first answer comes
    const order: string[] = [];
    const due: (() => void)[] = [];
    const fetch = (_r: Request) =>
      new Promise<Response>((resolve) => {
        due.push(() => resolve(new Response('{"data":[]}', { status: 200 })));
        if (due.length < 10) return;
        for (const [k, answer] of due.splice(0).entries())
          setImmediate(() => {
            if (k === 0) setTimeout(() => order.push('timer'), 0);
            answer();
          });
      });
    const http = new HttpClient({
      baseUrl: 'http://127.0.0.1:9',
      auth: 'bearer',
      fetch,
      timeoutMs: 60_000,
    });
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const ex = await http.request({ path: `/teams/${i}`, credential });
        busy(8);
        order.push(`answer ${ex.target}`);
      }),
    );
    // without a shared budget all ten are judged before the timer (80 ms in one turn)
    expect(order).toHaveLength(11);
    expect(order.indexOf('timer')).toBeGreaterThan(0);
    expect(order.indexOf('timer')).toBeLessThanOrEqual(4);
  });
});

describe('the checks’ passes over whole event lists run in slices', () => {
  const everyStride = (stride: number) => new TimeSlice({ budgetMs: 0, stride });
  const t0 = Date.UTC(2024, 0, 1);
  /** `n` open groups of `k` events each, one event a minute and a few seconds. */
  const groups = (n: number, k = 3) =>
    Array.from({ length: n }, (_, g) => ({
      tagID: `t${g % 7}`,
      recipient: { email: `r${g}@example.com`, name: `R ${g}` },
      opens: Array.from({ length: k }, (_, i) => ({
        recipient: { email: `r${g}@example.com`, name: `R ${g}` },
        details: {
          openDate: new Date(t0 + (g * k + i) * 61_003).toISOString().replace(/\.\d+Z$/, 'Z'),
          device: 'phone',
          city: g % 3 === 0 ? 'Line\nbreak' : 'Town',
          os: 'os',
        },
      })),
    })) as unknown as Parameters<typeof flattenEvents>[0];

  /** Resolves `work`'s value and whether a 0 ms timer set before it fired before it ended. */
  async function timerBefore<T>(work: () => Promise<T>): Promise<{ value: T; timer: boolean }> {
    let fired = false;
    setTimeout(() => {
      fired = true;
    }, 0);
    const value = await work();
    return { value, timer: fired };
  }

  test('flattenEventsInSlices: the events flattenEvents gives, with the event loop turning meanwhile', async () => {
    const list = groups(20_000);
    const { value, timer } = await timerBefore(() =>
      flattenEventsInSlices(list, everyStride(1000)),
    );
    expect(timer).toBe(true);
    expect(value).toEqual(flattenEvents(list));
  });

  test('nearMidnightSteps in slices: the timestamps nearMidnight picks, with the event loop turning meanwhile', async () => {
    const dates = flattenEvents(groups(20_000)).map((e) => e.date);
    const { value, timer } = await timerBefore(() =>
      runInSlices(nearMidnightSteps(dates, 2), everyStride(1000)),
    );
    expect(timer).toBe(true);
    expect(value).toEqual(nearMidnight(dates, 2));
    expect(await boundaryWindowsInSlices(dates)).toEqual(boundaryWindows(dates));
  });

  test('setInSlices and firstNotIn: the set and the first item a set lacks, with the event loop turning meanwhile', async () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `k${i}`);
    const made = await timerBefore(() => setInSlices(keys, everyStride(1000)));
    expect(made.timer).toBe(true);
    expect(made.value).toEqual(new Set(keys));
    const lacking = new Set(keys.slice(0, -1));
    const found = await timerBefore(() => firstNotIn(keys, lacking, everyStride(1000)));
    expect(found.timer).toBe(true);
    expect(found.value).toBe(keys.at(-1));
    expect(await firstNotIn(keys, made.value)).toBeUndefined();
  });

  test('firstIndexHolding: the first record holding each character (or -1), in one pass with the event loop turning meanwhile', async () => {
    const list = groups(20_000);
    // a backslash only in the last record; no tab and no CR anywhere
    const records = [...list.slice(0, -1), { ...list.at(-1)!, tagID: 't\\1' }];
    const { value, timer } = await timerBefore(() =>
      firstIndexHolding(records, ['\r', '\n', '\t', '\\'], everyStride(1000)),
    );
    expect(timer).toBe(true);
    expect(value).toEqual([-1, 0, -1, records.length - 1]);
  });
});
