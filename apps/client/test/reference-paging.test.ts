import {
  type EndpointId,
  endpointById,
  type PagingEnd,
  type PathParamName,
  parseQuery,
} from '@tagtrack/core';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { createServer, type TagtrackServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { createClient, queryPairs, type TagtrackClient } from '../src/index.ts';

/**
 * The client against the reference server in memory (its `fetch`, no socket), in both paging
 * ends of spec §5 Revision 2, with the public base URL of the paging links configured.
 */

const PUBLIC_URL = 'http://tagtrack.memory';
const admin = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;

interface Setup {
  readonly server: TagtrackServer;
  readonly client: TagtrackClient;
  /** URLs of the requests the client sent, in order. */
  readonly sent: string[];
  /** Statuses of the responses, in order. */
  readonly statuses: number[];
}

function setup(pagingEnd: PagingEnd, pageSize: number): Setup {
  const server = createServer({ pageSize, pagingEnd, publicUrl: PUBLIC_URL });
  const sent: string[] = [];
  const statuses: number[] = [];
  const inMemory: typeof fetch = async (input, init) => {
    sent.push(String(input));
    const res = await server.fetch(new Request(input, init));
    statuses.push(res.status);
    return res;
  };
  const client = createClient({
    baseUrl: PUBLIC_URL,
    authId: admin.authId,
    accessKey: admin.accessKey,
    fetch: inMemory,
    rateLimit: 0,
  });
  return { server, client, sent, statuses };
}

/** Every record core's index answers for the admin (the whole list, no paging). */
function fullList(
  server: TagtrackServer,
  id: EndpointId,
  query: Record<string, string | boolean> = {},
  pathParams: Partial<Record<PathParamName, string>> = {},
): readonly unknown[] {
  const endpoint = endpointById(id);
  const caller = server.index!.credential(admin.authId)!.caller;
  const parsed = parseQuery(queryPairs(endpoint, query), {
    allowed: endpoint.query,
    required: endpoint.requiredQuery,
  });
  const answer = server.index!.answer(caller, { endpoint: id, pathParams, query: parsed });
  if (answer.kind !== 'list') throw new Error(`${id}: core answers ${answer.kind}`);
  return answer.records;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const WALKS: readonly {
  id: EndpointId;
  query: Record<string, string | boolean>;
  all: (c: TagtrackClient, q: Record<string, string | boolean>) => AsyncIterable<unknown>;
}[] = [
  { id: 'teams.tags', query: {}, all: (c) => c.teams.tags.all() },
  {
    id: 'teams.tags',
    query: { isOpened: true, start: '2024-01-01' },
    all: (c) => c.teams.tags.all({ isOpened: true, start: '2024-01-01' }),
  },
  { id: 'contacts.list', query: {}, all: (c) => c.contacts.list.all() },
  { id: 'opens.list', query: {}, all: (c) => c.opens.list.all() },
  { id: 'clicks.list', query: {}, all: (c) => c.clicks.list.all() },
];

describe.each(['no-content', 'empty-page'] as const)('paging end %s (reference server)', (end) => {
  // 25 divides 150 tags and 275 does not; 7 divides neither 150 nor 110
  test.each([25, 7])(
    '.all() ends with every record exactly once, one request per page, page size %i',
    async (pageSize) => {
      for (const walk of WALKS) {
        const s = setup(end, pageSize);
        const expected = fullList(s.server, walk.id, walk.query);
        expect(expected.length, walk.id).toBeGreaterThan(pageSize);
        const got = await collect(walk.all(s.client, walk.query));
        expect(got, `${walk.id} ${JSON.stringify(walk.query)}`).toEqual(expected);
        expect(s.sent).toHaveLength(Math.ceil(expected.length / pageSize));
        expect(s.statuses.every((st) => st === 200)).toBe(true);
      }
    },
  );

  test('the last page links past the end (no-content) or not at all (empty-page); past the end is an empty page', async () => {
    const s = setup(end, 25);
    const total = fullList(s.server, 'teams.tags').length;
    expect(total % 25).toBe(0);
    const clicked = fullList(s.server, 'teams.tags', { isClicked: true }).length;
    expect(clicked).toBeGreaterThan(25);
    const lastCursor = Math.floor((clicked - 1) / 25) * 25;
    const lastPage = await s.client.teams.tags({ isClicked: true, cursor: lastCursor });
    expect(lastPage.paging.cursors).toEqual({
      previous: lastCursor - 25,
      next: clicked,
      total: clicked,
    });
    expect(lastPage.paging.nextURL).toBe(
      end === 'no-content' ? `${PUBLIC_URL}/teams/tags?isClicked=true&cursor=${clicked}` : null,
    );

    const past = await s.client.teams.tags({ isClicked: true, cursor: clicked });
    expect(past).toEqual({
      data: [],
      paging: {
        cursors: { previous: clicked - 25, next: clicked, total: clicked },
        previousURL: `${PUBLIC_URL}/teams/tags?isClicked=true&cursor=${clicked - 25}`,
        nextURL: null,
      },
    });
    expect(s.statuses.at(-1)).toBe(end === 'no-content' ? 204 : 200);
  });

  test('an empty result is an empty first page: .all() yields nothing after one request', async () => {
    const s = setup(end, 7);
    const query = { isOpened: true, isUnopened: true } as const;
    expect(await s.client.teams.tags(query)).toEqual({
      data: [],
      paging: { cursors: { previous: 0, next: 0, total: 0 }, previousURL: null, nextURL: null },
    });
    expect(await collect(s.client.teams.tags.all(query))).toEqual([]);
    expect(s.statuses).toEqual(end === 'no-content' ? [204, 204] : [200, 200]);
    const text = await s.client.teams.tags(query, { rtn: 'text' });
    if (end === 'no-content') expect(text).toBe('');
    else expect(text.split('\n')[1] ?? '').toBe(''); // a header row and no record
  });

  test('a query with spaces, reserved characters and a quote is signed as sent and accepted', async () => {
    const s = setup(end, 7);
    const page = await s.client.contacts.list({ total: "it's a b+c&d=e", next: '' });
    expect(page.data).toEqual(fullList(s.server, 'contacts.list').slice(0, 7));
    const raw = await s.client.raw('/teams/tags', [
      ['isOpened', 'True'],
      ['total', 'a b+c&'],
      ['next', '(x)!*'],
    ]);
    expect(raw.status).toBe(200);
  });
});
