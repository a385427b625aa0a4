import { fc, test as fcTest } from '@fast-check/vitest';
import {
  authorizationHeader,
  ENDPOINT_LIST,
  ErrorBody,
  ListEnvelope,
  matchEndpoint,
  PARAM_NAMES,
  SingleEnvelope,
} from '@tagtrack/core';
import { canonicalDataset as ds } from '@tagtrack/dataset/canonical';
import { expect } from 'vitest';
import { createServer } from '../src/index.ts';
import { BASE, credential } from './helpers.ts';

const server = createServer({ pageSize: 50 });
const admin = credential(1, 'manager');

const knownIds = [
  ds.teams[0]!.members[1]!.memberID,
  ds.teams[1]!.members[0]!.memberID,
  ds.tags[0]!.tagID,
  ds.tags[10]!.tagID,
  ds.teams[0]!.groups[0]!.groupName,
  ds.teams[0]!.groups[1]!.groupID,
];

const hostileSegment = fc.oneof(
  fc.constantFrom('..', '.', '%2e%2e', '%2E%2E', '%zz', '%', '%00', '%2F', '%25', '~', ''),
  fc.constantFrom(...knownIds),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.nat({ max: 5000 }).map((n) => 'x'.repeat(n)),
);

/** A path: a catalogue template with known ids or hostile segments in its placeholders, or any segments. */
const arbPath = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...ENDPOINT_LIST), fc.constantFrom(...knownIds))
      .map(([e, id]) => e.path.replace(/\{\w+\}/g, encodeURIComponent(id))),
  },
  fc
    .tuple(
      fc.constantFrom(...ENDPOINT_LIST),
      fc.array(hostileSegment, { minLength: 4, maxLength: 4 }),
    )
    .map(([e, segs]) => {
      let i = 0;
      return e.path.replace(/\{\w+\}/g, () => segs[i++] ?? '');
    }),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'teams',
          'stats',
          'tags',
          'member',
          'group',
          'contacts',
          'clicks',
          'opens',
          'tag',
          'daily',
        ),
        hostileSegment,
      ),
      { maxLength: 6 },
    )
    .map((segs) => `/${segs.join('/')}`),
);

const arbValue = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('true', '1', 'json', 'text', 'html', '2024-06-01', '0', 'user'),
  },
  fc.constantFrom(
    'true',
    'True',
    '1',
    '0',
    'false',
    'yes',
    '',
    '2024-01-01',
    '2024-02-30',
    '2024-13-01',
    'json',
    'text',
    'html',
    'xml',
    'admin',
    'user',
    '-1',
    '0',
    '250',
    '99999999999999999999',
    '%zz',
    '%',
    '%2e%2e',
    '..',
  ),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.nat({ max: 20_000 }).map((n) => '9'.repeat(n)),
);
const arbName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PARAM_NAMES) },
  fc.constantFrom('isOpen', 'Cursor', 'rtn[]', '', '%zz', 'a%20b'),
  fc.string({ maxLength: 12 }),
);
/** A query string, encoded or sent raw, with repeated and unknown parameters. */
const arbQuery = fc
  .tuple(fc.array(fc.tuple(arbName, arbValue), { maxLength: 4 }), fc.boolean())
  .map(([pairs, encode]) =>
    pairs
      .map(([k, v]) =>
        encode
          ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}`
          : `${k}=${v}`.replace(/#/g, ''),
      )
      .join('&'),
  );

fcTest.prop([
  arbPath,
  arbQuery,
  fc.constantFrom('correct', 'correct', 'wrong', 'none'),
  fc.constantFrom('GET', 'HEAD', 'POST'),
])(
  'the server never answers 5xx: every response is a well-formed ErrorBody or a 200 of the response schema',
  async (path, query, signing, method) => {
    let url: URL;
    try {
      url = new URL(`${BASE}${path}${query === '' ? '' : `?${query}`}`);
    } catch {
      return; // not a URL a client could send
    }
    // sign what the server will receive (the URL parser normalises the raw string)
    const received = url.search.slice(1);
    const headers: Record<string, string> = {};
    if (signing !== 'none') {
      headers.Authorization = authorizationHeader(
        admin.authId,
        signing === 'correct' ? admin.accessKey : 'wrong-key',
        received,
      );
    }
    const res = await server.fetch(new Request(url, { method, headers }));
    expect(res.status).toBeLessThan(500);
    const text = await res.text();
    if (res.status >= 400) {
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      if (method !== 'HEAD') {
        const body = ErrorBody.parse(JSON.parse(text));
        expect(body.statusCode).toBe(res.status);
      }
      return;
    }
    expect(signing).toBe('correct');
    const match = matchEndpoint(url.pathname);
    expect(match).toBeDefined();
    if (res.status === 204) {
      // an empty list page (spec §5 Revision 2): no body, the list headers
      expect(match!.endpoint.response).toBe('list');
      expect(text).toBe('');
      expect(res.headers.get('x-total-count')).toMatch(/^\d+$/);
      return;
    }
    expect(res.status).toBe(200);
    const ct = res.headers.get('content-type');
    if (method === 'HEAD' || ct !== 'application/json; charset=utf-8') {
      expect([
        'text/plain; charset=utf-8',
        'text/html; charset=utf-8',
        'application/json; charset=utf-8',
      ]).toContain(ct);
      return;
    }
    const schema =
      match!.endpoint.response === 'list'
        ? ListEnvelope(match!.endpoint.record)
        : SingleEnvelope(match!.endpoint.record);
    schema.parse(JSON.parse(text));
  },
);

const VALID_VALUES: Record<string, readonly string[]> = {
  rtn: ['json', 'text', 'html'],
  cursor: ['0', '1', '3', '49', '50', '100000'],
  total: ['0', '300', 'anything at all', 'é&='],
  start: ['2023-01-01', '2024-06-01', '2025-12-31'],
  end: ['2024-06-30', '2025-01-01', '2030-01-01'],
  isClicked: ['true', '1', 'True', 'false'],
  isUnclicked: ['true', '0', 'FALSE'],
  isOpened: ['true', '1', 'false'],
  isUnopened: ['true', '0'],
  aggregateData: ['true', 'false', '1'],
  type: ['admin', 'manager', 'user'],
  date: ['2024-06-01', '2025-02-28'],
};

/** A request to a catalogue endpoint with known ids and only its own parameters. */
const arbValidRequest = fc
  .tuple(fc.constantFrom(...ENDPOINT_LIST), fc.constantFrom(...knownIds))
  .chain(([e, id]) =>
    fc.subarray([...e.query]).chain((names) =>
      fc
        .tuple(...names.map((n) => fc.constantFrom(...(VALID_VALUES[n] ?? ['x']))))
        .map((values) => ({
          e,
          path: e.path.replace(/\{\w+\}/g, encodeURIComponent(id)),
          entries: names.map((n, i) => [n, values[i]!] as [string, string]),
        })),
    ),
  );

fcTest.prop([arbValidRequest])(
  'a signed request with the endpoint’s own parameters is never 5xx, and a 200 passes the response schema',
  async ({ e, path, entries }) => {
    const query = new URLSearchParams(entries).toString();
    const res = await server.fetch(
      new Request(`${BASE}${path}${query === '' ? '' : `?${query}`}`, {
        headers: { Authorization: authorizationHeader(admin.authId, admin.accessKey, query) },
      }),
    );
    expect(res.status).toBeLessThan(500);
    const text = await res.text();
    if (res.status === 204) {
      // an empty list page (spec §5 Revision 2)
      expect(e.response).toBe('list');
      expect(text).toBe('');
      return;
    }
    if (res.status !== 200) {
      // only the documented failures: a start after the end, a missing date, an id out of scope
      expect([400, 404]).toContain(res.status);
      ErrorBody.parse(JSON.parse(text));
      return;
    }
    const rtn = (entries.find(([k]) => k === 'rtn')?.[1] ?? 'json').toLowerCase();
    if (rtn !== 'json') return;
    const schema = e.response === 'list' ? ListEnvelope(e.record) : SingleEnvelope(e.record);
    schema.parse(JSON.parse(text));
  },
);
