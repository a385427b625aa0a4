import { fc, test as fcTest } from '@fast-check/vitest';
import {
  contactIdOf,
  endpointById,
  normaliseEmail,
  plainAnswer,
  renderHtml,
  renderText,
  toTable,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/core/canonical';
import { arbDatasetWithCaller, arbEndpointRequestFor } from '@tagtrack/core/testing';
import { createServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { differences } from '../src/diff/compare.ts';
import { observe, type ReceivedResponse, type SideContext } from '../src/diff/observe.ts';
import { runDiff } from '../src/diff/run.ts';
import { MEMORY_BASE_URL, profileFor, runCli, team1Admin } from './helpers.ts';

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
      expect(differ.output).toMatch(/DIFF-TEAMS-TAGS: \d+ differing request/);
      expect(differ.output).not.toContain(team1Admin.accessKey);
      const bad = await run('--base-url', urlA, '--against', 'not a url', ...args);
      expect(bad.code).toBe(2);
      expect(bad.output).toContain('--against "not a url" is not a URL');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
