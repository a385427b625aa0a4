import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { verifySignature } from '@tagtrack/core';
import { arbStatsSummary } from '@tagtrack/core/testing';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Violation } from '../src/check/failure.ts';
import { walkPages } from '../src/check/walk.ts';
import { type Exchange, HttpClient } from '../src/http/client.ts';
import { waitForAnswer } from '../src/http/transport.ts';
import { fakeClock, listen } from './helpers.ts';

/** The suite on core's transport steps: pacing on an injected clock, signing, ctx.walk's guards. */

const credential = { label: 'c', authId: 'a', accessKey: 'k' };

/** An HMAC-signing HttpClient whose fetch records each request and answers 200 `{}`. */
function recordingClient(options: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) {
  const sent: Request[] = [];
  const http = new HttpClient({
    baseUrl: 'http://x.invalid',
    auth: 'hmac-sha1',
    fetch: async (r) => {
      sent.push(r);
      return new Response('{}', { status: 200 });
    },
    timeoutMs: 1000,
    ...options,
  });
  return { http, sent };
}

describe('HttpClient on core transport', () => {
  test('paces to ratePerSecond on the injected clock (no real waits); unpaced bypasses it', async () => {
    const clock = fakeClock();
    const { http, sent } = recordingClient({ ratePerSecond: 2, clock });
    for (let i = 0; i < 3; i++) await http.request({ path: `/p${i}`, credential });
    expect(clock.slept).toEqual([500, 500]);
    await http.request({ path: '/probe', credential, unpaced: true });
    expect(clock.slept).toHaveLength(2);
    expect(sent).toHaveLength(4);
  });

  test('signs exactly the query string that goes out (an apostrophe is sent as %27)', async () => {
    const { http, sent } = recordingClient();
    const ex = await http.request({ path: '/teams', query: [['q', "o'k é"]], credential });
    const qs = new URL(sent[0]?.url ?? '').search.slice(1);
    expect(ex.target).toBe(`/teams?${qs}`);
    const sig = atob(sent[0]?.headers.get('authorization') ?? '').split(':')[1] ?? '';
    expect(verifySignature(qs, 'k', sig)).toBe(true);
    expect(qs).toContain('%27');
  });
});

const STATS = fc.sample(arbStatsSummary, { seed: 1, numRuns: 1 })[0];

/** An exchange of a `stats.team` list page with `count` records at `cursor`. */
function page(cursor: number, count: number, next: number, total: number): Exchange {
  const body = JSON.stringify({
    data: Array.from({ length: count }, () => STATS),
    paging: { cursors: { previous: 0, next, total }, previousURL: null, nextURL: null },
  });
  return {
    id: cursor,
    method: 'GET',
    url: `http://x.invalid/stats?cursor=${cursor}`,
    target: `/stats?cursor=${cursor}`,
    credential: 'c',
    requestHeaders: {},
    status: 200,
    responseHeaders: {},
    body,
    bodyBytes: Buffer.byteLength(body),
    durationMs: 0,
  };
}

/** A send that answers `answer(cursor)` and records the cursors asked for. */
function sender(answer: (cursor: number) => Exchange) {
  const cursors: number[] = [];
  const send = async (q: readonly (readonly [string, string])[]) => {
    const c = Number(q.find(([k]) => k === 'cursor')?.[1] ?? 0);
    cursors.push(c);
    return answer(c);
  };
  return { cursors, send };
}

/** The Violation a walk of `stats.team` (page size 10) ends in, and the cursors it asked. */
async function violationOf(answer: (cursor: number) => Exchange) {
  const s = sender(answer);
  const e = await walkPages('stats.team', [], 10, s.send).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof Violation)) throw new Error(`expected a Violation, got ${String(e)}`);
  return { violation: e, cursors: s.cursors };
}

describe('ctx.walk on core walkCursor', () => {
  test('a 204 first page ends the walk with X-Total-Count as total', async () => {
    const s = sender(() => ({
      ...page(0, 0, 0, 0),
      status: 204,
      body: '',
      responseHeaders: { 'x-total-count': '7' },
    }));
    const w = await walkPages('stats.team', [], 10, s.send);
    expect(w).toMatchObject({ records: [], total: 7 });
    expect(s.cursors).toEqual([0]);
  });

  test('next >= total and an empty 200 page both end the walk', async () => {
    const last = sender((c) => page(c, 10, c + 10, 20));
    const w = await walkPages('stats.team', [], 10, last.send);
    expect(last.cursors).toEqual([0, 10]);
    expect(w).toMatchObject({ total: 20 });
    expect(w.records).toHaveLength(20);
    const empty = sender((c) => (c === 0 ? page(0, 10, 10, 30) : page(c, 0, c, 30)));
    expect((await walkPages('stats.team', [], 10, empty.send)).pages).toHaveLength(2);
  });

  test('cursor-advances: a next that does not advance is a value Violation', async () => {
    const { violation, cursors } = await violationOf((c) => page(c, 1, c, 100));
    expect(violation.kind).toBe('value');
    expect(violation.message).toMatch(
      /GET \/stats\?cursor=0 .*paging\.cursors\.next 0 does not advance/,
    );
    expect(cursors).toEqual([0]);
  });

  test('total-stable: a total that changes between pages is a value Violation', async () => {
    const { violation } = await violationOf((c) => page(c, 1, c + 1, c === 0 ? 100 : 101));
    expect(violation.kind).toBe('value');
    expect(violation.message).toMatch(/cursor=1 .*total 101 differs from 100/);
  });

  test('page-cap: pages that never end stop after total/pageSize + 3 more pages', async () => {
    const { violation, cursors } = await violationOf((c) => page(c, 1, c + 1, 20));
    expect(violation.kind).toBe('value');
    expect(violation.message).toMatch(/does not end after 7 pages/);
    expect(cursors).toHaveLength(7);
  });
});

describe('ctx.walk holds the pages it has read as keepPage keeps them', () => {
  test('with keepPage, a page after the first is let go once its records are read: collectable before the walk ends; the walk keeps page 0, the kept forms and every record', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const sent: WeakRef<Exchange>[] = [];
    const alive: boolean[][] = [];
    const send = async (q: readonly (readonly [string, string])[]) => {
      const c = Number(q.find(([k]) => k === 'cursor')?.[1] ?? 0);
      // before answering page k: which of the exchanges sent so far are still reachable
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      alive.push(sent.map((r) => r.deref() !== undefined));
      const ex = page(c, 10, c + 10, 50);
      sent.push(new WeakRef(ex));
      return ex;
    };
    const slim = (ex: Exchange): Exchange => ({ ...ex, body: '' });
    const w = await walkPages('stats.team', [], 10, send, undefined, slim);
    expect(w.records).toHaveLength(50);
    expect(w.pages).toHaveLength(5);
    expect(w.pages[0]!.body.length).toBeGreaterThan(0);
    expect(w.pages.slice(1).map((p) => p.body)).toEqual(['', '', '', '']);
    // when page 4 is asked for, page 0 is held, pages 1 to 3 are not
    expect(alive[4]).toEqual([true, false, false, false]);
  });

  test('without keepPage the walk holds every page it has read (what keepPage changes)', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const sent: WeakRef<Exchange>[] = [];
    let aliveAtLast: boolean[] = [];
    const send = async (q: readonly (readonly [string, string])[]) => {
      const c = Number(q.find(([k]) => k === 'cursor')?.[1] ?? 0);
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      aliveAtLast = sent.map((r) => r.deref() !== undefined);
      const ex = page(c, 10, c + 10, 50);
      sent.push(new WeakRef(ex));
      return ex;
    };
    await walkPages('stats.team', [], 10, send);
    expect(aliveAtLast).toEqual([true, true, true, true]);
  });
});

describe('a request to a server that never answers times out, whatever the garbage collector does', () => {
  /**
   * `work()`, with a full collection every 20 ms while it runs: how it settled ('timed out',
   * another rejection's message, 'answered'), or 'still waiting after 20 s'.
   */
  async function underCollections(work: () => Promise<unknown>): Promise<string> {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const gc = setInterval(collectGarbage, 20);
    let wait: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        work().then(
          () => 'answered',
          (e: unknown) => (/timed out/.test(String(e)) ? 'timed out' : String(e)),
        ),
        new Promise<string>((resolve) => {
          wait = setTimeout(() => resolve('still waiting after 20 s'), 20_000);
        }),
      ]);
    } finally {
      clearInterval(gc);
      clearTimeout(wait);
    }
  }

  test("HttpClient: each try ends at its deadline though Node's fetch copies the Request (the copy follows it weakly)", async () => {
    // a server that takes requests and never answers
    const server = await listen(() => {});
    try {
      const http = new HttpClient({
        baseUrl: server.url,
        auth: 'hmac-sha1',
        timeoutMs: 300,
        retries: 1,
        retryBackoffMs: 10,
      });
      expect(await underCollections(() => http.request({ path: '/teams', credential }))).toBe(
        'timed out',
      );
    } finally {
      await server.close();
    }
  }, 60_000);

  test('waitForAnswer: each try ends at its deadline, and the wait at its own', async () => {
    // a server that takes requests and never answers
    const server = await listen(() => {});
    try {
      const outcome = await underCollections(async () => {
        const problem = await waitForAnswer({
          url: `${server.url}/teams`,
          waitMs: 1_500,
          timeoutMs: 300,
        });
        throw new Error(problem);
      });
      expect(outcome).toBe('timed out');
    } finally {
      await server.close();
    }
  }, 60_000);
});
