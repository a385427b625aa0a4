import { FormatParseError, type Table } from './table.ts';

/** The `text` format (decisions §7): tab-separated values with escaped cells. */

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
