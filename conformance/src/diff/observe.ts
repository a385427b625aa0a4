import {
  type Endpoint,
  matchEndpoint,
  normaliseEmail,
  parseHtml,
  parseText,
  type Table,
  tableColumns,
  toTable,
} from '@tagtrack/core';

/**
 * What the differential audit compares of one response, with what the profile leaves free
 * already normalised away (docs/spec.md: key order, extra fields, column order, empty
 * columns, timestamp form, contact ids, email spelling, HTML markup, transfer details). Two
 * conforming implementations on the same data give equal observations for the same request.
 */
export interface Observation {
  readonly status: number;
  /** The media type (`application/json`, `text/plain`, `text/html`), lower case, or ''. */
  readonly mediaType: string;
  readonly xTotalCount: string | undefined;
  /** Headers whose presence or value the profile fixes on errors: Allow, Retry-After (present or not), X-Rate-Limit-Limit. */
  readonly errorHeaders: Readonly<Record<string, string | undefined>>;
  /** `rel="next"`/`rel="prev"` targets of the Link header, the base URL replaced by `{base}`. */
  readonly link: Readonly<Record<string, string>>;
  /** A list envelope's `paging` (URLs relative to `{base}`), or undefined. */
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
 * One cell in its compared form: timestamps as instants (ISO 8601 UTC, milliseconds), contact
 * ids as `contact <email>` (ids are free, decisions §8), emails normalised, the `recipients`
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

/** The `rel` → target map of a Link header, targets relative to the base URL. */
function parseLink(value: string | undefined, baseUrl: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (value ?? '').split(/,(?=\s*<)/)) {
    const m = /<([^>]*)>\s*;\s*rel="?([^";]+)"?/i.exec(part.trim());
    if (m !== null) out[m[2]!.toLowerCase()] = relativeToBase(m[1]!, baseUrl);
  }
  return out;
}

function pagingOf(paging: unknown, baseUrl: string): unknown {
  if (typeof paging !== 'object' || paging === null) return paging;
  const p = paging as Record<string, unknown>;
  const url = (u: unknown) => (typeof u === 'string' ? relativeToBase(u, baseUrl) : u);
  const c = p.cursors as Record<string, unknown> | null | undefined;
  const cursors =
    typeof c === 'object' && c !== null
      ? { previous: c.previous, next: c.next, total: c.total }
      : c;
  return { cursors, nextURL: url(p.nextURL), previousURL: url(p.previousURL) };
}

/**
 * Observes one response of `path` (its endpoint found by core's `matchEndpoint`): reads the
 * body as the endpoint's JSON envelope, text table or HTML table by its Content-Type, and
 * normalises it with `side`. Never throws: an unreadable body is recorded in `unreadable`.
 */
export function observe(path: string, response: ReceivedResponse, side: SideContext): Observation {
  const contentType = response.headers['content-type'] ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const base = {
    status: response.status,
    mediaType,
    xTotalCount: response.headers['x-total-count'],
    errorHeaders: {
      allow: response.headers.allow,
      'retry-after': response.headers['retry-after'] === undefined ? undefined : 'present',
      'x-rate-limit-limit': response.headers['x-rate-limit-limit'],
    },
    link: parseLink(response.headers.link, side.baseUrl),
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
  return {
    table: toTable(endpoint, records),
    paging: endpoint.response === 'list' ? pagingOf(json.paging, side.baseUrl) : undefined,
  };
}

/** The columns that order an endpoint's rows when ties are free (event timestamps), else undefined. */
export function tieOrderColumns(endpoint: Endpoint): readonly string[] | undefined {
  const columns = tableColumns(endpoint);
  const time = columns.find((c) => /(^|\.)(openDate|clickDate)$/.test(c));
  if (time === undefined) return undefined;
  return columns.includes('tagID') ? ['tagID', time] : [time];
}
