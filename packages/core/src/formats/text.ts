import { FormatParseError, type Table } from './table.ts';

/** The `text` format (spec §8): tab-separated values with escaped cells. */

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

/** Escapes one TSV cell: backslash as `\\`, tab `\t`, newline `\n`, CR `\r` (spec §8). */
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
 * Renders `table` as `text/plain` (spec §8): the header row, then one line per row,
 * cells separated by a tab, every line ended by `\n`, cells escaped by {@link escapeTextCell}.
 */
export function renderText(table: Table): string {
  let out = '';
  for (const row of [table.columns, ...table.rows])
    out += `${row.map(escapeTextCell).join('\t')}\n`;
  return out;
}

/**
 * Parses a body written by {@link renderText}: the first line is the header row; a missing
 * final newline is accepted. Strict where the profile is (spec §8 Revision 2, docs/spec.md
 * §8): lines end with a line feed alone, and a carriage return inside a value is written `\r`,
 * so a raw CR anywhere (inside a cell, or before a line feed as a CRLF line end) is a format
 * failure, never the value it would stand for. Tab and line feed are the table's structure;
 * other control characters need no escape and are read as they are. Throws
 * {@link FormatParseError}: `empty_body`, `raw_carriage_return` (naming line and cell),
 * `ragged_row` (a row whose cell count differs from the header), `bad_escape`.
 */
export function parseText(text: string): Table {
  if (text === '') throw new FormatParseError('empty_body', 'text body is empty: no header row');
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const lines = body.split('\n');
  const cr = lines.findIndex((l) => l.includes('\r'));
  if (cr >= 0) {
    const cell = lines[cr]!.split('\t').findIndex((c) => c.includes('\r'));
    throw new FormatParseError(
      'raw_carriage_return',
      `text line ${cr + 1}, cell ${cell + 1} holds a raw carriage return: inside a value it must be written \\r, and lines end with a line feed alone`,
    );
  }
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
