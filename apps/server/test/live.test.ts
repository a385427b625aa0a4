import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Answer,
  authorizationHeader,
  buildPath,
  contactIdOf,
  Dataset,
  defaultQueryParams,
  ENDPOINT_IDS,
  type EndpointId,
  endpointById,
  normaliseEmail,
  type PathParamName,
  plainAnswer,
  type QueryParams,
  validateDataset,
} from '@tagtrack/core';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  createServer,
  MAX_RECORDS_PER_TICK,
  ServerOptionsError,
  type TagtrackServer,
} from '../src/index.ts';
import { type CliIo, main } from '../src/main.ts';
import { credential, get, getJson } from './helpers.ts';

/** The controlled clock of a test: epoch ms, moved only by the test. */
function fakeClock(start = Date.parse('2026-03-01T12:00:00Z')) {
  const clock = { now: start, read: () => clock.now };
  return clock;
}

/** A live server over the canonical dataset with a controlled clock (closed by `afterEach`). */
const servers: TagtrackServer[] = [];
function liveServer(
  rate: number,
  clock: { read: () => number },
  options: Parameters<typeof createServer>[0] = {},
  seed = 7,
): TagtrackServer {
  const server = createServer({ ...options, live: { rate, seed, clock: clock.read } });
  servers.push(server);
  return server;
}
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const BASE = canonicalDataset;
const baseRecords = BASE.tags.length + BASE.opens.length + BASE.clicks.length;
/** The records of a list answer (JSON round trip: compared by value); throws for another kind. */
function listRecords(answer: Answer): unknown[] {
  if (answer.kind !== 'list') throw new Error(`expected a list answer, got ${answer.kind}`);
  return JSON.parse(JSON.stringify(answer.records)) as unknown[];
}
const recordsOf = (d: Dataset) => d.tags.length + d.opens.length + d.clicks.length;

describe('live data: the rate', () => {
  test.each([
    // rate, and the rate as num/den records per second
    [0.05, 5, 100],
    [1, 1, 1],
    [2.5, 25, 10],
    [10, 10, 1],
    [50, 50, 1],
  ])(
    'after each tick at rate %d, floor(elapsed ms * rate / 1000) records were appended',
    (rate, num, den) => {
      const clock = fakeClock();
      const start = clock.now;
      const server = liveServer(rate, clock);
      expect(server.live!.current.version).toBe(0);
      // uneven steps: none, fractions of a second, whole seconds, minutes
      for (const step of [0, 1, 99, 250, 999, 1000, 1001, 19_999, 20_000, 60_000, 3]) {
        clock.now += step;
        const before = server.live!.current;
        const v = server.live!.tick();
        const due = Math.floor(((clock.now - start) * num) / (den * 1000));
        expect(v.appended).toBe(due);
        expect(recordsOf(v.dataset)).toBe(baseRecords + due);
        // a new version exactly when records were appended
        expect(v.version).toBe(before.version + (due > before.appended ? 1 : 0));
      }
    },
  );

  test('a tick appends at most MAX_RECORDS_PER_TICK records; the rest come at the next ticks', () => {
    const clock = fakeClock();
    const server = liveServer(50, clock);
    clock.now += 3_600_000; // an hour at 50/s: 180,000 due
    expect(server.live!.tick().appended).toBe(MAX_RECORDS_PER_TICK);
    expect(server.live!.tick().appended).toBe(2 * MAX_RECORDS_PER_TICK);
  });

  test('a clock that goes back appends nothing until it passes the records already due', () => {
    const clock = fakeClock();
    const server = liveServer(1, clock);
    clock.now += 10_000;
    expect(server.live!.tick().appended).toBe(10);
    clock.now -= 5_000;
    expect(server.live!.tick()).toMatchObject({ appended: 10, version: 1 });
    clock.now += 6_000;
    expect(server.live!.tick()).toMatchObject({ appended: 11, version: 2 });
  });

  test.each([[0], [-1], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'createServer refuses live rate %d with a ServerOptionsError naming it',
    (rate) => {
      expect(() => createServer({ live: { rate } })).toThrow(ServerOptionsError);
      expect(() => createServer({ live: { rate } })).toThrow(/invalid live rate/);
    },
  );
});

describe('live data: the records', () => {
  test('same seed and clock readings give the same records, however the ticks fall', () => {
    const a = fakeClock();
    const b = fakeClock();
    const sa = liveServer(10, a);
    const sb = liveServer(10, b);
    for (let i = 0; i < 60; i++) {
      a.now += 500;
      sa.live!.tick();
    }
    b.now += 30_000;
    sb.live!.tick();
    expect(sb.live!.current.dataset).toEqual(sa.live!.current.dataset);
    const c = fakeClock();
    const other = liveServer(10, c, {}, 8);
    c.now += 30_000;
    expect(other.live!.tick().dataset).not.toEqual(sa.live!.current.dataset);
  });

  test('appended records are valid, reference existing tags and recipients, and are dated now', () => {
    const clock = fakeClock();
    const start = clock.now;
    const server = liveServer(50, clock);
    const tickNow: number[] = [];
    for (let i = 0; i < 40; i++) {
      clock.now += 250 + (i % 3) * 500;
      server.live!.tick();
      tickNow.push(clock.now);
    }
    const v = server.live!.current;
    const d = v.dataset;
    expect(v.appended).toBeGreaterThan(1000);
    // the schema and every referential rule (events of known tags and recipients, not before
    // the tag was sent, senders that exist, unique ids)
    expect(Dataset.parse(d)).toEqual(d);
    expect(validateDataset(d)).toEqual([]);
    // the base dataset is a prefix: nothing of it changed
    expect(d.tags.slice(0, BASE.tags.length)).toEqual(BASE.tags);
    expect(d.opens.slice(0, BASE.opens.length)).toEqual(BASE.opens);
    expect(d.clicks.slice(0, BASE.clicks.length)).toEqual(BASE.clicks);
    expect(d.teams).toBe(BASE.teams);
    expect(d.credentials).toBe(BASE.credentials);

    const newTags = d.tags.slice(BASE.tags.length);
    const events = [...d.opens.slice(BASE.opens.length), ...d.clicks.slice(BASE.clicks.length)];
    expect(newTags.length).toBeGreaterThan(0);
    expect(d.opens.length - BASE.opens.length).toBeGreaterThan(0);
    expect(d.clicks.length - BASE.clicks.length).toBeGreaterThan(0);
    const endS = Math.floor(clock.now / 1000);
    for (const r of [...newTags.map((t) => t.dateSent), ...events.map((e) => e.date)]) {
      expect(r).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const s = Date.parse(r) / 1000;
      expect(s).toBeGreaterThanOrEqual(Math.floor(start / 1000));
      expect(s).toBeLessThanOrEqual(endS);
    }
    // every team got records, from senders and recipients of that team
    const teamOfMember = new Map(
      BASE.teams.flatMap((t) => t.members.map((m) => [m.memberID, t.teamID] as const)),
    );
    const teamOfTag = new Map(d.tags.map((t) => [t.tagID, teamOfMember.get(t.memberID)]));
    const teams = new Set(events.map((e) => teamOfTag.get(e.tagID)));
    expect([...teams].sort()).toEqual(BASE.teams.map((t) => t.teamID).sort());
    // new tags go to existing contacts and to new ones; some event emails are respelt
    const known = new Set(
      BASE.tags.flatMap((t) => t.recipients.map((r) => normaliseEmail(r.email))),
    );
    const recipients = newTags.flatMap((t) => t.recipients.map((r) => normaliseEmail(r.email)));
    expect(recipients.some((e) => known.has(e))).toBe(true);
    expect(recipients.some((e) => !known.has(e))).toBe(true);
    expect(events.some((e) => e.email !== normaliseEmail(e.email))).toBe(true);
    // a version is never changed by a later one
    const frozen = JSON.stringify(v.dataset);
    clock.now += 5_000;
    server.live!.tick();
    expect(JSON.stringify(v.dataset)).toBe(frozen);
  });

  test('a tag sent in the future of the clock gets no event before it is sent', () => {
    const clock = fakeClock(Date.parse('2024-06-01T00:00:00Z'));
    const server = liveServer(50, clock);
    clock.now += 60_000;
    const d = server.live!.tick().dataset;
    expect(validateDataset(d)).toEqual([]);
    const sent = new Map(d.tags.map((t) => [t.tagID, t.dateSent]));
    for (const e of [...d.opens, ...d.clicks].slice(-500)) {
      expect(e.date >= sent.get(e.tagID)!).toBe(true);
    }
  });
});

/** Requests of every endpoint over a version: ids and days of what was appended. */
function requestsOver(d: Dataset, day: string) {
  const tag = d.tags.at(-1)!;
  const team = d.teams.find((t) => t.members.some((m) => m.memberID === tag.memberID))!;
  const sender = team.members.find((m) => m.memberID === tag.memberID)!;
  const event = d.opens.at(-1)!;
  const pathParams: Partial<Record<PathParamName, string>> = {
    memberID: sender.memberID,
    tagID: event.tagID,
    group: sender.groupID ?? team.groups[0]?.groupID ?? 'none',
    contactID: contactIdOf(tag.recipients[0]!.email),
  };
  const queries: Partial<QueryParams>[] = [
    {},
    { start: day, end: day },
    { start: day, end: day, aggregateData: true },
    { isOpened: true, date: day },
  ];
  return { pathParams, queries };
}

/**
 * The parameters of `q` that `endpoint` takes (endpoint 14 always gets a `date`), as a query
 * string and as the parsed query the plain rules read.
 */
function queryOf(
  endpoint: EndpointId,
  q: Partial<QueryParams>,
  day: string,
): { string: string; query: QueryParams } {
  const takes = new Set<string>(endpointById(endpoint).query);
  const taken = Object.fromEntries(Object.entries(q).filter(([k]) => takes.has(k)));
  if (endpoint === 'tags.daily') taken.date ??= day;
  const string = Object.entries(taken)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('&');
  return { string, query: defaultQueryParams(taken as Partial<QueryParams>) };
}

describe('live data: each response answers one version', () => {
  test('every endpoint, for every canonical credential, answers as the plain rules on the version current when asked', async () => {
    const clock = fakeClock();
    const server = liveServer(50, clock, { pageSize: 1_000_000 });
    for (let round = 0; round < 2; round++) {
      clock.now += 30_000;
      const v = server.live!.tick();
      const day = new Date(clock.now).toISOString().slice(0, 10);
      const { pathParams, queries } = requestsOver(v.dataset, day);
      const index = v.served.index;
      for (const cred of CANONICAL_CREDENTIALS) {
        const caller = index.callerOf(cred.memberID)!;
        for (const endpoint of ENDPOINT_IDS) {
          for (const q of queries) {
            const { string: query, query: parsed } = queryOf(endpoint, q, day);
            const expected = JSON.parse(
              JSON.stringify(
                plainAnswer(v.dataset, caller, { endpoint, pathParams, query: parsed }),
              ),
            ) as Answer;
            const path = buildPath(endpointById(endpoint), pathParams);
            const res = await get(server, path, query, { as: cred });
            const label = `v${v.version} ${cred.label} ${endpoint} ${query}`;
            expect(server.live!.current.version, label).toBe(v.version);
            if (expected.kind === 'not_found') {
              expect(res.status, label).toBe(404);
            } else if (expected.kind === 'single') {
              expect(res.status, label).toBe(200);
              expect(((await res.json()) as { data: unknown }).data, label).toEqual(
                expected.record,
              );
            } else if (expected.records.length === 0) {
              expect(res.status, label).toBe(204);
            } else {
              expect(res.status, label).toBe(200);
              expect(((await res.json()) as { data: unknown }).data, label).toEqual(
                expected.records,
              );
            }
          }
        }
      }
    }
  });

  test("a tag's counters equal its events in the version the response came from", async () => {
    const clock = fakeClock();
    const server = liveServer(50, clock, { pageSize: 1_000_000 });
    for (let round = 0; round < 4; round++) {
      clock.now += 7_000;
      const { dataset } = server.live!.tick();
      const { body } = await getJson<{
        data: { tagID: string; stats: { totalOpens: number; totalClicks: number } }[];
      }>(server, '/teams/tags');
      for (const tag of body.data) {
        expect(tag.stats.totalOpens).toBe(
          dataset.opens.filter((o) => o.tagID === tag.tagID).length,
        );
        expect(tag.stats.totalClicks).toBe(
          dataset.clicks.filter((c) => c.tagID === tag.tagID).length,
        );
      }
    }
  });

  test('the response cache never replays an answer of an older version', async () => {
    const clock = fakeClock();
    const server = liveServer(50, clock);
    const query = 'aggregateData=true';
    const first = await getJson<{ data: { totalOpens: number; totalSent: number }[] }>(
      server,
      '/stats',
      query,
    );
    const again = await getJson(server, '/stats', query); // replayed from the cache
    expect(again.body).toEqual(first.body);
    for (let round = 0; round < 3; round++) {
      clock.now += 10_000;
      const v = server.live!.tick();
      const caller = v.served.index.callerOf(credential(1, 'admin').memberID)!;
      const expected = plainAnswer(v.dataset, caller, {
        endpoint: 'stats.team',
        pathParams: {},
        query: defaultQueryParams({ aggregateData: true }),
      });
      const now = await getJson<{ data: unknown[] }>(server, '/stats', query);
      expect(now.body.data).toEqual(listRecords(expected));
    }
    const last = await getJson<{ data: { totalOpens: number }[] }>(server, '/stats', query);
    // team 1 was sent and opened more since the first answer, and the answer shows it
    expect(last.body.data[0]!.totalOpens).toBeGreaterThan(first.body.data[0]!.totalOpens);
  });
});

describe('live data with faults, variants and options', () => {
  test('a fault and a variant apply to every version', async () => {
    const clock = fakeClock();
    const server = liveServer(50, clock, {
      faults: ['unique-opens-as-total'],
      variants: ['page-size-7'],
      pagingEnd: 'empty-page',
      memberWithoutGroup: 'empty',
    });
    for (let round = 0; round < 2; round++) {
      clock.now += 30_000;
      const v = server.live!.tick();
      const { res, body } = await getJson<{
        data: { tagID: string; stats: { uniqueOpens: number; totalOpens: number } }[];
        paging: { cursors: { next: number; total: number } };
      }>(server, '/teams/tags', 'isOpened=true');
      expect(res.status).toBe(200);
      // the version's tags: the appended ones included
      const caller = v.served.index.callerOf(credential(1, 'admin').memberID)!;
      const expected = plainAnswer(v.dataset, caller, {
        endpoint: 'teams.tags',
        pathParams: {},
        query: defaultQueryParams({ isOpened: true }),
      });
      expect(res.headers.get('X-Total-Count')).toBe(String(listRecords(expected).length));
      expect(body.data).toHaveLength(7); // page-size-7
      expect(body.paging.cursors.next).toBe(7);
      // unique-opens-as-total, on the tags appended too
      for (const t of body.data) expect(t.stats.uniqueOpens).toBe(t.stats.totalOpens);
      const newest = v.dataset.tags.filter((t) => t.dateSent >= '2026-03-01').map((t) => t.tagID);
      expect(newest.length).toBeGreaterThan(0);
      const members = await getJson<{ data: Record<string, unknown>[] }>(server, '/teams');
      expect(members.body.data.some((m) => m.groupID === '')).toBe(true); // member-without-group empty
    }
  });

  test('--live with --fault and --variant starts, says so, and applies both over a socket', async () => {
    let stdout = '';
    const io: CliIo = {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: () => true },
    };
    const outcome = await main(
      [
        '--live',
        '50',
        '--live-seed',
        '3',
        '--fault',
        'unique-opens-as-total',
        '--variant',
        'page-size-7',
        '--port',
        '0',
        '--quiet',
      ],
      io,
    );
    if ('code' in outcome) throw new Error(`exited with ${outcome.code}`);
    try {
      expect(stdout).toContain('live data: 50 records/s appended (seed 3)');
      expect(stdout).toContain('FAULTS INJECTED: unique-opens-as-total');
      expect(stdout).toContain('variants: page-size-7');
      expect(outcome.server.live).toBeDefined();
      const admin = credential(1, 'admin');
      const query = 'isOpened=true';
      const res = await fetch(`${outcome.url}/teams/tags?${query}`, {
        headers: { Authorization: authorizationHeader(admin.authId, admin.accessKey, query) },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        data: { stats: { uniqueOpens: number; totalOpens: number } }[];
      };
      expect(body.data).toHaveLength(7);
      for (const t of body.data) expect(t.stats.uniqueOpens).toBe(t.stats.totalOpens);
    } finally {
      expect(await outcome.stop('SIGTERM')).toBe(0);
    }
  });

  test('--dataset FILE --live appends to the data of the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tagtrack-live-'));
    const file = join(dir, 'canonical.json');
    await writeFile(file, JSON.stringify(canonicalDataset));
    const io: CliIo = { stdout: { write: () => true }, stderr: { write: () => true } };
    const outcome = await main(['--dataset', file, '--live', '20', '--port', '0', '--quiet'], io);
    await rm(dir, { recursive: true, force: true });
    if ('code' in outcome) throw new Error(`exited with ${outcome.code}`);
    try {
      const v = outcome.server.live!.tick();
      expect(v.dataset.tags.slice(0, BASE.tags.length)).toEqual(BASE.tags);
      expect(v.dataset.opens.slice(0, BASE.opens.length)).toEqual(BASE.opens);
      expect(validateDataset(v.dataset)).toEqual([]);
    } finally {
      expect(await outcome.stop('SIGTERM')).toBe(0);
    }
  });

  test('the rate limit is kept across versions (one limiter for every version)', async () => {
    const clock = fakeClock();
    const server = liveServer(50, clock, {
      rateLimit: { limit: 1, windowMs: 60_000 },
      clock: clock.read,
    });
    expect((await get(server, '/teams')).status).toBe(200);
    clock.now += 1_000;
    expect(server.live!.tick().version).toBe(1);
    expect((await get(server, '/teams')).status).toBe(429);
  });

  test.each([
    [['--live', '0'], "option '--live <rate>' argument '0' is invalid"],
    [['--live', '-1'], "option '--live <rate>' argument '-1' is invalid"],
    [['--live', 'abc'], "option '--live <rate>' argument 'abc' is invalid"],
    [['--live', '1e3'], "option '--live <rate>' argument '1e3' is invalid"],
    [['--live-seed', '3'], '--live-seed needs --live'],
    [['--live', '1', '--live-seed', 'x'], "option '--live-seed <n>' argument 'x' is invalid"],
  ])('%j exits 2 with a one-line error naming the flag', async (args, message) => {
    let stderr = '';
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: { write: (t: string) => (stderr += t) },
    };
    const outcome = await main([...args, '--port', '0'], io);
    expect(outcome).toEqual({ code: 2 });
    const [line] = stderr.split('\n');
    expect(line).toContain(message);
  });
});

describe('live data: the timer', () => {
  test('the timer ticks until close, then no timer is left', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const clock = fakeClock();
    const server = createServer({
      live: { rate: 10, seed: 1, clock: clock.read, intervalMs: 200 },
    });
    expect(vi.getTimerCount()).toBe(1);
    clock.now += 1_000;
    vi.advanceTimersByTime(200);
    expect(server.live!.current.appended).toBe(10);
    clock.now += 1_000;
    vi.advanceTimersByTime(10_000);
    expect(server.live!.current.appended).toBe(20);
    await server.close();
    expect(vi.getTimerCount()).toBe(0);
    clock.now += 1_000;
    vi.advanceTimersByTime(10_000);
    expect(server.live!.current.appended).toBe(20);
    expect(server.live!.tick().appended).toBe(20);
  });

  test('a live server left open does not keep the process alive (its timer is unref-ed)', async () => {
    const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));
    const script = `const { createServer } = await import(${JSON.stringify(index)}); const s = createServer({ live: { rate: 50 } }); setTimeout(() => { console.log('version', s.live.current.version > 0) }, 500);`;
    const child = spawn(
      process.execPath,
      ['--conditions=@tagtrack/source', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(out.trim()).toBe('version true');
    expect(code).toBe(0);
  });
});
