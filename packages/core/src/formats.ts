import { escapeUTF8 } from 'entities';
import { parse } from 'parse5';
import * as z from 'zod';
import type { Endpoint } from './endpoints.ts';
import type { Rtn } from './params.ts';

/**
 * The `text` and `html` response formats of decisions §7. Both carry a {@link Table}: the
 * endpoint's records flattened to string cells under a fixed header row. The column layout
 * is derived from the endpoint's record schema (never listed by hand):
 * - nested objects flatten to dotted names (`stats.totalOpens`);
 * - `recipients` (an array of `{ name, email }`) is one cell, `name <email>` joined by `; `;
 * - the event groups of endpoints 9 and 11 (`{ tagID, clicks|opens: [{ recipient, details }] }`)
 *   render one row per event, with the group's `tagID` followed by the event's columns
 *   (`recipient.recipientID`, …, `details.clickDate`);
 * - optional fields are columns too, empty when absent (a member's `groupID`/`groupName`,
 *   the `date` of an aggregated stats record);
 * - numbers and booleans as `String(v)`, `null` and absent values as `''`.
 */

/** Header row and data rows of a rendered response; every row has `columns.length` cells. */
export interface Table {
  columns: string[];
  rows: string[][];
}

/** Content types of the three formats (decisions §7). */
export const CONTENT_TYPES: Readonly<Record<Rtn, string>> = {
  json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

/** A text or HTML body does not have the layout of decisions §7. */
export class FormatParseError extends Error {
  override readonly name = 'FormatParseError';
  constructor(
    readonly code: 'bad_escape' | 'ragged_row' | 'no_table' | 'empty_body',
    message: string,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------
// Column layout derived from the record schema

type Path = readonly string[];

interface Cell {
  readonly column: string;
  readonly read: (record: unknown) => string;
}

interface Layout {
  columns: string[];
  /** Cells of the record itself, before and after the exploded array (if any). */
  head: Cell[];
  tail: Cell[];
  /** The array of endpoints 9/11 whose elements become rows, and the cells of one element. */
  explode?: { path: Path; cells: Cell[] };
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  return s;
}

function valueAt(record: unknown, path: Path): unknown {
  let v = record;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** A JSON value as one cell: strings as is, numbers/booleans via `String`, null/absent `''`. */
function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** `recipients` as `name <email>` joined by `; ` (decisions §7). */
function recipientsText(v: unknown): string {
  if (!Array.isArray(v)) return cellText(v);
  return v
    .map((r) => `${cellText(valueAt(r, ['name']))} <${cellText(valueAt(r, ['email']))}>`)
    .join('; ');
}

function isNameEmailObject(schema: z.ZodType): boolean {
  const s = unwrap(schema);
  if (!(s instanceof z.ZodObject)) return false;
  const keys = Object.keys(s.shape).sort();
  return keys.length === 2 && keys[0] === 'email' && keys[1] === 'name';
}

/** The scalar cells of an object schema, nested objects flattened with dotted names. */
function scalarCells(schema: z.ZodType, prefix: Path, explodable: boolean, out: Layout): void {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) {
    for (const [key, child] of Object.entries(s.shape as Record<string, z.ZodType>)) {
      scalarCells(child, [...prefix, key], explodable, out);
    }
    return;
  }
  const path = prefix;
  const column = path.join('.');
  const target = out.explode === undefined ? out.head : out.tail;
  if (s instanceof z.ZodArray) {
    const element = s.element as z.ZodType;
    if (isNameEmailObject(element)) {
      target.push({ column, read: (r) => recipientsText(valueAt(r, path)) });
      out.columns.push(column);
      return;
    }
    if (explodable && unwrap(element) instanceof z.ZodObject && out.explode === undefined) {
      const inner: Layout = { columns: [], head: [], tail: [] };
      scalarCells(element, [], false, inner);
      out.explode = { path, cells: inner.head };
      out.columns.push(...inner.columns);
      return;
    }
    throw new Error(`formats: no flat layout for the array field '${column}'`);
  }
  target.push({ column, read: (r) => cellText(valueAt(r, path)) });
  out.columns.push(column);
}

const LAYOUTS = new WeakMap<z.ZodType, Layout>();

function layoutOf(record: z.ZodType): Layout {
  let layout = LAYOUTS.get(record);
  if (layout === undefined) {
    layout = { columns: [], head: [], tail: [] };
    scalarCells(record, [], true, layout);
    LAYOUTS.set(record, layout);
  }
  return layout;
}

/**
 * The header row of `endpoint`'s text and html formats, in the order of its record schema
 * (decisions §7). E.g. members: `memberID, firstname, lastname, email, accountType, groupID,
 * groupName`; event groups (9, 11): `tagID, recipient.recipientID, …, details.clickDate`.
 */
export function tableColumns(endpoint: Endpoint): string[] {
  return [...layoutOf(endpoint.record).columns];
}

/**
 * Flattens JSON records of `endpoint` (as found in `data`; a single-object response is a
 * one-element list) into a {@link Table} per decisions §7. Never throws on malformed records:
 * missing values become `''`, objects where a scalar belongs become their JSON text.
 * An empty list gives the header row only.
 */
export function toTable(endpoint: Endpoint, records: readonly unknown[]): Table {
  const layout = layoutOf(endpoint.record);
  const rows: string[][] = [];
  for (const record of records) {
    const head = layout.head.map((c) => c.read(record));
    const tail = layout.tail.map((c) => c.read(record));
    if (layout.explode === undefined) {
      rows.push(head);
      continue;
    }
    const items = valueAt(record, layout.explode.path);
    for (const item of Array.isArray(items) ? items : []) {
      rows.push([...head, ...layout.explode.cells.map((c) => c.read(item)), ...tail]);
    }
  }
  return { columns: [...layout.columns], rows };
}

/**
 * The table as a list of `{ column: value }` objects, one per row: a convenient form for
 * comparing what two formats carry.
 */
export function tableToRecords(table: Table): Record<string, string>[] {
  return table.rows.map((row) =>
    Object.fromEntries(table.columns.map((c, i) => [c, row[i] ?? ''])),
  );
}

/** Options of {@link compareTables}. */
export interface CompareTablesOptions {
  /**
   * Compare the rows as a multiset instead of in order (for lists whose profile order leaves
   * ties free, e.g. events with the same timestamp; decisions §3 Revision 2).
   */
  readonly unordered?: boolean;
}

/**
 * Compares two tables by meaning (decisions §7 and its Revision 2): columns are identified by
 * their header names, in any order. A column of `expected` that `actual` lacks is accepted
 * when every one of its cells is empty (a field absent from every record may be an empty
 * column or no column); a column only `actual` has is ignored (records may carry extra
 * fields). Rows are compared in order, or as a multiset with `unordered`. Returns `undefined`
 * when equal, else a sentence naming the first difference (a missing column, the row count,
 * or the row and column of the first differing cell).
 */
export function compareTables(
  expected: Table,
  actual: Table,
  options: CompareTablesOptions = {},
): string | undefined {
  const duplicate = actual.columns.find((c, i) => actual.columns.indexOf(c) !== i);
  if (duplicate !== undefined) return `column '${duplicate}' appears twice in the header row`;
  const position = new Map(actual.columns.map((c, i) => [c, i]));
  const shared: { name: string; e: number; a: number }[] = [];
  for (let e = 0; e < expected.columns.length; e++) {
    const name = expected.columns[e]!;
    const a = position.get(name);
    if (a !== undefined) {
      shared.push({ name, e, a });
      continue;
    }
    const row = expected.rows.findIndex((r) => (r[e] ?? '') !== '');
    if (row >= 0) {
      return `column '${name}' is missing, but row ${row + 1} has a value for it (${JSON.stringify(expected.rows[row]![e])})`;
    }
  }
  if (expected.rows.length !== actual.rows.length) {
    return `row count differs: expected ${expected.rows.length}, got ${actual.rows.length}`;
  }
  const project = (row: readonly string[], side: 'e' | 'a') =>
    shared.map((c) => row[c[side]] ?? '');
  const want = expected.rows.map((r) => project(r, 'e'));
  const got = actual.rows.map((r) => project(r, 'a'));
  if (options.unordered) {
    const key = (r: readonly string[]) => JSON.stringify(r);
    const counts = new Map<string, number>();
    for (const r of want) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
    for (let i = 0; i < got.length; i++) {
      const k = key(got[i]!);
      const n = counts.get(k) ?? 0;
      if (n === 0) {
        return `row ${i + 1} (${describeRow(shared, got[i]!)}) matches no expected row`;
      }
      counts.set(k, n - 1);
    }
    return undefined;
  }
  for (let r = 0; r < want.length; r++) {
    for (let c = 0; c < shared.length; c++) {
      if (want[r]![c] !== got[r]![c]) {
        return `row ${r + 1}, column '${shared[c]!.name}': expected ${JSON.stringify(want[r]![c])}, got ${JSON.stringify(got[r]![c])}`;
      }
    }
  }
  return undefined;
}

function describeRow(columns: readonly { name: string }[], row: readonly string[]): string {
  const s = columns
    .slice(0, 4)
    .map((c, i) => `${c.name}=${JSON.stringify(row[i])}`)
    .join(', ');
  return columns.length > 4 ? `${s}, …` : s;
}

// ---------------------------------------------------------------------------------------
// text: tab-separated values

const TEXT_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
};
const TEXT_UNESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  t: '\t',
  n: '\n',
  r: '\r',
};

/** Escapes one TSV cell: backslash as `\\`, tab `\t`, newline `\n`, CR `\r` (decisions §7). */
export function escapeTextCell(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (c) => TEXT_ESCAPES[c]!);
}

/**
 * Inverse of {@link escapeTextCell}. Throws {@link FormatParseError} `bad_escape` for a
 * backslash not followed by `\`, `t`, `n` or `r`.
 */
export function unescapeTextCell(cell: string): string {
  return cell.replace(/\\(.?)/gs, (_, c: string) => {
    const u = TEXT_UNESCAPES[c];
    if (u === undefined) {
      throw new FormatParseError(
        'bad_escape',
        `invalid escape ${JSON.stringify(`\\${c}`)} in text cell; allowed: \\\\ \\t \\n \\r`,
      );
    }
    return u;
  });
}

/**
 * Renders `table` as `text/plain` (decisions §7): the header row, then one line per row,
 * cells separated by a tab, every line ended by `\n`, cells escaped by {@link escapeTextCell}.
 */
export function renderText(table: Table): string {
  let out = '';
  for (const row of [table.columns, ...table.rows])
    out += `${row.map(escapeTextCell).join('\t')}\n`;
  return out;
}

/**
 * Parses a body written by {@link renderText}: the first line is the header row. Accepts a
 * missing final newline and CRLF line ends (a raw CR never occurs inside a cell). Throws
 * {@link FormatParseError} for an empty body, a row whose cell count differs from the header,
 * or a bad escape.
 */
export function parseText(text: string): Table {
  if (text === '') throw new FormatParseError('empty_body', 'text body is empty: no header row');
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const lines = body.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const [header, ...rest] = lines.map((l) => l.split('\t').map(unescapeTextCell));
  const columns = header!;
  rest.forEach((row, i) => {
    if (row.length !== columns.length) {
      throw new FormatParseError(
        'ragged_row',
        `text line ${i + 2} has ${row.length} cells, the header has ${columns.length}`,
      );
    }
  });
  return { columns, rows: rest };
}

// ---------------------------------------------------------------------------------------
// html: one <table> in a complete HTML5 document

/**
 * Escapes text for HTML content with the `entities` library (`& < > " '`), and a carriage
 * return as `&#13;`, because HTML parsing turns a raw CR into a line feed.
 */
function escapeHtml(value: string): string {
  return escapeUTF8(value).replace(/\r/g, '&#13;');
}

/**
 * Renders `table` as a complete HTML5 document (decisions §7): doctype, `<meta charset="utf-8">`,
 * `<title>`, and one `<table>` with a `<thead>` row of `<th>` and one `<tbody>` row of `<td>`
 * per data row. Every value is escaped. HTML cannot carry U+0000: it reaches a parser as U+FFFD.
 */
export function renderHtml(table: Table, title: string): string {
  const cells = (row: readonly string[], tag: 'th' | 'td') =>
    row.map((v) => `<${tag}>${escapeHtml(v)}</${tag}>`).join('');
  const body = table.rows.map((r) => `<tr>${cells(r, 'td')}</tr>\n`).join('');
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    `<title>${escapeHtml(title)}</title>\n</head>\n<body>\n<table>\n` +
    `<thead><tr>${cells(table.columns, 'th')}</tr></thead>\n<tbody>\n${body}</tbody>\n` +
    '</table>\n</body>\n</html>\n'
  );
}

interface HtmlNode {
  nodeName: string;
  tagName?: string;
  value?: string;
  childNodes?: HtmlNode[];
  attrs?: { name: string; value: string }[];
}

function elements(node: HtmlNode, tag: string, out: HtmlNode[] = []): HtmlNode[] {
  for (const child of node.childNodes ?? []) {
    if (child.tagName === tag) out.push(child);
    elements(child, tag, out);
  }
  return out;
}

function textContent(node: HtmlNode): string {
  if (node.nodeName === '#text') return node.value ?? '';
  return (node.childNodes ?? []).map(textContent).join('');
}

function childElements(node: HtmlNode, tag: string): HtmlNode[] {
  return (node.childNodes ?? []).filter((c) => c.tagName === tag);
}

function rowCells(tr: HtmlNode): HtmlNode[] {
  return (tr.childNodes ?? []).filter((c) => c.tagName === 'td' || c.tagName === 'th');
}

/** The rows of a table in document order: its own `<tr>` and those of its row groups. */
function tableRows(table: HtmlNode): HtmlNode[] {
  const rows: HtmlNode[] = [];
  for (const child of table.childNodes ?? []) {
    if (child.tagName === 'tr') rows.push(child);
    else if (child.tagName === 'thead' || child.tagName === 'tbody' || child.tagName === 'tfoot')
      rows.push(...childElements(child, 'tr'));
  }
  return rows;
}

/**
 * Parses an HTML body (with parse5, so entities are decoded as a browser would) into the
 * {@link Table} of its first `<table>` (decisions §7 Revision 2: any valid serialisation of
 * the same table is equivalent). The header row is the first row whose cells are all `<th>`,
 * in a `<thead>` or not; every later row with cells is a data row (`<td>` or `<th>` cells).
 * Throws {@link FormatParseError} when there is no table, no header row, or a row's cell
 * count differs from the header.
 */
export function parseHtml(html: string): Table {
  const doc = parse(html) as unknown as HtmlNode;
  const table = elements(doc, 'table')[0];
  if (table === undefined) throw new FormatParseError('no_table', 'html body has no <table>');
  const rows = tableRows(table).filter((tr) => rowCells(tr).length > 0);
  const head = rows.findIndex((tr) => rowCells(tr).every((c) => c.tagName === 'th'));
  if (head < 0) {
    throw new FormatParseError('no_table', 'html table has no header row of <th> cells');
  }
  const columns = rowCells(rows[head]!).map(textContent);
  const body = rows.slice(head + 1).map((tr, i) => {
    const row = rowCells(tr).map(textContent);
    if (row.length !== columns.length) {
      throw new FormatParseError(
        'ragged_row',
        `html table row ${i + 1} has ${row.length} cells, the header has ${columns.length}`,
      );
    }
    return row;
  });
  return { columns, rows: body };
}

/**
 * The charset a `Content-Type` value declares (lowercased, quotes removed), or `undefined`.
 * E.g. `text/html; Charset="UTF-8"` gives `utf-8`.
 */
export function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m?.[1]?.toLowerCase();
}

/**
 * Whether a response's `Content-Type` is right for `rtn` (decisions §7 Revision 2): the media
 * type matches (`application/json`, `text/plain`, `text/html`; any case) and the value
 * carries `charset=utf-8` (any case, quoted or not); other parameters are free.
 */
export function contentTypeMatches(rtn: Rtn, contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  const want = CONTENT_TYPES[rtn].split(';')[0]!;
  return media === want && charsetOf(contentType) === 'utf-8';
}

/**
 * What a body of the `html` format lacks per decisions §7 and its Revision 2 (a complete
 * HTML5 document with one table): `[]` when it is complete. Checks the doctype (no quirks
 * mode), exactly one `<table>`, and the charset: a `<meta charset>` or `http-equiv`
 * declaration is optional when `contentType` carries `charset=utf-8`, and any declaration
 * present must say utf-8. Title and markup outside the table are free.
 */
export function htmlDocumentProblems(html: string, contentType?: string): string[] {
  const doc = parse(html) as unknown as HtmlNode & { mode?: string };
  const problems: string[] = [];
  if (doc.mode !== 'no-quirks')
    problems.push('missing <!DOCTYPE html> (document is in quirks mode)');
  const declared: string[] = [];
  for (const m of elements(doc, 'meta')) {
    const attr = (name: string) =>
      (m.attrs ?? []).find((a) => a.name.toLowerCase() === name)?.value;
    const charset = attr('charset');
    if (charset !== undefined) declared.push(charset.trim().toLowerCase());
    if (attr('http-equiv')?.toLowerCase() === 'content-type') {
      const c = charsetOf(attr('content'));
      if (c !== undefined) declared.push(c);
    }
  }
  const wrong = declared.find((c) => c !== 'utf-8' && c !== 'utf8');
  if (wrong !== undefined) problems.push(`the document declares charset ${wrong}, not utf-8`);
  if (declared.length === 0 && charsetOf(contentType) !== 'utf-8') {
    problems.push('no charset: neither a <meta> declaration nor charset=utf-8 in Content-Type');
  }
  const tables = elements(doc, 'table').length;
  if (tables !== 1) problems.push(`expected exactly one <table>, found ${tables}`);
  return problems;
}

/**
 * The body of a `text` or `html` response (decisions §7) for `records` of `endpoint` (the page's
 * records; a single-object response passes its one record). The html title names the endpoint.
 */
export function renderBody(
  endpoint: Endpoint,
  records: readonly unknown[],
  rtn: Exclude<Rtn, 'json'>,
): string {
  const table = toTable(endpoint, records);
  return rtn === 'text'
    ? renderText(table)
    : renderHtml(table, `tagtrack: ${endpoint.summary} (GET ${endpoint.path})`);
}
