import type { Endpoint } from './endpoints.ts';
import { renderHtml } from './formats/html.ts';
import { toTable } from './formats/table.ts';
import { renderText } from './formats/text.ts';
import type { Rtn } from './params.ts';

/**
 * The `text` and `html` response formats of spec §8. Both carry a {@link Table}: the
 * endpoint's records flattened to string cells under a fixed header row derived from the
 * endpoint's record schema. The parts, by concern:
 * - `formats/table.ts`: the column layout and {@link toTable} (how records become rows);
 * - `formats/compare.ts`: {@link compareTables}, two tables compared by meaning;
 * - `formats/text.ts`: tab-separated values, escaping and parsing;
 * - `formats/html.ts`: one `<table>` in an HTML5 document, rendering, parsing, checks;
 * - `formats/content-type.ts`: the `Content-Type` of each format and its charset.
 */

export { type CompareTablesOptions, compareTables } from './formats/compare.ts';
export { CONTENT_TYPES, charsetOf, contentTypeMatches } from './formats/content-type.ts';
export {
  HTML_CHUNK_CHARS,
  htmlDocumentProblems,
  htmlDocumentProblemsSteps,
  parseHtml,
  parseHtmlSteps,
  renderHtml,
} from './formats/html.ts';
export {
  FormatParseError,
  type Table,
  tableColumns,
  tableToRecords,
  toTable,
} from './formats/table.ts';
export { escapeTextCell, parseText, renderText, unescapeTextCell } from './formats/text.ts';

/**
 * The body of a `text` or `html` response (spec §8) for `records` of `endpoint` (the page's
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
