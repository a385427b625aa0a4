import type { FaultInfo } from './info.ts';

/** Faults of the renderers: json, text and html bodies and their headers (decisions §7). */
export const RENDER_FAULTS = [
  {
    name: 'json-content-type-text',
    area: 'render',
    description: 'rtn=json answered with Content-Type text/plain (decisions §7)',
    detectedBy: ['SCHEMA-JSON-CONTENT-TYPE'],
  },
  {
    name: 'html-unescaped',
    area: 'render',
    description: 'rtn=html values are not HTML-escaped (decisions §7)',
    detectedBy: ['REL-FORMATS-AGREE'],
  },
  {
    name: 'error-body-not-json',
    area: 'render',
    description: 'errors rendered as text/plain "message" instead of the JSON body (decisions §5)',
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
  },
  {
    name: 'tables-dates-shifted',
    area: 'render',
    description:
      "rtn=text and rtn=html write timestamps in the server's local time (UTC+2) but keep the Z (decisions §7, §8)",
    detectedBy: ['REL-FORMATS-AGREE'],
  },
  {
    name: 'text-last-row-dropped',
    area: 'render',
    description: 'rtn=text leaves out the last row of every page (decisions §7)',
    detectedBy: ['REL-FORMATS-AGREE'],
  },
  {
    name: 'text-raw-cr',
    area: 'render',
    description:
      'rtn=text writes a carriage return inside a value raw instead of as \\r (decisions §7 Revision 2)',
    detectedBy: ['REL-FORMATS-AGREE'],
  },
  {
    name: 'html-raw-cr',
    area: 'render',
    description:
      'rtn=html writes a carriage return inside a value raw instead of as &#13;, so a parser reads a line feed (decisions §7 Revision 2)',
    detectedBy: ['REL-FORMATS-AGREE'],
  },
  {
    name: 'text-rows-per-record',
    area: 'render',
    description:
      'rtn=text writes as many rows as the page has records, so the event groups of 9 and 11 (one row per event) lose the rows beyond (decisions §3 Revision 3, §7)',
    detectedBy: ['REL-FORMATS-AGREE'],
  },
] as const satisfies readonly FaultInfo[];
