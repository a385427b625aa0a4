import type { Dataset } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { createServer, type TagtrackServer } from '@tagtrack/server';
import { afterEach, describe, expect, test } from 'vitest';
import type { CheckContext } from '../src/check/context.ts';
import { defineCheck } from '../src/check/define.ts';
import { Violation } from '../src/check/failure.ts';
import { type RunResult, runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, team1Admin } from './helpers.ts';

/**
 * `ctx.onStillData` and `readsOwn` (checks/context.ts, spec §5 Revision 3): a comparison
 * whose verdict rests on its own reads confirms a failure where it happens, between watermark
 * reads, instead of the whole check running again. The data is a `fetch` over reference
 * servers of successive versions of the canonical dataset (version k: k more opens of a team1
 * tag, so team1-admin's watermark moves), the version moving when the test says so.
 */

/** An open of a team1 tag (team1-admin sees it): the versions add copies of it. */
const TEAM1_OPEN = (() => {
  const member = canonicalDataset.credentials.find((c) => c.authId === team1Admin.authId)!;
  const team = canonicalDataset.teams.find((t) =>
    t.members.some((m) => m.memberID === member.memberID),
  )!;
  const members = new Set(team.members.map((m) => m.memberID));
  const tags = new Set(
    canonicalDataset.tags.filter((t) => members.has(t.memberID)).map((t) => t.tagID),
  );
  return canonicalDataset.opens.find((o) => tags.has(o.tagID))!;
})();

/** The canonical dataset with `k` more opens of a team1 tag, one second apart. */
function version(k: number): Dataset {
  const base = Date.parse(TEAM1_OPEN.date);
  const extra = Array.from({ length: k }, (_, i) => ({
    ...TEAM1_OPEN,
    date: new Date(base + (i + 1) * 1000).toISOString().replace('.000Z', 'Z'),
  }));
  return { ...canonicalDataset, opens: [...canonicalDataset.opens, ...extra] };
}

/** Versions of the data and the one answering now; `everyRequest` moves it before each answer. */
class Versions {
  private readonly servers: TagtrackServer[] = [];
  now = 0;
  everyRequest = false;
  readonly fetch = (r: Request): Promise<Response> => {
    if (this.everyRequest) this.now++;
    this.servers[this.now] ??= createServer({
      publicUrl: MEMORY_BASE_URL,
      dataset: version(this.now),
    });
    return this.servers[this.now]!.fetch(r);
  };
  async close(): Promise<void> {
    for (const s of this.servers) await s?.close();
  }
}

let versions: Versions;
afterEach(async () => {
  await versions.close();
});

const query = [['aggregateData', 'true']] as const;
const totalOpens = (body: string) =>
  (JSON.parse(body) as { data: { totalOpens: number }[] }).data[0]!.totalOpens;

/**
 * `/stats` and `/teams/stats` agree on totalOpens (spec §6), compared in
 * `ctx.onStillData`; `between` runs between the two reads (a move, in the tests).
 */
function statsTwice(between: () => void, defect = false) {
  return defineCheck({
    id: 'X-STILL-STATS-TWICE',
    title: '/stats and /teams/stats agree on totalOpens',
    clause: 'spec §6',
    endpoints: ['stats.team', 'stats.teamAlias'],
    async run(ctx: CheckContext) {
      await ctx.onStillData(async () => {
        const a = await ctx.call('stats.team', { query });
        between();
        const b = await ctx.call('stats.teamAlias', { query });
        const [x, y] = [totalOpens(a.body), totalOpens(b.body) + (defect ? 1 : 0)];
        if (x !== y)
          throw new Violation(`totalOpens ${y} on /teams/stats, ${x} on /stats`, {
            kind: 'value',
            exchange: b,
          });
      });
    },
  });
}

/** One blind run of `check` alone as team1-admin over `versions`. */
function run(check: ReturnType<typeof defineCheck>): Promise<RunResult> {
  return runConformance({
    baseUrl: MEMORY_BASE_URL,
    fetch: versions.fetch,
    mode: 'blind',
    seed: 7,
    numRuns: 2,
    authId: team1Admin.authId,
    accessKey: team1Admin.accessKey,
    checks: [check],
  });
}

describe('a comparison confirms its own failure on still data (ctx.onStillData)', () => {
  test('a difference caused by a move between its two reads is read again and passes: the check never runs again', async () => {
    versions = new Versions();
    let moved = false;
    const result = await run(
      statsTwice(() => {
        if (!moved) versions.now++;
        moved = true;
      }),
    );
    const c = result.checks[0]!;
    expect(c.status).toBe('pass');
    expect(c.attempts).toBeUndefined();
    expect(result.data?.rerunChecks).toBe(0);
    // W_start, the one read that saw the move, the one before the comparison read again (a pass
    // needs no second)
    expect(result.data?.watermarkRequests).toBe(3);
  });

  test('a defect read on data that moved before it is confirmed between two equal watermarks: the check fails without running again', async () => {
    versions = new Versions();
    let moved = false;
    const result = await run(
      statsTwice(() => {
        if (!moved) versions.now++;
        moved = true;
      }, true),
    );
    const c = result.checks[0]!;
    expect(c.status).toBe('fail');
    expect(result.data?.rerunChecks).toBe(0);
    // W_start, the one read that saw the move, the two around the comparison read again
    expect(result.data?.watermarkRequests).toBe(4);
    expect(result.ok).toBe(false);
  });

  test('a defect on still data costs one watermark read more than W_start, and stands', async () => {
    versions = new Versions();
    const result = await run(statsTwice(() => {}, true));
    expect(result.checks[0]!.status).toBe('fail');
    expect(result.data?.rerunChecks).toBe(0);
    expect(result.data?.watermarkRequests).toBe(2);
  });

  test('data moving before every answer never confirms the failure: the check runs again and ends inconclusive, never a fail', async () => {
    versions = new Versions();
    versions.everyRequest = true;
    const result = await run(statsTwice(() => {}));
    const c = result.checks[0]!;
    expect(c.status).toBe('inconclusive');
    expect(result.data?.rerunChecks).toBe(1);
    expect(result.ok).toBe(true);
  });

  test('readsOwn on ctx.each: a failing item on data that moved is read again between watermarks, the others are not', async () => {
    versions = new Versions();
    let moves = 1;
    let sent = 0;
    const check = defineCheck({
      id: 'X-STILL-EACH',
      title: '/stats and /teams/stats agree on totalOpens, item by item',
      clause: 'spec §6',
      endpoints: ['stats.team', 'stats.teamAlias'],
      async run(ctx: CheckContext) {
        await ctx.each(
          [1, 2, 3],
          async () => {
            const a = await ctx.call('stats.team', { query, cache: false });
            if (moves-- > 0) versions.now++;
            const b = await ctx.call('stats.teamAlias', { query, cache: false });
            sent += 2;
            if (totalOpens(a.body) !== totalOpens(b.body))
              throw new Violation('totalOpens differ', { kind: 'value', exchange: b });
          },
          { readsOwn: true },
        );
      },
    });
    const result = await run(check);
    expect(result.checks[0]!.status).toBe('pass');
    expect(result.data?.rerunChecks).toBe(0);
    // three items, the first read twice
    expect(sent).toBe(8);
  });
});
