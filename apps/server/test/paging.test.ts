import { authorizationHeader, type Caller, ENDPOINT_LIST } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { buildIndex } from '@tagtrack/engine';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, ServerOptionsError } from '../src/index.ts';
import { BASE, credential, get, getJson, rawRequest } from './helpers.ts';

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

/** The public base URL of the servers below: another origin than the requests', with a path. */
const PUBLIC = 'http://public.example/api';

function splitUrl(url: string, base = PUBLIC): { path: string; query: string } {
  expect(url.startsWith(`${base}/`)).toBe(true);
  const u = url.slice(base.length);
  const q = u.indexOf('?');
  return q < 0 ? { path: u, query: '' } : { path: u.slice(0, q), query: u.slice(q + 1) };
}

/** The Link header's targets by relation. */
function links(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (res.headers.get('link') ?? '').matchAll(/<([^>]*)>;\s*rel="(\w+)"/g)) {
    out[m[2]!] = m[1]!;
  }
  return out;
}

const pageSize = 7;
const server = createServer({ pageSize, publicUrl: PUBLIC });
const contacts = index.contacts(admin).length;

describe('cursor pagination, paging end no-content (spec §5 Revision 2)', () => {
  test('walking nextURL visits every tag once; the last page links to cursor=total, which answers 204', async () => {
    const expected = index.tags(admin, { isOpened: true })!.map((t) => t.tagID);
    const seen: string[] = [];
    let next: { path: string; query: string } | null = {
      path: '/teams/tags',
      query: 'isOpened=true',
    };
    let requests = 0;
    let last: Response | undefined;
    while (next) {
      const res = await get(server, next.path, next.query);
      requests++;
      last = res;
      expect(res.headers.get('x-total-count')).toBe(String(expected.length));
      if (res.status === 204) {
        next = null;
        continue;
      }
      expect(res.status).toBe(200);
      const body = (await res.json()) as ListBody;
      expect(body.data.length).toBeGreaterThan(0);
      expect(body.data.length).toBeLessThanOrEqual(pageSize);
      expect(links(res).next).toBe(body.paging.nextURL!);
      if (body.paging.previousURL) expect(links(res).prev).toBe(body.paging.previousURL);
      seen.push(...body.data.map((t) => t.tagID!));
      expect(body.paging.nextURL).not.toBeNull();
      next = splitUrl(body.paging.nextURL!);
    }
    expect(seen).toEqual(expected);
    expect(requests).toBe(Math.ceil(expected.length / pageSize) + 1);
    expect(await last!.text()).toBe('');
  });

  test('the last non-empty page has nextURL at cursor=total', async () => {
    const lastStart = Math.floor((contacts - 1) / pageSize) * pageSize;
    const { res, body } = await getJson<ListBody>(server, '/contacts', `cursor=${lastStart}`);
    expect(res.status).toBe(200);
    expect(body.paging.cursors.next).toBe(contacts);
    expect(body.paging.nextURL).toBe(`${PUBLIC}/contacts?cursor=${contacts}`);
  });

  test.each(['json', 'text', 'html'])(
    'past the end (rtn=%s): 204, empty body, X-Total-Count and Link rel="prev" only',
    async (rtn) => {
      for (const cursor of [contacts, contacts + 1, '99999999999999999999999']) {
        for (const method of ['GET', 'HEAD']) {
          const res = await get(server, '/contacts', `rtn=${rtn}&cursor=${cursor}`, { method });
          expect(res.status).toBe(204);
          expect(await res.text()).toBe('');
          expect(res.headers.get('x-total-count')).toBe(String(contacts));
          const l = links(res);
          expect(Object.keys(l)).toEqual(['prev']);
          // exact for any cursor (docs/spec.md §5): 23 nines minus 7
          const previous = BigInt(cursor) - BigInt(pageSize);
          expect(l.prev).toBe(`${PUBLIC}/contacts?rtn=${rtn}&cursor=${previous}`);
        }
      }
    },
  );

  test('an empty list answers 204 with X-Total-Count 0 and no Link', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await get(server, '/teams/tags', 'isOpened=true&isUnopened=true', { method });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(res.headers.get('x-total-count')).toBe('0');
      expect(res.headers.get('link')).toBeNull();
    }
  });

  test('cursor arithmetic: previous = max(cursor - pageSize, 0), next = min(cursor + pageSize, total), previousURL null iff cursor = 0', async () => {
    for (const cursor of [0, 1, 6, 7, 8, 13, 14, contacts - 1]) {
      const { body } = await getJson<ListBody>(server, '/contacts', `cursor=${cursor}`);
      expect(body.paging.cursors).toEqual({
        previous: Math.max(cursor - pageSize, 0),
        next: Math.min(cursor + pageSize, contacts),
        total: contacts,
      });
      expect(body.paging.previousURL === null).toBe(cursor === 0);
      if (cursor > 0) {
        expect(body.paging.previousURL).toBe(
          `${PUBLIC}/contacts?cursor=${Math.max(cursor - pageSize, 0)}`,
        );
      }
    }
  });

  test('paging URLs keep every other parameter, its order and its encoding; only cursor changes', async () => {
    const query = 'total=a%20b+c%2Fd&isOpened=TRUE&cursor=007&next=whatever&start=2023-01-01';
    const { res, body } = await getJson<ListBody>(server, '/teams/tags', query);
    expect(res.status).toBe(200);
    const keep = (c: number) =>
      `${PUBLIC}/teams/tags?total=a%20b+c%2Fd&isOpened=TRUE&cursor=${c}&next=whatever&start=2023-01-01`;
    expect(body.paging.nextURL).toBe(keep(14));
    expect(body.paging.previousURL).toBe(keep(0));
    expect(links(res)).toEqual({ next: keep(14), prev: keep(0) });
  });

  test('without a cursor, the paging URLs append it last', async () => {
    const { body } = await getJson<ListBody>(server, '/contacts', 'rtn=json&total=99');
    expect(body.paging.nextURL).toBe(`${PUBLIC}/contacts?rtn=json&total=99&cursor=7`);
    expect(body.paging.previousURL).toBeNull();
  });

  test('Link and X-Total-Count are on every list endpoint in every rtn and on HEAD; never on 3, 14, 16', async () => {
    const tag = index
      .tags(admin, {})!
      .find((t) => t.stats.totalOpens > 0 && t.stats.totalClicks > 0)!;
    const params: Record<string, string> = {
      memberID: admin.memberID,
      group: canonicalDataset.teams[0]!.groups[0]!.groupID,
      tagID: tag.tagID,
      contactID: index.contacts(admin)[0]!.contactID,
    };
    for (const e of ENDPOINT_LIST) {
      const path = e.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(params[n]!));
      const date = e.requiredQuery.includes('date') ? '&date=2024-06-01' : '';
      for (const rtn of ['json', 'text', 'html']) {
        for (const method of ['GET', 'HEAD']) {
          const res = await get(server, path, `rtn=${rtn}&cursor=1${date}`, { method });
          const what = `${method} ${path} rtn=${rtn}`;
          if (e.response === 'single') {
            expect(res.status, what).toBe(200);
            expect(res.headers.get('x-total-count'), what).toBeNull();
            expect(res.headers.get('link'), what).toBeNull();
            continue;
          }
          const total = Number(res.headers.get('x-total-count'));
          expect(Number.isInteger(total), what).toBe(true);
          // cursor 1: a previous page always exists
          expect(links(res).prev, what).toBe(`${PUBLIC}${path}?rtn=${rtn}&cursor=0${date}`);
          if (total > 1) {
            expect(res.status, what).toBe(200);
            expect(links(res).next, what).toBe(
              `${PUBLIC}${path}?rtn=${rtn}&cursor=${Math.min(1 + pageSize, total)}${date}`,
            );
          } else {
            expect(res.status, what).toBe(204);
          }
        }
      }
    }
  });

  test('HEAD answers the status and headers of GET without a body, 204 included', async () => {
    for (const query of ['', `cursor=${contacts}`, 'rtn=text&cursor=3']) {
      const g = await get(server, '/contacts', query);
      const h = await get(server, '/contacts', query, { method: 'HEAD' });
      expect(h.status).toBe(g.status);
      expect(await h.text()).toBe('');
      for (const name of ['content-type', 'x-total-count', 'link']) {
        expect(h.headers.get(name)).toBe(g.headers.get(name));
      }
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

describe('cursor arithmetic is exact for any cursor (spec §5 Revision 2, docs/spec.md §5)', () => {
  const emptyPage = createServer({ pageSize, publicUrl: PUBLIC, pagingEnd: 'empty-page' });
  /** Cursors above 2^53 - 1 (leading zeros too) and the exact previous they link to. */
  const HUGE: [cursor: string, previous: string][] = [
    ['99999999999999999999', '99999999999999999992'],
    ['00099999999999999999999', '99999999999999999992'],
    ['9007199254740993', '9007199254740986'],
    [`1${'0'.repeat(40)}`, `${'9'.repeat(39)}3`],
  ];

  test.each(['json', 'text', 'html'])(
    'rtn=%s: Link rel="prev" (and in empty-page previousURL and paging.cursors.previous, written with all its digits) is cursor - pageSize exactly',
    async (rtn) => {
      for (const [cursor, previous] of HUGE) {
        const query = `rtn=${rtn}&cursor=${cursor}&next=x`;
        const want = `${PUBLIC}/contacts?rtn=${rtn}&cursor=${previous}&next=x`;
        for (const method of ['GET', 'HEAD']) {
          const res = await get(server, '/contacts', query, { method });
          expect(res.status).toBe(204);
          expect(links(res)).toEqual({ prev: want });
          const page = await get(emptyPage, '/contacts', query, { method });
          expect(page.status).toBe(200);
          expect(links(page)).toEqual({ prev: want });
          expect(page.headers.get('x-total-count')).toBe(String(contacts));
          if (method === 'GET' && rtn === 'json') {
            const text = await page.text();
            // every digit in the JSON text (JSON.parse would round it to a double)
            expect(text).toContain(`"previous":${previous},`);
            const body = JSON.parse(text) as ListBody;
            expect(body.paging.previousURL).toBe(want);
            expect(body.paging.nextURL).toBeNull();
            expect(body.paging.cursors.next).toBe(contacts);
            expect(body.paging.cursors.total).toBe(contacts);
            expect(body.data).toEqual([]);
          }
        }
      }
    },
  );
});

describe('paging end empty-page (option; spec §5 Revision 2)', () => {
  const emptyPage = createServer({ pageSize, publicUrl: PUBLIC, pagingEnd: 'empty-page' });

  test('the last page has nextURL null, and past the end answers 200 with data []', async () => {
    const lastStart = Math.floor((contacts - 1) / pageSize) * pageSize;
    const last = await getJson<ListBody>(emptyPage, '/contacts', `cursor=${lastStart}`);
    expect(last.body.paging.nextURL).toBeNull();
    expect(links(last.res).next).toBeUndefined();
    for (const cursor of [contacts, contacts + 1, 10 ** 12]) {
      const { res, body } = await getJson<ListBody>(emptyPage, '/contacts', `cursor=${cursor}`);
      expect(res.status).toBe(200);
      expect(body.data).toEqual([]);
      expect(body.paging.cursors.total).toBe(contacts);
      expect(body.paging.nextURL).toBeNull();
      expect(res.headers.get('x-total-count')).toBe(String(contacts));
      expect(links(res).prev).toBe(body.paging.previousURL!);
    }
  });

  test('a walk over nextURL takes ceil(total / pageSize) requests', async () => {
    let url: string | null = `${PUBLIC}/contacts`;
    let requests = 0;
    const seen: string[] = [];
    while (url) {
      const { path, query } = splitUrl(url);
      const { body } = await getJson<ListBody>(emptyPage, path, query);
      seen.push(...body.data.map((c) => c.contactID!));
      url = body.paging.nextURL;
      requests++;
    }
    expect(requests).toBe(Math.ceil(contacts / pageSize));
    expect(seen).toEqual(index.contacts(admin).map((c) => c.contactID));
  });
});

describe('the public base URL (spec §5 Revision 2: never the request Host)', () => {
  test('in memory, the default is http://127.0.0.1 whatever origin the request has', async () => {
    const plain = createServer({ pageSize });
    const res = await plain.fetch(
      new Request('http://evil.example:666/contacts', {
        headers: { Authorization: authorizationHeader(adminCred.authId, adminCred.accessKey, '') },
      }),
    );
    const body = (await res.json()) as ListBody;
    expect(body.paging.nextURL).toBe('http://127.0.0.1/contacts?cursor=7');
    expect(plain.publicUrl).toBe('http://127.0.0.1');
  });

  test('a trailing slash of the configured URL is dropped; a path prefix is kept', async () => {
    const s = createServer({ pageSize, publicUrl: 'https://api.example.com/v1/' });
    expect(s.publicUrl).toBe('https://api.example.com/v1');
    const { body } = await getJson<ListBody>(s, '/contacts');
    expect(body.paging.nextURL).toBe('https://api.example.com/v1/contacts?cursor=7');
  });

  test.each([
    'api.example.com',
    'ftp://example.com',
    'http://example.com/?a=1',
    'http://u:p@example.com',
    'not a url',
  ])('an invalid public URL %s is refused', (url) => {
    expect(() => createServer({ publicUrl: url })).toThrow(ServerOptionsError);
  });

  describe('over a socket', () => {
    const socketServer = createServer({ pageSize });
    let base = '';
    beforeAll(async () => {
      // an answer rendered before listen must not be served after it (the cache keys on the base URL)
      const before = await getJson<ListBody>(socketServer, '/contacts');
      expect(before.body.paging.nextURL).toBe('http://127.0.0.1/contacts?cursor=7');
      base = await socketServer.listen(0, '127.0.0.1');
    });
    afterAll(() => socketServer.close());

    test('the default is the listen URL, and a forged Host header changes nothing', async () => {
      expect(socketServer.publicUrl).toBe(base);
      const authorization = authorizationHeader(adminCred.authId, adminCred.accessKey, 'cursor=7');
      for (const host of [new URL(base).host, 'evil.example', 'evil.example:8080']) {
        const res = await rawRequest(base, '/contacts?cursor=7', {
          headers: { authorization, host },
        });
        expect(res.status).toBe(200);
        const body = JSON.parse(res.body.toString('utf8')) as ListBody;
        expect(body.paging.nextURL).toBe(`${base}/contacts?cursor=14`);
        expect(body.paging.previousURL).toBe(`${base}/contacts?cursor=0`);
        expect(res.headers.link).toBe(
          `<${base}/contacts?cursor=14>; rel="next", <${base}/contacts?cursor=0>; rel="prev"`,
        );
      }
    });

    test('the raw query of the request line is kept byte for byte', async () => {
      const qs = "total='a'~!*()&cursor=7";
      const res = await rawRequest(base, `/contacts?${qs}`, {
        headers: { authorization: authorizationHeader(adminCred.authId, adminCred.accessKey, qs) },
      });
      expect(res.status).toBe(200);
      const body = JSON.parse(res.body.toString('utf8')) as ListBody;
      expect(body.paging.nextURL).toBe(`${base}/contacts?total='a'~!*()&cursor=14`);
    });

    test('a 204 over the socket keeps X-Total-Count, Link and the Content-Type of its rtn', async () => {
      const qs = `rtn=text&cursor=${contacts}`;
      const res = await rawRequest(base, `/contacts?${qs}`, {
        headers: { authorization: authorizationHeader(adminCred.authId, adminCred.accessKey, qs) },
      });
      expect(res.status).toBe(204);
      expect(res.body.byteLength).toBe(0);
      expect(res.headers['x-total-count']).toBe(String(contacts));
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers.link).toBe(
        `<${base}/contacts?rtn=text&cursor=${contacts - pageSize}>; rel="prev"`,
      );
    });
  });

  test('in-memory requests of BASE never leak BASE into the paging URLs', async () => {
    const { body } = await getJson<ListBody>(server, '/contacts', 'cursor=7');
    expect(body.paging.nextURL!.startsWith(BASE)).toBe(false);
  });
});
