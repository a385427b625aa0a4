import type { Table } from '@tagtrack/core';

/**
 * HTML serialisations of a {@link Table} other than core's `renderHtml`, each a valid HTML5
 * document with one `<table>` (spec §8 Revision 2: any valid serialisation of the same
 * table is equivalent).
 */

/** How {@link renderHtmlDocument} writes the document. */
export interface HtmlOptions {
  /** The header row in a `<thead>` (and data rows in a `<tbody>`), or as the first plain `<tr>`. */
  readonly thead: boolean;
  /** `<meta charset>`, `<meta http-equiv="Content-Type">`, or no declaration. */
  readonly charset: 'meta' | 'http-equiv' | 'none';
  /**
   * Numeric character references instead of named ones, attributes on the table elements,
   * indentation between tags, a lowercase doctype, and extra markup outside the table.
   */
  readonly alternativeMarkup: boolean;
}

/** Escapes with core's forms: `&amp; &lt; &gt; &quot; &apos;`, and `&#13;` for a CR. */
function escapeNamed(value: string): string {
  return value.replace(/[&<>"'\r]/g, (c) => NAMED[c]!);
}

const NAMED: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;',
};

/**
 * Escapes with numeric references only: decimal for `& < > " '` and CR (`&#38;`), hexadecimal
 * for every character above U+007E (`&#xe9;`, one reference per code point).
 */
function escapeNumeric(value: string): string {
  return value.replace(/[&<>"'\r]|[\u{7f}-\u{10ffff}]/gu, (c) => {
    const code = c.codePointAt(0)!;
    return code <= 0x7e ? `&#${code};` : `&#x${code.toString(16)};`;
  });
}

/** The document of `table` per `options`. */
export function renderHtmlDocument(table: Table, title: string, options: HtmlOptions): string {
  return options.alternativeMarkup
    ? alternativeDocument(table, title, options)
    : plainDocument(table, title, options);
}

function charsetDeclaration(options: HtmlOptions, indent: string): string {
  switch (options.charset) {
    case 'meta':
      return `${indent}<meta charset="utf-8">\n`;
    case 'http-equiv':
      return `${indent}<meta http-equiv="Content-Type" content="text/html; charset=utf-8">\n`;
    case 'none':
      return '';
  }
}

/** Core's layout, with the header row and charset declaration per `options`. */
function plainDocument(table: Table, title: string, options: HtmlOptions): string {
  const cells = (row: readonly string[], tag: 'th' | 'td') =>
    row.map((v) => `<${tag}>${escapeNamed(v)}</${tag}>`).join('');
  const header = `<tr>${cells(table.columns, 'th')}</tr>`;
  const rows = table.rows.map((r) => `<tr>${cells(r, 'td')}</tr>\n`).join('');
  const body = options.thead
    ? `<thead>${header}</thead>\n<tbody>\n${rows}</tbody>\n`
    : `${header}\n${rows}`;
  return (
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n${charsetDeclaration(options, '')}` +
    `<title>${escapeNamed(title)}</title>\n</head>\n<body>\n<table>\n${body}</table>\n</body>\n</html>\n`
  );
}

/** Another hand's markup: numeric references, attributes, indentation, extra elements. */
function alternativeDocument(table: Table, title: string, options: HtmlOptions): string {
  const i = (n: number) => '  '.repeat(n);
  const row = (cells: readonly string[], tag: 'th' | 'td', depth: number, n: number) =>
    `${i(depth)}<tr class="${tag === 'th' ? 'head' : n % 2 === 0 ? 'even' : 'odd'}">\n` +
    cells
      .map(
        (v, c) =>
          `${i(depth + 1)}<${tag}${tag === 'th' ? ' scope="col"' : ''} data-col="${c}">${escapeNumeric(v)}</${tag}>\n`,
      )
      .join('') +
    `${i(depth)}</tr>\n`;
  const inner = options.thead ? 4 : 3;
  const header = row(table.columns, 'th', inner, 0);
  const rows = table.rows.map((r, n) => row(r, 'td', inner, n + 1)).join('');
  const body = options.thead
    ? `${i(3)}<thead>\n${header}${i(3)}</thead>\n${i(3)}<tbody>\n${rows}${i(3)}</tbody>\n`
    : `${header}${rows}`;
  return (
    '<!doctype html>\n' +
    '<html lang="en" dir="ltr">\n' +
    `${i(1)}<head>\n${charsetDeclaration(options, i(2))}` +
    `${i(2)}<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `${i(2)}<title>${escapeNumeric(title)}</title>\n` +
    `${i(2)}<style>table { border-collapse: collapse } td, th { padding: 2px 6px }</style>\n` +
    `${i(1)}</head>\n` +
    `${i(1)}<body class="report">\n` +
    `${i(2)}<!-- rendered by the tagtrack reference server -->\n` +
    `${i(2)}<h1 id="title">${escapeNumeric(title)}</h1>\n` +
    `${i(2)}<p class="summary">${table.rows.length} row(s) &#8212; columns: ${escapeNumeric(table.columns.join(', '))}</p>\n` +
    `${i(2)}<table class="data" border="1">\n${body}${i(2)}</table>\n` +
    `${i(2)}<footer><small>tagtrack/v1 reference server &#169;</small></footer>\n` +
    `${i(1)}</body>\n</html>\n`
  );
}

/**
 * Fault `html-unescaped`: a hand-rolled HTML table that interpolates values as they are,
 * so a subject like `<script>` reaches the page as markup.
 */
export function renderHtmlUnescaped(table: Table, summary: string): string {
  const cells = (row: readonly string[], tag: 'th' | 'td') =>
    row.map((v) => `<${tag}>${v}</${tag}>`).join('');
  const rows = table.rows.map((r) => `<tr>${cells(r, 'td')}</tr>\n`).join('');
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    `<title>tagtrack: ${summary}</title>\n</head>\n<body>\n<table>\n` +
    `<thead><tr>${cells(table.columns, 'th')}</tr></thead>\n<tbody>\n${rows}</tbody>\n` +
    '</table>\n</body>\n</html>\n'
  );
}
