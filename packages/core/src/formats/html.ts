import { escapeUTF8 } from 'entities';
import { Parser } from 'parse5';
import { runAtOnce, type Steps } from '../slices.ts';
import { charsetOf } from './content-type.ts';
import { FormatParseError, type Table } from './table.ts';

/** The `html` format (spec §8): one `<table>` in a complete HTML5 document. */

/**
 * Escapes text for HTML content with the `entities` library (`& < > " '`), and a carriage
 * return as `&#13;`, because HTML parsing turns a raw CR into a line feed.
 */
function escapeHtml(value: string): string {
  return escapeUTF8(value).replace(/\r/g, '&#13;');
}

/**
 * Renders `table` as a complete HTML5 document (spec §8): doctype, `<meta charset="utf-8">`,
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
  sourceCodeLocation?: { startOffset: number; endOffset: number } | null;
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

/** Whether the source of a text node inside `node` holds a raw CR (`html`: the parsed source). */
function rawCarriageReturn(node: HtmlNode, html: string): boolean {
  if (node.nodeName === '#text') {
    const at = node.sourceCodeLocation;
    return at != null && html.slice(at.startOffset, at.endOffset).includes('\r');
  }
  return (node.childNodes ?? []).some((c) => rawCarriageReturn(c, html));
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

/** Characters of an HTML body parse5 reads between two yields, by default (about 0.5 ms of work). */
export const HTML_CHUNK_CHARS = 4096;

/**
 * parse5's document of `html`, read in chunks of `chunkChars` characters with a
 * yield after each: parse5's tokenizer takes its input in chunks (as its own parser stream
 * feeds it) and builds the document `parse(html, options)` gives, whatever the chunks' sizes
 * (a chunk may end inside a tag, an entity, a CR LF or a surrogate pair).
 */
function* documentSteps(
  html: string,
  sourceCodeLocationInfo: boolean,
  chunkChars: number,
): Steps<HtmlNode> {
  const parser = new Parser({ sourceCodeLocationInfo });
  const chunk = Math.max(1, Math.floor(chunkChars));
  let at = 0;
  do {
    const end = Math.min(at + chunk, html.length);
    parser.tokenizer.write(html.slice(at, end), end === html.length);
    at = end;
    yield;
  } while (at < html.length);
  return parser.document as unknown as HtmlNode;
}

/**
 * Parses an HTML body (with parse5, so entities are decoded as a browser would) into the
 * {@link Table} of its first `<table>` (spec §8 Revision 2: any valid serialisation of
 * the same table is equivalent). The header row is the first row whose cells are all `<th>`,
 * in a `<thead>` or not; every later row with cells is a data row (`<td>` or `<th>` cells).
 * Strict where the profile is: a carriage return in a cell is written `&#13;` (spec §8
 * Revision 2), because HTML parsing turns a raw CR (alone or in CR LF) into a line feed; so a
 * raw CR in the text of a cell is a format failure, not the line feed a parser would read
 * (CR LF between tags, outside any cell's text, is free whitespace).
 * Throws {@link FormatParseError} when there is no table, no header row, a row's cell count
 * differs from the header, or a cell's text holds a raw CR (`raw_carriage_return`).
 */
export function parseHtml(html: string): Table {
  return runAtOnce(parseHtmlSteps(html));
}

/**
 * {@link parseHtml} as {@link Steps}: yields after each `chunkChars` characters of the body
 * parsed (default {@link HTML_CHUNK_CHARS}) and each row read, so a long body can be parsed
 * in time slices (`runInSlices`). Same table, same {@link FormatParseError}s.
 */
export function* parseHtmlSteps(html: string, chunkChars = HTML_CHUNK_CHARS): Steps<Table> {
  // source locations only when there is a CR to find (they cost a little)
  const located = html.includes('\r');
  const doc = yield* documentSteps(html, located, chunkChars);
  const table = elements(doc, 'table')[0];
  if (table === undefined) throw new FormatParseError('no_table', 'html body has no <table>');
  const rows = tableRows(table).filter((tr) => rowCells(tr).length > 0);
  const head = rows.findIndex((tr) => rowCells(tr).every((c) => c.tagName === 'th'));
  if (head < 0) {
    throw new FormatParseError('no_table', 'html table has no header row of <th> cells');
  }
  if (located) {
    for (const [i, tr] of rows.slice(head).entries()) {
      for (const [c, cell] of rowCells(tr).entries()) {
        if (rawCarriageReturn(cell, html)) {
          throw new FormatParseError(
            'raw_carriage_return',
            `html table ${i === 0 ? 'header row' : `row ${i}`}, cell ${c + 1} holds a raw carriage return: a CR in a value is written &#13; (an HTML parser reads a raw one as a line feed)`,
          );
        }
      }
      yield;
    }
  }
  const columns = rowCells(rows[head]!).map(textContent);
  const body: string[][] = [];
  for (const [i, tr] of rows.slice(head + 1).entries()) {
    const row = rowCells(tr).map(textContent);
    if (row.length !== columns.length) {
      throw new FormatParseError(
        'ragged_row',
        `html table row ${i + 1} has ${row.length} cells, the header has ${columns.length}`,
      );
    }
    body.push(row);
    yield;
  }
  return { columns, rows: body };
}

/**
 * What a body of the `html` format lacks per spec §8 and its Revision 2 (a complete
 * HTML5 document with one table): `[]` when it is complete. Checks the doctype (no quirks
 * mode), exactly one `<table>`, and the charset: a `<meta charset>` or `http-equiv`
 * declaration is optional when `contentType` carries `charset=utf-8`, and any declaration
 * present must say utf-8. Title and markup outside the table are free.
 */
export function htmlDocumentProblems(html: string, contentType?: string): string[] {
  return runAtOnce(htmlDocumentProblemsSteps(html, contentType));
}

/**
 * {@link htmlDocumentProblems} as {@link Steps}: yields after each `chunkChars` characters of
 * the body parsed (default {@link HTML_CHUNK_CHARS}), so a long body can be checked in time
 * slices (`runInSlices`). Same problems.
 */
export function* htmlDocumentProblemsSteps(
  html: string,
  contentType?: string,
  chunkChars = HTML_CHUNK_CHARS,
): Steps<string[]> {
  const doc = (yield* documentSteps(html, false, chunkChars)) as HtmlNode & { mode?: string };
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
