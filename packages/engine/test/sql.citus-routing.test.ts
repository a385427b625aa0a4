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
 * caller's team (docs/sql.md §5). Shown by what Citus sends: with citus.log_remote_commands
 * every command the coordinator sends to a worker comes back to the test as a notice naming
 * the worker, the statements nested inside the engine's functions included. Each request
 * must send commands to the team's worker only, naming the team's shards only (and read the
 * reference tables on the coordinator itself). EXPLAIN cannot show this: auto_explain of a
 * statement nested in a function makes Citus fetch the task's remote plan inside the running
 * transaction, which fails ("Could not get remote plan") and aborts it.
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

/** A command Citus sent to a node while a request ran: its text and the node's port. */
interface RemoteCommand {
  readonly text: string;
  readonly port: number | null;
}

/** A Database over one connection whose notices (Citus's remote commands) are collected. */
async function loggingDatabase(url: string): Promise<{ db: Database; sent: RemoteCommand[] }> {
  const client = new pg.Client({ connectionString: url, options: '-c TimeZone=UTC -c jit=off' });
  await client.connect();
  const sent: RemoteCommand[] = [];
  client.on('notice', (n) => {
    if (!n.message?.startsWith('issuing ')) return;
    const port = /server [^@]*@[^:]*:(\d+)/.exec(n.detail ?? '')?.[1];
    sent.push({ text: n.message, port: port === undefined ? null : Number(port) });
  });
  await client.query('SET citus.log_remote_commands = on');
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
  return { db, sent };
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
  'on Citus one request of each endpoint touches the one shard of its team',
  () => {
    const url = testCitusUrl()!;
    let loader: Database;
    let logging: { db: Database; sent: RemoteCommand[] };
    let engine: SqlEngine;
    /** Per team: its worker's port and the names of its shards (table_shardid). */
    const shards = new Map<string, { port: number; names: Set<string> }>();

    beforeAll(async () => {
      loader = await openPostgres(url, 2);
      // the canonical dataset, laid out over the workers (sql/citus/layout.sql)
      await (await openSqlEngine({ database: loader, load: canonicalDataset })).close();
      for (const { teamID } of canonicalDataset.teams) {
        const rows = await loader.query<{ table: string; shard: string; port: number }>(
          `SELECT t AS table, get_shard_id_for_distribution_column(t::regclass, $1::text)::text AS shard,
                  (SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
                   WHERE p.shardid = get_shard_id_for_distribution_column(t::regclass, $1::text)) AS port
           FROM unnest($2::text[]) AS t`,
          [teamID, DISTRIBUTED],
        );
        shards.set(teamID, {
          port: rows[0]!.port,
          names: new Set(rows.map((r) => `${r.table}_${r.shard}`)),
        });
      }
      logging = await loggingDatabase(url);
      engine = await openSqlEngine({ database: logging.db });
    }, 600_000);

    afterAll(async () => {
      await engine?.close();
      await logging?.db.close();
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
          logging.sent.length = 0;
          const answer = await engine.answer(caller, request, window);
          const where = `${request.endpoint} ${JSON.stringify(request.pathParams)}`;
          expect(answer.kind, where).not.toBe('not_found');
          const shardsRead = new Set<string>();
          for (const command of logging.sent) {
            // every command of the request goes to the team's worker
            expect(command.port, `${where}: ${command.text.slice(0, 300)}`).toBe(own.port);
            for (const m of command.text.matchAll(SHARD_NAME)) shardsRead.add(m[0]);
          }
          // and reads the team's shards only
          for (const shard of shardsRead) expect(own.names, `${where}: ${shard}`).toContain(shard);
          // members (1, 3, 5) read reference tables only, on the coordinator; every other
          // endpoint reads the team's shard
          if (MEMBER_ENDPOINTS.has(request.endpoint)) expect(shardsRead.size, where).toBe(0);
          else expect(shardsRead.size, `${where}: reads the team's shard`).toBeGreaterThan(0);
          endpoints.add(request.endpoint);
        }
        expect(endpoints.size).toBe(17);
      }, 600_000);
    }
  },
);
