import {
  canonicalPath,
  type Endpoint,
  matchEndpoint,
  normaliseEmail,
  parseHtml,
  parseJsonExact,
  parseText,
  type Table,
  tableColumns,
  toTable,
} from '@tagtrack/core';
import { linksOf } from '../check/compare.ts';
import { normalSegment } from '../checks/page/lists.ts';

/**
 * What the differential audit compares of one response, with what the profile leaves free
 * already normalised away (docs/spec.md: key order, extra fields, column order, empty
 * columns, timestamp form, contact ids, email spelling, HTML markup, transfer details, the
 * headers it does not fix, the path form of paging URLs). Two conforming implementations on
 * the same data give equal observations for the same request.
 */
export interface Observation {
  readonly status: number;
  /**
   * What the profile fixes of `Content-Type` at this status (spec §6, §8 Revision 2): on a
   * 200 (HEAD included) the media type and its `charset` (lower case,
   * `application/json; charset=utf-8`; other parameters free); on an error (or any other
   * status) the media type alone (`application/json`; the charset is free there); on a 204
   * nothing (`undefined`: a 204 has no body, and its headers beyond `X-Total-Count` and
   * `Link` are free).
   */
  readonly contentType: string | undefined;
  readonly xTotalCount: string | undefined;
  /**
   * Headers whose presence or value the profile fixes, at the statuses that fix them:
   * `Allow` on a 405 (spec §6; as a set of methods), on a 429 `X-Rate-Limit-Limit` and whether `Retry-After`
   * is sent (spec §7); empty otherwise (extra headers are free, spec §8 Revision 2).
   */
  readonly errorHeaders: Readonly<Record<string, string | undefined>>;
  /**
   * `rel="next"`/`rel="prev"` targets of the Link header in compared form
   * ({@link comparedUrl}: `{base}`, canonical path, query in RFC 3986 normal form).
   */
  readonly link: Readonly<Record<string, string>>;
  /**
   * A list envelope's `paging`: `cursors` exact (a `bigint` above 2^53 − 1, read with core's
   * `parseJsonExact`: a huge cursor's `previous` is compared digit for digit), URLs in
   * compared form ({@link comparedUrl}); or undefined.
   */
  readonly paging: unknown;
  /** The records as a table (json, text and html alike), cells normalised; undefined for errors. */
  readonly table: Table | undefined;
  /** An error body's `statusCode` and `error`, and its `message` (compared on request). */
  readonly error: { statusCode: unknown; error: unknown; message: unknown } | undefined;
  /** Why the body could not be read as the endpoint's form (not JSON, no table, …). */
  readonly unreadable: string | undefined;
}

/** How one side names things: its base URL and its contact ids by normalised email. */
export interface SideContext {
  readonly baseUrl: string;
  /** contactID (and recipientID) → normalised email, from the side's own contacts lists. */
  readonly contactEmail: ReadonlyMap<string, string>;
}

/** A response as received: status, headers (lower-case names) and body text. */
export interface ReceivedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const CONTACT_ID_COLUMNS = new Set(['contactID', 'recipientID', 'recipient.recipientID']);

/** Replaces the side's base URL in a URL by `{base}` (paging URLs differ only there). */
export function relativeToBase(url: string, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return url.startsWith(base) ? `{base}${url.slice(base.length)}` : url;
}

/**
 * A paging URL (`nextURL`, `previousURL`, a `Link` target) in the form the audit compares
 * (spec §5 Revision 2 and Revision 3): the side's base URL replaced by `{base}`; the path
 * in canonical form (core's `canonicalPath`: each segment decoded and re-encoded; whether the
 * path is the one received or its canonical form is free); the query segment by segment in RFC 3986 normal form (hex
 * case and escaped unreserved characters do not matter; the query is fixed, docs/spec.md §11),
 * its empty pieces left out (they are no parameters: keeping or dropping them is free,
 * docs/spec.md §5);
 * a fragment kept as it is.
 */
export function comparedUrl(url: string, baseUrl: string): string {
  const relative = relativeToBase(url, baseUrl);
  const hash = relative.indexOf('#');
  const fragment = hash < 0 ? '' : relative.slice(hash);
  const rest = hash < 0 ? relative : relative.slice(0, hash);
  const q = rest.indexOf('?');
  const path = q < 0 ? rest : rest.slice(0, q);
  const query = q < 0 ? undefined : rest.slice(q + 1);
  const prefix = path.startsWith('{base}') ? '{base}' : '';
  const canonical = canonicalPath(path.slice(prefix.length));
  const normal =
    query === undefined
      ? ''
      : `?${query
          .split('&')
          .filter((piece) => piece !== '')
          .map(normalSegment)
          .join('&')}`;
  return `${prefix}${canonical}${normal}${fragment}`;
}

/**
 * One cell in its compared form: timestamps as instants (ISO 8601 UTC, milliseconds), contact
 * ids as `contact <email>` (ids are free, spec §9), emails normalised, the `recipients`
 * JSON of a tag with normalised emails.
 */
export function normaliseCell(column: string, value: string, side: SideContext): string {
  if (value === '') return value;
  if (CONTACT_ID_COLUMNS.has(column)) {
    const email = side.contactEmail.get(value);
    return email === undefined ? `unknown contact id ${value}` : `contact ${email}`;
  }
  if (column === 'email' || column.endsWith('.email')) return normaliseEmail(value);
  if (column === 'recipients') {
    try {
      const list = JSON.parse(value) as unknown;
      if (Array.isArray(list))
        return JSON.stringify(
          list.map((r: { name?: unknown; email?: unknown }) => ({
            name: r?.name,
            email: typeof r?.email === 'string' ? normaliseEmail(r.email) : r?.email,
          })),
        );
    } catch {
      // not JSON: compared as it is
    }
    return value;
  }
  // length and first dash before the pattern: most cells are not timestamps
  if (value.length >= 16 && value.charCodeAt(4) === 45 && TIMESTAMP_RE.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return new Date(ms).toISOString();
  }
  return value;
}

function normaliseTable(table: Table, side: SideContext): Table {
  return {
    columns: table.columns,
    rows: table.rows.map((row) =>
      row.map((cell, i) => normaliseCell(table.columns[i] ?? '', cell, side)),
    ),
  };
}

/**
 * The `next` and `prev` targets of a Link header (the suite's reading), in compared form; other
 * relations (`first`, `last`, ...) are extra, free like extra headers.
 */
function parseLink(value: string | undefined, baseUrl: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rel, target] of Object.entries(linksOf(value)))
    if (rel === 'next' || rel === 'prev') out[rel] = comparedUrl(target, baseUrl);
  return out;
}

/** An `Allow` value as the set it is (RFC 9110 §10.2.1: order and case of methods free). */
function allowSet(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return [...new Set(value.split(',').map((m) => m.trim().toUpperCase()))]
    .filter((m) => m !== '')
    .sort()
    .join(', ');
}

function pagingOf(paging: unknown, baseUrl: string): unknown {
  if (typeof paging !== 'object' || paging === null) return paging;
  const p = paging as Record<string, unknown>;
  const url = (u: unknown) => (typeof u === 'string' ? comparedUrl(u, baseUrl) : u);
  const c = p.cursors as Record<string, unknown> | null | undefined;
  // an integer above 2^53 - 1 as a bigint whatever its JSON form (`1e20` is 10^20 too)
  const exact = (v: unknown) =>
    typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) ? BigInt(v) : v;
  const cursors =
    typeof c === 'object' && c !== null
      ? { previous: exact(c.previous), next: exact(c.next), total: exact(c.total) }
      : c;
  return { cursors, nextURL: url(p.nextURL), previousURL: url(p.previousURL) };
}

/**
 * The form of an `X-Rate-Limit-Reset` value (spec §7: epoch seconds), never the instant
 * itself, which two servers' clocks and windows may place differently: `epoch seconds`, or
 * what else it is. A number of 10^11 or more is taken for milliseconds (10^11 seconds is the
 * year 5138).
 */
export function resetForm(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) return 'not a whole number';
  return Number(value) < 1e11 ? 'epoch seconds' : 'epoch milliseconds or finer';
}

/**
 * Observes one response of `path` (its endpoint found by core's `matchEndpoint`): reads the
 * body as the endpoint's JSON envelope, text table or HTML table by its Content-Type, and
 * normalises it with `side`. Never throws: an unreadable body is recorded in `unreadable`.
 */
export function observe(path: string, response: ReceivedResponse, side: SideContext): Observation {
  const { status, headers } = response;
  const mediaType = mediaTypeOf(headers['content-type']);
  const base = {
    status,
    contentType:
      status === 204
        ? undefined
        : status === 200
          ? `${mediaType}; charset=${charsetOf(headers['content-type']) ?? 'none'}`
          : mediaType,
    xTotalCount: headers['x-total-count'],
    errorHeaders: {
      ...(status === 405 ? { allow: allowSet(headers.allow) } : {}),
      ...(status === 429
        ? {
            'retry-after': headers['retry-after'] === undefined ? undefined : 'present',
            'x-rate-limit-limit': headers['x-rate-limit-limit'],
            'x-rate-limit-reset': resetForm(headers['x-rate-limit-reset']),
          }
        : {}),
    },
    link: parseLink(headers.link, side.baseUrl),
  };
  const endpoint = matchEndpoint(path.split('?')[0]!)?.endpoint;
  const empty = { paging: undefined, table: undefined, error: undefined, unreadable: undefined };
  if (response.body === '') return { ...base, ...empty };
  if (response.status >= 400) {
    try {
      const e = JSON.parse(response.body) as Record<string, unknown>;
      return {
        ...base,
        ...empty,
        error: { statusCode: e.statusCode, error: e.error, message: e.message },
      };
    } catch (err) {
      return { ...base, ...empty, unreadable: `error body is not JSON: ${(err as Error).message}` };
    }
  }
  if (endpoint === undefined) return { ...base, ...empty };
  try {
    const read = readTable(endpoint, mediaType, response.body, side);
    return { ...base, ...empty, paging: read.paging, table: normaliseTable(read.table, side) };
  } catch (err) {
    return { ...base, ...empty, unreadable: (err as Error).message };
  }
}

/** The media type of a Content-Type value, lower case ('' when absent). */
function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The `charset` parameter of a Content-Type value, lower case and unquoted, or undefined. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return m === null ? undefined : m[2]!.toLowerCase();
}

/** A digit run long enough to be a number above 2^53 − 1 (only then is `paging` re-read exactly). */
const LONG_DIGITS = /[0-9]{16}/;

function readTable(
  endpoint: Endpoint,
  mediaType: string,
  body: string,
  side: SideContext,
): { table: Table; paging: unknown } {
  if (mediaType === 'text/plain') return { table: parseText(body), paging: undefined };
  if (mediaType === 'text/html') return { table: parseHtml(body), paging: undefined };
  let json: { data?: unknown; paging?: unknown };
  try {
    json = JSON.parse(body) as typeof json;
  } catch (err) {
    throw new Error(`body is not JSON: ${(err as Error).message}`);
  }
  const records = endpoint.response === 'list' ? json.data : [json.data];
  if (!Array.isArray(records)) throw new Error('`data` is not a list');
  // paging.cursors read exactly when the body may hold a number above 2^53 - 1 (JSON.parse
  // rounds it: a previous off by one after a huge cursor would go unseen)
  const paging =
    endpoint.response === 'list' && LONG_DIGITS.test(body)
      ? (parseJsonExact(body) as { paging?: unknown }).paging
      : json.paging;
  return {
    table: toTable(endpoint, records),
    paging: endpoint.response === 'list' ? pagingOf(paging, side.baseUrl) : undefined,
  };
}

/** The columns that order an endpoint's rows when ties are free (event timestamps), else undefined. */
export function tieOrderColumns(endpoint: Endpoint): readonly string[] | undefined {
  const columns = tableColumns(endpoint);
  const time = columns.find((c) => /(^|\.)(openDate|clickDate)$/.test(c));
  if (time === undefined) return undefined;
  return columns.includes('tagID') ? ['tagID', time] : [time];
}
