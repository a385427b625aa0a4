import {
  type Caller,
  contactIdOf,
  type EndpointRequest,
  normaliseEmail,
  type RecordWindow,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPostgres } from '../src/sql/database.ts';
import { openSqlEngine, type SqlEngine } from '../src/sql/engine.ts';
import { testCitusUrl } from './databases.ts';

/*
 * On a Citus coordinator (TAGTRACK_TEST_CITUS_URL, scripts/citus-cluster.sh: a coordinator
 * and two workers) every request of every endpoint is routed to the one shard holding the
 * caller's team (docs/sql.md §5). Shown through EXPLAIN: auto_explain sends the plan of every
 * statement a request runs (the nested ones inside the engine's functions too) to the test
 * as a notice, and each plan that reads a distributed table must be a Citus plan of one task
 * (`Task Count: 1`), on the team's worker, reading the team's shards only.
 */

/** The distributed tables of the layout (sql/citus/layout.sql). */
const DISTRIBUTED = [
  'tags',
  'recipients',
  'opens',
  'clicks',
  'tagtrack_tag_counters',
  'tagtrack_tag_scopes',
  'tagtrack_contact_tags',
  'tagtrack_contact_scopes',
  'tagtrack_member_days',
  'tagtrack_scope_days',
];
/** Endpoints 1, 3 and 5: members, read from reference tables (a copy on every node). */
const MEMBER_ENDPOINTS = new Set(['teams.list', 'teams.member', 'teams.group']);
const SHARD_NAME = new RegExp(`\\b(${DISTRIBUTED.join('|')})_(\\d+)\\b`, 'g');

/** A Database over one connection whose notices (auto_explain's plans) are collected. */
async function explainingDatabase(url: string): Promise<{ db: Database; plans: string[] }> {
  const client = new pg.Client({ connectionString: url, options: '-c TimeZone=UTC -c jit=off' });
  await client.connect();
  const plans: string[] = [];
  client.on('notice', (n) => {
    if (n.message?.includes('plan:')) plans.push(n.message);
  });
  await client.query(
    "SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = 'notice'",
  );
  const db: Database = {
    kind: 'postgres',
    async query<R>(text: string, params: readonly unknown[] = []) {
      return (await client.query(text, [...params])).rows as R[];
    },
    async exec(script) {
      await client.query(script);
    },
    copyCsv() {
      throw new Error('the routing test loads through another connection');
    },
    transaction: (work) => work(db),
    close: () => client.end(),
  };
  return { db, plans };
}

/** The query parameters' defaults (spec §6): no filter, JSON, the first page. */
const DEFAULT_QUERY: EndpointRequest['query'] = {
  rtn: 'json',
  cursor: 0,
  isClicked: false,
  isUnclicked: false,
  isOpened: false,
  isUnopened: false,
  aggregateData: false,
};

/** One request of every endpoint for `caller` of team `teamIndex` of the canonical dataset. */
function requestsOf(teamIndex: number): { caller: Caller; requests: EndpointRequest[] } {
  const team = canonicalDataset.teams[teamIndex]!;
  const admin = team.members.find((m) => m.accountType === 'admin')!;
  const grouped = team.members.find((m) => m.groupID !== undefined)!;
  const caller: Caller = { memberID: admin.memberID, teamID: team.teamID, accountType: 'admin' };
  const members = new Set(team.members.map((m) => m.memberID));
  const tag = canonicalDataset.tags.find(
    (t) => members.has(t.memberID) && canonicalDataset.opens.some((o) => o.tagID === t.tagID),
  )!;
  const contactID = contactIdOf(normaliseEmail(tag.recipients[0]!.email));
  const day = tag.dateSent.slice(0, 10);
  const r = (
    endpoint: EndpointRequest['endpoint'],
    pathParams: EndpointRequest['pathParams'] = {},
    query: Partial<EndpointRequest['query']> = {},
  ): EndpointRequest => ({ endpoint, pathParams, query: { ...DEFAULT_QUERY, ...query } });
  return {
    caller,
    requests: [
      r('teams.list'),
      r('teams.tags', {}, { isOpened: true }),
      r('teams.member', { memberID: grouped.memberID }),
      r('teams.memberTags', { memberID: tag.memberID }),
      r('teams.group', { group: grouped.groupID! }),
      r('stats.team'),
      r('stats.teamAlias', {}, { aggregateData: true }),
      r('stats.group', { group: grouped.groupID! }),
      r('stats.member', { memberID: tag.memberID }),
      r('clicks.list'),
      r('opens.list', {}, { start: day }),
      r('clicks.tag', { tagID: tag.tagID }),
      r('opens.tag', { tagID: tag.tagID }),
      r('tags.daily', { tagID: tag.tagID }, { date: day }),
      r('contacts.list'),
      r('contacts.get', { contactID }),
      r('contacts.tag', { tagID: tag.tagID }),
    ],
  };
}

describe.skipIf(testCitusUrl() === undefined)(
  'on Citus one request of each endpoint touches the one shard of its team (EXPLAIN)',
  () => {
    const url = testCitusUrl()!;
    let loader: Database;
    let explaining: { db: Database; plans: string[] };
    let engine: SqlEngine;
    /** Per team: its worker's port and the names of its shards (table_shardid). */
    const shards = new Map<string, { port: number; names: Set<string> }>();

    beforeAll(async () => {
      loader = await openPostgres(url, 2);
      // the canonical dataset, laid out over the workers (sql/citus/layout.sql)
      await (await openSqlEngine({ database: loader, load: canonicalDataset })).close();
      for (const { teamID } of canonicalDataset.teams) {
        const rows = await loader.query<{ table: string; shard: string; port: number }>(
          `SELECT t AS table, get_shard_id_for_distribution_column(t, $1)::text AS shard,
                  (SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
                   WHERE p.shardid = get_shard_id_for_distribution_column(t, $1)) AS port
           FROM unnest($2::text[]) AS t`,
          [teamID, DISTRIBUTED],
        );
        shards.set(teamID, {
          port: rows[0]!.port,
          names: new Set(rows.map((r) => `${r.table}_${r.shard}`)),
        });
      }
      explaining = await explainingDatabase(url);
      engine = await openSqlEngine({ database: explaining.db });
    }, 600_000);

    afterAll(async () => {
      await engine?.close();
      await explaining?.db.close();
      await loader?.close();
    });

    it("puts the canonical dataset's two teams on different workers", () => {
      const ports = [...shards.values()].map((s) => s.port);
      expect(ports).toHaveLength(2);
      expect(new Set(ports).size).toBe(2);
    });

    for (const teamIndex of [0, 1]) {
      it(`routes every endpoint's request of team ${teamIndex + 1}'s admin to its team's shard on its worker`, async () => {
        const { caller, requests } = requestsOf(teamIndex);
        const own = shards.get(caller.teamID)!;
        const endpoints = new Set<string>();
        for (const request of requests) {
          const window: RecordWindow = { offset: 0, limit: 5 };
          explaining.plans.length = 0;
          const answer = await engine.answer(caller, request, window);
          const where = `${request.endpoint} ${JSON.stringify(request.pathParams)}`;
          expect(answer.kind, where).not.toBe('not_found');
          let distributedPlans = 0;
          for (const plan of explaining.plans) {
            const read = [...plan.matchAll(SHARD_NAME)].map((m) => m[0]);
            if (read.length === 0) continue;
            distributedPlans++;
            const tasks = [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));
            expect(tasks.length, `${where}: a Citus plan\n${plan}`).toBeGreaterThan(0);
            expect(tasks, `${where}: one task per statement\n${plan}`).toEqual(tasks.map(() => 1));
            for (const shard of read)
              expect(own.names, `${where}: ${shard}\n${plan}`).toContain(shard);
            const ports = [...plan.matchAll(/port=(\d+)/g)].map((m) => Number(m[1]));
            expect(ports, `${where}: on the team's worker\n${plan}`).toEqual(
              ports.map(() => own.port),
            );
          }
          // members (1, 3, 5) read reference tables only; every other endpoint reads the team's shard
          if (MEMBER_ENDPOINTS.has(request.endpoint))
            expect(explaining.plans.length, where).toBeGreaterThan(0);
          else expect(distributedPlans, `${where}: reads the team's shard`).toBeGreaterThan(0);
          endpoints.add(request.endpoint);
        }
        expect(endpoints.size).toBe(17);
      }, 600_000);
    }
  },
);
