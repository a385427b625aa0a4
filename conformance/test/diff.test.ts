import { fc, test as fcTest } from '@fast-check/vitest';
import type { EndpointId } from '@tagtrack/core';
import {
  contactIdOf,
  endpointById,
  normaliseEmail,
  parseJsonExact,
  plainAnswer,
  renderHtml,
  renderText,
  stringifyJson,
  toTable,
} from '@tagtrack/core';
import { arbDatasetWithCaller, arbEndpointRequestFor } from '@tagtrack/core/testing';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { createServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { differences } from '../src/diff/compare.ts';
import { runDiff, sameAnswer } from '../src/diff/differential.ts';
import { observe, type ReceivedResponse, type SideContext } from '../src/diff/observe.ts';
import { runConformance } from '../src/run/runner.ts';
import { failing, MEMORY_BASE_URL, profileFor, runCli, team1Admin } from './helpers.ts';

/** Contact ids by email for a side that names contacts with `idOf`. */
function sideFor(emails: readonly string[], idOf: (email: string) => string, baseUrl: string) {
  return {
    baseUrl,
    contactEmail: new Map(emails.map((e) => [idOf(normaliseEmail(e)), normaliseEmail(e)])),
  } satisfies SideContext;
}

const json = (body: unknown): ReceivedResponse => ({
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify(body),
});

/** Every object's keys in reverse order, an extra field on each, timestamps with milliseconds. */
function freeForm(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(freeForm);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(value))
    return value.replace('Z', '.000Z');
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).reverse();
  return Object.fromEntries([...entries.map(([k, v]) => [k, freeForm(v)]), ['vendorNote', 'x']]);
}

/** Contact ids of another scheme (ids are free): the email reversed. */
const otherId = (email: string) => `c-${[...email].reverse().join('')}`;

function withOtherIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withOtherIds);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withOtherIds(v);
  const email = typeof out.email === 'string' ? normaliseEmail(out.email) : undefined;
  for (const key of ['contactID', 'recipientID'])
    if (typeof out[key] === 'string' && email !== undefined) out[key] = otherId(email);
  return out;
}

describe('diff: what the profile leaves free never shows as a difference', () => {
  fcTest.prop(
    [
      arbDatasetWithCaller.chain(({ dataset, caller }) =>
        arbEndpointRequestFor(dataset).map((request) => ({ dataset, caller, request })),
      ),
    ],
    { numRuns: 60 },
  )(
    'law: key order, extra fields, timestamp form and contact-id scheme never differ, in json, text and html',
    ({ dataset, caller, request }) => {
      const answer = plainAnswer(dataset, caller, request);
      if (answer.kind === 'not_found') return;
      const e = endpointById(request.endpoint);
      const records = answer.kind === 'list' ? [...answer.records] : [answer.record];
      const emails = dataset.tags.flatMap((t) => t.recipients.map((r) => r.email));
      const a = sideFor(emails, contactIdOf, 'http://a');
      const b = sideFor(emails, otherId, 'http://b');
      const path = e.path.replace(/\{\w+\}/g, 'x');
      const envelope = (data: unknown[]) =>
        e.response === 'list'
          ? { data, paging: { cursors: { previous: 0, next: 0, total: data.length } } }
          : { data: data[0] };
      // json: key order, extra fields, fractional seconds, another id scheme
      const ja = observe(path, json(envelope(records)), a);
      const jb = observe(path, json(freeForm(withOtherIds(envelope(records)))), b);
      expect(differences(path, ja, jb)).toEqual([]);
      // text and html: columns in another order, the other id scheme
      const table = toTable(e, records);
      const tableB = toTable(e, withOtherIds(records) as unknown[]);
      const order = tableB.columns.map((_, i) => i).reverse();
      const reordered = {
        columns: order.map((i) => tableB.columns[i]!),
        rows: tableB.rows.map((r) => order.map((i) => r[i] ?? '')),
      };
      for (const [type, render] of [
        ['text/plain', renderText],
        ['text/html', (t: typeof table) => renderHtml(t, 'x')],
      ] as const) {
        const ra = { status: 200, headers: { 'content-type': type }, body: render(table) };
        const rb = { status: 200, headers: { 'content-type': type }, body: render(reordered) };
        expect(differences(path, observe(path, ra, a), observe(path, rb, b))).toEqual([]);
      }
    },
  );

  fcTest.prop([fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 5 })], { numRuns: 30 })(
    'law: a changed counter is one difference naming the record and the field',
    (index, delta) => {
      const tags = canonicalDataset.tags.slice(0, 41);
      const records = tags.map((t) => ({
        tagID: t.tagID,
        subject: t.subject,
        dateSent: t.dateSent,
        stats: {
          totalOpens: 10,
          uniqueOpens: 5,
          totalClicks: 4,
          uniqueClicks: 2,
          desktopOpens: 6,
          mobileOpens: 4,
          desktopClicks: 3,
          mobileClicks: 1,
        },
      }));
      const changed = records.map((r, i) =>
        i === index ? { ...r, stats: { ...r.stats, uniqueOpens: r.stats.uniqueOpens + delta } } : r,
      );
      const side = { baseUrl: 'http://a', contactEmail: new Map<string, string>() };
      const found = differences(
        '/teams/tags',
        observe('/teams/tags', json({ data: records, paging: null }), side),
        observe('/teams/tags', json({ data: changed, paging: null }), side),
      );
      expect(found).toEqual([
        {
          kind: 'counter',
          message: `tag ${tags[index]!.tagID} stats.uniqueOpens: "5" on A, "${5 + delta}" on B`,
        },
      ]);
    },
  );

  test('an error status, a missing record and a changed Link are each named', () => {
    const side = { baseUrl: 'http://a', contactEmail: new Map<string, string>() };
    const ok: ReceivedResponse = {
      status: 200,
      headers: {
        'content-type': 'application/json',
        link: '<http://a/teams?cursor=2>; rel="next"',
        'x-total-count': '3',
      },
      body: JSON.stringify({
        data: [{ memberID: 'm1' }, { memberID: 'm2' }],
        paging: { cursors: { previous: 0, next: 2, total: 3 }, nextURL: 'http://a/teams?cursor=2' },
      }),
    };
    const short: ReceivedResponse = {
      ...ok,
      headers: { ...ok.headers, link: '<http://a/teams?cursor=1>; rel="next"' },
      body: JSON.stringify({
        data: [{ memberID: 'm1' }],
        paging: { cursors: { previous: 0, next: 1, total: 3 }, nextURL: 'http://a/teams?cursor=1' },
      }),
    };
    const messages = differences(
      '/teams',
      observe('/teams', ok, side),
      observe('/teams', short, side),
    ).map((d) => d.message);
    expect(messages).toEqual([
      'Link rel="next": "{base}/teams?cursor=2" on A, "{base}/teams?cursor=1" on B',
      'paging.cursors.next: 2 on A, 1 on B',
      'paging.nextURL: "{base}/teams?cursor=2" on A, "{base}/teams?cursor=1" on B',
      'records: 2 on A, 1 on B',
      'member m2: only on A',
    ]);
    const notFound: ReceivedResponse = {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ statusCode: 404, error: 'Not Found', message: 'no member x' }),
    };
    expect(
      differences('/teams', observe('/teams', ok, side), observe('/teams', notFound, side)).map(
        (d) => d.kind,
      ),
    ).toContain('status');
  });
});

describe('diff against live servers', () => {
  test('the reference server against a faulted one: differences found, exit 1; against itself: none, exit 0', async () => {
    const clean = createServer({ publicUrl: MEMORY_BASE_URL });
    const faulted = createServer({ publicUrl: MEMORY_BASE_URL, faults: ['tablet-not-mobile'] });
    try {
      const common = {
        baseUrl: MEMORY_BASE_URL,
        against: MEMORY_BASE_URL,
        profile: profileFor({}),
        seed: 3,
        numRuns: 2,
        only: 'REL-TAG-COUNTERS-EVENTS,SCHEMA-JSON-ENVELOPE',
      };
      const same = await runDiff({
        ...common,
        fetch: (r) => clean.fetch(r),
        fetchAgainst: (r) => clean.fetch(r),
      });
      expect(same.ok).toBe(true);
      expect(same.compared).toBeGreaterThan(20);
      const differ = await runDiff({
        ...common,
        fetch: (r) => clean.fetch(r),
        fetchAgainst: (r) => faulted.fetch(r),
      });
      expect(differ.ok).toBe(false);
      const messages = differ.checks.flatMap((c) => c.failures.map((f) => f.message));
      expect(messages.some((m) => /stats\.mobileOpens: "\d+" on A, "\d+" on B/.test(m))).toBe(true);
      // no secret in what the diff reports
      const text = JSON.stringify(differ.checks);
      for (const c of profileFor({}).credentials ?? []) expect(text).not.toContain(c.accessKey);
    } finally {
      await Promise.all([clean.close(), faulted.close()]);
    }
  });

  test('the CLI: exit 0 without difference, 1 with one, 2 for a bad option', async () => {
    const a = createServer();
    const b = createServer({ faults: ['tablet-not-mobile'] });
    const urlA = await a.listen(0, '127.0.0.1');
    const urlB = await b.listen(0, '127.0.0.1');
    try {
      const args = [
        '--auth-id',
        team1Admin.authId,
        '--access-key',
        team1Admin.accessKey,
        '--only',
        'REL-TAG-COUNTERS-EVENTS',
        '--num-runs',
        '2',
        '--seed',
        '5',
      ];
      const run = async (...extra: string[]) => {
        const { code, stdout, stderr } = await runCli(['diff', ...extra]);
        return { code, output: stdout + stderr };
      };
      const same = await run('--base-url', urlA, '--against', urlA, ...args);
      expect(same.code).toBe(0);
      expect(same.output).toContain('NO DIFFERENCE');
      const differ = await run('--base-url', urlA, '--against', urlB, ...args);
      expect(differ.code).toBe(1);
      // one entry per cause, with its counts and endpoints; each side's own verdict
      expect(differ.output).toMatch(
        /^cause 1: .+ differs on \d+ answer\(s\) of \d+ endpoint\(s\): .*teams\.tags/m,
      );
      expect(differ.output).toMatch(/^A's own verdict: PASS under tagtrack\/v1 Revision 3$/m);
      expect(differ.output).toMatch(/^B's own verdict: FAIL under tagtrack\/v1 Revision 3$/m);
      // narrowed by endpoint: leaving out the endpoints that differ leaves no difference
      const narrowed = await run(
        '--base-url',
        urlA,
        '--against',
        urlB,
        ...args,
        '--exclude',
        'teams.tags',
      );
      expect(narrowed.output).toContain("A's own verdict");
      expect(narrowed.output).not.toMatch(/^cause .*teams\.tags/m);
      expect(differ.output).not.toContain(team1Admin.accessKey);
      const bad = await run('--base-url', urlA, '--against', 'not a url', ...args);
      expect(bad.code).toBe(2);
      expect(bad.output).toContain('--against "not a url" is not a URL');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

/** `fetch` of `server` with each answer's headers and body passed through `edit`. */
function editedFetch(
  server: { fetch(r: Request): Promise<Response> },
  edit: (request: Request, status: number, headers: Headers, body: string) => string,
): (r: Request) => Promise<Response> {
  return async (request) => {
    const response = await server.fetch(request);
    const headers = new Headers(response.headers);
    const body = edit(request, response.status, headers, await response.text());
    return new Response(response.status === 204 || body === '' ? null : body, {
      status: response.status,
      headers,
    });
  };
}

/** The cursor of a request when it is above 2^53 - 1, else undefined. */
function hugeCursorOf(request: Request): bigint | undefined {
  const c = new URL(request.url).searchParams.get('cursor');
  if (c === null || !/^[0-9]+$/.test(c)) return undefined;
  return BigInt(c) > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(c) : undefined;
}

describe('diff compares what the profile fixes, and only that', () => {
  const side = { baseUrl: 'http://a', contactEmail: new Map<string, string>() };
  const sideB = { baseUrl: 'http://b', contactEmail: new Map<string, string>() };
  const noContent = (headers: Record<string, string>): ReceivedResponse => ({
    status: 204,
    headers: {
      'x-total-count': '270',
      link: '<http://a/contacts?cursor=20>; rel="prev"',
      ...headers,
    },
    body: '',
  });
  const diffOf = (path: string, a: ReceivedResponse, b: ReceivedResponse, sb = side) =>
    differences(path, observe(path, a, side), observe(path, b, sb)).map((d) => d.message);

  test('a 204 with or without Content-Type and other extra headers is no difference; its X-Total-Count and Link are', () => {
    const plain = noContent({});
    for (const extra of [
      { 'content-type': 'application/json; charset=utf-8' },
      { 'content-type': 'text/html' },
      { 'content-type': 'text/plain; charset=iso-8859-1', 'x-request-id': '7', allow: 'GET' },
      { 'retry-after': '1', 'x-rate-limit-limit': '10', 'cache-control': 'no-store' },
    ]) {
      expect(diffOf('/contacts', plain, noContent(extra))).toEqual([]);
      expect(diffOf('/contacts', noContent(extra), plain)).toEqual([]);
    }
    expect(diffOf('/contacts', plain, noContent({ 'x-total-count': '271' }))).toEqual([
      'X-Total-Count: "270" on A, "271" on B',
    ]);
    // extra relations are free, like extra headers
    const withFirst =
      '<http://a/contacts?cursor=0>; rel="first", <http://a/contacts?cursor=20>; rel="prev"';
    expect(diffOf('/contacts', plain, noContent({ link: withFirst }))).toEqual([]);
    expect(
      diffOf('/contacts', plain, noContent({ link: '<http://a/contacts?cursor=19>; rel="prev"' })),
    ).toEqual([
      'Link rel="prev": "{base}/contacts?cursor=20" on A, "{base}/contacts?cursor=19" on B',
    ]);
  });

  test('Content-Type: media type and charset on a 200 are fixed, other parameters free; on an error only the media type', () => {
    const ok = (ct: string): ReceivedResponse => ({
      status: 200,
      headers: { 'content-type': ct },
      body: JSON.stringify({ data: {} }),
    });
    const path = '/teams/member/m1';
    expect(
      diffOf(
        path,
        ok('application/json; charset=utf-8'),
        ok('application/json; version="1"; Charset=UTF-8'),
      ),
    ).toEqual([]);
    expect(diffOf(path, ok('application/json; charset=utf-8'), ok('application/json'))).toEqual([
      'Content-Type: application/json; charset=utf-8 on A, application/json; charset=none on B',
    ]);
    const error = (ct: string, extra: Record<string, string> = {}): ReceivedResponse => ({
      status: 404,
      headers: { 'content-type': ct, ...extra },
      body: JSON.stringify({ statusCode: 404, error: 'Not Found', message: 'x' }),
    });
    expect(
      diffOf(
        path,
        error('application/json; charset=utf-8'),
        error('application/json', { allow: 'GET', 'x-rate-limit-limit': '1' }),
      ),
    ).toEqual([]);
    expect(diffOf(path, error('application/json'), error('text/plain'))).toEqual([
      'Content-Type: application/json on A, text/plain on B',
    ]);
    // the headers an error status fixes
    const e405 = (allow: string) => ({ ...error('application/json', { allow }), status: 405 });
    expect(diffOf(path, e405('GET, HEAD'), e405('GET'))).toEqual([
      'allow: "GET, HEAD" on A, "GET" on B',
    ]);
    expect(diffOf(path, e405('GET, HEAD'), e405('head,GET'))).toEqual([]);
  });

  test('paging URLs: the path as received or canonical and the hex case of the query are free; the query is fixed', () => {
    const page = (url: string): ReceivedResponse => ({
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        link: `<${url}>; rel="next"`,
        'x-total-count': '9',
      },
      body: JSON.stringify({
        data: [],
        paging: { cursors: { previous: 0, next: 7, total: 9 }, previousURL: null, nextURL: url },
      }),
    });
    const path = '/teams/group/Key%20Accounts';
    const received = 'http://a/teams/group/Key%20Accounts?next=a%2fb&cursor=7';
    const canonical = 'http://b/%74eams/group/Key%20Accounts?next=a%2Fb&cursor=7';
    expect(diffOf(path, page(received), page(canonical), sideB)).toEqual([]);
    const otherQuery = 'http://b/teams/group/Key%20Accounts?cursor=7&next=a%2Fb';
    expect(diffOf(path, page(received), page(otherQuery), sideB)).toHaveLength(2);
  });

  test('paging.cursors are compared exactly, above 2^53 too: the same digits are alike, one apart differ', () => {
    const past = (previous: string, previousURL: string): ReceivedResponse => ({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-total-count': '3' },
      body: `{"data":[],"paging":{"cursors":{"previous":${previous},"next":3,"total":3},"previousURL":${JSON.stringify(previousURL)},"nextURL":null}}`,
    });
    const a = past('99999999999999999749', 'http://a/contacts?cursor=99999999999999999749');
    const same = past('99999999999999999749', 'http://a/contacts?cursor=99999999999999999749');
    const off = past('99999999999999999748', 'http://a/contacts?cursor=99999999999999999749');
    expect(diffOf('/contacts', a, same)).toEqual([]);
    expect(diffOf('/contacts', a, off)).toEqual([
      'paging.cursors.previous: 99999999999999999749 on A, 99999999999999999748 on B',
    ]);
    // the fast path does not take them for the same answer (JSON.parse rounds both to 1e20)
    expect(sameAnswer(a, off, 'http://a', 'http://a')).toBe(false);
    expect(sameAnswer(a, same, 'http://a', 'http://a')).toBe(true);
  });

  test("live: two reference servers that differ only in free forms (a 204's headers; past a huge cursor the paging URL path and the JSON layout) answer alike", async () => {
    const server = createServer({ publicUrl: MEMORY_BASE_URL });
    const emptyPage = createServer({ publicUrl: MEMORY_BASE_URL, pagingEnd: 'empty-page' });
    try {
      for (const [s, options] of [
        [server, {}],
        [emptyPage, { pagingEnd: 'empty-page' as const }],
      ] as const) {
        let rewritten = 0;
        const result = await runDiff({
          baseUrl: MEMORY_BASE_URL,
          against: MEMORY_BASE_URL,
          profile: profileFor(options),
          seed: 5,
          numRuns: 2,
          only: 'PAGE-END-NO-CONTENT,PAGE-END-EMPTY-PAGE,PAGE-CURSOR-ARITHMETIC,PAGE-HEADERS',
          fetch: editedFetch(s, (_r, status, headers, body) => {
            if (status === 204) headers.delete('content-type');
            return body;
          }),
          fetchAgainst: editedFetch(s, (request, status, headers, body) => {
            if (status === 204) {
              headers.set('content-type', 'application/json; charset=utf-8');
              headers.set('x-request-id', 'abc');
            }
            if (hugeCursorOf(request) === undefined) return body;
            // past a huge cursor: the paging URLs' path in another encoding (free), the JSON
            // pretty-printed with every digit kept
            rewritten++;
            const link = headers.get('link');
            if (link !== null) headers.set('link', link.replaceAll('/contacts?', '/%63ontacts?'));
            if (!body.startsWith('{')) return body;
            return stringifyJson(parseJsonExact(body.replaceAll('/contacts?', '/%63ontacts?')), 2);
          }),
        });
        expect(rewritten).toBeGreaterThan(0);
        expect(result.run.checks.filter((c) => c.status === 'fail')).toEqual([]);
        expect(result.compared).toBeGreaterThan(20);
        expect(result.checks.flatMap((c) => c.failures.map((f) => f.message))).toEqual([]);
        expect(result.ok).toBe(true);
      }
    } finally {
      await Promise.all([server.close(), emptyPage.close()]);
    }
  });

  test('live: a server whose previous is off by one past a cursor above 2^53 differs from the reference there, and only there', async () => {
    const server = createServer({ publicUrl: MEMORY_BASE_URL });
    const emptyPage = createServer({ publicUrl: MEMORY_BASE_URL, pagingEnd: 'empty-page' });
    try {
      for (const [s, options] of [
        [server, {}],
        [emptyPage, { pagingEnd: 'empty-page' as const }],
      ] as const) {
        const offByOne = editedFetch(s, (request, _status, headers, body) => {
          const cursor = hugeCursorOf(request);
          if (cursor === undefined) return body;
          const right = String(cursor - 250n);
          const wrong = String(cursor - 251n);
          const link = headers.get('link');
          if (link !== null)
            headers.set('link', link.replaceAll(`cursor=${right}`, `cursor=${wrong}`));
          return body.replaceAll(`"previous":${right}`, `"previous":${wrong}`);
        });
        const common = {
          baseUrl: MEMORY_BASE_URL,
          against: MEMORY_BASE_URL,
          profile: profileFor(options),
          seed: 5,
          numRuns: 2,
          only: 'PAGE-CURSOR-ARITHMETIC',
          fetch: (r: Request) => s.fetch(r),
        };
        const alike = await runDiff({ ...common, fetchAgainst: (r) => s.fetch(r) });
        expect(alike.ok).toBe(true);
        const differ = await runDiff({ ...common, fetchAgainst: offByOne });
        const messages = differ.checks.flatMap((c) => c.failures.map((f) => f.message));
        expect(messages.length).toBeGreaterThan(0);
        // every differing answer is one past a huge cursor, and its Link rel="prev" is named
        for (const m of messages) expect(m).toMatch(/cursor=0*\d{20,}/);
        expect(
          messages.some((m) =>
            /Link rel="prev": "\{base\}\/[^"]*cursor=99999999999999999749[^"]*" on A, "\{base\}\/[^"]*cursor=99999999999999999748[^"]*" on B/.test(
              m,
            ),
          ),
        ).toBe(true);
        if (options.pagingEnd === 'empty-page')
          expect(
            messages.some((m) =>
              m.includes(
                'paging.cursors.previous: 99999999999999999749 on A, 99999999999999999748 on B',
              ),
            ),
          ).toBe(true);
        // the suite itself finds it too (PAGE-CURSOR-ARITHMETIC reads the exact digits)
        const run = await runConformance({ ...common, fetch: offByOne, mode: 'blind' });
        expect(failing(run)).toEqual(['PAGE-CURSOR-ARITHMETIC']);
      }
    } finally {
      await Promise.all([server.close(), emptyPage.close()]);
    }
  });

  test('live: one deviation in Link (rel="prev" past a huge cursor, one off) is one cause, with its answers and endpoints', async () => {
    const server = createServer({ publicUrl: MEMORY_BASE_URL });
    try {
      const linkOff = editedFetch(server, (request, _status, headers, body) => {
        const cursor = hugeCursorOf(request);
        const link = headers.get('link');
        if (cursor === undefined || link === null) return body;
        headers.set('link', link.replaceAll(`cursor=${cursor - 250n}`, `cursor=${cursor - 251n}`));
        return body;
      });
      const result = await runDiff({
        baseUrl: MEMORY_BASE_URL,
        against: MEMORY_BASE_URL,
        profile: profileFor(),
        seed: 5,
        numRuns: 2,
        only: 'PAGE-CURSOR-ARITHMETIC',
        fetch: (r) => server.fetch(r),
        fetchAgainst: linkOff,
      });
      expect(result.differing).toBeGreaterThan(1);
      expect(result.causes).toHaveLength(1);
      const [cause] = result.causes;
      expect(cause).toMatchObject({ field: 'Link rel="prev"', answers: result.differing });
      expect(cause!.endpoints.length).toBeGreaterThan(0);
      expect(cause!.examples.length).toBeGreaterThan(0);
      // narrowed to one endpoint, only its answers are compared
      const one = cause!.endpoints[0]! as EndpointId;
      const narrowed = await runDiff({
        baseUrl: MEMORY_BASE_URL,
        against: MEMORY_BASE_URL,
        profile: profileFor(),
        seed: 5,
        numRuns: 2,
        only: 'PAGE-CURSOR-ARITHMETIC',
        fetch: (r) => server.fetch(r),
        fetchAgainst: linkOff,
        skipEndpoints: new Set([one]),
      });
      expect(narrowed.causes.flatMap((c) => c.endpoints)).not.toContain(one);
      expect(narrowed.differing).toBeLessThan(result.differing);
    } finally {
      await server.close();
    }
  });
});
