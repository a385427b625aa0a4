import {
  authorizationHeader,
  buildQueryString,
  type EndpointId,
  endpointById,
  type PathParamName,
  parseQuery,
} from '@tagtrack/core';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type TagtrackServer } from '../src/index.ts';

/**
 * The loops of the original public clients (Node, PHP, Python, Java; spec §3, §5 and
 * their Revision 2) run against the reference server in its DEFAULT profile (paging end
 * `no-content`), each as documented, and must end cleanly with every record exactly once:
 * - Python and Java follow `paging.nextURL` until the response body is empty or not JSON; a
 *   null `nextURL` or a JSON body without `data` makes them crash (here: the test fails);
 * - Node loops while `next < total`, sending `cursor`, `total` and `next` on every call, and
 *   reports "No content found" on an empty body;
 * - the source document's examples call until the returned result is empty, waiting one
 *   second between calls (the wait is injected: no real time passes).
 * Signing: Node and Python sign the URL-encoded query they send, PHP the percent-decoded one
 * (`+` as a space) while sending the encoded one; booleans go out as `true`, `True` and `1`.
 */

const admin = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;
/** A loop that needs more calls than this does not end (the lists here have < 300 records). */
const MAX_CALLS = 100;

/** How one original client writes a query and what it signs. */
interface ClientStyle {
  readonly name: string;
  /** The query string sent for `[name, value]` pairs, no leading `?`. */
  encode(pairs: readonly (readonly [string, string])[]): string;
  /** The string signed for the query string as sent (`raw`, no leading `?`). */
  signed(raw: string): string;
  /** How the client writes a true boolean. */
  readonly true: string;
  /** The spelling of the header name the client sends. */
  readonly header: string;
}

/** Percent-encodes like `encodeURIComponent`, then also the characters in `extra`, and writes a space as `+` when `plus`. */
function formEncoder(extra: RegExp, plus: boolean) {
  const one = (s: string) => {
    const e = encodeURIComponent(s).replace(
      extra,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
    );
    return plus ? e.replace(/%20/g, '+') : e;
  };
  return (pairs: readonly (readonly [string, string])[]) =>
    pairs.map(([k, v]) => `${one(k)}=${one(v)}`).join('&');
}

/** PHP's `urldecode`: `%XX` decoded, `+` read as a space. */
function urldecode(raw: string): string {
  return decodeURIComponent(raw.replace(/\+/g, ' '));
}

const NODE: ClientStyle = {
  name: 'Node',
  encode: buildQueryString, // encodeURIComponent; space as %20
  signed: (raw) => raw,
  true: 'true',
  header: 'authorization',
};
const PYTHON: ClientStyle = {
  name: 'Python',
  encode: formEncoder(/[!'()*]/g, true), // urllib.parse.urlencode (quote_plus)
  signed: (raw) => raw,
  true: 'True', // str(True)
  header: 'Authorization',
};
const PHP: ClientStyle = {
  name: 'PHP',
  encode: formEncoder(/[!'()*~]/g, true), // http_build_query (urlencode)
  signed: urldecode, // signs the decoded query, sends the encoded one
  true: '1', // http_build_query writes true as 1
  header: 'Authorization',
};
const JAVA: ClientStyle = {
  name: 'Java',
  encode: formEncoder(/[!'()~]/g, true), // URLEncoder.encode(value, UTF_8)
  signed: (raw) => raw, // the raw query it sends
  true: 'true',
  header: 'Authorization',
};
const STYLES = [NODE, PYTHON, PHP, JAVA] as const;

/** A response as a client sees it. */
interface Reply {
  readonly status: number;
  readonly body: string;
}
/** Sends a GET to an absolute URL with the given headers. */
type Transport = (url: string, headers: Record<string, string>) => Promise<Reply>;

function inMemory(server: TagtrackServer): Transport {
  return async (url, headers) => {
    const res = await server.fetch(new Request(url, { headers }));
    return { status: res.status, body: await res.text() };
  };
}
const overSocket: Transport = async (url, headers) => {
  const res = await fetch(url, { headers });
  return { status: res.status, body: await res.text() };
};

/** GET `url` signed the way `style` signs: over the query exactly as it appears in `url`. */
function signedGet(transport: Transport, style: ClientStyle, url: string): Promise<Reply> {
  const q = url.indexOf('?');
  const raw = q < 0 ? '' : url.slice(q + 1);
  const header = authorizationHeader(admin.authId, admin.accessKey, style.signed(raw));
  return transport(url, { [style.header]: header });
}

/** The parts of a list body the original clients read. */
interface ListBody {
  readonly data: unknown[];
  readonly paging: {
    readonly nextURL?: unknown;
    readonly cursors: { next: number; total: number };
  };
}

/** The body of a list page, or a thrown error saying how the original client would crash. */
function listBody(reply: Reply, url: string): ListBody {
  const body = JSON.parse(reply.body) as { data?: unknown; paging?: unknown };
  if (reply.status !== 200 || !Array.isArray(body.data) || typeof body.paging !== 'object') {
    throw new Error(
      `the client would crash: ${reply.status} without data/paging for ${url}: ${reply.body.slice(0, 200)}`,
    );
  }
  return body as ListBody;
}

/** What a loop collected and how it ended. */
interface LoopResult {
  readonly records: unknown[];
  readonly statuses: number[];
  readonly urls: string[];
  /** Messages the client prints (Node: "No content found"). */
  readonly log: string[];
}

/**
 * Python / Java: GET `firstUrl`, then `paging.nextURL`, until the body is empty or not JSON.
 * Throws when the original would crash (`nextURL` null, a body without `data`) or loop on.
 */
async function followNextUrl(
  transport: Transport,
  style: ClientStyle,
  firstUrl: string,
): Promise<LoopResult> {
  const out: LoopResult = { records: [], statuses: [], urls: [], log: [] };
  let url = firstUrl;
  for (;;) {
    if (out.urls.length >= MAX_CALLS) throw new Error(`the loop does not end: ${url}`);
    out.urls.push(url);
    const reply = await signedGet(transport, style, url);
    out.statuses.push(reply.status);
    if (reply.body === '') return out;
    try {
      JSON.parse(reply.body);
    } catch {
      return out;
    }
    const body = listBody(reply, url);
    out.records.push(...body.data);
    const next = body.paging.nextURL;
    if (typeof next !== 'string') {
      throw new Error(`the client would crash: nextURL is ${JSON.stringify(next)} at ${url}`);
    }
    url = next;
  }
}

/**
 * Node: loops while `next < total`, sending `cursor`, `total` and `next` (starting at 0) after
 * the filters on every call; an empty body prints "No content found" and ends the loop.
 */
async function nodeLoop(
  transport: Transport,
  base: string,
  path: string,
  filters: readonly (readonly [string, string])[],
): Promise<LoopResult> {
  const out: LoopResult = { records: [], statuses: [], urls: [], log: [] };
  let cursors = { cursor: 0, total: 0, next: 0 };
  do {
    if (out.urls.length >= MAX_CALLS) throw new Error(`the loop does not end: ${path}`);
    const query = NODE.encode([
      ...filters,
      ['cursor', String(cursors.cursor)],
      ['total', String(cursors.total)],
      ['next', String(cursors.next)],
    ]);
    const url = `${base}${path}?${query}`;
    out.urls.push(url);
    const reply = await signedGet(transport, NODE, url);
    out.statuses.push(reply.status);
    if (reply.body === '') {
      out.log.push('No content found');
      break;
    }
    const body = listBody(reply, url);
    out.records.push(...body.data);
    const { next, total } = body.paging.cursors;
    cursors = { cursor: next, total, next };
  } while (cursors.next < cursors.total);
  return out;
}

/**
 * The source document's examples: call with the cursor of the previous answer until the
 * returned result is empty (an empty body or no records), waiting between calls with `wait`.
 */
async function untilEmpty(
  transport: Transport,
  style: ClientStyle,
  base: string,
  path: string,
  filters: readonly (readonly [string, string])[],
  wait: (ms: number) => Promise<void>,
): Promise<LoopResult> {
  const out: LoopResult = { records: [], statuses: [], urls: [], log: [] };
  let cursor = 0;
  for (;;) {
    if (out.urls.length >= MAX_CALLS) throw new Error(`the loop does not end: ${path}`);
    if (out.urls.length > 0) await wait(1000);
    const url = `${base}${path}?${style.encode([...filters, ['cursor', String(cursor)]])}`;
    out.urls.push(url);
    const reply = await signedGet(transport, style, url);
    out.statuses.push(reply.status);
    if (reply.body === '') return out;
    const body = listBody(reply, url);
    if (body.data.length === 0) return out;
    out.records.push(...body.data);
    cursor = body.paging.cursors.next;
  }
}

/** One list request of a test: endpoint, path parameters and filters (booleans per style). */
interface Case {
  readonly label: string;
  readonly id: EndpointId;
  readonly pathParams?: Partial<Record<PathParamName, string>>;
  readonly filters: readonly (readonly [string, string | boolean])[];
}

const CASES: readonly Case[] = [
  { label: 'teams.tags, no filter', id: 'teams.tags', filters: [] },
  {
    label: 'teams.tags, start/end and isOpened',
    id: 'teams.tags',
    filters: [
      ['start', '2024-01-01'],
      ['end', '2025-12-31'],
      ['isOpened', true],
    ],
  },
  {
    label: 'teams.tags, isClicked and rtn=json',
    id: 'teams.tags',
    filters: [
      ['isClicked', true],
      ['rtn', 'json'],
    ],
  },
  {
    label: 'teams.memberTags of the admin',
    id: 'teams.memberTags',
    pathParams: { memberID: admin.memberID },
    filters: [['isUnclicked', true]],
  },
  { label: 'contacts', id: 'contacts.list', filters: [] },
  { label: 'contacts, rtn=json', id: 'contacts.list', filters: [['rtn', 'json']] },
  { label: 'opens groups', id: 'opens.list', filters: [] },
  { label: 'clicks groups, start', id: 'clicks.list', filters: [['start', '2024-01-01']] },
  {
    label: 'an empty result (isOpened and isUnopened)',
    id: 'teams.tags',
    filters: [
      ['isOpened', true],
      ['isUnopened', true],
    ],
  },
];

function pathOf(c: Case): string {
  return endpointById(c.id).path.replace(/\{(\w+)\}/g, (_, name: PathParamName) =>
    encodeURIComponent(c.pathParams?.[name] ?? ''),
  );
}

function filtersIn(c: Case, style: ClientStyle): [string, string][] {
  return c.filters.map(([k, v]) => [k, v === true ? style.true : String(v)]);
}

/** Every record of the case for the admin, from the server's index (no paging). */
function fullList(server: TagtrackServer, c: Case): readonly unknown[] {
  const endpoint = endpointById(c.id);
  const caller = server.index!.credential(admin.authId)!.caller;
  const query = parseQuery(filtersIn(c, NODE), {
    allowed: endpoint.query,
    required: endpoint.requiredQuery,
  });
  const answer = server.index!.answer(caller, {
    endpoint: c.id,
    pathParams: c.pathParams ?? {},
    query,
  });
  if (answer.kind !== 'list') throw new Error(`${c.label}: core answers ${answer.kind}`);
  return answer.records;
}

/** Asserts every record exactly once, in order, and that the walk took the pages it should. */
function expectEveryRecordOnce(got: LoopResult, expected: readonly unknown[], label: string): void {
  expect(got.records, label).toEqual(expected);
  const keys = got.records.map((r) => JSON.stringify(r));
  expect(new Set(keys).size, label).toBe(keys.length);
}

// A page size that divides 150 (all tags) and one that divides none of the lists here.
describe.each([40, 50])('reference server, default profile, page size %i', (pageSize) => {
  const server = createServer({ pageSize });
  const memory = inMemory(server);
  const BASE = 'http://127.0.0.1';

  describe('Python: follows paging.nextURL until the body is empty or not JSON', () => {
    test.each(CASES.map((c) => [c.label, c] as const))('%s', async (label, c) => {
      const expected = fullList(server, c);
      const query = PYTHON.encode(filtersIn(c, PYTHON));
      const first = `${BASE}${pathOf(c)}${query === '' ? '' : `?${query}`}`;
      const got = await followNextUrl(memory, PYTHON, first);
      expectEveryRecordOnce(got, expected, label);
      // one request per non-empty page, then the 204 that ends the loop
      expect(got.statuses).toEqual([
        ...Array(Math.ceil(expected.length / pageSize)).fill(200),
        204,
      ]);
    });
  });

  describe('Node: loops while next < total, sending cursor, total and next', () => {
    test.each(CASES.map((c) => [c.label, c] as const))('%s', async (label, c) => {
      const expected = fullList(server, c);
      const got = await nodeLoop(memory, BASE, pathOf(c), filtersIn(c, NODE));
      expectEveryRecordOnce(got, expected, label);
      if (expected.length === 0) {
        expect(got.log).toEqual(['No content found']);
        expect(got.statuses).toEqual([204]);
      } else {
        expect(got.log).toEqual([]);
        expect(got.statuses).toEqual(Array(Math.ceil(expected.length / pageSize)).fill(200));
      }
    });
  });

  describe("the source document's loop: until the result is empty, waiting between calls", () => {
    test.each(CASES.map((c) => [c.label, c] as const))('%s', async (label, c) => {
      const expected = fullList(server, c);
      const waits: number[] = [];
      const wait = async (ms: number) => {
        waits.push(ms);
      };
      const got = await untilEmpty(memory, NODE, BASE, pathOf(c), filtersIn(c, NODE), wait);
      expectEveryRecordOnce(got, expected, label);
      const calls = Math.ceil(expected.length / pageSize) + 1;
      expect(got.statuses).toEqual([...Array(calls - 1).fill(200), 204]);
      expect(waits).toEqual(Array(calls - 1).fill(1000));
    });
  });

  describe('signing variants: a query with spaces and reserved characters, booleans per client', () => {
    const TRICKY = 'a b+c&';
    const variants = STYLES.flatMap((style) =>
      CASES.filter((c) => c.id !== 'teams.memberTags').map(
        (c) => [`${style.name}: ${c.label}`, style, c] as const,
      ),
    );

    test.each(variants)('%s, following nextURL', async (label, style, c) => {
      const expected = fullList(server, c);
      const pairs = [...filtersIn(c, style), ['total', TRICKY] as [string, string]];
      const query = style.encode(pairs);
      expect(new URLSearchParams(query).get('total')).toBe(TRICKY);
      const got = await followNextUrl(memory, style, `${BASE}${pathOf(c)}?${query}`);
      expectEveryRecordOnce(got, expected, label);
      // nextURL keeps the query as sent, only cursor replaced
      for (const url of got.urls.slice(1)) {
        expect(url.slice(url.indexOf('?') + 1)).toBe(
          `${query}&cursor=${new URL(url).searchParams.get('cursor')}`,
        );
      }
    });

    test.each(variants)('%s, until the result is empty', async (label, style, c) => {
      const expected = fullList(server, c);
      const filters: [string, string][] = [
        ...filtersIn(c, style),
        ['total', TRICKY],
        ['next', '(x)!*~'],
      ];
      const got = await untilEmpty(memory, style, BASE, pathOf(c), filters, async () => {});
      expectEveryRecordOnce(got, expected, label);
    });

    test('the PHP style really signs a string other than the one it sends', () => {
      const sent = PHP.encode([
        ['isOpened', PHP.true],
        ['total', TRICKY],
      ]);
      expect(sent).toBe('isOpened=1&total=a+b%2Bc%26');
      expect(PHP.signed(sent)).toBe('isOpened=1&total=a b+c&');
      expect(PYTHON.encode([['total', TRICKY]])).toBe('total=a+b%2Bc%26');
      expect(NODE.encode([['total', TRICKY]])).toBe('total=a%20b%2Bc%26');
    });
  });
});

describe('Java: follows paging.nextURL over a real socket (127.0.0.1, port 0, real fetch)', () => {
  const server = createServer({ pageSize: 40 });
  let base = '';
  beforeAll(async () => {
    base = await server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.close();
  });

  test.each(CASES.map((c) => [c.label, c] as const))('%s', async (label, c) => {
    const expected = fullList(server, c);
    const query = JAVA.encode(filtersIn(c, JAVA));
    const got = await followNextUrl(
      overSocket,
      JAVA,
      `${base}${pathOf(c)}${query === '' ? '' : `?${query}`}`,
    );
    expectEveryRecordOnce(got, expected, label);
    // every link is on the URL the server listens on
    for (const url of got.urls) expect(url.startsWith(`${base}/`), url).toBe(true);
    expect(got.statuses.at(-1)).toBe(204);
  });

  test('Node over the socket: "No content found" only for an empty result', async () => {
    const empty = CASES.at(-1)!;
    const got = await nodeLoop(overSocket, base, pathOf(empty), filtersIn(empty, NODE));
    expect(got).toMatchObject({ records: [], log: ['No content found'], statuses: [204] });
    const contacts = CASES.find((c) => c.id === 'contacts.list')!;
    const all = await nodeLoop(overSocket, base, pathOf(contacts), []);
    expectEveryRecordOnce(all, fullList(server, contacts), 'contacts');
    expect(all.log).toEqual([]);
  });
});
