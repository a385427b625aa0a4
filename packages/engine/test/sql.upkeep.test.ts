import { fc } from '@fast-check/vitest';
import type { Answer, Dataset, DatasetEvent, DatasetTag } from '@tagtrack/core';
import { plainAnswer } from '@tagtrack/core';
import { arbDataset, arbEndpointRequestFor, callerOfMember } from '@tagtrack/core/testing';
import { Prng, withEveryEdgeCase, withRevision3Cases } from '@tagtrack/dataset';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppendedRecords, appendRecords } from '../src/sql/append.ts';
import { type Database, openPglite, openPostgres } from '../src/sql/database.ts';
import { openSqlEngine } from '../src/sql/engine.ts';
import { liveBase } from '../src/sql/live-base.ts';
import { testCitusUrl, testDatabaseUrl, useTestDatabase } from './databases.ts';

/*
 * Live upkeep (sql/35-upkeep.sql) equals the full refresh (sql/30-counters.sql): a generated
 * dataset with every edge case is cut in two, a base loaded as a batch (COPY, then
 * tagtrack_refresh()) and the rest appended afterwards in random order and random batches
 * through appendRecords (plain INSERTs, the triggers keeping the counters): new tags to new
 * and to known contacts, first and repeat opens and clicks of old and new tags, events of the
 * same instant, emails respelt (the edge cases hold all of these). Then every counter table
 * equals what tagtrack_refresh() computes from the final tables, and the engine's answers
 * over the kept counters equal plainAnswer over the final dataset. On PGlite, and on the
 * PostgreSQL server of TAGTRACK_TEST_DATABASE_URL when it is set (.ci/run sets it), and on the
 * Citus coordinator of TAGTRACK_TEST_CITUS_URL (scripts/ci-topologies.sh citus), where the tag
 * tables carry their team and appendRecords calls the ingest functions instead of triggers.
 */

/** The counter tables and their keys (text in code-unit order): what upkeep keeps and tagtrack_refresh() recomputes. */
const COUNTER_TABLES: Readonly<Record<string, string>> = {
  tagtrack_tag_counters: '"teamID" COLLATE "C", "tagID" COLLATE "C"',
  tagtrack_tag_scopes: '"teamID" COLLATE "C", scope COLLATE "C", "tagID" COLLATE "C"',
  tagtrack_contact_tags: '"teamID" COLLATE "C", "tagID" COLLATE "C", email_key COLLATE "C"',
  tagtrack_contact_scopes: '"teamID" COLLATE "C", scope COLLATE "C", email_key COLLATE "C"',
  tagtrack_member_days: '"teamID" COLLATE "C", "memberID" COLLATE "C", day',
  tagtrack_scope_days: '"teamID" COLLATE "C", scope COLLATE "C", "accountType" COLLATE "C", day',
};

/** Every row of every counter table, in key order. */
async function counterTables(db: Database): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(COUNTER_TABLES))
    out[table] = await db.query(`SELECT * FROM ${table} ORDER BY ${key}`);
  return out;
}

/** A dataset cut into a base and the batches appended to it, and the dataset they make. */
interface Cut {
  readonly base: Dataset;
  readonly batches: readonly AppendedRecords[];
  readonly final: Dataset;
}

/**
 * Cuts `dataset` with `seed`: about a third of the tags (with all their events) and a third
 * of the other events are appended, in a random order where a tag comes before its events,
 * in batches of 1 to 6 records (one transaction each).
 */
function cut(dataset: Dataset, seed: number): Cut {
  const rng = new Prng(seed);
  const late = new Set(dataset.tags.filter(() => rng.chance(0.35)).map((t) => t.tagID));
  type Item =
    | { kind: 'tag'; key: number; tag: DatasetTag }
    | { kind: 'opens' | 'clicks'; key: number; event: DatasetEvent };
  const items: Item[] = [];
  const tagKey = new Map<string, number>();
  for (const tag of dataset.tags) {
    if (!late.has(tag.tagID)) continue;
    const key = rng.float();
    tagKey.set(tag.tagID, key);
    items.push({ kind: 'tag', key, tag });
  }
  const baseEvents = { opens: [] as DatasetEvent[], clicks: [] as DatasetEvent[] };
  for (const kind of ['opens', 'clicks'] as const) {
    for (const event of dataset[kind]) {
      const after = tagKey.get(event.tagID);
      if (after === undefined && !rng.chance(0.35)) {
        baseEvents[kind].push(event);
        continue;
      }
      const at = rng.float();
      items.push({ kind, key: after === undefined ? at : after + (1 - after) * at, event });
    }
  }
  items.sort((a, b) => a.key - b.key);
  const batches: { tags: DatasetTag[]; opens: DatasetEvent[]; clicks: DatasetEvent[] }[] = [];
  for (let i = 0; i < items.length; ) {
    const size = rng.between(1, 6);
    const batch = {
      tags: [] as DatasetTag[],
      opens: [] as DatasetEvent[],
      clicks: [] as DatasetEvent[],
    };
    for (const item of items.slice(i, i + size)) {
      if (item.kind === 'tag') batch.tags.push(item.tag);
      else batch[item.kind].push(item.event);
    }
    batches.push(batch);
    i += size;
  }
  const base: Dataset = {
    ...dataset,
    tags: dataset.tags.filter((t) => !late.has(t.tagID)),
    opens: baseEvents.opens,
    clicks: baseEvents.clicks,
  };
  // the final tables: the base's rows, then each batch's, in the order they were appended
  const final: Dataset = {
    ...dataset,
    tags: [...base.tags, ...batches.flatMap((b) => b.tags)],
    opens: [...base.opens, ...batches.flatMap((b) => b.opens)],
    clicks: [...base.clicks, ...batches.flatMap((b) => b.clicks)],
  };
  return { base, batches, final };
}

const arbCase = fc
  .record({
    base: arbDataset,
    edgeSeed: fc.integer({ min: 1, max: 1_000_000 }),
    revision3: fc.boolean(),
    cutSeed: fc.integer({ min: 1, max: 1_000_000 }),
  })
  .map(({ base, edgeSeed, revision3, cutSeed }) => {
    const edged = withEveryEdgeCase(base, edgeSeed);
    return cut(revision3 ? withRevision3Cases(edged) : edged, cutSeed);
  })
  .chain((c) => {
    const members = c.final.teams.flatMap((t) => t.members.map((m) => m.memberID));
    return fc.record({
      cut: fc.constant(c),
      requests: fc.array(
        fc.record({
          caller: fc.constantFrom(...members).map((id) => callerOfMember(c.final, id)),
          request: arbEndpointRequestFor(c.final),
        }),
        { minLength: 1, maxLength: 15 },
      ),
    });
  });

/** The outcome of an answer, compared by value (or the error's class and message). */
async function outcome(f: () => Answer | Promise<unknown>): Promise<unknown> {
  try {
    return { answer: JSON.parse(JSON.stringify(await f())) };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

/**
 * Generated cases per database: 12 in `pnpm test` (each builds and refreshes a database), or
 * `SQL_UPKEEP_RUNS=N` (the bar: 300 on PGlite, 100 on PostgreSQL). The timeout grows
 * with the runs asked, 30 s a run (a busy machine), so a long run is cut only by a hang.
 */
const RUNS = Number(process.env.SQL_UPKEEP_RUNS ?? 12);
const PROPERTY_TIMEOUT_MS = Math.max(600_000, RUNS * 30_000);
/** On Citus each run lays a dataset out over the workers (tens of seconds): a quarter of the runs. */
const CITUS_RUNS = Math.max(2, Math.ceil(RUNS / 4));

async function upkeepEqualsRefresh(db: Database, runs: number, seed: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbCase, async ({ cut: { base, batches, final }, requests }) => {
      const loaded = await openSqlEngine({ database: db, load: base });
      await loaded.close();
      for (const batch of batches) await appendRecords(db, batch);
      const engine = await openSqlEngine({ database: db });
      for (const { caller, request } of requests) {
        const where = `${request.endpoint} ${JSON.stringify(request.pathParams)} ${JSON.stringify(request.query)} as ${caller.memberID}`;
        expect(await outcome(() => engine.answer(caller, request)), where).toEqual(
          await outcome(() => plainAnswer(final, caller, request)),
        );
      }
      await engine.close();
      const kept = await counterTables(db);
      await db.query('SELECT tagtrack_refresh()');
      expect(kept).toEqual(await counterTables(db));
      // a team's refresh recomputes its rows as they were, and leaves the others alone
      for (const team of final.teams)
        await db.query('SELECT tagtrack_refresh_team($1)', [team.teamID]);
      expect(await counterTables(db)).toEqual(kept);
    }),
    { numRuns: runs, seed, endOnFailure: true },
  );
}

/**
 * Sequential scans of the counter tables while one open and one click are appended to the
 * canonical dataset (loaded into `db`), with sequential scans priced out: every statement of
 * the upkeep triggers reads its rows by key, so none should scan a table unless no index can
 * serve it (`pg_stat_xact_user_tables`, the transaction's own counts).
 */
async function counterScansOfAppendedEvents(db: Database): Promise<Record<string, number>> {
  const loaded = await openSqlEngine({ database: db, load: canonicalDataset });
  await loaded.close();
  const tag = canonicalDataset.tags.find((t) => t.recipients.length > 0)!;
  const positions = await db.query<{ o: number; c: number }>(
    'SELECT (SELECT coalesce(max(position), -1) + 1 FROM opens) AS o, (SELECT coalesce(max(position), -1) + 1 FROM clicks) AS c',
  );
  const event = [
    tag.tagID,
    tag.recipients[0]!.email,
    tag.dateSent,
    'desktop',
    'Linux',
    'Firefox',
    'FR',
    'IDF',
    'Paris',
    '48.85',
    '2.35',
  ];
  const columns =
    '(position, "tagID", email, date, device, os, browser, counry, region, city, latitude, longitude)';
  const values = 'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)';
  try {
    return await db.transaction(async (tx) => {
      // the view also counts what earlier transactions of the connection did and the server
      // has not flushed yet: the appends' scans are the difference
      const scans = () =>
        tx.query<{ relname: string; seq_scan: number }>(
          `SELECT relname, seq_scan::integer AS seq_scan FROM pg_stat_xact_user_tables
           WHERE relname = ANY ($1::text[]) ORDER BY relname COLLATE "C"`,
          [Object.keys(COUNTER_TABLES)],
        );
      await tx.query('SET LOCAL enable_seqscan = off');
      const before = new Map((await scans()).map((r) => [r.relname, r.seq_scan]));
      await tx.query(`INSERT INTO opens ${columns} ${values}`, [positions[0]!.o, ...event]);
      await tx.query(`INSERT INTO clicks ${columns} ${values}`, [positions[0]!.c, ...event]);
      const after = await scans();
      // the appended events are not kept: the transaction is rolled back
      throw Object.assign(new Error('rollback'), {
        scans: Object.fromEntries(
          after.map((r) => [r.relname, r.seq_scan - (before.get(r.relname) ?? 0)]),
        ),
      });
    });
  } catch (e) {
    const scans = (e as { scans?: Record<string, number> }).scans;
    if (scans === undefined) throw e;
    return scans;
  }
}

describe('live upkeep = tagtrack_refresh(), and answers = plainAnswer, on PGlite (docs/sql.md §5)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(async () => {
    await db?.close();
  });

  it(
    'counter tables kept by the triggers over random appends equal the full refresh, answers equal plainAnswer',
    async () => {
      await upkeepEqualsRefresh(db, RUNS, 20261128);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('the cut appends new tags to known and new contacts, and first and repeat events', () => {
    let knownContact = false;
    let newContact = false;
    let repeat = false;
    let sameInstant = false;
    for (const { cut: c } of fc.sample(arbCase, { numRuns: 60, seed: 20261128 })) {
      const baseEmails = new Set(
        c.base.tags.flatMap((t) => t.recipients.map((r) => r.email.trim().toLowerCase())),
      );
      for (const b of c.batches)
        for (const t of b.tags ?? [])
          for (const r of t.recipients) {
            if (baseEmails.has(r.email.trim().toLowerCase())) knownContact = true;
            else newContact = true;
          }
      const seen = new Set<string>();
      const instants = new Set<string>();
      for (const e of c.final.opens) {
        const k = `${e.tagID} ${e.email.trim().toLowerCase()}`;
        if (seen.has(k)) repeat = true;
        seen.add(k);
        if (instants.has(`${e.tagID} ${e.date}`)) sameInstant = true;
        instants.add(`${e.tagID} ${e.date}`);
      }
    }
    expect({ knownContact, newContact, repeat, sameInstant }).toEqual({
      knownContact: true,
      newContact: true,
      repeat: true,
      sameInstant: true,
    });
  });

  it('refuses an event whose email is not a recipient of its tag, appending nothing', async () => {
    const loaded = await openSqlEngine({ database: db, load: canonicalDataset });
    await loaded.close();
    const tag = canonicalDataset.tags.find((t) => t.recipients.length > 0)!;
    const before = await counterTables(db);
    const event: DatasetEvent = {
      tagID: tag.tagID,
      email: 'nobody@nowhere.test',
      date: tag.dateSent,
      device: 'desktop',
      os: 'Linux',
      browser: 'Firefox',
      counry: 'FR',
      region: 'IDF',
      city: 'Paris',
      latitude: '48.85',
      longitude: '2.35',
    };
    await expect(appendRecords(db, { opens: [event] })).rejects.toThrow(
      /not a recipient of the tag/,
    );
    await expect(
      appendRecords(db, {
        clicks: [{ ...event, email: tag.recipients[0]!.email, date: '2000-01-01T00:00:00Z' }],
      }),
    ).rejects.toThrow(/before the tag was sent/);
    expect(await counterTables(db)).toEqual(before);
  });

  it('an appended open and click read every counter row by key: no counter table is scanned', async () => {
    const scans = await counterScansOfAppendedEvents(db);
    expect(Object.keys(scans).length).toBeGreaterThan(0);
    expect(Object.entries(scans).filter(([, n]) => n > 0)).toEqual([]);
  });
});

describe.skipIf(testDatabaseUrl() === undefined)(
  'live upkeep = tagtrack_refresh() on a PostgreSQL server',
  () => {
    const database = useTestDatabase('sql-upkeep');
    let db: Database;
    beforeAll(async () => {
      db = await openPostgres(database().url);
    });
    afterAll(async () => {
      await db?.close();
    });

    it(
      'counter tables kept by the triggers over random appends equal the full refresh, answers equal plainAnswer',
      async () => {
        await upkeepEqualsRefresh(db, RUNS, 20261129);
      },
      PROPERTY_TIMEOUT_MS,
    );

    it('an appended open and click read every counter row by key: no counter table is scanned', async () => {
      const scans = await counterScansOfAppendedEvents(db);
      expect(Object.keys(scans).length).toBeGreaterThan(0);
      expect(Object.entries(scans).filter(([, n]) => n > 0)).toEqual([]);
    });
  },
);

describe.skipIf(testCitusUrl() === undefined)(
  'live upkeep = tagtrack_refresh() on a Citus coordinator (tables sharded by team, no triggers)',
  () => {
    let db: Database;
    beforeAll(async () => {
      db = await openPostgres(testCitusUrl()!);
    });
    afterAll(async () => {
      await db?.close();
    });

    it(
      'counter tables kept by the ingest functions over random appends equal the full refresh, answers equal plainAnswer',
      async () => {
        await upkeepEqualsRefresh(db, CITUS_RUNS, 20261130);
        // the appends went through the Citus path: the tag tables carry the team, no trigger
        const [layout] = await db.query<{ triggers: string; untagged: string }>(
          `SELECT (SELECT count(*) FROM pg_trigger WHERE tgname = 'tagtrack_upkeep') AS triggers,
                (SELECT count(*) FROM opens WHERE "teamID" IS NULL) AS untagged`,
        );
        expect(layout).toEqual({ triggers: '0', untagged: '0' });
      },
      PROPERTY_TIMEOUT_MS,
    );

    it("the live generator's base (each team's latest tags with their recipients) reads as on one server", async () => {
      const citus = await openSqlEngine({ database: db, load: canonicalDataset });
      await citus.close();
      const single = await openSqlEngine({ load: canonicalDataset });
      try {
        const expected = await liveBase(single.database, 3);
        expect(expected.tags.length).toBeGreaterThan(3);
        expect(await liveBase(db, 3)).toEqual(expected);
      } finally {
        await single.close();
      }
    });
  },
);
