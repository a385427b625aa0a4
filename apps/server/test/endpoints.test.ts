import {
  type Caller,
  ENDPOINT_LIST,
  type Endpoint,
  type EndpointRequest,
  ListEnvelope,
  type PathParamName,
  parseHtml,
  parseQuery,
  parseText,
  SingleEnvelope,
  toTable,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { buildIndex } from '@tagtrack/engine';
import { describe, expect, test } from 'vitest';
import { createServer } from '../src/index.ts';
import { credential, get, getJson } from './helpers.ts';

const server = createServer();
const index = buildIndex(canonicalDataset);
const PAGE = 250;

type Label = 'admin' | 'manager' | 'user';
const callers = (['admin', 'manager', 'user'] as const).map((type) => {
  const c = credential(1, type);
  const caller: Caller = { memberID: c.memberID, teamID: c.teamID, accountType: type };
  return { type: type as Label, cred: c, caller };
});

/** Path parameters that exist in the caller's scope, taken from the index itself. */
function pathParamsFor(caller: Caller): Record<PathParamName, string> {
  const self = index.member(caller, caller.memberID)!;
  const team = canonicalDataset.teams.find((t) => t.teamID === caller.teamID)!;
  const tag = index
    .tags(caller, {})!
    .find((t) => t.stats.totalOpens > 0 && t.stats.totalClicks > 0)!;
  const contact = index.contacts(caller)[0]!;
  return {
    memberID: self.memberID,
    group: team.groups[0]!.groupID,
    tagID: tag.tagID,
    contactID: contact.contactID,
  };
}

function dayOfTag(caller: Caller, tagID: string): string {
  const open = index.tagOpens(caller, tagID)![0]!;
  return open.openDate.slice(0, 10);
}

function request(
  e: Endpoint,
  caller: Caller,
  extra: [string, string][] = [],
): {
  path: string;
  query: string;
  domain: EndpointRequest;
} {
  const params = pathParamsFor(caller);
  const pathParams: Partial<Record<PathParamName, string>> = {};
  for (const p of e.pathParams) pathParams[p] = params[p];
  const entries: [string, string][] = [...extra];
  if (e.requiredQuery.includes('date')) entries.push(['date', dayOfTag(caller, params.tagID)]);
  const path = e.path.replace(/\{(\w+)\}/g, (_, n: PathParamName) => encodeURIComponent(params[n]));
  return {
    path,
    query: new URLSearchParams(entries).toString(),
    domain: {
      endpoint: e.id,
      pathParams,
      query: parseQuery(entries, { allowed: e.query, required: e.requiredQuery }),
    },
  };
}

describe.each(callers)('every endpoint, signed as the team 1 $type', ({ cred, caller }) => {
  test.each(ENDPOINT_LIST.map((e) => [e.path, e] as const))(
    'GET %s answers 200 with the envelope and the values of core aggregation',
    async (_path, e) => {
      const { path, query, domain } = request(e, caller);
      const { res, body } = await getJson<Record<string, unknown>>(server, path, query, {
        as: cred,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const expected = index.answer(caller, domain);
      if (e.response === 'single') {
        expect(expected.kind).toBe('single');
        const env = SingleEnvelope(e.record).strict().parse(body);
        expect(env.data).toEqual(expected.kind === 'single' ? expected.record : undefined);
        expect(res.headers.get('x-total-count')).toBeNull();
      } else {
        expect(expected.kind).toBe('list');
        const records = expected.kind === 'list' ? expected.records : [];
        const env = ListEnvelope(e.record).strict().parse(body);
        expect(env.data).toEqual(records.slice(0, PAGE));
        expect(env.paging.cursors).toEqual({
          previous: 0,
          next: Math.min(PAGE, records.length),
          total: records.length,
        });
        expect(env.paging.previousURL).toBeNull();
        expect(res.headers.get('x-total-count')).toBe(String(records.length));
      }
    },
  );

  test.each(ENDPOINT_LIST.map((e) => [e.path, e] as const))(
    'GET %s in rtn=text and rtn=html carries the same rows as core toTable',
    async (_path, e) => {
      const { path, query, domain } = request(e, caller, [['rtn', 'text']]);
      const expected = index.answer(caller, domain);
      const records =
        expected.kind === 'list'
          ? expected.records.slice(0, PAGE)
          : expected.kind === 'single'
            ? [expected.record]
            : [];
      const table = toTable(e, records);

      const text = await get(server, path, query, { as: cred });
      expect(text.status).toBe(200);
      expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(parseText(await text.text())).toEqual(table);

      const htmlQuery = query.replace('rtn=text', 'rtn=html');
      const html = await get(server, path, htmlQuery, { as: cred });
      expect(html.status).toBe(200);
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(parseHtml(await html.text())).toEqual(table);
      if (e.response === 'list') {
        const total = expected.kind === 'list' ? expected.records.length : -1;
        expect(text.headers.get('x-total-count')).toBe(String(total));
        expect(html.headers.get('x-total-count')).toBe(String(total));
      }
    },
  );
});

describe('values against the index methods', () => {
  const admin = callers[0]!.caller;
  const manager = callers[1]!.caller;

  test('/teams/tags with filters and a window equals index.tags', async () => {
    const { body } = await getJson<{ data: unknown[] }>(
      server,
      '/teams/tags',
      'start=2024-01-01&end=2024-12-31&isOpened=true&isUnclicked=1',
      { as: credential(1, 'manager') },
    );
    const expected = index.tags(manager, {
      start: '2024-01-01',
      end: '2024-12-31',
      isOpened: true,
      isUnclicked: true,
    })!;
    expect(body.data).toEqual(expected.slice(0, PAGE));
  });

  test('/stats?aggregateData=true is one record equal to index.stats', async () => {
    const { body } = await getJson<{ data: unknown[] }>(server, '/stats', 'aggregateData=true');
    expect(body.data).toEqual(
      index.stats(admin, { subject: { kind: 'team' }, aggregateData: true }),
    );
    expect(body.data).toHaveLength(1);
  });

  test('/teams/stats is the same resource as /stats, and type filters on both', async () => {
    for (const q of ['', 'type=user', 'type=manager&aggregateData=true']) {
      const a = await getJson<{ data: unknown[] }>(server, '/stats', q);
      const b = await getJson<{ data: unknown[] }>(server, '/teams/stats', q);
      expect(b.body.data).toEqual(a.body.data);
    }
    const typed = await getJson<{ data: unknown[] }>(server, '/teams/stats', 'type=user');
    expect(typed.body.data).toEqual(
      index.stats(admin, { subject: { kind: 'team' }, type: 'user' })!.slice(0, PAGE),
    );
  });

  test('/teams/group/{name} resolves the group name like its id', async () => {
    const team = canonicalDataset.teams[0]!;
    const group = team.groups[1]!;
    const byId = await getJson<{ data: unknown[] }>(
      server,
      `/teams/group/${encodeURIComponent(group.groupID)}`,
    );
    const byName = await getJson<{ data: unknown[] }>(
      server,
      `/teams/group/${encodeURIComponent(group.groupName)}`,
    );
    expect(byName.res.status).toBe(200);
    expect(byName.body.data).toEqual(byId.body.data);
    expect(byId.body.data).toEqual(index.groupMembers(admin, group.groupID));
    expect(byId.body.data.length).toBeGreaterThan(0);
  });

  test('/tags/daily/{tagID} equals index.daily', async () => {
    const { tagID } = pathParamsFor(admin);
    const date = dayOfTag(admin, tagID);
    const { body } = await getJson<{ data: unknown }>(
      server,
      `/tags/daily/${tagID}`,
      `date=${date}`,
    );
    expect(body.data).toEqual(index.daily(admin, tagID, date));
  });

  test('/clicks with a window equals index.clickGroups', async () => {
    const { body } = await getJson<{ data: unknown[] }>(
      server,
      '/clicks',
      'start=2024-03-01&end=2024-06-30',
    );
    expect(body.data).toEqual(
      index.clickGroups(admin, { start: '2024-03-01', end: '2024-06-30' }).slice(0, PAGE),
    );
  });

  test('HEAD answers the headers of GET without a body', async () => {
    const g = await get(server, '/teams/tags');
    const h = await get(server, '/teams/tags', '', { method: 'HEAD' });
    expect(h.status).toBe(200);
    expect(await h.text()).toBe('');
    for (const name of ['content-type', 'x-total-count', 'link']) {
      expect(h.headers.get(name)).toBe(g.headers.get(name));
    }
  });

  test('GET /openapi.json needs no credentials and is the core document', async () => {
    const { openApiDocument } = await import('@tagtrack/core');
    const res = await get(server, '/openapi.json', '', { as: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  test('X-Request-Id is echoed, or generated when absent', async () => {
    const echoed = await get(server, '/teams', '', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const generated = await get(server, '/teams');
    expect(generated.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
  });
});
