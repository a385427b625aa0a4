import {
  type EndpointId,
  EventLocation,
  normaliseEmail,
  parseHtml,
  parseHtmlSteps,
  parseText,
  runAtOnce,
  runInSlices,
  type Steps,
  type Table,
} from '@tagtrack/core';
import { LRUCache } from 'lru-cache';
import { bodyHeapBytes } from '../http/answer-store.ts';

/**
 * Comparing by meaning, never by incidental form (spec introduction, and
 * the Revision 2 lists of §3, §7, §8):
 * - timestamps are instants: `2024-03-05T14:22:01Z` equals `2024-03-05T14:22:01.000Z`;
 * - a tag's recipients are a set of normalised emails (each once, with its name); whether
 *   `email` shows the stored or the normalised form is free;
 * - contact ids are implementation-defined: contacts and event recipients are identified by
 *   normalised email (REL-CONTACT-IDS-CONSISTENT checks the ids separately);
 * - events with the same timestamp may come in any order.
 * Extra record fields are ignored by `firstDifference` (sample.ts), key order and `\u`
 * escapes by parsing JSON.
 */

const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Epoch milliseconds of an RFC 3339 UTC timestamp (`…Z`, fractional seconds allowed), or
 * `undefined` when `value` is not one.
 */
export function instantOf(value: unknown): number | undefined {
  // length and first dash before the pattern: most values are not timestamps (asked per field)
  if (
    typeof value !== 'string' ||
    value.length < 20 ||
    value.charCodeAt(4) !== 45 ||
    !TIMESTAMP_RE.test(value)
  )
    return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Whether two leaf values mean the same: equal, or two timestamps of the same instant. */
export function sameLeaf(expected: unknown, actual: unknown): boolean {
  if (Object.is(expected, actual)) return true;
  const a = instantOf(expected);
  return a !== undefined && a === instantOf(actual);
}

/** How {@link comparable} treats contact ids. */
export type ContactIds =
  /** keep `contactID` and `recipient.recipientID` (both sides come from one implementation) */
  | 'keep'
  /** drop them: the records are identified by normalised email (fixture mode vs the oracle) */
  | 'by-email';

type Rec = Record<string, unknown>;

const LOCATION_FIELDS = Object.keys(EventLocation.shape);

function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function emailOf(v: unknown): string {
  return typeof v === 'string' ? normaliseEmail(v) : String(v);
}

/** A recipient-like object (`{ name, email, recipientID? }`) with its email normalised. */
function person(v: unknown, contactIds: ContactIds): unknown {
  if (!isRecord(v)) return v;
  const out: Rec = { ...v, email: emailOf(v.email) };
  if (contactIds === 'by-email') delete out.recipientID;
  return out;
}

/** Sort key of an event among events of the same instant: its recipient and known details. */
function eventKey(event: Rec): string {
  const details = isRecord(event.details) ? event.details : event;
  const recipient = isRecord(event.recipient) ? event.recipient : {};
  return JSON.stringify([
    event.tagID ?? null,
    emailOf(recipient.email ?? ''),
    recipient.name ?? null,
    ...LOCATION_FIELDS.map((f) => details[f] ?? null),
  ]);
}

/**
 * Events in a canonical order that keeps the date order but not the order among events of
 * the same instant (spec §5 Revision 2): each run of consecutive events with the same
 * timestamp is sorted by recipient and details. An out-of-order list stays out of order.
 */
export function canonicalTies(events: readonly unknown[], dateOf: (e: Rec) => unknown): unknown[] {
  const out: unknown[] = [];
  let run: Rec[] = [];
  let runInstant: number | undefined;
  const flush = () => {
    const keyed = run.map((e) => [eventKey(e), e] as const);
    keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out.push(...keyed.map(([, e]) => e));
    run = [];
  };
  for (const e of events) {
    if (!isRecord(e)) {
      flush();
      out.push(e);
      runInstant = undefined;
      continue;
    }
    const t = instantOf(dateOf(e));
    if (run.length > 0 && (t === undefined || t !== runInstant)) flush();
    run.push(e);
    runInstant = t;
  }
  flush();
  return out;
}

const eventDate = (e: Rec): unknown => {
  const d = isRecord(e.details) ? e.details : e;
  return d.openDate ?? d.clickDate;
};

/**
 * The records of `endpoint` in the form the profile lets the suite compare (see the file
 * comment): recipients as a sorted set by normalised email, emails of contacts and event
 * recipients normalised, contact ids dropped with `by-email`, ties among events canonical.
 * Returns new values; unknown shapes pass through unchanged.
 */
export function comparable(
  endpoint: EndpointId,
  records: readonly unknown[],
  contactIds: ContactIds = 'keep',
): unknown[] {
  switch (endpoint) {
    case 'teams.tags':
    case 'teams.memberTags':
      return records.map((t) => {
        if (!isRecord(t) || !Array.isArray(t.recipients)) return t;
        const people = t.recipients.map((r) => person(r, contactIds));
        if (people.length < 2) return { ...t, recipients: people };
        // each sort key built once, not at every comparison
        const recipients = people
          .map((p) => [JSON.stringify([(p as Rec).email, (p as Rec).name]), p] as const)
          .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
          .map(([, p]) => p);
        return { ...t, recipients };
      });
    case 'contacts.list':
    case 'contacts.get':
    case 'contacts.tag':
      return records.map((c) => {
        if (!isRecord(c)) return c;
        const out: Rec = { ...c, email: emailOf(c.email) };
        if (contactIds === 'by-email') delete out.contactID;
        return out;
      });
    case 'opens.list':
    case 'clicks.list':
      return records.map((g) => {
        if (!isRecord(g)) return g;
        const kind = 'opens' in g ? 'opens' : 'clicks';
        const events = g[kind];
        if (!Array.isArray(events)) return g;
        const mapped = events.map((e) =>
          isRecord(e) ? { ...e, recipient: person(e.recipient, contactIds) } : e,
        );
        return { ...g, [kind]: canonicalTies(mapped, eventDate) };
      });
    case 'opens.tag':
    case 'clicks.tag':
      return canonicalTies(records, eventDate);
    default:
      return [...records];
  }
}

/** {@link comparable} (contact ids kept) of each frozen record or list, by endpoint. */
const COMPARABLE = new WeakMap<object, Map<EndpointId, readonly unknown[]>>();

/**
 * The records of an answer's `data` in comparable form: `comparable(endpoint, data)` for a
 * list, `comparable(endpoint, [data])` for a single record, contact ids kept. A frozen `data`
 * (parsed bodies are; see `parseJson`) cannot change, so its comparable form is computed once
 * per endpoint and the same array handed out again: an answer compared with many others
 * (a plain request against each of its variants) is put in form once. Read-only: copy
 * before reordering.
 */
export function comparableData(endpoint: EndpointId, data: unknown): readonly unknown[] {
  return runAtOnce(comparableDataSteps(endpoint, data));
}

/**
 * {@link comparableData} as {@link Steps}: yields after each record put in form (the events of
 * endpoints 10 and 12, whose ties span records, at once). Same array, same cache.
 */
export function* comparableDataSteps(
  endpoint: EndpointId,
  data: unknown,
): Steps<readonly unknown[]> {
  const frozen = typeof data === 'object' && data !== null && Object.isFrozen(data);
  const known = frozen ? COMPARABLE.get(data)?.get(endpoint) : undefined;
  if (known !== undefined) return known;
  const list = Array.isArray(data) ? data : [data];
  let records: unknown[];
  if (endpoint === 'opens.tag' || endpoint === 'clicks.tag') records = comparable(endpoint, list);
  else {
    // every other endpoint's form is made record by record (comparable maps them)
    records = [];
    for (const r of list) {
      records.push(comparable(endpoint, [r])[0]);
      yield;
    }
  }
  if (!frozen) return records;
  // a form made meanwhile (another read of the same data, in slices) is the one handed out
  const byEndpoint = COMPARABLE.get(data);
  const made = byEndpoint?.get(endpoint);
  if (made !== undefined) return made;
  if (byEndpoint === undefined) COMPARABLE.set(data, new Map([[endpoint, records]]));
  else byEndpoint.set(endpoint, records);
  return records;
}

/** Whether `endpoint` lists events, whose ties are free (compare its tables unordered). */
export function listsEvents(endpoint: EndpointId): boolean {
  return (
    endpoint === 'opens.list' ||
    endpoint === 'clicks.list' ||
    endpoint === 'opens.tag' ||
    endpoint === 'clicks.tag'
  );
}

/** A table with every timestamp cell rewritten as one canonical instant (ISO with ms). */
export function normaliseTable(table: Table): Table {
  const cell = (v: string) => {
    const t = instantOf(v);
    return t === undefined ? v : new Date(t).toISOString();
  };
  return { columns: table.columns, rows: table.rows.map((r) => r.map(cell)) };
}

/**
 * Heap bytes the tables {@link bodyTable} keeps may hold, per format: each counts its body (the
 * key) and its cells as {@link tableHeapBytes} estimates. A saving of CPU only.
 */
export const BODY_TABLES_MAX_BYTES = 4 * 1024 * 1024;

/** Tables of text and html bodies by body text, per format, least recently used first out. */
const BODY_TABLES = {
  text: new LRUCache<string, Table>({
    maxSize: BODY_TABLES_MAX_BYTES,
    sizeCalculation: tableHeapBytes,
  }),
  html: new LRUCache<string, Table>({
    maxSize: BODY_TABLES_MAX_BYTES,
    sizeCalculation: tableHeapBytes,
  }),
};

/** What a cell costs the heap besides its characters: its slot in the row and a string's header. */
const CELL_OVERHEAD_BYTES = 24;

/** What a row costs the heap besides its cells: an array and its header. */
const ROW_OVERHEAD_BYTES = 48;

/**
 * Heap bytes a table parsed from `body` holds with its body, an estimate: the body as the
 * heap holds it (one or two bytes a character), and per cell its characters and
 * {@link CELL_OVERHEAD_BYTES}, per row {@link ROW_OVERHEAD_BYTES}. A page's table holds three
 * to five times its body's characters, so the body's length alone let the tables hold that
 * many times their cap.
 */
export function tableHeapBytes(table: Table, body: string): number {
  let bytes = bodyHeapBytes(body) + ROW_OVERHEAD_BYTES * (table.rows.length + 1);
  for (const row of [table.columns, ...table.rows])
    for (const cell of row) bytes += cell.length + CELL_OVERHEAD_BYTES;
  return Math.max(1, bytes);
}

/**
 * The table an rtn=text or rtn=html `body` carries (core's `parseText` / `parseHtml`, spec
 * §8), with every timestamp cell as one canonical instant ({@link normaliseTable}). Parsed
 * once per body text for the process (runs and checks read the same answers again) and
 * frozen: read-only. Throws the parser's `FormatParseError` for a body that does not parse.
 */
export function bodyTable(rtn: 'text' | 'html', body: string): Table {
  const known = BODY_TABLES[rtn].get(body);
  if (known !== undefined) return known;
  return keepTable(rtn, body, rtn === 'text' ? parseText(body) : parseHtml(body));
}

/**
 * {@link bodyTable}, an html body parsed in time slices (core's `parseHtmlSteps`: parse5 fed
 * a chunk at a time), so the event loop turns while a long body is read. Same table, same
 * cache, same `FormatParseError`.
 */
export async function bodyTableInSlices(rtn: 'text' | 'html', body: string): Promise<Table> {
  const known = BODY_TABLES[rtn].get(body);
  if (known !== undefined) return known;
  return keepTable(
    rtn,
    body,
    rtn === 'text' ? parseText(body) : await runInSlices(parseHtmlSteps(body)),
  );
}

/** `table`, parsed from `body`, normalised and frozen, kept in {@link BODY_TABLES}. */
function keepTable(rtn: 'text' | 'html', body: string, table: Table): Table {
  const normal = normaliseTable(table);
  for (const row of normal.rows) Object.freeze(row);
  const frozen = Object.freeze({
    columns: Object.freeze(normal.columns),
    rows: Object.freeze(normal.rows),
  }) as Table;
  BODY_TABLES[rtn].set(body, frozen);
  return frozen;
}

/** The media type of a Content-Type value, lowercased (`text/html`), or '' when absent. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * The links of an RFC 8288 `Link` header value by relation type (lowercased; a `rel` listing
 * several types gives each): `<u1>; rel="next", <u2>; rel="prev"` gives
 * `{ next: 'u1', prev: 'u2' }`. A relation given twice keeps the first URL. `{}` when absent.
 */
export function linksOf(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /<([^>]*)>((?:\s*;\s*(?:[^;,<"]|"[^"]*")*)*)/g;
  for (const m of (header ?? '').matchAll(re)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(m[2] ?? '');
    for (const r of (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/)) {
      if (r !== '' && !(r in out)) out[r] = m[1]!;
    }
  }
  return out;
}
