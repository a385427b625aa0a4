import { fc, test as fcTest } from '@fast-check/vitest';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ENDPOINT_LIST, type Endpoint, type EndpointId, endpointById } from '../src/endpoints.ts';
import {
  CONTENT_TYPES,
  compareTables,
  contentTypeMatches,
  FormatParseError,
  htmlDocumentProblems,
  parseHtml,
  parseText,
  renderBody,
  renderHtml,
  renderText,
  type Table,
  tableColumns,
  tableToRecords,
  toTable,
  unescapeTextCell,
} from '../src/formats.ts';

const ep = (id: EndpointId): Endpoint => endpointById(id);

/** Characters that break naive TSV or HTML writers, plus arbitrary unicode. */
const hostileUnit = fc.oneof(
  fc.constantFrom('\t', '\n', '\r', '\\', '\\t', '\\n', '<', '>', '&', '"', "'", '&amp;', '&#13;'),
  fc.constantFrom('<script>alert(1)</script>', '</td>', '</table>', '<!--', ']]>', ' ', 'é', '😀'),
  fc.string({ unit: 'binary', maxLength: 3 }),
);
/** Any string except U+0000, which HTML cannot carry (see renderHtml). */
const hostileString = fc
  .string({ unit: hostileUnit, maxLength: 8 })
  .map((s) => s.replace(/\0/g, ''));

/** A generator of JSON records matching a zod record schema, strings drawn from `str`. */
function arbOf(schema: z.ZodType, str: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  if (schema instanceof z.ZodOptional) {
    return fc.option(arbOf(schema.unwrap() as z.ZodType, str), { nil: undefined });
  }
  if (schema instanceof z.ZodNullable) {
    return fc.option(arbOf(schema.unwrap() as z.ZodType, str), { nil: null });
  }
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodType>;
    const entries = Object.entries(shape).map(([k, v]) => [k, arbOf(v, str)] as const);
    return fc.record(Object.fromEntries(entries)).map((r) =>
      // drop absent optional keys, as JSON would
      Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)),
    );
  }
  if (schema instanceof z.ZodArray) {
    return fc.array(arbOf(schema.element as z.ZodType, str), { minLength: 1, maxLength: 3 });
  }
  if (schema instanceof z.ZodNumber) return fc.nat();
  if (schema instanceof z.ZodEnum) return fc.constantFrom(...(schema.options as string[]));
  return str;
}

const arbEndpointRecords = fc
  .constantFrom(...ENDPOINT_LIST)
  .chain((e) =>
    fc.tuple(fc.constant(e), fc.array(arbOf(e.record, hostileString), { maxLength: 4 })),
  );

const arbTable = fc.integer({ min: 1, max: 5 }).chain((n) =>
  fc.record({
    columns: fc.array(hostileString, { minLength: n, maxLength: n }),
    rows: fc.array(fc.array(hostileString, { minLength: n, maxLength: n }), { maxLength: 5 }),
  }),
);

describe('toTable (spec §8 flattening)', () => {
  it('renders members in schema order with empty groupID/groupName when absent', () => {
    const t = toTable(ep('teams.list'), [
      { memberID: 'm1', firstname: 'Ann', lastname: 'Lee', email: 'a@x', accountType: 'admin' },
      {
        memberID: 'm2',
        firstname: 'Bo',
        lastname: 'Ng',
        email: 'b@x',
        accountType: 'manager',
        groupID: 'g1',
        groupName: 'Sales',
      },
    ]);
    expect(t).toEqual({
      columns: [
        'memberID',
        'firstname',
        'lastname',
        'email',
        'accountType',
        'groupID',
        'groupName',
      ],
      rows: [
        ['m1', 'Ann', 'Lee', 'a@x', 'admin', '', ''],
        ['m2', 'Bo', 'Ng', 'b@x', 'manager', 'g1', 'Sales'],
      ],
    });
  });

  it('renders a tag with recipients as "name <email>" joined by "; " and dotted stats', () => {
    const stats = {
      totalOpens: 3,
      uniqueOpens: 2,
      totalClicks: 1,
      uniqueClicks: 1,
      desktopOpens: 2,
      mobileOpens: 1,
      desktopClicks: 0,
      mobileClicks: 1,
    };
    const t = toTable(ep('teams.tags'), [
      {
        tagID: 't1',
        subject: 'Hi',
        dateSent: '2024-03-05T14:22:01Z',
        recipients: [
          { name: 'Ann', email: 'a@x' },
          { name: 'Bo', email: 'b@x' },
        ],
        stats,
      },
    ]);
    expect(tableToRecords(t)).toEqual([
      {
        tagID: 't1',
        subject: 'Hi',
        dateSent: '2024-03-05T14:22:01Z',
        recipients: 'Ann <a@x>; Bo <b@x>',
        'stats.totalOpens': '3',
        'stats.uniqueOpens': '2',
        'stats.totalClicks': '1',
        'stats.uniqueClicks': '1',
        'stats.desktopOpens': '2',
        'stats.mobileOpens': '1',
        'stats.desktopClicks': '0',
        'stats.mobileClicks': '1',
      },
    ]);
  });

  it('gives stats a date column, empty and null-safe in the aggregated record', () => {
    const t = toTable(ep('stats.team'), [
      {
        totalSent: 0,
        totalOpens: 0,
        totalClicks: 0,
        uniqueOpens: 0,
        uniqueClicks: 0,
        dateLastSent: null,
      },
    ]);
    expect(t.columns).toEqual([
      'totalSent',
      'totalOpens',
      'totalClicks',
      'uniqueOpens',
      'uniqueClicks',
      'dateLastSent',
      'date',
    ]);
    expect(t.rows).toEqual([['0', '0', '0', '0', '0', '', '']]);
  });

  it('renders event groups (endpoints 9 and 11) one row per event with the group tagID', () => {
    const details = (d: string) => ({
      openDate: d,
      counry: 'DE',
      region: 'BE',
      city: 'Berlin',
      latitude: '52.52',
      longitude: '13.40',
      device: 'mobile',
      os: 'iOS',
      browser: 'Safari',
    });
    const t = toTable(ep('opens.list'), [
      {
        tagID: 't1',
        opens: [
          { recipient: { recipientID: 'r1', name: 'Ann', email: 'a@x' }, details: details('D1') },
          { recipient: { recipientID: 'r2', name: 'Bo', email: 'b@x' }, details: details('D2') },
        ],
      },
      {
        tagID: 't2',
        opens: [
          { recipient: { recipientID: 'r1', name: 'Ann', email: 'a@x' }, details: details('D3') },
        ],
      },
    ]);
    expect(t.columns.slice(0, 5)).toEqual([
      'tagID',
      'recipient.recipientID',
      'recipient.name',
      'recipient.email',
      'details.openDate',
    ]);
    expect(t.columns).toContain('details.counry');
    expect(t.rows.map((r) => [r[0], r[1], r[4]])).toEqual([
      ['t1', 'r1', 'D1'],
      ['t1', 'r2', 'D2'],
      ['t2', 'r1', 'D3'],
    ]);
  });

  it('renders the empty list as the header row only, in both formats', () => {
    for (const e of ENDPOINT_LIST) {
      const t = toTable(e, []);
      expect(t).toEqual({ columns: tableColumns(e), rows: [] });
      expect(renderBody(e, [], 'text')).toBe(`${tableColumns(e).join('\t')}\n`);
      expect(parseHtml(renderBody(e, [], 'html'))).toEqual(t);
    }
  });

  it('does not throw on malformed records: missing values are empty cells', () => {
    const t = toTable(ep('contacts.list'), [null, 42, { contactID: 'c', stats: 'oops' }]);
    expect(t.rows).toHaveLength(3);
    expect(t.rows[2]![0]).toBe('c');
    expect(t.rows.every((r) => r.length === t.columns.length)).toBe(true);
  });

  fcTest.prop([arbEndpointRecords])(
    'every row of toTable has exactly the endpoint columns, and event groups give one row per event',
    ([e, records]) => {
      const t = toTable(e, records);
      expect(t.columns).toEqual(tableColumns(e));
      for (const row of t.rows) expect(row).toHaveLength(t.columns.length);
      const key = e.id === 'clicks.list' ? 'clicks' : e.id === 'opens.list' ? 'opens' : undefined;
      const expectedRows =
        key === undefined
          ? records.length
          : records.reduce<number>((n, r) => n + (r as Record<string, unknown[]>)[key]!.length, 0);
      expect(t.rows).toHaveLength(expectedRows);
    },
  );
});

describe('text format', () => {
  it('escapes backslash, tab, newline and CR inside cells', () => {
    const text = renderText({ columns: ['a', 'b'], rows: [['x\ty', 'l1\nl2\r\\']] });
    expect(text).toBe('a\tb\nx\\ty\tl1\\nl2\\r\\\\\n');
  });

  fcTest.prop([arbTable])(
    'parseText(renderText(t)) equals t, and every line has columns - 1 raw tabs',
    (t) => {
      const text = renderText(t);
      expect(parseText(text)).toEqual(t);
      const lines = text.split('\n');
      expect(lines).toHaveLength(t.rows.length + 2); // final newline
      for (const line of lines.slice(0, -1)) {
        expect(line.split('\t')).toHaveLength(t.columns.length);
      }
    },
  );

  it('accepts a missing final newline', () => {
    expect(parseText('a\tb\n1\t2')).toEqual({ columns: ['a', 'b'], rows: [['1', '2']] });
  });

  it('rejects a raw CR (inside a cell, alone or before a line feed) as a format failure, not the value it stands for', () => {
    for (const body of ['a\tb\nx\ry\t2\n', 'a\tb\n1\t2\r\n', 'a\tb\r\n1\t2\n', 'a\tb\n1\t\r']) {
      expect(() => parseText(body)).toThrow(FormatParseError);
      expect(() => parseText(body)).toThrow(/raw carriage return/);
    }
    expect(() => parseText('a\tb\nx\ry\t2\n')).toThrow(/line 2, cell 1/);
    // the escaped form is the value; other control characters need no escape
    expect(parseText('a\tb\nx\\ry\t\u0001\u000b\n')).toEqual({
      columns: ['a', 'b'],
      rows: [['x\ry', '\u0001\u000b']],
    });
  });

  fcTest.prop([arbTable.filter((t) => t.rows.some((r) => r.some((c) => c.includes('\r'))))], {
    numRuns: 50,
  })('a text body whose cells carry a raw CR instead of \\r never parses', (t) => {
    const raw = renderText(t).replace(/\\\\|\\r/g, (m) => (m === '\\r' ? '\r' : m));
    expect(() => parseText(raw)).toThrow(/raw carriage return/);
  });

  it('rejects a bad escape, a ragged row and an empty body with FormatParseError', () => {
    expect(() => unescapeTextCell('a\\x')).toThrow(/invalid escape/);
    expect(() => unescapeTextCell('trailing\\')).toThrow(FormatParseError);
    expect(() => parseText('a\tb\n1\n')).toThrow(/line 2 has 1 cells, the header has 2/);
    expect(() => parseText('')).toThrow(FormatParseError);
  });
});

describe('html format', () => {
  fcTest.prop([arbTable])('parseHtml(renderHtml(t)) equals t', (t) => {
    expect(parseHtml(renderHtml(t, 'x'))).toEqual(t);
  });

  const TEMPLATE_TAGS = new Set([
    'html',
    'head',
    'meta',
    'title',
    'body',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ]);
  type Node = { tagName?: string; childNodes?: Node[] };
  const tagsOf = (n: Node, out: string[] = []): string[] => {
    if (n.tagName !== undefined) out.push(n.tagName);
    for (const c of n.childNodes ?? []) tagsOf(c, out);
    return out;
  };

  fcTest.prop([arbTable, hostileString])(
    'values and title never create elements: the parsed document holds only the template tags',
    (t, title) => {
      const html = renderHtml(t, title);
      const tags = tagsOf(parse(html) as unknown as Node);
      expect(tags.filter((x) => !TEMPLATE_TAGS.has(x))).toEqual([]);
      expect(tags.filter((x) => x === 'td')).toHaveLength(t.rows.length * t.columns.length);
      expect(htmlDocumentProblems(html)).toEqual([]);
    },
  );

  it('escapes a script value instead of emitting it', () => {
    const html = renderHtml({ columns: ['subject'], rows: [['<script>alert("x")</script>']] }, 't');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  });

  it('is a complete HTML5 document with charset, title and one table', () => {
    const html = renderBody(ep('teams.list'), [], 'html');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toMatch(/<title>tagtrack: Team members \(GET \/teams\)<\/title>/);
    expect(htmlDocumentProblems(html)).toEqual([]);
  });

  it('htmlDocumentProblems names what a partial document lacks', () => {
    expect(htmlDocumentProblems('<table></table><table></table>')).toEqual([
      'missing <!DOCTYPE html> (document is in quirks mode)',
      'no charset: neither a <meta> declaration nor charset=utf-8 in Content-Type',
      'expected exactly one <table>, found 2',
    ]);
    expect(
      htmlDocumentProblems('<!DOCTYPE html><meta charset="iso-8859-1"><table></table>'),
    ).toEqual(['the document declares charset iso-8859-1, not utf-8']);
  });

  it('htmlDocumentProblems accepts every charset form of spec §8 Revision 2', () => {
    const table = '<table><tr><th>a</th></tr></table>';
    const forms = [
      `<!DOCTYPE html><meta charset="UTF-8">${table}`,
      `<!doctype html><meta http-equiv="Content-Type" content="text/html; charset=utf-8">${table}`,
      `<!DOCTYPE html><title>t</title>${table}`,
    ];
    for (const html of forms) {
      expect(htmlDocumentProblems(html, 'text/html; charset=utf-8')).toEqual([]);
    }
    expect(htmlDocumentProblems(forms[0]!)).toEqual([]);
    expect(htmlDocumentProblems(forms[1]!)).toEqual([]);
    expect(htmlDocumentProblems(forms[2]!, 'text/html')).toHaveLength(1);
  });

  it('parseHtml reads the header row inside or outside <thead>, th cells in data rows too', () => {
    const want = { columns: ['a', 'b'], rows: [['1', '2']] };
    expect(parseHtml('<table><tr><th>a<th>b<tr><td>1<td>2</table>')).toEqual(want);
    expect(
      parseHtml(
        '<table><tbody><tr><th>a</th><th>b</th></tr><tr><th>1</th><td>2</td></tr></tbody></table>',
      ),
    ).toEqual(want);
    expect(
      parseHtml(
        '<table><caption>x</caption><thead><tr><th>a</th><th>b</th></tr></thead><tr><td>1</td><td>2</td></tr></table>',
      ),
    ).toEqual(want);
    expect(() => parseHtml('<table><tr><td>1</td></tr></table>')).toThrow(/no header row/);
  });

  it('parseHtml rejects a raw CR in a cell (a parser would read a line feed) but reads &#13; and CR LF between tags', () => {
    const head = '<!DOCTYPE html><table>\r\n<tr><th>a</th><th>b</th></tr>\r\n';
    expect(parseHtml(`${head}<tr><td>x&#13;y</td><td>2</td></tr>\r\n</table>\r\n`)).toEqual({
      columns: ['a', 'b'],
      rows: [['x\ry', '2']],
    });
    for (const cell of ['x\ry', 'x\r\ny', '<b>x\r</b>', 'x\r']) {
      expect(() => parseHtml(`${head}<tr><td>1</td><td>${cell}</td></tr></table>`)).toThrow(
        /row 1, cell 2 holds a raw carriage return/,
      );
    }
    expect(() => parseHtml('<table><tr><th>a\rb</th></tr></table>')).toThrow(/header row, cell 1/);
  });

  fcTest.prop([arbTable.filter((t) => t.rows.some((r) => r.some((c) => c.includes('\r'))))], {
    numRuns: 50,
  })('an html body whose cells carry a raw CR instead of &#13; never parses', (t) => {
    expect(() => parseHtml(renderHtml(t, 'x').replaceAll('&#13;', '\r'))).toThrow(
      /raw carriage return/,
    );
  });

  it('parseHtml decodes entities written by other encoders and rejects bodies without a table', () => {
    const html =
      '<!DOCTYPE html><table><thead><tr><th>a</th></tr></thead>' +
      '<tbody><tr><td>&lt;b&#x3E; &amp;amp; &eacute;&#9;</td></tr></tbody></table>';
    expect(parseHtml(html)).toEqual({ columns: ['a'], rows: [['<b> &amp; é\t']] });
    expect(() => parseHtml('<p>no table</p>')).toThrow(/no <table>/);
    expect(() =>
      parseHtml(
        '<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>',
      ),
    ).toThrow(/row 1 has 2 cells/);
  });

  it('turns U+0000 into U+FFFD (HTML cannot carry NUL)', () => {
    const t = parseHtml(renderHtml({ columns: ['a'], rows: [['x\0y']] }, 't'));
    expect(t.rows[0]![0]).not.toContain('\0');
  });
});

describe('the three formats carry the same records (spec §8)', () => {
  fcTest.prop([arbEndpointRecords])(
    'toTable(records) equals parseText(renderBody text) and parseHtml(renderBody html)',
    ([e, records]) => {
      const expected = toTable(e, records);
      const fromText = parseText(renderBody(e, records, 'text'));
      const fromHtml = parseHtml(renderBody(e, records, 'html'));
      expect(compareTables(expected, fromText)).toBeUndefined();
      expect(compareTables(expected, fromHtml)).toBeUndefined();
      expect(fromText).toEqual(expected);
      expect(fromHtml).toEqual(expected);
    },
  );

  it('compareTables names the first difference', () => {
    const a: Table = { columns: ['x', 'y'], rows: [['1', '2']] };
    expect(compareTables(a, { columns: ['x'], rows: [['1']] })).toMatch(/column 'y' is missing/);
    expect(compareTables(a, { columns: ['x', 'y'], rows: [] })).toMatch(/row count differs/);
    expect(compareTables(a, { columns: ['x', 'y'], rows: [['1', '3']] })).toBe(
      `row 1, column 'y': expected "2", got "3"`,
    );
    expect(compareTables(a, { columns: ['x', 'x'], rows: [['1', '2']] })).toMatch(/twice/);
    expect(compareTables(a, { columns: ['x', 'y'], rows: [['1', '2']] })).toBeUndefined();
  });

  it('compareTables identifies columns by name (spec §8 Revision 2: order free)', () => {
    const a: Table = { columns: ['x', 'y', 'z'], rows: [['1', '2', '']] };
    // another order, an extra column, and an all-empty column left out: the same table
    expect(compareTables(a, { columns: ['y', 'extra', 'x'], rows: [['2', 'e', '1']] })).toBe(
      undefined,
    );
    expect(compareTables(a, { columns: ['y', 'x', 'z'], rows: [['1', '2', '']] })).toMatch(
      /column 'x'/,
    );
  });

  it('compareTables with unordered compares rows as a multiset', () => {
    const a: Table = { columns: ['x'], rows: [['1'], ['2'], ['2']] };
    expect(compareTables(a, { columns: ['x'], rows: [['2'], ['1'], ['2']] })).toMatch(/row 1/);
    expect(
      compareTables(a, { columns: ['x'], rows: [['2'], ['1'], ['2']] }, { unordered: true }),
    ).toBeUndefined();
    expect(
      compareTables(a, { columns: ['x'], rows: [['2'], ['1'], ['1']] }, { unordered: true }),
    ).toMatch(/matches no expected row/);
  });

  it('contentTypeMatches: media type and charset=utf-8 in any case, other parameters free', () => {
    expect(contentTypeMatches('json', 'application/json; charset=utf-8')).toBe(true);
    expect(contentTypeMatches('json', 'Application/JSON;charset="UTF-8"; profile=x')).toBe(true);
    expect(contentTypeMatches('html', 'text/html; version=5; charset=utf-8')).toBe(true);
    expect(contentTypeMatches('json', 'application/json')).toBe(false);
    expect(contentTypeMatches('json', 'text/plain; charset=utf-8')).toBe(false);
    expect(contentTypeMatches('text', 'text/plain; charset=latin1')).toBe(false);
    expect(contentTypeMatches('text', undefined)).toBe(false);
  });

  it('uses the content types of spec §8', () => {
    expect(CONTENT_TYPES).toEqual({
      json: 'application/json; charset=utf-8',
      text: 'text/plain; charset=utf-8',
      html: 'text/html; charset=utf-8',
    });
  });
});
