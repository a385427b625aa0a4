import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { openSqlEngine, type SqlEngine } from '@tagtrack/engine';
import { afterEach, describe, expect, test } from 'vitest';
import { createServer, type TagtrackServer } from '../src/index.ts';
import { credential, get } from './helpers.ts';

/*
 * The reference server over the SQL engine (PGlite) with live data: the records the server
 * appends go into the tables by INSERT (the triggers of sql/35-upkeep.sql keep the counters),
 * each answer reads one snapshot, and the credentials are re-read from the database.
 */

let engine: SqlEngine | undefined;
let server: TagtrackServer | undefined;

afterEach(async () => {
  await server?.close();
  await engine?.close();
  server = undefined;
  engine = undefined;
});

/** The team 1 admin's tag count, as X-Total-Count says it. */
async function teamTags(s: TagtrackServer): Promise<number> {
  const res = await get(s, '/teams/tags');
  expect(res.status).toBe(200);
  return Number(res.headers.get('x-total-count'));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('tagtrack-server --live over the SQL engine (PGlite)', () => {
  test('the records appended reach the answers: the team admin sees each new tag of its team', async () => {
    engine = await openSqlEngine({ load: canonicalDataset });
    let now = Date.parse('2026-11-28T12:00:00Z');
    server = createServer({ engine, live: { rate: 50, seed: 3, clock: () => now } });
    const before = await teamTags(server);
    now += 20_000; // 1000 records due
    await server.appender!.tick();
    expect(server.appender!.appended).toBe(1000);
    const team = canonicalDataset.teams.find((t) => t.teamID === credential(1, 'admin').teamID)!;
    const members = new Set(team.members.map((m) => m.memberID));
    const [row] = await engine.database.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM tags WHERE "memberID" = ANY ($1::text[])`,
      [[...members]],
    );
    expect(row!.n).toBeGreaterThan(before);
    // a fresh answer, not the first one replayed from a cache
    expect(await teamTags(server)).toBe(row!.n);
    // the kept counters are those a full refresh computes
    const kept = await engine.database.query(
      'SELECT * FROM tagtrack_tag_counters ORDER BY "tagID" COLLATE "C"',
    );
    await engine.database.query('SELECT tagtrack_refresh()');
    expect(
      await engine.database.query(
        'SELECT * FROM tagtrack_tag_counters ORDER BY "tagID" COLLATE "C"',
      ),
    ).toEqual(kept);
  }, 120_000);

  test('a response cached before an append is not replayed once the appended rows may have been read (monotonic reads)', async () => {
    const sql = await openSqlEngine({ load: canonicalDataset });
    engine = sql;
    // the append commits, then its promise waits until released: the moment between a commit
    // and the server hearing of it (a busy event loop, a slow network)
    let release!: () => void;
    let committed!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const commit = new Promise<void>((resolve) => {
      committed = resolve;
    });
    const live = sql.live!;
    const append = live.append;
    Object.assign(live, {
      append: async (records: Parameters<typeof append>[0]) => {
        await append(records);
        committed();
        await released;
      },
    });
    let now = Date.parse('2026-11-28T12:00:00Z');
    server = createServer({ engine: sql, live: { rate: 50, seed: 3, clock: () => now } });
    const before = await teamTags(server);
    expect(await teamTags(server)).toBe(before); // answered again, from the response cache
    now += 20_000; // 1000 records due, some of them tags of team 1
    const appending = server.appender!.tick();
    try {
      await commit;
      const [row] = await sql.database.query<{ n: number }>(
        `SELECT count(*)::integer AS n FROM tags AS t JOIN members AS m USING ("memberID")
         WHERE m."teamID" = $1`,
        [credential(1, 'admin').teamID],
      );
      expect(row!.n).toBeGreaterThan(before);
      // committed, the server not told yet: a fresh read and the same read again both see it
      expect(await teamTags(server)).toBe(row!.n);
      expect(await teamTags(server)).toBe(row!.n);
      release();
      await appending;
      expect(await teamTags(server)).toBe(row!.n);
    } finally {
      release();
    }
  }, 300_000);

  test('a credential inserted while the server runs is accepted within a second, a deleted one refused', async () => {
    engine = await openSqlEngine({ load: canonicalDataset });
    server = createServer({ engine });
    const admin = credential(1, 'admin');
    const fresh = { authId: 'LIVECREDENTIAL000001', accessKey: 'a-live-access-key' };
    expect((await get(server, '/teams', '', { as: fresh })).status).toBe(401);
    await engine.database.query(
      'INSERT INTO credentials ("authId", "accessKey", "memberID") VALUES ($1, $2, $3)',
      [fresh.authId, fresh.accessKey, admin.memberID],
    );
    // the unknown authId above re-read the credentials: the next re-read may come a second
    // later, and the first request after it is accepted (no restart, no second request)
    await sleep(1100);
    expect((await get(server, '/teams', '', { as: fresh })).status).toBe(200);

    await engine.database.query('DELETE FROM credentials WHERE "authId" = $1', [fresh.authId]);
    const deleted = performance.now();
    let refused = 0;
    while (performance.now() - deleted < 20_000) {
      refused = (await get(server, '/teams', '', { as: fresh })).status;
      if (refused === 401) break;
      await sleep(50);
    }
    expect(refused).toBe(401);
    // the other credentials are untouched
    expect((await get(server, '/teams')).status).toBe(200);
  }, 60_000);
});
