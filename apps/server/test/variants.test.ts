import {
  type Caller,
  compareTables,
  contactIdOf,
  contentTypeMatches,
  type Dataset,
  ENDPOINT_LIST,
  type Endpoint,
  envelopeSchema,
  htmlDocumentProblems,
  normaliseEmail,
  parseHtml,
  parseText,
  type Rtn,
  type Table,
} from '@tagtrack/core';
import { canonicalDataset as ds } from '@tagtrack/dataset/canonical';
import { buildIndex } from '@tagtrack/engine';
import { describe, expect, test } from 'vitest';
import {
  alternativeContactId,
  createServer,
  EXTRA_HEADERS,
  isVariantName,
  ServerOptionsError,
  type TagtrackServer,
  VARIANT_NAMES,
  VARIANTS,
  type VariantName,
} from '../src/index.ts';
import { credential, get } from './helpers.ts';

const PUBLIC = 'http://public.example';
const PAGE = 40;
const index = buildIndex(ds);
const adminCred = credential(1, 'admin');
const admin: Caller = {
  memberID: adminCred.memberID,
  teamID: adminCred.teamID,
  accountType: 'admin',
};
const plain = createServer({ publicUrl: PUBLIC, pageSize: PAGE });

const tag = index.tags(admin, {})!.find((t) => t.stats.totalOpens > 0 && t.stats.totalClicks > 0)!;
const openDay = index.tagOpens(admin, tag.tagID)![0]!.openDate.slice(0, 10);
const contactEmail = normaliseEmail(index.contacts(admin)[3]!.email);
const groupName = ds.teams[0]!.groups[1]!.groupName; // 'Équipe Île-de-France': non-ASCII

/** One request per endpoint of the catalogue, with ids the team 1 admin sees. */
function requestsFor(
  variant: VariantName | undefined,
): { e: Endpoint; path: string; query: string }[] {
  const contactID =
    variant === 'contact-ids-alternative'
      ? alternativeContactId(contactEmail)
      : contactIdOf(contactEmail);
  const params: Record<string, string> = {
    memberID: admin.memberID,
    group: groupName,
    tagID: tag.tagID,
    contactID,
  };
  return ENDPOINT_LIST.map((e) => ({
    e,
    path: e.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(params[n]!)),
    query: e.requiredQuery.includes('date') ? `date=${openDay}` : '',
  }));
}

function withRtn(query: string, rtn: Rtn, cursor = 0): string {
  return [query, `rtn=${rtn}`, cursor > 0 ? `cursor=${cursor}` : '']
    .filter((q) => q !== '')
    .join('&');
}

const TIMESTAMP_KEYS = new Set(['dateSent', 'dateLastSent', 'clickDate', 'openDate']);

/**
 * A JSON value with timestamps as ISO instants, contact ids as their normalised email, and
 * event recipients' emails normalised.
 */
function normaliseJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseJson);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (TIMESTAMP_KEYS.has(k) && typeof v === 'string') out[k] = new Date(v).toISOString();
    else if ((k === 'contactID' || k === 'recipientID') && typeof o.email === 'string') {
      out[k] = `contact:${normaliseEmail(o.email)}`;
    } else if (k === 'email' && 'recipientID' in o && typeof v === 'string') {
      // an event recipient's email form is free (spec §9 Revision 3)
      out[k] = normaliseEmail(v);
    } else out[k] = normaliseJson(v);
  }
  return out;
}

const TIMESTAMP_COLUMNS = new Set([
  'dateSent',
  'dateLastSent',
  'clickDate',
  'openDate',
  'details.clickDate',
  'details.openDate',
]);
const ID_COLUMNS: Record<string, string> = {
  contactID: 'email',
  'recipient.recipientID': 'recipient.email',
};

/** A table with the same normalisation as {@link normaliseJson}, by column name. */
function normaliseTable(table: Table): Table {
  const at = (name: string) => table.columns.indexOf(name);
  return {
    columns: table.columns,
    rows: table.rows.map((row) =>
      row.map((cell, c) => {
        const name = table.columns[c]!;
        if (TIMESTAMP_COLUMNS.has(name) && cell !== '') return new Date(cell).toISOString();
        if (name === 'recipient.email') return normaliseEmail(cell);
        const email = ID_COLUMNS[name];
        if (email !== undefined && at(email) >= 0)
          return `contact:${normaliseEmail(row[at(email)]!)}`;
        return cell;
      }),
    ),
  };
}

/** The status, and the meaning of a response's body per spec §8 Revision 2. */
async function meaning(
  e: Endpoint,
  rtn: Rtn,
  res: Response,
): Promise<{ status: number; json?: unknown; table?: Table }> {
  const text = await res.text();
  if (res.status === 204) {
    expect(text).toBe('');
    return { status: 204 };
  }
  expect(res.status).toBe(200);
  expect(contentTypeMatches(rtn, res.headers.get('content-type') ?? undefined)).toBe(true);
  if (rtn === 'json') {
    return { status: 200, json: normaliseJson(envelopeSchema(e).parse(JSON.parse(text))) };
  }
  if (rtn === 'html') {
    expect(htmlDocumentProblems(text, res.headers.get('content-type') ?? undefined)).toEqual([]);
  }
  return { status: 200, table: normaliseTable(rtn === 'text' ? parseText(text) : parseHtml(text)) };
}

/**
 * The meaning of the unvaried server's answers, by path, query, format and cursor: the same
 * for every variant, so computed once for the file (the server is read-only).
 */
const plainMeanings = new Map<string, ReturnType<typeof meaning>>();

/** Asserts that `server` answers every endpoint in every format with the meaning of `plain`. */
async function expectSameMeaning(server: TagtrackServer, variant: VariantName): Promise<void> {
  const expected = requestsFor(undefined);
  const actual = requestsFor(variant);
  for (let i = 0; i < expected.length; i++) {
    const { e } = expected[i]!;
    for (const rtn of ['json', 'text', 'html'] as const) {
      for (const cursor of e.response === 'list' ? [0, 1] : [0]) {
        const query = withRtn(expected[i]!.query, rtn, cursor);
        const key = JSON.stringify([expected[i]!.path, query]);
        let pending = plainMeanings.get(key);
        if (pending === undefined) {
          pending = get(plain, expected[i]!.path, query).then((res) => meaning(e, rtn, res));
          plainMeanings.set(key, pending);
        }
        const want = await pending;
        const res = await get(server, actual[i]!.path, withRtn(actual[i]!.query, rtn, cursor));
        const got = await meaning(e, rtn, res);
        const what = `${variant}: ${e.path} rtn=${rtn} cursor=${cursor}`;
        expect(got.status, what).toBe(want.status);
        if (want.json !== undefined) expect(got.json, what).toEqual(want.json);
        if (want.table !== undefined) {
          expect(compareTables(want.table, got.table!), what).toBeUndefined();
        }
      }
    }
  }
}

/** Variants whose server options change the pages themselves (compared by walking instead). */
const OPTION_VARIANTS = VARIANTS.filter((v) => v.layer === 'options').map((v) => v.name);

describe('VARIANTS (spec: the free clauses and profile options)', () => {
  test('every variant is declared once with a description, a freedom clause and a layer', () => {
    expect(VARIANTS.map((v) => v.name)).toEqual([...VARIANT_NAMES]);
    expect(new Set(VARIANT_NAMES).size).toBe(VARIANT_NAMES.length);
    expect(VARIANT_NAMES).toHaveLength(28);
    for (const v of VARIANTS) {
      expect(v.description.length).toBeGreaterThan(10);
      expect(v.freedom).toMatch(/\bspec\b/);
      expect(v.transport).toBe(v.layer === 'transport' && v.name !== 'extra-headers');
      expect(isVariantName(v.name)).toBe(true);
      if (v.layer === 'options') {
        expect(Object.keys('profile' in v ? v.profile : {})).toEqual(
          Object.keys('server' in v ? v.server : {}),
        );
      }
    }
    expect(isVariantName('nope')).toBe(false);
  });

  test('an unknown variant is refused; an option contradicting a variant is refused', () => {
    expect(() => createServer({ variants: ['nope' as VariantName] })).toThrow(/unknown variant/);
    expect(() => createServer({ variants: ['page-size-7'], pageSize: 10 })).toThrow(
      ServerOptionsError,
    );
    expect(() => createServer({ variants: ['empty-page'], pagingEnd: 'no-content' })).toThrow(
      ServerOptionsError,
    );
    expect(createServer({ variants: ['page-size-7'], pageSize: 7 }).variants).toEqual([
      'page-size-7',
    ]);
  });
});

test('control: the same-meaning comparison fails on a server that really differs (fault tablet-not-mobile)', async () => {
  const faulty = createServer({ publicUrl: PUBLIC, pageSize: PAGE, faults: ['tablet-not-mobile'] });
  await expect(expectSameMeaning(faulty, 'extra-headers')).rejects.toThrow();
});

describe.each(
  VARIANT_NAMES.filter((v) => !(OPTION_VARIANTS as readonly string[]).includes(v)).map((v) => [v]),
)('variant %s', (variant) => {
  const server = createServer({ publicUrl: PUBLIC, pageSize: PAGE, variants: [variant] });

  test('every endpoint in every format parses with core and means what the unvaried server says', async () => {
    await expectSameMeaning(server, variant);
  });
});

describe('what each variant does', () => {
  const vary = (variant: VariantName) =>
    createServer({ publicUrl: PUBLIC, pageSize: PAGE, variants: [variant] });

  test('json-keys-shuffled: the envelope and the records list their keys in reverse', async () => {
    const body = await (await get(vary('json-keys-shuffled'), '/teams')).text();
    expect(body.startsWith('{"paging":{"nextURL":')).toBe(true);
    expect(body).toContain('"data":[{"groupName":');
    const err = await (await get(vary('json-keys-shuffled'), '/nope')).text();
    expect(err.startsWith('{"message":')).toBe(true);
  });

  test('huge-cursor-clamp: past a cursor above 2^53 - 1, previous is 2^53 - 1 - pageSize (Revision 2); below it, the pages are those of the reference', async () => {
    const server = vary('huge-cursor-clamp');
    const res = await get(server, '/contacts', 'rtn=json&cursor=99999999999999999999');
    expect(res.status).toBe(204);
    expect(res.headers.get('link')).toBe(
      `<${PUBLIC}/contacts?rtn=json&cursor=${Number.MAX_SAFE_INTEGER - PAGE}>; rel="prev"`,
    );
    const plain = createServer({ publicUrl: PUBLIC, pageSize: PAGE });
    expect(await (await get(server, '/contacts', 'cursor=3')).text()).toBe(
      await (await get(plain, '/contacts', 'cursor=3')).text(),
    );
    await plain.close();
  });

  test('paging-query-empty-pieces-dropped: the paging URLs leave out the empty pieces of the query', async () => {
    const res = await get(vary('paging-query-empty-pieces-dropped'), '/contacts', '&rtn=json&&');
    expect(res.headers.get('link')).toBe(
      `<${PUBLIC}/contacts?rtn=json&cursor=${PAGE}>; rel="next"`,
    );
    const plain = createServer({ publicUrl: PUBLIC, pageSize: PAGE });
    const kept = await get(plain, '/contacts', '&rtn=json&&');
    expect(kept.headers.get('link')).toBe(
      `<${PUBLIC}/contacts?&rtn=json&&&cursor=${PAGE}>; rel="next"`,
    );
    await plain.close();
  });

  test('json-pretty: two-space indentation and a final newline', async () => {
    const body = await (await get(vary('json-pretty'), '/teams')).text();
    expect(body).toMatch(/^\{\n {2}"data": \[\n {4}\{\n/);
    expect(body.endsWith('}\n')).toBe(true);
  });

  test('json-unicode-escapes: pure ASCII, with \\u escapes and \\/', async () => {
    const path = `/teams/group/${encodeURIComponent(groupName)}`;
    const body = await (await get(vary('json-unicode-escapes'), path)).text();
    expect(body).toMatch(/^[\x20-\x7e]*$/);
    expect(body).toContain('\\u00c9quipe \\u00cele-de-France');
    expect(body).toContain('http:\\/\\/public.example');
    expect(JSON.parse(body)).toEqual(await (await get(plain, path)).json());
  });

  test('content-type-params: an extra parameter and Charset=UTF-8, on errors too', async () => {
    const s = vary('content-type-params');
    for (const rtn of ['json', 'text', 'html'] as const) {
      const ct = (await get(s, '/teams', `rtn=${rtn}`)).headers.get('content-type')!;
      expect(ct).toMatch(/; version="1"; Charset=UTF-8$/);
      expect(contentTypeMatches(rtn, ct)).toBe(true);
    }
    const err = (await get(s, '/nope')).headers.get('content-type');
    expect(err).toBe('application/json; version="1"; Charset=UTF-8');
  });

  test('columns-reordered: text and html headers in reverse', async () => {
    for (const rtn of ['text', 'html'] as const) {
      const parse = rtn === 'text' ? parseText : parseHtml;
      const a = parse(await (await get(plain, '/teams/tags', `rtn=${rtn}`)).text());
      const b = parse(
        await (await get(vary('columns-reordered'), '/teams/tags', `rtn=${rtn}`)).text(),
      );
      expect(b.columns).toEqual([...a.columns].reverse());
    }
  });

  test('empty-columns-dropped: the date column of an aggregated stats record is left out', async () => {
    for (const rtn of ['text', 'html'] as const) {
      const parse = rtn === 'text' ? parseText : parseHtml;
      const q = `aggregateData=true&rtn=${rtn}`;
      expect(parse(await (await get(plain, '/stats', q)).text()).columns).toContain('date');
      const cols = parse(
        await (await get(vary('empty-columns-dropped'), '/stats', q)).text(),
      ).columns;
      expect(cols).not.toContain('date');
      expect(cols).toContain('totalSent');
    }
  });

  test('html-no-thead: the header row is a plain first row', async () => {
    const html = await (await get(vary('html-no-thead'), '/teams', 'rtn=html')).text();
    expect(html).not.toContain('<thead');
    expect(html).toMatch(/<table>\n<tr><th>memberID<\/th>/);
  });

  test('html-http-equiv-charset and html-no-charset-meta: the two other charset forms', async () => {
    const equiv = await (await get(vary('html-http-equiv-charset'), '/teams', 'rtn=html')).text();
    expect(equiv).toContain('<meta http-equiv="Content-Type" content="text/html; charset=utf-8">');
    expect(equiv).not.toContain('<meta charset');
    expect(htmlDocumentProblems(equiv)).toEqual([]);
    const none = await (await get(vary('html-no-charset-meta'), '/teams', 'rtn=html')).text();
    expect(none).not.toContain('<meta');
    // valid only because the Content-Type carries the charset
    expect(htmlDocumentProblems(none)).not.toEqual([]);
    expect(htmlDocumentProblems(none, 'text/html; charset=utf-8')).toEqual([]);
  });

  test('html-alternative-markup: numeric references, attributes, extra markup outside the table', async () => {
    const path = `/teams/group/${encodeURIComponent(groupName)}`;
    const html = await (await get(vary('html-alternative-markup'), path, 'rtn=html')).text();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('&#xc9;quipe &#xce;le-de-France');
    expect(html).toContain('<th scope="col" data-col="0">');
    expect(html).toContain('<h1 id="title">');
    expect(html).toContain('<footer>');
    expect(html).not.toMatch(/&(amp|lt|gt|quot|apos);/);
  });

  test('fractional-seconds: every timestamp ends in .000Z', async () => {
    const s = vary('fractional-seconds');
    const stamps: string[] = [];
    for (const { path, query } of requestsFor('fractional-seconds')) {
      const text = await (await get(s, path, query)).text();
      stamps.push(
        ...[...text.matchAll(/"(?:dateSent|dateLastSent|clickDate|openDate)":"([^"]*)"/g)].map(
          (m) => m[1]!,
        ),
      );
    }
    expect(stamps.length).toBeGreaterThan(50);
    for (const t of stamps) expect(t).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
  });

  test('extra-fields: every record carries object and revision, in json and as text columns', async () => {
    const s = vary('extra-fields');
    const body = (await (await get(s, '/teams/tags')).json()) as {
      data: Record<string, unknown>[];
    };
    for (const t of body.data) expect(t).toMatchObject({ object: 'tag', revision: 2 });
    const single = (await (await get(s, `/tags/daily/${tag.tagID}`, `date=${openDay}`)).json()) as {
      data: Record<string, unknown>;
    };
    expect(single.data).toMatchObject({ object: 'daily_counts', revision: 2 });
    const table = parseText(await (await get(s, '/clicks', 'rtn=text')).text());
    expect(table.columns.slice(-2)).toEqual(['object', 'revision']);
    for (const row of table.rows) expect(row.slice(-2)).toEqual(['click_group', '2']);
  });

  test('contact-ids-alternative: one other id per email in 9, 11, 15, 16, 17; only those ids resolve', async () => {
    const s = vary('contact-ids-alternative');
    const list = (await (await get(s, '/contacts', 'cursor=0')).json()) as {
      data: { contactID: string; email: string }[];
    };
    for (const c of list.data) {
      expect(c.contactID).toBe(alternativeContactId(normaliseEmail(c.email)));
      expect(c.contactID).toMatch(/^c-[A-Za-z0-9_-]{22}$/);
    }
    const byTag = (await (await get(s, `/contacts/tag/${tag.tagID}`)).json()) as {
      data: { contactID: string; email: string }[];
    };
    for (const c of byTag.data)
      expect(c.contactID).toBe(alternativeContactId(normaliseEmail(c.email)));
    for (const path of ['/opens', '/clicks']) {
      const groups = (await (await get(s, path)).json()) as {
        data: Record<string, { recipient: { recipientID: string; email: string } }[]>[];
      };
      const events = groups.data.flatMap((g) => (g.opens ?? g.clicks)!);
      expect(events.length).toBeGreaterThan(0);
      for (const ev of events) {
        expect(ev.recipient.recipientID).toBe(
          alternativeContactId(normaliseEmail(ev.recipient.email)),
        );
      }
    }
    const alt = alternativeContactId(contactEmail);
    const one = (await (await get(s, `/contacts/${alt}`)).json()) as {
      data: { contactID: string };
    };
    expect(one.data.contactID).toBe(alt);
    // core's id is not an id of this server; unknown and out-of-scope ids share one 404 message
    const core = await get(s, `/contacts/${contactIdOf(contactEmail)}`);
    expect(core.status).toBe(404);
    const unknown = (await (await get(s, '/contacts/c-unknown')).json()) as { message: string };
    expect(unknown.message).toBe('contact "c-unknown" not found');
    const otherTeam = ds.tags.find((t) =>
      ds.teams[1]!.members.some((m) => m.memberID === t.memberID),
    )!;
    const foreignEmail = normaliseEmail(otherTeam.recipients[0]!.email);
    if (!index.contacts(admin).some((c) => normaliseEmail(c.email) === foreignEmail)) {
      const foreign = alternativeContactId(foreignEmail);
      const res = (await (await get(s, `/contacts/${foreign}`)).json()) as { message: string };
      expect(res.message).toBe(`contact ${JSON.stringify(foreign)} not found`);
    }
  });

  test('event-ties-reversed: the canonical dataset has no ties, so nothing changes there', async () => {
    const s = vary('event-ties-reversed');
    for (const path of [
      `/opens/tag/${tag.tagID}`,
      `/clicks/tag/${tag.tagID}`,
      '/opens',
      '/clicks',
    ]) {
      expect(await (await get(s, path)).text()).toBe(await (await get(plain, path)).text());
    }
  });

  test('event-ties-reversed: two opens of one tag at the same instant come in reverse order', async () => {
    const opens = ds.opens.filter((o) => o.tagID === tag.tagID);
    const [first, second] = [...opens].sort((a, b) => a.date.localeCompare(b.date));
    const tied: Dataset = {
      ...ds,
      opens: ds.opens.map((o) =>
        o === second ? { ...o, date: first!.date, city: 'Tied City' } : o,
      ),
    };
    const a = createServer({ dataset: tied, publicUrl: PUBLIC });
    const b = createServer({ dataset: tied, publicUrl: PUBLIC, variants: ['event-ties-reversed'] });
    for (const [path, pick] of [
      [`/opens/tag/${tag.tagID}`, (d: unknown[]) => d as { city: string; openDate: string }[]],
      [
        '/opens',
        (d: unknown[]) =>
          (d as { tagID: string; opens: { details: { city: string; openDate: string } }[] }[])
            .find((g) => g.tagID === tag.tagID)!
            .opens.map((o) => o.details),
      ],
    ] as const) {
      const x = pick(((await (await get(a, path)).json()) as { data: unknown[] }).data);
      const y = pick(((await (await get(b, path)).json()) as { data: unknown[] }).data);
      const i = x.findIndex((e) => e.openDate === first!.date);
      expect(x[i + 1]!.openDate).toBe(first!.date);
      expect([y[i]!.city, y[i + 1]!.city]).toEqual([x[i + 1]!.city, x[i]!.city]);
      expect(y.slice(0, i)).toEqual(x.slice(0, i));
      expect(y.slice(i + 2)).toEqual(x.slice(i + 2));
    }
  });

  test('extra-headers: every response, errors included, carries the extra headers', async () => {
    const s = vary('extra-headers');
    for (const res of [
      await get(s, '/teams'),
      await get(s, '/nope'),
      await get(s, '/teams', '', { as: null }),
    ]) {
      for (const [name, value] of Object.entries(EXTRA_HEADERS)) {
        expect(res.headers.get(name)).toBe(value);
      }
    }
    // a 204 has no Content-Type (free: only X-Total-Count and Link are fixed on it)
    const past = await get(s, '/teams', 'cursor=99999');
    expect(past.status).toBe(204);
    expect(past.headers.get('content-type')).toBeNull();
    expect(past.headers.get('x-total-count')).not.toBeNull();
    expect(past.headers.get('link')).not.toBeNull();
    expect(
      (await get(createServer(), '/teams', 'cursor=99999')).headers.get('content-type'),
    ).not.toBeNull();
  });

  test.each(VARIANTS.filter((v) => v.transport).map((v) => [v.name]))(
    '%s changes nothing in memory (a transport variant)',
    async (variant) => {
      const s = vary(variant);
      for (const [path, query] of [
        ['/teams', ''],
        ['/teams/tags', 'rtn=html'],
        ['/contacts', 'cursor=99999'],
      ]) {
        const a = await get(plain, path!, query);
        const b = await get(s, path!, query);
        expect(b.status).toBe(a.status);
        const headers = (r: Response) => {
          const out: [string, string][] = [];
          r.headers.forEach((v, k) => {
            if (k !== 'x-request-id') out.push([k, v]);
          });
          return out;
        };
        expect(headers(b)).toEqual(headers(a));
        expect(await b.text()).toBe(await a.text());
      }
    },
  );
});

describe('option variants set the server options their profile declares', () => {
  /** Every record of a list, walked over nextURL. */
  async function walk(
    server: TagtrackServer,
    path: string,
  ): Promise<{ records: unknown[]; pages: number[] }> {
    const records: unknown[] = [];
    const pages: number[] = [];
    let url: string | null = `${PUBLIC}${path}`;
    while (url !== null) {
      const res = await get(
        server,
        url.slice(PUBLIC.length).split('?')[0]!,
        url.split('?')[1] ?? '',
      );
      if (res.status === 204) break;
      const body = (await res.json()) as { data: unknown[]; paging: { nextURL: string | null } };
      records.push(...body.data);
      pages.push(body.data.length);
      url = body.paging.nextURL;
    }
    return { records, pages };
  }

  test('page-size-7: pages of 7, the same records in the same order', async () => {
    const s = createServer({ publicUrl: PUBLIC, variants: ['page-size-7'] });
    const a = await walk(plain, '/contacts');
    const b = await walk(s, '/contacts');
    expect(b.records).toEqual(a.records);
    expect(b.pages.slice(0, -1).every((n) => n === 7)).toBe(true);
    expect(b.pages.length).toBe(Math.ceil(a.records.length / 7));
  });

  test('empty-page: 200 with data [] past the end, nextURL null on the last page', async () => {
    const s = createServer({ publicUrl: PUBLIC, pageSize: PAGE, variants: ['empty-page'] });
    const a = await walk(plain, '/contacts');
    const b = await walk(s, '/contacts');
    expect(b.records).toEqual(a.records);
    const past = await get(s, '/contacts', `cursor=${a.records.length}`);
    expect(past.status).toBe(200);
    expect(((await past.json()) as { data: unknown[] }).data).toEqual([]);
  });

  test('member-without-group-empty: groupID and groupName are empty strings', async () => {
    const s = createServer({ publicUrl: PUBLIC, variants: ['member-without-group-empty'] });
    const body = (await (await get(s, '/teams')).json()) as { data: Record<string, string>[] };
    const plainBody = (await (await get(plain, '/teams')).json()) as {
      data: Record<string, string>[];
    };
    const without = plainBody.data.filter((m) => m.groupID === undefined).map((m) => m.memberID);
    expect(without.length).toBeGreaterThan(0);
    for (const m of body.data) {
      if (without.includes(m.memberID)) expect([m.groupID, m.groupName]).toEqual(['', '']);
    }
  });
});
