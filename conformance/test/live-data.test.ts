import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dataset } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { createServer, type FaultName, type TagtrackServer } from '@tagtrack/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CheckContext } from '../src/check/context.ts';
import { Violation } from '../src/check/failure.ts';
import { HttpClient } from '../src/http/client.ts';
import { builtInChecks, defineCheck } from '../src/index.ts';
import { formatSummary, ResultsJson, toHtml, toJUnit, toResultsJson } from '../src/report/index.ts';
import { type RunOptions, type RunResult, runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, profileFor, runCli, team1Admin } from './helpers.ts';

/**
 * Data that changes while the suite reads it (spec §5 Revision 3): a `fetch` over
 * reference servers of successive versions of the canonical dataset (version k: k more opens
 * of one team1 tag), moving to the next version when `bump` says so, before answering.
 */
class MovingData {
  private readonly servers: TagtrackServer[] = [];
  /** The version answering now. */
  version = 0;
  /** Requests answered since `arm` (the checks' start), and in all. */
  armed = false;
  sinceArmed = 0;
  sent = 0;

  constructor(
    private readonly bump: (url: URL, self: MovingData) => boolean,
    private readonly faults: readonly FaultName[] = [],
  ) {}

  arm(): void {
    this.armed = true;
  }

  private server(k: number): TagtrackServer {
    this.servers[k] ??= createServer({
      publicUrl: MEMORY_BASE_URL,
      dataset: withExtraOpens(k),
      faults: this.faults,
    });
    return this.servers[k]!;
  }

  readonly fetch = (request: Request): Promise<Response> => {
    this.sent++;
    if (this.armed) this.sinceArmed++;
    if (this.bump(new URL(request.url), this)) this.version++;
    return this.server(this.version).fetch(request);
  };

  async close(): Promise<void> {
    for (const s of this.servers) await s?.close();
  }
}

/** The team1 tag whose opens the versions add to, and one of its opens. */
const TEAM1_OPEN = (() => {
  const team = canonicalDataset.teams.find((t) =>
    t.members.some(
      (m) =>
        m.memberID ===
        canonicalDataset.credentials.find((c) => c.authId === team1Admin.authId)?.memberID,
    ),
  )!;
  const members = new Set(team.members.map((m) => m.memberID));
  const tags = new Set(
    canonicalDataset.tags.filter((t) => members.has(t.memberID)).map((t) => t.tagID),
  );
  return canonicalDataset.opens.find((o) => tags.has(o.tagID))!;
})();

const DATASETS = new Map<number, Dataset>();

/** The canonical dataset with `k` more opens (appended, one second apart) of a team1 tag. */
function withExtraOpens(k: number): Dataset {
  if (k === 0) return canonicalDataset;
  let d = DATASETS.get(k);
  if (d === undefined) {
    const base = Date.parse(TEAM1_OPEN.date);
    const extra = Array.from({ length: k }, (_, i) => ({
      ...TEAM1_OPEN,
      date: new Date(base + (i + 1) * 1000).toISOString().replace('.000Z', 'Z'),
    }));
    d = { ...canonicalDataset, opens: [...canonicalDataset.opens, ...extra] };
    DATASETS.set(k, d);
  }
  return d;
}

/**
 * A check comparing two reads: `/stats` and its equivalent form `/teams/stats`, both
 * aggregated (spec §6): their totalOpens must agree.
 */
const STATS_TWICE = defineCheck({
  id: 'LIVE-STATS-TWICE',
  title: '/stats and /teams/stats agree on totalOpens',
  clause: 'spec §6',
  endpoints: ['stats.team', 'stats.teamAlias'],
  async run(ctx: CheckContext) {
    const query = [['aggregateData', 'true']] as const;
    const a = await ctx.call('stats.team', { query });
    const b = await ctx.call('stats.teamAlias', { query });
    const opens = (body: string) =>
      (JSON.parse(body) as { data: { totalOpens: number }[] }).data[0]!.totalOpens;
    if (opens(a.body) !== opens(b.body))
      ctx.fail(`totalOpens ${opens(b.body)} on /teams/stats, ${opens(a.body)} on /stats`, {
        kind: 'value',
        exchange: b,
      });
    else ctx.compared();
  },
});

/** Moves to the next version before answering a `/teams/stats` request (at most `max` times). */
const onAlias =
  (max = Number.POSITIVE_INFINITY) =>
  (url: URL, self: MovingData) =>
    url.pathname === '/teams/stats' && self.version < max;

/** Runs the suite blind against `data` as team1-admin (one credential). */
function runBlind(data: MovingData, options: Partial<RunOptions> = {}): Promise<RunResult> {
  return runConformance({
    baseUrl: MEMORY_BASE_URL,
    fetch: data.fetch,
    authId: team1Admin.authId,
    accessKey: team1Admin.accessKey,
    mode: 'blind',
    seed: 7,
    numRuns: 5,
    onEvent: (e) => {
      if (e.type === 'start') data.arm();
    },
    ...options,
  });
}

describe('a comparison straddling a change of the data', () => {
  test('is run again on still data and passes (no failure), the move named in the result', async () => {
    const data = new MovingData(onAlias(1));
    try {
      const result = await runBlind(data, {
        checks: [...builtInChecks, STATS_TWICE],
        ids: ['LIVE-STATS-TWICE'],
      });
      const check = result.checks.find((c) => c.id === 'LIVE-STATS-TWICE')!;
      expect(check.status).toBe('pass');
      expect(check.attempts).toBe(2);
      expect(check.reason).toMatch(/^passed on run 2: the data changed during the run before/);
      expect(result.data).toMatchObject({
        mode: 'auto',
        watching: true,
        rerunChecks: 1,
        reruns: 1,
      });
      expect(result.data!.moved).toMatch(/stats watermark of given moved: totalOpens \d+ -> \d+/);
      expect(result.ok).toBe(true);
    } finally {
      await data.close();
    }
  });

  test('the run again draws the same inputs (same seed: the property starts with the same value)', async () => {
    const seen: number[][] = [];
    const property = defineCheck({
      id: 'LIVE-PROPERTY-TWICE',
      title: '/stats and /teams/stats agree, for drawn numbers',
      clause: 'spec §6',
      endpoints: ['stats.team', 'stats.teamAlias'],
      async run(ctx: CheckContext) {
        const drawn: number[] = [];
        seen.push(drawn);
        await ctx.property(fc.integer({ min: 0, max: 2 ** 30 }), async (n) => {
          drawn.push(n);
          const query = [['aggregateData', 'true']] as const;
          const a = await ctx.call('stats.team', { query });
          const b = await ctx.call('stats.teamAlias', { query });
          const data = (body: string) =>
            JSON.stringify((JSON.parse(body) as { data: unknown }).data);
          if (data(a.body) !== data(b.body))
            throw new Violation('the two forms differ', { kind: 'value', exchange: b });
        });
      },
    });
    const data = new MovingData(onAlias(1));
    try {
      const result = await runBlind(data, {
        checks: [...builtInChecks, property],
        ids: ['LIVE-PROPERTY-TWICE'],
      });
      expect(result.checks[0]).toMatchObject({ status: 'pass', attempts: 2 });
      expect(seen).toHaveLength(2);
      expect(seen[1]).toHaveLength(5);
      expect(seen[1]![0]).toBe(seen[0]![0]);
    } finally {
      await data.close();
    }
  });

  test('with --data still the same straddle is a failure (what the suite did before)', async () => {
    const data = new MovingData(onAlias(1));
    try {
      const result = await runBlind(data, {
        data: 'still',
        checks: [...builtInChecks, STATS_TWICE],
        ids: ['LIVE-STATS-TWICE'],
      });
      expect(result.checks[0]!.status).toBe('fail');
      expect(result.data).toMatchObject({ mode: 'still', watching: false, watermarkRequests: 0 });
    } finally {
      await data.close();
    }
  });
});

describe('data that changes during every attempt', () => {
  test('gives inconclusive with its reason in every report; the run is ok (exit 0), an expected-failure entry is neither stale nor counted', async () => {
    const data = new MovingData(onAlias());
    try {
      const result = await runBlind(data, {
        checks: [...builtInChecks, STATS_TWICE],
        ids: ['LIVE-STATS-TWICE'],
        expectedFailures: [{ id: 'LIVE-STATS-TWICE', reason: 'flaky on live data' }],
      });
      const check = result.checks[0]!;
      expect(check.status).toBe('inconclusive');
      expect(check.attempts).toBe(4);
      expect(check.reason).toMatch(
        /^the data changed during each of 3 attempts \(stats watermark of given moved: totalOpens (\d+) -> (\d+)\)$/,
      );
      expect(result.ok).toBe(true);
      expect(result.staleExpectedFailures).toEqual([]);
      expect(result.summary).toMatchObject({
        inconclusive: 1,
        fail: 0,
        pass: 0,
        expectedFailures: 0,
      });

      const json = ResultsJson.parse(toResultsJson(result));
      expect(json.checks[0]!.status).toBe('inconclusive');
      expect(json.summary.inconclusive).toBe(1);
      expect(json.data?.reruns).toBe(3);
      const junit = toJUnit(result);
      expect(junit).toContain(
        `<skipped message="inconclusive: ${check.reason!.replace(/>/g, '&gt;')}"/>`,
      );
      expect(junit).toMatch(/<testsuites [^>]*failures="0"[^>]*skipped="1"/);
      const html = toHtml(result);
      expect(html).toContain('<h2>Inconclusive (1)</h2>');
      expect(html).toContain('PASS with 1 inconclusive');
      const text = formatSummary(result);
      expect(text).toContain('INCONCLUSIVE LIVE-STATS-TWICE');
      expect(text).toMatch(/1 checks, 0 passed, 0 failed, 1 inconclusive, 0 errors, 0 skipped/);
      expect(text).toMatch(/PASS with 1 inconclusive under tagtrack\/v1 Revision 3$/);
    } finally {
      await data.close();
    }
  });

  test('the CLI exits 0 and says so loudly', async () => {
    const data = new MovingData(onAlias());
    const dir = await mkdtemp(join(tmpdir(), 'tagtrack-live-'));
    const server = await listen(data.fetch);
    try {
      const module = join(dir, 'checks.mjs');
      await writeFile(
        module,
        `export const checks = [{ id: 'LIVE-STATS-TWICE', title: 't', clause: 'c', endpoints: ['stats.team'],
  async run(ctx) {
    const q = [['aggregateData', 'true']];
    const a = JSON.parse((await ctx.call('stats.team', { query: q })).body).data[0].totalOpens;
    const b = JSON.parse((await ctx.call('stats.teamAlias', { query: q })).body).data[0].totalOpens;
    if (a !== b) ctx.fail('totalOpens differ', { kind: 'value' }); else ctx.compared();
  } }];\n`,
      );
      const { code, stdout } = await runCli(
        [
          'run',
          '--base-url',
          server.url,
          '--checks',
          module,
          '--only',
          'LIVE',
          '--report-dir',
          dir,
        ],
        { TAGTRACK_AUTH_ID: team1Admin.authId, TAGTRACK_ACCESS_KEY: team1Admin.accessKey },
      );
      expect(stdout).toContain('INCONCLUSIVE: 1 check could not be judged');
      expect(stdout).toContain('data auto');
      expect(code).toBe(0);
      const json = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as ResultsJson;
      expect(json.checks.find((c) => c.id === 'LIVE-STATS-TWICE')?.status).toBe('inconclusive');
    } finally {
      await server.close();
      await data.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a release gate on inconclusive checks', () => {
  test('--max-inconclusive 0 (or TAGTRACK_MAX_INCONCLUSIVE=0): a run that ends with an inconclusive check exits 1, and the verdict line names the policy', async () => {
    const data = new MovingData(onAlias());
    const dir = await mkdtemp(join(tmpdir(), 'tagtrack-gate-'));
    const server = await listen(data.fetch);
    try {
      const module = join(dir, 'checks.mjs');
      await writeFile(
        module,
        `export const checks = [{ id: 'LIVE-STATS-TWICE', title: 't', clause: 'c', endpoints: ['stats.team'],
  async run(ctx) {
    const q = [['aggregateData', 'true']];
    const a = JSON.parse((await ctx.call('stats.team', { query: q })).body).data[0].totalOpens;
    const b = JSON.parse((await ctx.call('stats.teamAlias', { query: q })).body).data[0].totalOpens;
    if (a !== b) ctx.fail('totalOpens differ', { kind: 'value' }); else ctx.compared();
  } }];\n`,
      );
      const args = ['run', '--base-url', server.url, '--checks', module, '--only', 'LIVE'];
      const env = {
        TAGTRACK_AUTH_ID: team1Admin.authId,
        TAGTRACK_ACCESS_KEY: team1Admin.accessKey,
      };
      for (const [extra, moreEnv] of [
        [['--max-inconclusive', '0', '--report-dir', dir], {}],
        [['--quiet'], { TAGTRACK_MAX_INCONCLUSIVE: '0' }],
      ] as const) {
        const { code, stdout } = await runCli([...args, ...extra], { ...env, ...moreEnv });
        expect(code).toBe(1);
        const verdict = stdout
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('FAIL'));
        expect(verdict).toEqual([
          'FAIL (policy --max-inconclusive 0: 1 check inconclusive (LIVE-STATS-TWICE)) under tagtrack/v1 Revision 3',
        ]);
      }
      const json = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as ResultsJson;
      expect(json.ok).toBe(false);
      expect(json.gateFailures).toEqual([
        '--max-inconclusive 0: 1 check inconclusive (LIVE-STATS-TWICE)',
      ]);
      expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain(
        'policy --max-inconclusive 0: 1 check inconclusive (LIVE-STATS-TWICE)',
      );
      // the bound allows one: exit 0
      const { code } = await runCli([...args, '--max-inconclusive', '1', '--quiet'], env);
      expect(code).toBe(0);
    } finally {
      await server.close();
      await data.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a watermark that cannot be read', () => {
  /** The reference server, with `/stats?aggregateData=true` answering 404. */
  const server = createServer({ publicUrl: MEMORY_BASE_URL });
  const fetch = (r: Request) =>
    new URL(r.url).pathname === '/stats' && new URL(r.url).searchParams.has('aggregateData')
      ? Promise.resolve(new Response('{}', { status: 404 }))
      : server.fetch(r);
  afterAll(() => server.close());
  const options = (data: 'auto' | 'watch'): RunOptions => ({
    baseUrl: MEMORY_BASE_URL,
    fetch,
    authId: team1Admin.authId,
    accessKey: team1Admin.accessKey,
    only: 'REL-STATS-ALIAS',
    data,
  });

  test('--data auto assumes still data and says why', async () => {
    const result = await runConformance(options('auto'));
    expect(result.data).toMatchObject({ mode: 'auto', watching: false, watermarkRequests: 1 });
    expect(result.data!.note).toBe(
      'no watermark could be read (given: GET /stats answered 404): the data is assumed still',
    );
    expect(formatSummary(result)).toContain('data: no watermark could be read');
  });

  test('--data watch refuses to run, naming the read that failed', async () => {
    await expect(runConformance(options('watch'))).rejects.toThrow(
      '--data watch needs a watermark (GET /stats?aggregateData=true) and none could be read: given: GET /stats answered 404',
    );
  });
});

describe('a real fault on changing data', () => {
  test('is still reported failed: a run on still data reproduces it (ignore-is-opened)', async () => {
    // three moves, at the 2nd, 4th and 6th request since the checks started, then still data
    const data = new MovingData(
      (_url, self) => self.armed && self.sinceArmed % 2 === 0 && self.version < 3,
      ['ignore-is-opened'],
    );
    try {
      const result = await runBlind(data, { only: 'REL-FILTER-CONJUNCTION' });
      const check = result.checks[0]!;
      expect(check.status).toBe('fail');
      expect(check.attempts ?? 1).toBeGreaterThan(1);
      expect(check.reason).toMatch(/^failed again on run \d+, read while the data was still/);
      expect(result.data!.moved).toBeDefined();
      expect(result.ok).toBe(false);
    } finally {
      await data.close();
    }
  });
});

describe('cost on still data', () => {
  const still = new MovingData(() => false);
  afterAll(() => still.close());

  test.each([
    ['blind, one credential', { mode: 'blind' as const }],
    [
      'blind, the canonical profile (every credential)',
      { mode: 'blind' as const, profile: profileFor(), authId: undefined, accessKey: undefined },
    ],
    [
      'fixture, the canonical profile',
      { mode: 'fixture' as const, profile: profileFor(), authId: undefined, accessKey: undefined },
    ],
  ])(
    '%s: --data auto sends at most 10% more requests than --data still',
    async (_name, options) => {
      const runs: Record<string, RunResult> = {};
      for (const data of ['still', 'auto'] as const)
        runs[data] = await runBlind(still, { ...options, data, numRuns: 3 });
      const [s, a] = [runs.still!, runs.auto!];
      console.log(
        `${_name}: still ${s.requests.sent} requests, auto ${a.requests.sent} (${a.data!.watermarkRequests} watermark), inconclusive ${a.summary.inconclusive}, failed ${a.checks.filter((c) => c.status === 'fail').map((c) => c.id)}`,
      );
      expect(a.data!.watching).toBe(true);
      expect(a.data!.moved).toBeUndefined();
      expect(a.requests.sent).toBeGreaterThan(s.requests.sent);
      expect(a.requests.sent).toBeLessThanOrEqual(s.requests.sent * 1.1);
      expect(a.checks.map((c) => [c.id, c.status])).toEqual(s.checks.map((c) => [c.id, c.status]));
    },
  );
});

describe('HttpClient cache epochs (spec §5 Revision 3: nothing served across a change)', () => {
  let answers = 0;
  const held: (() => void)[] = [];
  const fetch = async (r: Request): Promise<Response> => {
    answers++;
    const n = answers;
    if (new URL(r.url).searchParams.has('slow')) await new Promise<void>((ok) => held.push(ok));
    return new Response(`answer ${n}`, { status: 200 });
  };
  const client = () =>
    new HttpClient({ baseUrl: 'http://x.test', auth: 'hmac-sha1', fetch, timeoutMs: 10_000 });
  beforeAll(() => {
    answers = 0;
  });

  test('an identical request is served from the cache within an epoch, sent again after newEpoch', async () => {
    const http = client();
    const get = () => http.request({ path: '/teams', credential: team1Admin });
    expect((await get()).body).toBe((await get()).body);
    expect(http.requestCount).toBe(1);
    expect(http.epoch).toBe(0);
    expect(http.newEpoch()).toBe(1);
    const again = await get();
    expect(http.requestCount).toBe(2);
    expect(await get()).toBe(again);
    expect(http.cacheHits).toBe(2);
  });

  test('a request in flight when the epoch changes is not served in the new epoch, nor does it drop the new entry', async () => {
    const http = client();
    const spec = { path: '/teams', query: [['slow', '1']] as const, credential: team1Admin };
    const old = http.request(spec);
    http.newEpoch();
    const fresh = http.request(spec);
    expect(fresh).not.toBe(old);
    // both went out: the old one is answered first, then the new one
    while (held.length < 2) await new Promise((r) => setTimeout(r, 1));
    held.shift()!();
    await old;
    held.shift()!();
    const [a, b] = await Promise.all([old, fresh]);
    expect(a.body).not.toBe(b.body);
    expect(await http.request(spec)).toBe(b);
  });

  test('a fork has a private cache: it serves nothing the client cached and the client nothing it cached; counters and exchanges are shared', async () => {
    const http = client();
    const get = (h: HttpClient) => h.request({ path: '/stats', credential: team1Admin });
    const a = await get(http);
    const fork = http.fork();
    const b = await get(fork);
    expect(b).not.toBe(a);
    expect(await get(fork)).toBe(b);
    expect(await get(http)).toBe(a);
    expect(http.requestCount).toBe(2);
    expect(fork.requestCount).toBe(2);
    expect(http.cacheHits).toBe(2);
    expect(http.exchanges.map((x) => x.id)).toEqual([1, 2]);
  });
});

/** Serves `fetch` on 127.0.0.1 (port 0) over node:http; resolves its URL and a close. */
async function listen(
  fetch: (r: Request) => Promise<Response>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createHttpServer((req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    fetch(
      new Request(`${MEMORY_BASE_URL}${req.url}`, { method: req.method ?? 'GET', headers }),
    ).then(
      async (r) => {
        const out: Record<string, string> = {};
        r.headers.forEach((v, k) => {
          out[k] = v;
        });
        res.writeHead(r.status, out);
        res.end(Buffer.from(await r.arrayBuffer()));
      },
      () => {
        res.writeHead(500);
        res.end();
      },
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
