import { CONTENT_TYPES } from '@tagtrack/core';
import { renderHtmlUnescaped } from '../render-html.ts';
import type { FaultInfo } from './info.ts';

/**
 * Faults of the renderers: json, text and html bodies and their headers (spec §8). Each
 * wraps the clean `RenderLayer` (render.ts) and replaces the stage it breaks.
 */
export const RENDER_FAULTS = [
  {
    name: 'json-content-type-text',
    area: 'render',
    description: 'rtn=json answered with Content-Type text/plain (spec §8)',
    detectedBy: ['SCHEMA-JSON-CONTENT-TYPE'],
    wrap: {
      render: (r) => ({
        ...r,
        contentType: (rtn) => (rtn === 'json' ? CONTENT_TYPES.text : r.contentType(rtn)),
      }),
    },
  },
  {
    name: 'html-unescaped',
    area: 'render',
    description: 'rtn=html values are not HTML-escaped (spec §8)',
    detectedBy: ['REL-FORMATS-AGREE'],
    wrap: {
      // bug: the html writer copies the values into the markup as they are
      render: (r) => ({
        ...r,
        html: (table, endpoint) => renderHtmlUnescaped(table, endpoint.summary),
      }),
    },
  },
  {
    name: 'error-body-not-json',
    area: 'render',
    description: 'errors rendered as text/plain "message" instead of the JSON body (spec §6)',
    detectedBy: [
      'ERR-BODY-JSON',
      'INPUT-400-BAD-DATE',
      'INPUT-400-START-AFTER-END',
      'INPUT-400-BAD-BOOLEAN',
      'INPUT-400-BAD-ENUM',
      'INPUT-400-DATE-REQUIRED',
      'INPUT-400-UNKNOWN-PARAM',
      'INPUT-404-UNKNOWN-ID',
      'INPUT-404-UNKNOWN-PATH',
      'INPUT-NO-5XX',
      'AUTH-401-MISSING',
      'AUTH-401-WRONG-KEY',
      'AUTH-401-UNKNOWN-ID',
      'AUTH-401-MALFORMED',
      'AUTH-401-SIGNATURE-SCOPE',
    ],
    wrap: {
      render: (r) => ({
        ...r,
        error: (status, message, headers) => ({
          status,
          headers: { ...headers, 'Content-Type': CONTENT_TYPES.text },
          body: message,
        }),
      }),
    },
  },
  {
    name: 'tables-dates-shifted',
    area: 'render',
    description:
      "rtn=text and rtn=html write timestamps in the server's local time (UTC+2) but keep the Z (spec §8, §9)",
    detectedBy: ['REL-FORMATS-AGREE'],
    wrap: {
      render: (r) => ({
        ...r,
        table: (endpoint, records, rtn) => {
          // bug: the cells are formatted in the server's local time zone, still marked `Z`
          const table = r.table(endpoint, records, rtn);
          return { ...table, rows: table.rows.map((row) => row.map(shiftTimestamp)) };
        },
      }),
    },
  },
  {
    name: 'text-last-row-dropped',
    area: 'render',
    description: 'rtn=text leaves out the last row of every page (spec §8)',
    detectedBy: ['REL-FORMATS-AGREE'],
    wrap: {
      render: (r) => ({
        ...r,
        table: (endpoint, records, rtn) => {
          const table = r.table(endpoint, records, rtn);
          // bug: the row loop stops one short
          return rtn === 'text' ? { ...table, rows: table.rows.slice(0, -1) } : table;
        },
      }),
    },
  },
  {
    name: 'text-raw-cr',
    area: 'render',
    description:
      'rtn=text writes a carriage return inside a value raw instead of as \\r (spec §8 Revision 2)',
    detectedBy: ['REL-FORMATS-AGREE'],
    wrap: {
      // bug: the writer's escape table lacks CR, so a CR inside a value goes out raw
      render: (r) => ({ ...r, text: (table) => rawCarriageReturns(r.text(table)) }),
    },
  },
  {
    name: 'html-raw-cr',
    area: 'render',
    description:
      'rtn=html writes a carriage return inside a value raw instead of as &#13;, so a parser reads a line feed (spec §8 Revision 2)',
    detectedBy: ['REL-FORMATS-AGREE'],
    wrap: {
      // bug: the escaper leaves a CR as it is, which an HTML parser reads as a line feed
      render: (r) => ({
        ...r,
        html: (table, endpoint) => r.html(table, endpoint).replaceAll('&#13;', '\r'),
      }),
    },
  },
  {
    name: 'text-rows-per-record',
    area: 'render',
    description:
      'rtn=text writes as many rows as the page has records, so the event groups of 9 and 11 (one row per event) lose the rows beyond (spec §5 Revision 3, §7)',
    detectedBy: ['REL-FORMATS-AGREE'],
    wrap: {
      render: (r) => ({
        ...r,
        table: (endpoint, records, rtn) => {
          const table = r.table(endpoint, records, rtn);
          // bug: the row loop runs over the records, not over the table's rows (one per event
          // for the event groups of 9 and 11)
          return rtn === 'text' ? { ...table, rows: table.rows.slice(0, records.length) } : table;
        },
      }),
    },
  },
] as const satisfies readonly FaultInfo[];

/** Fault `text-raw-cr`: every `\\r` escape of a text body written as a raw CR (`\\\\` kept). */
function rawCarriageReturns(text: string): string {
  return text.replace(/\\[\\r]/g, (e) => (e === '\\r' ? '\r' : e));
}

/** Fault `tables-dates-shifted`: an RFC 3339 UTC cell moved two hours later, its `Z` kept. */
function shiftTimestamp(cell: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(cell)) return cell;
  return `${new Date(Date.parse(cell) + 2 * 60 * 60 * 1000).toISOString().slice(0, 19)}Z`;
}
