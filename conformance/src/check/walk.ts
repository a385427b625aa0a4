import { createHash } from 'node:crypto';
import {
  type Endpoint,
  type EndpointId,
  endpointById,
  envelopeSchema,
  type PageReading,
  type RecordOf,
  runAtOnce,
  runInSlices,
  type Steps,
  TimeSlice,
  type WalkViolation,
  walkCursor,
} from '@tagtrack/core';
import type { Exchange } from '../http/client.ts';
import { CallerListTooLong, describe, ensure, SkipCheck, snippet, Violation } from './failure.ts';
import { freezeParsed, freezeSteps } from './freeze.ts';

/** The `paging` object of a list body (spec §5). */
export interface PagingBody {
  readonly cursors: { readonly previous: number; readonly next: number; readonly total: number };
  readonly previousURL: string | null;
  readonly nextURL: string | null;
}

/** One list response read as a page (see {@link readPage}). */
export interface ListPage {
  readonly data: unknown[];
  /** `undefined` for a 204 No Content. */
  readonly paging: PagingBody | undefined;
  readonly noContent: boolean;
}

/**
 * A walked list: every record of every page, and the pages' exchanges. `R` is the record
 * type: `ctx.walk('teams.tags')` gives `Walk<Tag>` (see {@link recordsOf}).
 */
export interface Walk<R = unknown> {
  readonly records: R[];
  readonly pages: Exchange[];
  readonly total: number;
}

/**
 * Parsed JSON texts, frozen, by text (see {@link parseJson}), for the runs of the process:
 * the runs against one server read many of the same answers (a fault's six runs share about
 * five in six), and the checks that vary a query read the same list under different paging
 * URLs (see {@link parseBodySteps}). Texts of at least {@link SHARED_MIN_CHARS} characters, at most
 * {@link SHARED_MAX_CHARS} of them in all (the oldest go first); smaller ones parse faster
 * than they are looked up. Keyed by {@link textKey}.
 */
const SHARED = new Map<string, unknown>();
const SHARED_MIN_CHARS = 512;
const SHARED_MAX_CHARS = 4 * 1024 * 1024;
let sharedChars = 0;

/** The parsed body of each exchange read so far (a cache hit hands checks the same exchange). */
const PARSED = new WeakMap<Exchange, unknown>();

/**
 * The envelopes each parsed body was found to conform to (see {@link readEnvelope}): the
 * schema is a pure function of the body, so a body read again is not validated again.
 */
const CONFORMS = new WeakMap<object, Set<EndpointId>>();

/**
 * Parses of texts that something still holds (a cached exchange's parse), by text, past their
 * eviction from {@link SHARED}: a text read again while its parse is alive gets that same
 * value. An entry goes when its value is collected. Keyed by {@link textKey}, so an entry
 * never keeps the body it was read from alive (the text of a list's records is a slice of it).
 */
const ALIVE = new Map<string, WeakRef<object>>();
const COLLECTED = new FinalizationRegistry<string>((key) => {
  if (ALIVE.get(key)?.deref() !== undefined) return;
  if (ALIVE.delete(key) && !SHARED.has(key)) countKey(key, -1);
});

/**
 * How many keys of each text length {@link SHARED} and {@link ALIVE} hold together: a text of
 * a length no key has cannot be found there, and is not hashed to find out.
 */
const KEYED_LENGTHS = new Map<number, number>();

/** Counts `key` in or out of {@link KEYED_LENGTHS}. */
function countKey(key: string, by: 1 | -1): void {
  const chars = keyedChars(key);
  const n = (KEYED_LENGTHS.get(chars) ?? 0) + by;
  if (n > 0) KEYED_LENGTHS.set(chars, n);
  else KEYED_LENGTHS.delete(chars);
}

/** The last text keyed and its key (a text is looked up, then kept, under one key). */
let lastKeyed: { readonly text: string; readonly key: string } | undefined;

/**
 * The key of `text` in the parse caches: its length and SHA-256, so that equal texts have one
 * key (two texts sharing one is out of reach) and a key holds no text: a key made of the text
 * itself would keep the whole body alive as long as the entry lives.
 */
function textKey(text: string): string {
  if (lastKeyed?.text === text) return lastKeyed.key;
  const key = `${text.length}:${createHash('sha256').update(text).digest('base64')}`;
  lastKeyed = { text, key };
  return key;
}

/** The characters of the text a {@link textKey} is the key of. */
function keyedChars(key: string): number {
  return Number(key.slice(0, key.indexOf(':')));
}

/** The frozen parse of `text` kept in {@link SHARED} or still alive, or `undefined`. */
function sharedParse(text: string): unknown {
  if (text.length < SHARED_MIN_CHARS || !KEYED_LENGTHS.has(text.length)) return undefined;
  const key = textKey(text);
  return SHARED.get(key) ?? ALIVE.get(key)?.deref();
}

/** Keeps `value`, the frozen parse of `text`, in {@link SHARED} when its size fits. */
function keepParse(text: string, value: unknown): void {
  if (text.length < SHARED_MIN_CHARS || text.length > SHARED_MAX_CHARS) return;
  const key = textKey(text);
  if (SHARED.has(key)) return;
  if (!ALIVE.has(key)) countKey(key, 1);
  if (typeof value === 'object' && value !== null && ALIVE.get(key)?.deref() !== value) {
    ALIVE.set(key, new WeakRef(value));
    COLLECTED.register(value, key);
  }
  SHARED.set(key, value);
  sharedChars += text.length;
  for (const [oldest] of SHARED) {
    if (sharedChars <= SHARED_MAX_CHARS) break;
    SHARED.delete(oldest);
    sharedChars -= keyedChars(oldest);
    if (!ALIVE.has(oldest)) countKey(oldest, -1);
  }
}

/** How a list body written without spaces opens, and the member that follows its `data`. */
const DATA_OPENING = '{"data":';
const PAGING_MEMBER = ',"paging":';

/**
 * `JSON.parse(text)`, frozen (throws its SyntaxError). A body written as
 * `{"data":DATA,"paging":…}` (no spaces around the first member: the reference server's form)
 * has its `data` parsed on its own and kept in {@link SHARED} by the text of DATA: answers to
 * different spellings of one query carry the same records under different paging URLs, and
 * share one parse of them. The split is taken only when both parts parse on their own, and
 * the value is that of `JSON.parse(text)`: the same members in the same order (a second
 * `data` member in the rest wins, as it does there). `split` says whether it was taken; the
 * whole text is then not worth keeping (its data part is kept, and the rest parses fast).
 * Yields while it freezes the value ({@link freezeSteps}).
 */
function* parseBodySteps(text: string): Steps<{ value: unknown; split: boolean }> {
  if (text.length >= 4 * SHARED_MIN_CHARS && text.startsWith(DATA_OPENING)) {
    const cut = text.lastIndexOf(PAGING_MEMBER);
    if (cut > DATA_OPENING.length) {
      const dataText = text.slice(DATA_OPENING.length, cut);
      let rest: Record<string, unknown> | undefined;
      try {
        rest = JSON.parse(`{${text.slice(cut + 1)}`) as Record<string, unknown>;
      } catch {
        rest = undefined;
      }
      if (rest !== undefined) {
        let data = sharedParse(dataText);
        if (data === undefined) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(dataText);
          } catch {
            return { value: yield* freezeSteps(JSON.parse(text)), split: false };
          }
          data = yield* freezeSteps(parsed);
          // a parse of the same text kept while this one was in slices is the one to share
          data = sharedParse(dataText) ?? data;
          keepParse(dataText, data);
        }
        return { value: freezeParsed({ data, ...rest }), split: true };
      }
    }
  }
  return { value: yield* freezeSteps(JSON.parse(text)), split: false };
}

/**
 * Parses a JSON body or throws a {@link Violation} (kind `schema`) naming the exchange. A body
 * is parsed once and the value frozen: the checks (and runs) that read the same answer share
 * it, and none can change what the next one reads (as with the oracle's answers). Checks copy
 * what they reorder.
 */
export function parseJson(exchange: Exchange): unknown {
  const parsed = runAtOnce(parsedSteps(exchange));
  if (parsed === undefined) throw notJson(exchange);
  return parsed.value;
}

/**
 * {@link parseJson} in time slices (the event loop turns while a long body is frozen): the
 * same value, shared and kept as {@link parseJson} shares and keeps it, or the same
 * {@link Violation}. `slice`: the time slice to run in (default a new one).
 */
export async function parseJsonInSlices(
  exchange: Exchange,
  slice: TimeSlice = new TimeSlice(),
): Promise<unknown> {
  const parsed = await runInSlices(parsedSteps(exchange), slice);
  if (parsed === undefined) throw notJson(exchange);
  return parsed.value;
}

/** The violation of a body that is not JSON (a violation made counts as a comparison). */
function notJson(exchange: Exchange): Violation {
  return new Violation(`${describe(exchange)}: body is not JSON: ${snippet(exchange.body)}`, {
    kind: 'schema',
    exchange,
  });
}

/** The parse {@link parseJson} gives as {@link Steps}: `{ value }`, or `undefined` when the body is not JSON. */
function* parsedSteps(exchange: Exchange): Steps<{ value: unknown } | undefined> {
  if (PARSED.has(exchange)) return { value: PARSED.get(exchange) };
  const text = exchange.body;
  let value = sharedParse(text);
  if (value === undefined) {
    let parsed: { value: unknown; split: boolean };
    try {
      parsed = yield* parseBodySteps(text);
    } catch {
      return undefined;
    }
    // another read of the same exchange or text may have finished while this one yielded
    value = PARSED.get(exchange) ?? (parsed.split ? undefined : sharedParse(text)) ?? parsed.value;
    // a list body's records are kept by their own text (parseBodySteps): keeping the whole
    // text too would spend the cache's room on paging URLs that differ per spelling
    if (!parsed.split) keepParse(text, value);
  }
  PARSED.set(exchange, value);
  return { value };
}

/** `X-Total-Count` of a response as a number, or `undefined` when absent or not a count. */
export function headerCount(exchange: Exchange): number | undefined {
  const v = exchange.responseHeaders['x-total-count'];
  return v !== undefined && /^[0-9]+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

/**
 * Parses a 200 JSON response of `endpoint` with core's envelope schema. Throws a
 * {@link Violation} of kind `status` for another status, of kind `schema` for a body that is
 * not JSON or does not conform (message from zod, first three issues).
 */
export function readEnvelope(
  endpoint: EndpointId,
  exchange: Exchange,
): { data: unknown; paging?: unknown } {
  ensure(
    exchange.status === 200,
    () =>
      `${describe(exchange)} answered ${exchange.status}, expected 200: ${snippet(exchange.body)}`,
    { kind: 'status', exchange },
  );
  const body = parseJson(exchange);
  const e = endpointById(endpoint);
  // a body found to conform before is not validated again (the check still counts it)
  const known = typeof body === 'object' && body !== null ? CONFORMS.get(body) : undefined;
  const parsed = known?.has(endpoint) ? undefined : envelopeSchema(e).safeParse(body);
  if (parsed?.success && typeof body === 'object' && body !== null) {
    if (known === undefined) CONFORMS.set(body, new Set([endpoint]));
    else known.add(endpoint);
  }
  ensure(
    parsed === undefined || parsed.success,
    () =>
      `${describe(exchange)}: body does not match the ${e.id} envelope: ${parsed?.error?.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')}`,
    { kind: 'schema', exchange },
  );
  return body as { data: unknown; paging?: unknown };
}

/**
 * {@link readEnvelope}, with the body parsed and, for a list, its records checked against the
 * record schema one at a time, in time slices ({@link readInSlices}): the same value, the
 * same {@link Violation}, the same comparisons counted. `slice`: the time slice to run in
 * (default a new one).
 */
export async function readEnvelopeInSlices(
  endpoint: EndpointId,
  exchange: Exchange,
  slice: TimeSlice = new TimeSlice(),
): Promise<{ data: unknown; paging?: unknown }> {
  await readInSlices(endpoint, exchange, slice);
  return readEnvelope(endpoint, exchange);
}

/**
 * Parses a 200 answer's body and checks it against the envelope of `endpoint` in time slices,
 * keeping what {@link readEnvelope} and {@link parseJson} find again at once: the frozen parse
 * and, when it conforms, that it does. Judges nothing and counts no comparison: a body that
 * does not parse or conform is left to {@link readEnvelope}, which finds the first issues as
 * ever. `slice`: the time slice to run in (default a new one).
 */
export async function readInSlices(
  endpoint: EndpointId,
  exchange: Exchange,
  slice: TimeSlice = new TimeSlice(),
): Promise<void> {
  if (exchange.status !== 200) return;
  const body = (await runInSlices(parsedSteps(exchange), slice))?.value;
  if (typeof body !== 'object' || body === null || CONFORMS.get(body)?.has(endpoint)) return;
  if (await runInSlices(conformsSteps(endpointById(endpoint), body), slice)) {
    const known = CONFORMS.get(body);
    if (known === undefined) CONFORMS.set(body, new Set([endpoint]));
    else known.add(endpoint);
  }
}

/**
 * Whether `body` conforms to the envelope of `e`, as `envelopeSchema(e).safeParse(body)`
 * says, yielding after each record of a list: a list envelope (`{ data: Record[], paging }`,
 * extra members free) accepts an object exactly when it accepts it with `data` empty and
 * `data` is an array of records each of which the record schema accepts.
 */
function* conformsSteps(e: Endpoint, body: object): Steps<boolean> {
  const data = (body as { data?: unknown }).data;
  if (e.response !== 'list' || Array.isArray(body) || !Array.isArray(data))
    return envelopeSchema(e).safeParse(body).success;
  if (!envelopeSchema(e).safeParse({ ...body, data: [] }).success) return false;
  for (const record of data) {
    if (!e.record.safeParse(record).success) return false;
    yield;
  }
  return true;
}

/**
 * One response of a list endpoint as a page: a 200 parsed with the envelope schema, or a
 * 204 No Content read as a page without records (`paging` undefined, `noContent` true)
 * whatever the declared paging end (spec §5 Revision 2; the PAGE-END checks judge the
 * form). Throws a {@link Violation} for any other status or a body that does not conform.
 */
export function readPage(endpoint: EndpointId, exchange: Exchange): ListPage {
  if (exchange.status === 204) return { data: [], paging: undefined, noContent: true };
  const body = readEnvelope(endpoint, exchange) as { data: unknown[]; paging: PagingBody };
  return { data: body.data, paging: body.paging, noContent: false };
}

/**
 * Walks a list endpoint from cursor 0 following `paging.cursors.next` until the list ends,
 * whichever paging end the implementation uses (spec §5 Revision 2): `next >= total`,
 * a 200 page with `data: []`, or a 204 No Content (its body is not read). Judging which end
 * the profile declares is the job of PAGE-END-NO-CONTENT and PAGE-END-EMPTY-PAGE, so a walk
 * never fails on the other form. `send(query)` sends one page's request: `query` plus
 * `cursor` from the second page on. Throws a {@link Violation} when a page does not parse,
 * `next` does not advance, `total` changes between pages, or the pages do not end within
 * total/pageSize + 3 (all kind `value`; the guards are core's `walkCursor`); throws a
 * {@link SkipCheck} when the first page's total (or the pages walked) pass
 * {@link WALK_MAX_RECORDS} records, an `Error` when pages give more records than that. When the first
 * page is a 204, `total` is its `X-Total-Count` (0 when absent). `wholeUpTo` (default and at
 * most {@link WALK_MAX_RECORDS}) lowers the bound for a caller other than the run's primary
 * credential: past it the first page throws a {@link CallerListTooLong}. `keepPage` (default
 * the page itself): what the walk keeps of each page after the first once its records are
 * read, so a walk of many pages does not hold every body until it ends.
 */
export async function walkPages(
  endpoint: EndpointId,
  query: readonly (readonly [string, string])[],
  pageSize: number,
  send: (query: readonly (readonly [string, string])[]) => Promise<Exchange>,
  wholeUpTo: number = WALK_MAX_RECORDS,
  keepPage: (page: Exchange) => Exchange = (page) => page,
): Promise<Walk> {
  const records: unknown[] = [];
  const pages: Exchange[] = [];
  let total = 0;
  // the loop and its guards (cursor advances, total stable, page cap) are core's walkCursor,
  // shared with the client; this reads each response and maps a guard failure to a Violation
  const steps = walkCursor(
    async (cursor): Promise<PageReading<unknown[]>> => {
      const q = [...query];
      if (cursor > 0) q.push(['cursor', String(cursor)]);
      const ex = await send(q);
      pages.push(ex);
      if (ex.status === 204) {
        if (pages.length === 1) total = headerCount(ex) ?? 0;
        else pages[pages.length - 1] = keepPage(ex);
        return { end: true, page: [] };
      }
      const env = (await readEnvelopeInSlices(endpoint, ex)) as {
        data: unknown[];
        paging: { cursors: { next: number; total: number } };
      };
      total = env.paging.cursors.total;
      if (pages.length > 1) pages[pages.length - 1] = keepPage(ex);
      if (pages.length === 1 && total > WALK_MAX_RECORDS) throw tooLong(ex, total);
      if (pages.length === 1 && total > wholeUpTo) throw tooLongForCaller(ex, total, wholeUpTo);
      const { next } = env.paging.cursors;
      if (env.data.length === 0) return { end: true, page: [] };
      return { end: false, page: env.data, count: env.data.length, next, total };
    },
    // total/pageSize + 3 pages after the first (the bound the suite has always used), and
    // never more than WALK_MAX_RECORDS records whatever the server's total says
    { maxPages: (t) => Math.min(Math.floor((t ?? 0) / pageSize) + 5, walkPageCap(pageSize)) },
  );
  for await (const step of steps) {
    if (step.kind === 'page') records.push(...step.page);
    if (records.length > WALK_MAX_RECORDS + pageSize)
      // pages over the page size cannot make a walk hold more either
      throw new Error(
        `${describe(pages[pages.length - 1] as Exchange)}: the list gave ${records.length} records in ${pages.length} pages; the suite walks at most ${WALK_MAX_RECORDS} records of one list`,
      );
    if (step.kind === 'violation') {
      const ex = pages[pages.length - 1] as Exchange;
      const v = step.violation;
      if (v.law === 'page-cap' && v.pages >= walkPageCap(pageSize)) {
        // a list this long may be legitimate: the suite cannot judge it (a skip when its
        // total says so, an error when the pages outrun a smaller total; never a failure)
        if ((v.total ?? 0) > WALK_MAX_RECORDS) throw tooLong(ex, v.total ?? 0);
        throw new Error(
          `${describe(ex)}: the list reports ${v.total} records; the suite walks at most ${WALK_MAX_RECORDS} records (${v.pages} pages) of one list`,
        );
      }
      throw new Violation(`${describe(ex)}: ${walkViolationMessage(step.violation)}`, {
        kind: 'value',
        exchange: ex,
      });
    }
  }
  return { records, pages, total };
}

/**
 * Most records one walk reads, whatever `paging.cursors.total` says: a huge or growing total
 * cannot make a walk unbounded (memory and requests stay bounded).
 */
export const WALK_MAX_RECORDS = 100_000;

/**
 * A walk of a list longer than {@link WALK_MAX_RECORDS}: the check needing it whole is skipped
 * ({@link SkipCheck}), its reason naming the list and its length. A list this long may be
 * legitimate, so it is no failure; the checks that verify a seeded sample of a long list
 * (`sampledList`) and the discovery (read at seeded cursors) still run on it.
 */
function tooLong(ex: Exchange, total: number): SkipCheck {
  return new SkipCheck(
    `needs the whole list ${ex.method} ${ex.target.replace(/[?&]cursor=\d+/, '')}, which reports ${total.toLocaleString('en-US')} records: the suite reads at most ${WALK_MAX_RECORDS.toLocaleString('en-US')} records of one list whole`,
  );
}

/**
 * A walk, as a caller other than the run's primary credential, of a list longer than that
 * caller's bound `wholeUpTo` (the run's `--sample-above` when it samples callers): the check
 * does not apply as that caller ({@link CallerListTooLong}), its reason naming the list.
 */
function tooLongForCaller(ex: Exchange, total: number, wholeUpTo: number): CallerListTooLong {
  const caller = ex.credential ?? '(no credential)';
  return new CallerListTooLong(
    `needs the whole list ${ex.method} ${ex.target.replace(/[?&]cursor=\d+/, '')} as ${caller}, which reports ${total.toLocaleString('en-US')} records: with callers sampled (--max-callers), a list longer than --sample-above (${wholeUpTo.toLocaleString('en-US')}) is read whole only as the primary credential`,
    caller,
  );
}

/** Most pages of one walk: {@link WALK_MAX_RECORDS} at `pageSize`, plus the page that ends it. */
export function walkPageCap(pageSize: number): number {
  return Math.ceil(WALK_MAX_RECORDS / pageSize) + 1;
}

/** What a walk guard failure means, in the suite's words. */
function walkViolationMessage(v: WalkViolation): string {
  switch (v.law) {
    case 'cursor-advances':
    case 'cursor-contiguous':
      return `paging.cursors.next ${v.next} does not advance`;
    case 'total-stable':
      return `paging.cursors.total ${v.total} differs from ${v.previousTotal} on the first page`;
    case 'page-cap':
      return `walking the pages does not end after ${v.pages} pages`;
  }
}

/**
 * Names the record type of `endpoint` on data its envelope schema accepted ({@link readEnvelope}
 * parsed every page of a walk and every single answer with core's record schema of `endpoint`):
 * the suite's one place where walked data gets its type, no check of its own.
 */
export function recordsOf<Id extends EndpointId>(
  _endpoint: Id,
  data: readonly unknown[],
): RecordOf<Id>[] {
  return data as RecordOf<Id>[];
}
