import { buildIndex, type Caller } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/core/canonical';
import { describe, expect, test } from 'vitest';
import { createServer } from '../src/index.ts';
import { BASE, credential, get, getJson } from './helpers.ts';

const index = buildIndex(canonicalDataset);
const adminCred = credential(1, 'admin');
const admin: Caller = {
  memberID: adminCred.memberID,
  teamID: adminCred.teamID,
  accountType: 'admin',
};

interface ListBody {
  data: { tagID?: string; contactID?: string }[];
  paging: {
    cursors: { previous: number; next: number; total: number };
    previousURL: string | null;
    nextURL: string | null;
  };
}

function splitUrl(url: string): { path: string; query: string } {
  const u = url.slice(BASE.length);
  const q = u.indexOf('?');
  return q < 0 ? { path: u, query: '' } : { path: u.slice(0, q), query: u.slice(q + 1) };
}

describe('cursor pagination (decisions §3)', () => {
  const pageSize = 7;
  const server = createServer({ pageSize });

  test('walking nextURL visits every tag exactly once, in the index order', async () => {
    const expected = index.tags(admin, { isOpened: true })!.map((t) => t.tagID);
    const seen: string[] = [];
    let next: { path: string; query: string } | null = {
      path: '/teams/tags',
      query: 'isOpened=true',
    };
    let pages = 0;
    while (next) {
      const { res, body }: { res: Response; body: ListBody } = await getJson<ListBody>(
        server,
        next.path,
        next.query,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total-count')).toBe(String(expected.length));
      expect(body.data.length).toBeLessThanOrEqual(pageSize);
      const link = res.headers.get('link');
      if (body.paging.nextURL) {
        expect(link).toContain(`<${body.paging.nextURL}>; rel="next"`);
      }
      if (body.paging.previousURL) {
        expect(link).toContain(`<${body.paging.previousURL}>; rel="prev"`);
      }
      seen.push(...body.data.map((t) => t.tagID!));
      next = body.paging.nextURL ? splitUrl(body.paging.nextURL) : null;
      pages++;
    }
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / pageSize));
  });

  test('the next URL keeps the other parameters in order and replaces the cursor', async () => {
    const { body } = await getJson<ListBody>(server, '/contacts', 'rtn=json&cursor=7&total=99');
    expect(body.paging.nextURL).toBe(`${BASE}/contacts?rtn=json&cursor=14&total=99`);
    expect(body.paging.previousURL).toBe(`${BASE}/contacts?rtn=json&cursor=0&total=99`);
    expect(body.paging.cursors).toMatchObject({ previous: 0, next: 14 });
  });

  test('Link and X-Total-Count are sent in the text and html formats too', async () => {
    for (const rtn of ['text', 'html']) {
      const res = await get(server, '/contacts', `rtn=${rtn}&cursor=7`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total-count')).toBe(String(index.contacts(admin).length));
      const link = res.headers.get('link')!;
      expect(link).toContain(`<${BASE}/contacts?rtn=${rtn}&cursor=14>; rel="next"`);
      expect(link).toContain(`<${BASE}/contacts?rtn=${rtn}&cursor=0>; rel="prev"`);
    }
  });

  test('a cursor at or past the total answers 200 with data []', async () => {
    const total = index.contacts(admin).length;
    for (const cursor of [total, total + 1, 10 ** 12]) {
      const { res, body } = await getJson<ListBody>(server, '/contacts', `cursor=${cursor}`);
      expect(res.status).toBe(200);
      expect(body.data).toEqual([]);
      expect(body.paging.cursors.total).toBe(total);
      expect(body.paging.nextURL).toBeNull();
    }
  });

  test('default page size is 250', async () => {
    const def = createServer();
    const { body } = await getJson<ListBody>(def, '/teams/tags');
    const total = index.tags(admin, {})!.length;
    expect(body.data).toHaveLength(Math.min(250, total));
    expect(body.paging.cursors.next).toBe(Math.min(250, total));
  });
});
