import {
  type Caller,
  ENDPOINT_LIST,
  type Endpoint,
  type EndpointRequest,
  type PagingEnd,
  type PathParamName,
  type RecordWindow,
  type ReportingEngine,
  type ReportingIndex,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { buildIndex } from '@tagtrack/engine';
import { describe, expect, test } from 'vitest';
import { createServer, ServerOptionsError, type TagtrackServer } from '../src/index.ts';
import { credential, get } from './helpers.ts';

const index = buildIndex(canonicalDataset);

/**
 * A SQL engine as the server sees one, without a database: the in-memory index answering
 * only the window of a list when asked one (core's `AnswerSlice`), counting what it was asked.
 */
function windowedEngine(over: ReportingIndex): ReportingEngine & {
  readonly asked: { windows: number; whole: number };
} {
  const asked = { windows: 0, whole: 0 };
  return {
    name: 'pglite',
    servesWindows: true,
    asked,
    credential: (authId) => over.credential(authId),
    answer: async (caller: Caller, request: EndpointRequest, window?: RecordWindow) => {
      const whole = over.answer(caller, request);
      if (window === undefined || whole.kind !== 'list') {
        if (whole.kind === 'list') asked.whole++;
        return whole;
      }
      asked.windows++;
      const { offset, limit } = window;
      return {
        kind: 'slice',
        records: whole.records.slice(offset, offset + limit),
        offset,
        total: whole.records.length,
      };
    },
    close: async () => {},
  };
}

const admin = credential(1, 'admin');
const adminCaller: Caller = {
  memberID: admin.memberID,
  teamID: admin.teamID,
  accountType: 'admin',
};

/** A path of `e` in the team 1 admin's scope (ids from the index) and its required query. */
function target(e: Endpoint): { path: string; query: string } {
  const tag = index
    .tags(adminCaller, {})!
    .find((t) => t.stats.totalOpens > 0 && t.stats.totalClicks > 0)!;
  const params: Record<PathParamName, string> = {
    memberID: admin.memberID,
    group: canonicalDataset.teams.find((t) => t.teamID === admin.teamID)!.groups[0]!.groupID,
    tagID: tag.tagID,
    contactID: index.contacts(adminCaller)[0]!.contactID,
  };
  const path = e.path.replace(/\{(\w+)\}/g, (_, n: PathParamName) => encodeURIComponent(params[n]));
  const day = index.tagOpens(adminCaller, tag.tagID)![0]!.openDate.slice(0, 10);
  return { path, query: e.requiredQuery.includes('date') ? `date=${day}` : '' };
}

/** What a client sees of a response: status, the headers of paging and format, the body. */
async function seen(res: Response) {
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    total: res.headers.get('x-total-count'),
    link: res.headers.get('link'),
    body: await res.text(),
  };
}

/** The list's length for the admin (the X-Total-Count of its first page). */
async function totalOf(server: TagtrackServer, path: string): Promise<number> {
  const res = await get(server, path);
  return Number(res.headers.get('x-total-count'));
}

const LISTS = ENDPOINT_LIST.filter((e) => e.response === 'list');
const SINGLES = ENDPOINT_LIST.filter((e) => e.response === 'single');

describe.each([
  [1, 'no-content'],
  [7, 'empty-page'],
  [250, 'no-content'],
  [3, 'empty-page'],
] as [number, PagingEnd][])('page size %i, paging end %s', (pageSize, pagingEnd) => {
  const memory = createServer({ pageSize, pagingEnd });
  const engine = windowedEngine(index);
  const sql = createServer({ pageSize, pagingEnd, engine });

  test.each(LISTS.map((e) => [e.path, e] as const))(
    'a windowed page of %s is the page of the whole list: status, X-Total-Count, Link and body, at cursors 0, middle, last, end, past the end and 10^20 - 1',
    async (_path, e) => {
      const { path } = target(e);
      const total = await totalOf(memory, path);
      const lastPage = total === 0 ? 0 : Math.floor((total - 1) / pageSize) * pageSize;
      // distinct: the response cache replays a request sent twice, without asking the store
      const cursors = new Set([
        '0',
        String(Math.floor(total / 2)),
        String(Math.max(total - 1, 0)),
        String(lastPage),
        String(total),
        String(total + 5),
        '99999999999999999999',
      ]);
      const before = engine.asked.windows;
      for (const cursor of cursors) {
        for (const query of [`cursor=${cursor}`, `rtn=text&cursor=${cursor}`]) {
          const expected = await seen(await get(memory, path, query));
          expect(await seen(await get(sql, path, query)), `${path}?${query}`).toEqual(expected);
        }
      }
      expect(engine.asked.windows - before).toBe(cursors.size * 2);
      expect(engine.asked.whole).toBe(0);
    },
  );

  test('a HEAD of a windowed page sends the GET headers without a body', async () => {
    const query = `cursor=${pageSize}`;
    const expected = await seen(await get(memory, '/contacts', query, { method: 'HEAD' }));
    expect(await seen(await get(sql, '/contacts', query, { method: 'HEAD' }))).toEqual(expected);
  });

  test.each(SINGLES.map((e) => [e.path, e] as const))(
    'a single-object endpoint %s answers as from the in-memory index',
    async (_path, e) => {
      const { path, query } = target(e);
      const expected = await seen(await get(memory, path, query));
      expect(expected.status).toBe(200);
      expect(await seen(await get(sql, path, query))).toEqual(expected);
    },
  );
});

describe('what reads whole lists asks the engine for whole lists', () => {
  test.each([
    ['the store variant extra-fields', { variants: ['extra-fields'] }],
    [
      'the store variant contact-ids-alternative (with the dataset)',
      { variants: ['contact-ids-alternative'], dataset: canonicalDataset },
    ],
    ['the paging fault page-overlap', { faults: ['page-overlap'] }],
  ] as const)(
    '%s: no window is asked and pages are the in-memory server’s',
    async (_label, options) => {
      const memory = createServer({ ...options, pageSize: 5 });
      const engine = windowedEngine(index);
      const sql = createServer({ ...options, pageSize: 5, engine });
      for (const [path, query] of [
        ['/contacts', 'cursor=5'],
        ['/teams/tags', 'cursor=0'],
        ['/opens', 'cursor=10'],
      ] as const) {
        const expected = await seen(await get(memory, path, query));
        expect(await seen(await get(sql, path, query)), `${path}?${query}`).toEqual(expected);
      }
      expect(engine.asked.windows).toBe(0);
      expect(engine.asked.whole).toBeGreaterThan(0);
    },
  );
});

describe('an engine option (createServer)', () => {
  const engine = windowedEngine(index);

  test('has no in-memory index, and says which engine answers', () => {
    const server = createServer({ engine });
    expect(server.index).toBeUndefined();
    expect(server.engine.name).toBe('pglite');
    expect(server.engine.servesWindows).toBe(true);
    expect(createServer().engine.name).toBe('memory');
    expect(createServer().engine.servesWindows).toBe(false);
  });

  test('refuses a store fault, naming it and the in-memory engine it needs', () => {
    expect(() => createServer({ engine, faults: ['unique-opens-as-total'] })).toThrow(
      ServerOptionsError,
    );
    expect(() => createServer({ engine, faults: ['unique-opens-as-total'] })).toThrow(
      /fault unique-opens-as-total .*needs the in-memory engine, not pglite/,
    );
  });

  test('accepts a fault of another layer (paging)', () => {
    expect(createServer({ engine, faults: ['page-overlap'] }).engine).toBe(engine);
  });

  test('refuses live data', () => {
    expect(() => createServer({ engine, live: { rate: 1 } })).toThrow(
      /live data needs the in-memory engine/,
    );
  });

  test('refuses a store variant that reads the dataset when no dataset is given', () => {
    expect(() => createServer({ engine, variants: ['contact-ids-alternative'] })).toThrow(
      /variant contact-ids-alternative needs the dataset the pglite engine serves/,
    );
    expect(() => createServer({ engine, variants: ['event-recipient-email-as-sent'] })).toThrow(
      ServerOptionsError,
    );
  });
});
