import {
  CONTENT_TYPES,
  type Endpoint,
  type ErrorBody,
  errorBody,
  type Page,
  type Paging,
  type Rtn,
  renderBody,
  toTable,
} from '@tagtrack/core';
import type { FaultSet } from './faults.ts';

/** A response before it becomes a `Response`: status, headers and body text. */
export interface Rendered {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Renders an error per decisions §5: the JSON {@link ErrorBody} with
 * `Content-Type: application/json; charset=utf-8`, whatever `rtn` asked for. Under the fault
 * `error-body-not-json` the message is sent as `text/plain` instead.
 */
export function renderError(
  status: number,
  message: string,
  faults: FaultSet,
  headers: Record<string, string> = {},
): Rendered {
  if (faults.has('error-body-not-json')) {
    return { status, headers: { ...headers, 'Content-Type': CONTENT_TYPES.text }, body: message };
  }
  const body: ErrorBody = errorBody(status, message);
  return {
    status,
    headers: { ...headers, 'Content-Type': CONTENT_TYPES.json },
    body: JSON.stringify(body),
  };
}

/** The `Content-Type` of a successful response in format `rtn` (decisions §7). */
export function contentTypeOf(rtn: Rtn, faults: FaultSet): string {
  if (rtn === 'json' && faults.has('json-content-type-text')) return CONTENT_TYPES.text;
  return CONTENT_TYPES[rtn];
}

/**
 * The body of a list response (decisions §3, §7): `{ data, paging }` for json, the page's
 * records as a table for text and html.
 */
export function renderListBody(
  endpoint: Endpoint,
  page: Page<unknown>,
  paging: Paging,
  rtn: Rtn,
  faults: FaultSet,
): string {
  if (rtn === 'json') return JSON.stringify({ data: page.records, paging });
  return renderTable(endpoint, page.records, rtn, faults);
}

/** The body of a single-object response: `{ data }` for json, a one-row table otherwise. */
export function renderSingleBody(
  endpoint: Endpoint,
  record: unknown,
  rtn: Rtn,
  faults: FaultSet,
): string {
  if (rtn === 'json') return JSON.stringify({ data: record });
  return renderTable(endpoint, [record], rtn, faults);
}

function renderTable(
  endpoint: Endpoint,
  records: readonly unknown[],
  rtn: 'text' | 'html',
  faults: FaultSet,
): string {
  if (rtn === 'html' && faults.has('html-unescaped')) return renderHtmlUnescaped(endpoint, records);
  return renderBody(endpoint, records, rtn);
}

/**
 * Fault `html-unescaped`: a hand-rolled HTML table that interpolates values as they are,
 * so a subject like `<script>` reaches the page as markup.
 */
function renderHtmlUnescaped(endpoint: Endpoint, records: readonly unknown[]): string {
  const table = toTable(endpoint, records);
  const cells = (row: readonly string[], tag: 'th' | 'td') =>
    row.map((v) => `<${tag}>${v}</${tag}>`).join('');
  const rows = table.rows.map((r) => `<tr>${cells(r, 'td')}</tr>\n`).join('');
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    `<title>tagtrack: ${endpoint.summary}</title>\n</head>\n<body>\n<table>\n` +
    `<thead><tr>${cells(table.columns, 'th')}</tr></thead>\n<tbody>\n${rows}</tbody>\n` +
    '</table>\n</body>\n</html>\n'
  );
}

/** The RFC 8288 `Link` header value for the neighbouring pages, or `undefined` when none. */
export function linkHeader(paging: Paging): string | undefined {
  const links: string[] = [];
  if (paging.nextURL !== null) links.push(`<${paging.nextURL}>; rel="next"`);
  if (paging.previousURL !== null) links.push(`<${paging.previousURL}>; rel="prev"`);
  return links.length > 0 ? links.join(', ') : undefined;
}
