import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Answer,
  type Caller,
  ENDPOINT_LIST,
  type Endpoint,
  type PathParamName,
  parseQuery,
  parseText,
  type ReportingIndex,
  toTable,
  utcDay,
} from '@tagtrack/core';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { buildIndex } from '@tagtrack/engine';
import { createServer, type TagtrackServer } from '@tagtrack/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApiError, ResponseValidationError, TimeoutError } from '../src/errors.ts';
import { createClient, queryPairs, type TagtrackClient } from '../src/index.ts';
import { FakeClock } from './fakes.ts';

const PAGE_SIZE = 7;
let server: TagtrackServer;
let baseUrl: string;
let index: ReportingIndex;

beforeAll(async () => {
  server = createServer({ pageSize: PAGE_SIZE });
  baseUrl = await server.listen(0, '127.0.0.1');
  index = buildIndex(canonicalDataset);
});
afterAll(async () => {
  await server.close();
});

type Credential = (typeof CANONICAL_CREDENTIALS)[number];

function clientFor(cred: Credential, extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({ baseUrl, authId: cred.authId, accessKey: cred.accessKey, ...extra });
}

function callerOf(cred: Credential): Caller {
  return index.credential(cred.authId)!.caller;
}

/** A window covering the middle half of the dataset's send days. */
function middleWindow(): { start: string; end: string } {
  const days = canonicalDataset.tags.map((t) => utcDay(Date.parse(t.dateSent))).sort();
  return {
    start: days[Math.floor(days.length / 4)]!,
    end: days[Math.floor((3 * days.length) / 4)]!,
  };
}

/** Whether the caller's member has a group. */
function hasGroup(caller: Caller): boolean {
  const team = canonicalDataset.teams.find((t) => t.teamID === caller.teamID)!;
  return team.members.find((m) => m.memberID === caller.memberID)?.groupID !== undefined;
}

/** Path parameters a caller can see, taken from core's answers for that caller. */
function pathParamsFor(e: Endpoint, caller: Caller): Partial<Record<PathParamName, string>> {
  const team = canonicalDataset.teams.find((t) => t.teamID === caller.teamID)!;
  const self = team.members.find((m) => m.memberID === caller.memberID)!;
  const group = team.groups.find((g) => g.groupID === self.groupID) ?? team.groups[0]!;
  const tag = index.tags(caller, {})![0]!;
  const params: Partial<Record<PathParamName, string>> = {};
  for (const p of e.pathParams) {
    if (p === 'memberID') params.memberID = caller.memberID;
    // endpoint 5 by group id, endpoint 7 by group name (spec §6: id first, else name)
    if (p === 'group') params.group = e.id === 'teams.group' ? group.groupID : group.groupName;
    if (p === 'tagID') params.tagID = tag.tagID;
    if (p === 'contactID') params.contactID = index.contacts(caller)[0]!.contactID;
  }
  return params;
}

/** A query using every parameter the endpoint takes (besides paging). */
function fullQueryFor(e: Endpoint, caller: Caller): Record<string, string | boolean> {
  const tag = index.tags(caller, {})![0]!;
  const q: Record<string, string | boolean> = {};
  for (const name of e.query) {
    if (name === 'start' || name === 'end') q[name] = middleWindow()[name];
    if (name === 'isOpened') q.isOpened = true;
    if (name === 'isUnclicked') q.isUnclicked = true;
    if (name === 'aggregateData') q.aggregateData = e.id !== 'stats.member';
    if (name === 'type') q.type = e.id === 'teams.list' ? 'user' : 'manager';
    if (name === 'date') q.date = utcDay(Date.parse(tag.dateSent));
  }
  return q;
}

/** Core's answer for the same caller and request. */
function expected(
  e: Endpoint,
  caller: Caller,
  pathParams: Partial<Record<PathParamName, string>>,
  query: Record<string, string | boolean>,
): Answer {
  const parsed = parseQuery(queryPairs(e, query), { allowed: e.query, required: e.requiredQuery });
  return index.answer(caller, { endpoint: e.id, pathParams, query: parsed });
}

type AnyMethod = ((...args: unknown[]) => Promise<{ data: unknown }>) & {
  all?: (...args: unknown[]) => AsyncIterable<unknown>;
};
function methodOf(client: TagtrackClient, e: Endpoint): AnyMethod {
  const [resource, action] = e.id.split('.') as [string, string];
  return (client as unknown as Record<string, Record<string, AnyMethod>>)[resource]![action]!;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

// every endpoint walked page by page (page size 7): seconds per credential on a shared machine
describe('every SDK method against the reference server (canonical dataset, page size 7)', {
  timeout: 120_000,
}, () => {
  test.each(CANONICAL_CREDENTIALS.map((c) => [c.label, c] as const))(
    '%s: every endpoint answers what core buildIndex answers for the same caller',
    async (_, cred) => {
      const client = clientFor(cred);
      const caller = callerOf(cred);
      for (const e of ENDPOINT_LIST) {
        const pathParams = pathParamsFor(e, caller);
        const args = e.pathParams.map((p) => pathParams[p]);
        const queries =
          e.requiredQuery.length > 0 ? [fullQueryFor(e, caller)] : [{}, fullQueryFor(e, caller)];
        for (const query of queries) {
          const answer = expected(e, caller, pathParams, query);
          const method = methodOf(client, e);
          const label = `${e.id} ${JSON.stringify(query)}`;
          if (answer.kind === 'list') {
            expect(await collect(method.all!(...args, query)), label).toEqual(answer.records);
          } else if (answer.kind === 'single') {
            expect((await method(...args, query)).data, label).toEqual(answer.record);
          } else if (e.pathParams.includes('group') && !hasGroup(caller)) {
            // a manager or user without a group sees no group (spec §4): the API's 404
            await expect(method(...args, query), label).rejects.toMatchObject({ statusCode: 404 });
          } else {
            throw new Error(`${label}: core answers not_found for a visible id`);
          }
        }
      }
    },
  );

  test('typed calls: ids and names, one page with paging, rtn text and html carry the same records', async () => {
    const cred = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;
    const caller = callerOf(cred);
    const client = clientFor(cred);
    const team = canonicalDataset.teams[0]!;
    const group = team.groups[0]!;

    const page = await client.teams.tags({ isOpened: true });
    const all = index.tags(caller, { isOpened: true })!;
    expect(page.data).toEqual(all.slice(0, PAGE_SIZE));
    expect(page.paging.cursors).toEqual({ previous: 0, next: PAGE_SIZE, total: all.length });

    const second = await client.teams.tags({ isOpened: true, cursor: PAGE_SIZE });
    expect(second.data).toEqual(all.slice(PAGE_SIZE, 2 * PAGE_SIZE));

    expect(await collect(client.teams.group.all(group.groupName))).toEqual(
      index.groupMembers(caller, group.groupName),
    );
    const [agg] = (await client.stats.group(group.groupID, { aggregateData: true })).data;
    expect(agg).toEqual(
      index.stats(caller, {
        subject: { kind: 'group', group: group.groupID },
        aggregateData: true,
      })![0],
    );

    const text = await client.teams.list({}, { rtn: 'text' });
    const members = index.members(caller);
    expect(parseText(text)).toEqual(toTable(ENDPOINT_LIST[0]!, members.slice(0, PAGE_SIZE)));
    const html = await client.teams.list({}, { rtn: 'html' });
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain(members[0]!.memberID);
  });

  test('pagination over more than one page returns every record exactly once', async () => {
    const cred = CANONICAL_CREDENTIALS[0]!;
    const urls: string[] = [];
    const counting: typeof fetch = (input, init) => {
      urls.push(String(input));
      return fetch(input, init);
    };
    const client = clientFor(cred, { fetch: counting });
    const tags = await collect(client.teams.tags.all());
    const expectedTags = index.tags(callerOf(cred), {})!;
    expect(expectedTags.length).toBeGreaterThan(3 * PAGE_SIZE);
    expect(tags).toEqual(expectedTags);
    expect(new Set(tags.map((t) => t.tagID)).size).toBe(tags.length);
    expect(urls).toHaveLength(Math.ceil(expectedTags.length / PAGE_SIZE));
  });

  test('a paced client keeps the configured rate against the server (fake clock)', async () => {
    const clock = new FakeClock();
    const sentAt: number[] = [];
    const timed: typeof fetch = (input, init) => {
      sentAt.push(clock.now());
      return fetch(input, init);
    };
    const client = clientFor(CANONICAL_CREDENTIALS[0]!, { fetch: timed, clock, rateLimit: 5 });
    const contacts = await collect(client.contacts.list.all());
    expect(contacts.length).toBeGreaterThan(2 * PAGE_SIZE);
    const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i]!);
    expect(gaps.length).toBeGreaterThan(1);
    expect(new Set(gaps)).toEqual(new Set([200]));
  });

  test('API errors carry the server error body: 404 unknown id, 400 bad date, 401 wrong key', async () => {
    const cred = CANONICAL_CREDENTIALS[0]!;
    const client = clientFor(cred);
    const notFound = await client.teams.member('000000000000000000000000').catch((e) => e);
    expect(notFound).toBeInstanceOf(ApiError);
    expect(notFound).toMatchObject({ statusCode: 404, error: 'Not Found', method: 'GET' });

    const badDate = await client.teams.tags({ start: '2024-02-30' }).catch((e) => e);
    expect(badDate).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(badDate.message).toContain('start');

    const wrongKey = createClient({ baseUrl, authId: cred.authId, accessKey: 'wrong' });
    expect(await wrongKey.contacts.list().catch((e) => e)).toMatchObject({ statusCode: 401 });
  });
});

describe('rate limit (server started with a limit; client and server share a fake clock)', () => {
  async function run(faults: readonly 'rate-limit-no-retry-after'[]) {
    const clock = new FakeClock();
    const limited = createServer({
      rateLimit: { limit: 2, windowMs: 1000 },
      clock: () => clock.now(),
      faults,
    });
    const url = await limited.listen(0, '127.0.0.1');
    try {
      const statuses: number[] = [];
      const sentAt: number[] = [];
      const observing: typeof fetch = async (input, init) => {
        sentAt.push(clock.now());
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      };
      const cred = CANONICAL_CREDENTIALS[0]!;
      const client = createClient({
        baseUrl: url,
        authId: cred.authId,
        accessKey: cred.accessKey,
        fetch: observing,
        clock,
      });
      for (let i = 0; i < 5; i++) await client.teams.member(cred.memberID);
      return { statuses, sentAt };
    } finally {
      await limited.close();
    }
  }

  test('429 with Retry-After: the client waits and retries until every call succeeds', async () => {
    const { statuses, sentAt } = await run([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses).toContain(429);
    // every retry after a 429 went out in a later window
    statuses.forEach((s, i) => {
      if (s === 429)
        expect(Math.floor(sentAt[i + 1]! / 1000)).toBeGreaterThan(Math.floor(sentAt[i]! / 1000));
    });
  });

  test('429 without Retry-After: the client waits until X-Rate-Limit-Reset', async () => {
    const { statuses } = await run(['rate-limit-no-retry-after']);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses).toContain(429);
  });
});

/** A raw HTTP server on 127.0.0.1:0 with a fixed behaviour. */
async function rawServer(
  handler: Parameters<typeof createHttpServer>[1],
): Promise<{ url: string; server: Server }> {
  const s = createHttpServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, server: s };
}
async function closeRaw(s: Server): Promise<void> {
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
}

describe('misbehaving servers', () => {
  test('a server that never answers gives a TimeoutError', async () => {
    const { url, server: s } = await rawServer(() => {
      // never respond
    });
    try {
      const client = createClient({ baseUrl: url, authId: 'a', accessKey: 'k', timeoutMs: 150 });
      const started = Date.now();
      const err = await client.teams.list().catch((e) => e);
      expect(err).toBeInstanceOf(TimeoutError);
      expect(Date.now() - started).toBeLessThan(60_000);
    } finally {
      await closeRaw(s);
    }
  });

  test('a server answering the wrong shape gives a ResponseValidationError naming the field', async () => {
    const { url, server: s } = await rawServer((_, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          data: [{ memberID: 'm1', lastname: 'X', email: 'x@y', accountType: 'boss' }],
          paging: { cursors: { previous: 0, next: 1, total: 1 }, previousURL: null, nextURL: null },
        }),
      );
    });
    try {
      const client = createClient({ baseUrl: url, authId: 'a', accessKey: 'k' });
      const err = await client.teams.list().catch((e) => e);
      expect(err).toBeInstanceOf(ResponseValidationError);
      expect(err.path).toBe('data[0].firstname');
      expect(err.issues.map((i: { path: PropertyKey[] }) => i.path.join('.'))).toEqual([
        'data.0.firstname',
        'data.0.accountType',
      ]);
    } finally {
      await closeRaw(s);
    }
  });
});
