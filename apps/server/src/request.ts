import {
  CalendarDate,
  DAY_MS,
  dayStartMs,
  decodeFormComponent,
  type Endpoint,
  type EndpointId,
  IGNORED_PARAMS,
  PARAM_NAMES,
  parseQuery,
  parseQueryString,
  type QueryEntry,
  QueryParamError,
  type QueryParams,
  TAG_FILTER_PARAMS,
  utcDay,
} from '@tagtrack/core';
import type { FaultSet } from './faults/index.ts';

/**
 * The parts of an HTTP request target as received: the path (still percent-encoded) and
 * the raw query string after `?` (no `?`; `''` when absent). Decisions §1 signs exactly
 * this raw query string.
 */
export interface RequestTarget {
  readonly path: string;
  readonly rawQuery: string;
}

/**
 * Splits a request target (`/path?query`, or an absolute URL) into path and raw query.
 * A fragment, if a client sent one, is dropped.
 */
export function splitTarget(target: string): RequestTarget {
  let t = target;
  const hash = t.indexOf('#');
  if (hash >= 0) t = t.slice(0, hash);
  const abs = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/.exec(t);
  if (abs) t = t.slice(abs[0].length);
  const q = t.indexOf('?');
  const path = q >= 0 ? t.slice(0, q) : t;
  return { path: path === '' ? '/' : path, rawQuery: q >= 0 ? t.slice(q + 1) : '' };
}

/**
 * The decoded `[name, value]` pairs of a raw query string in request order (`+` is a space,
 * as in HTML forms and PHP; invalid percent-encoding is kept literally).
 */
export function queryEntries(rawQuery: string): [string, string][] {
  return [...new URLSearchParams(rawQuery)];
}

const DATE_PARAMS = new Set(['start', 'end', 'date']);
const API_PARAMS: ReadonlySet<string> = new Set(PARAM_NAMES);
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The parameters of a raw query string per decisions §4 Revision 3 (core's
 * {@link parseQueryString}: `application/x-www-form-urlencoded`), with the query-syntax
 * faults applied: `empty-piece-400`, `bare-name-ignored`, `empty-name-ignored`,
 * `names-case-insensitive`, `names-not-decoded`, `values-not-decoded`, `malformed-escape-as-absent`,
 * `non-utf8-bytes-dropped`, `undecodable-ignored-param-400` (which throws a
 * `QueryParamError`).
 */
function requestEntries(endpoint: Endpoint, rawQuery: string, faults: FaultSet): QueryEntry[] {
  let raw = rawQuery;
  if (faults.has('bare-name-ignored')) {
    // bug: pieces are matched with a `name=value` pattern; one without `=` matches nothing
    raw = raw
      .split('&')
      .filter((piece) => piece.includes('='))
      .join('&');
  }
  if (faults.has('empty-name-ignored')) {
    // bug: the pattern wants a non-empty name, so `=json` matches nothing
    raw = raw
      .split('&')
      .filter((piece) => !piece.startsWith('='))
      .join('&');
  }
  let entries = faults.has('values-not-decoded')
    ? // bug: names are decoded, values are taken as sent
      raw
        .split('&')
        .filter((piece) => piece !== '')
        .map((piece): QueryEntry => {
          const eq = piece.indexOf('=');
          const name = eq < 0 ? piece : piece.slice(0, eq);
          const decoded = decodeFormComponent(name);
          return [typeof decoded === 'string' ? decoded : name, eq < 0 ? '' : piece.slice(eq + 1)];
        })
    : parseQueryString(raw);
  if (faults.has('names-not-decoded')) {
    // bug: names are compared as sent, so `%72tn=json` is an unknown parameter
    const raws = raw.split('&').filter((piece) => piece !== '');
    entries = entries.map((entry, i): QueryEntry => {
      const piece = raws[i] ?? '';
      const eq = piece.indexOf('=');
      return [eq < 0 ? piece : piece.slice(0, eq), ...(entry.slice(1) as [string])];
    });
  }
  if (faults.has('undecodable-ignored-param-400')) {
    // bug: the whole query is decoded strictly before any parameter is looked at
    const bad = entries.find((entry) => entry[2] !== undefined);
    if (bad !== undefined) {
      throw new QueryParamError(
        'invalid_value',
        bad[0],
        `query parameter '${bad[0]}' is not valid percent-encoded UTF-8`,
      );
    }
  }
  if (faults.has('empty-piece-400') && raw !== '' && raw.split('&').includes('')) {
    // bug: the query is split on `&` and every piece is read, an empty one as an empty name
    entries = [...entries, ['', '']];
  }
  if (faults.has('names-case-insensitive')) {
    // bug: names are looked up lower-cased
    const byLower = new Map(endpoint.query.map((name) => [name.toLowerCase(), name]));
    entries = entries.map(
      ([name, ...rest]): QueryEntry => [byLower.get(name.toLowerCase()) ?? name, ...rest],
    );
  }
  if (faults.has('malformed-escape-as-absent')) {
    // bug: decodeURIComponent throws, and the catch skips the parameter
    entries = entries.filter((entry) => entry[2] !== 'malformed-escape');
  }
  if (faults.has('non-utf8-bytes-dropped')) {
    // bug: the bytes are decoded leniently and the replacement characters dropped
    entries = entries.map(
      (entry): QueryEntry => (entry[2] === 'not-utf8' ? [entry[0], dropNonUtf8(entry[1])] : entry),
    );
  }
  return entries;
}

/** Fault `non-utf8-bytes-dropped`: a raw value decoded with the bytes that are not UTF-8 left out. */
function dropNonUtf8(raw: string): string {
  const encoder = new TextEncoder();
  const bytes = [...raw.replace(/\+/g, ' ').matchAll(/%([0-9A-Fa-f]{2})|([^%]+)/g)].flatMap(
    ([, hex, text]) => (hex !== undefined ? [Number.parseInt(hex, 16)] : [...encoder.encode(text)]),
  );
  return new TextDecoder().decode(new Uint8Array(bytes)).replace(/\uFFFD/g, '');
}

/** The tag filter of the opposite meaning (fault `false-filter-negates`). */
const OPPOSITE_FILTER = {
  isOpened: 'isUnopened',
  isUnopened: 'isOpened',
  isClicked: 'isUnclicked',
  isUnclicked: 'isClicked',
} as const;

/**
 * Parses the raw query string of a request to `endpoint` per decisions §4 (its parameters
 * read by {@link parseQueryString}, then checked by core's {@link parseQuery}; throws its
 * `QueryParamError`), with the parameter-layer faults applied: those of `requestEntries`,
 * and `unknown-param-ignored`, `bad-date-200`, `ignore-is-opened`,
 * `end-day-exclusive`, `alias-ignores-type`, `next-param-rejected`,
 * `cursor-unchecked-single`, `empty-value-as-absent`, `foreign-param-accepted`,
 * `repeated-param-last-wins`, `daily-date-rolls-over`, `events-start-after-end-empty`,
 * `member-tags-lenient-boolean`, `stats-type-any-case`, `group-type-ignored`,
 * `cursor-leading-zeros-rejected`, `huge-cursor-rejected`, `false-filter-negates`,
 * `aggregate-false-aggregates`, `stats-type-ignored`, `group-stats-type-ignored`,
 * `stats-type-per-day-ignored`.
 */
export function parseRequestQuery(
  endpoint: Endpoint,
  rawQuery: string,
  faults: FaultSet,
): QueryParams {
  const sent = requestEntries(endpoint, rawQuery, faults);
  let input: readonly QueryEntry[] = sent;
  let allowed: readonly (typeof endpoint.query)[number][] = endpoint.query;
  if (faults.has('next-param-rejected')) {
    // bug: `next` is missing from the list of accepted parameters
    allowed = allowed.filter((name) => name !== 'next');
  }
  if (faults.has('cursor-unchecked-single') && endpoint.response === 'single') {
    // bug: endpoints that do not page never look at the cursor
    input = input.filter(([name]) => name !== 'cursor');
  }
  if (faults.has('empty-value-as-absent')) {
    // bug: `type=` is read like a missing parameter
    input = input.filter(([, value]) => value !== '');
  }
  if (faults.has('foreign-param-accepted')) {
    // bug: any parameter of the API passes, whichever endpoint it belongs to
    const own = new Set<string>(endpoint.query);
    input = input.filter(([name]) => own.has(name) || !API_PARAMS.has(name));
  }
  if (faults.has('repeated-param-last-wins')) {
    // bug: the query is read into a map, so a repeated parameter's last value wins
    const last = new Map<string, number>();
    input.forEach(([name], i) => {
      last.set(name, i);
    });
    input = input.filter(([name], i) => IGNORED_PARAMS.has(name) || last.get(name) === i);
  }
  if (faults.has('unknown-param-ignored')) {
    // bug: the parser only looks at the names it knows instead of rejecting the others
    const known = new Set<string>(endpoint.query);
    input = input.filter(([name]) => known.has(name));
  }
  if (faults.has('bad-date-200')) {
    // bug: a shape check only; a YYYY-MM-DD that is not a calendar day is dropped silently
    input = input.filter(
      ([name, value]) =>
        !(
          DATE_PARAMS.has(name) &&
          DATE_SHAPE.test(value) &&
          !CalendarDate.safeParse(value).success
        ),
    );
  }
  if (faults.has('daily-date-rolls-over') && endpoint.id === ('tags.daily' satisfies EndpointId)) {
    // bug: the day is read with Date.UTC, which rolls 2024-02-30 over into 2024-03-01
    input = input.map(([name, value]): [string, string] => [
      name,
      name === 'date' ? rollOver(value) : value,
    ]);
  }
  if (faults.has('member-tags-lenient-boolean') && endpoint.id === 'teams.memberTags') {
    // bug: this handler reads its filters as `value === 'true' || value === '1'`
    const filters = new Set<string>(TAG_FILTER_PARAMS);
    input = input.map(([name, value]): [string, string] => [
      name,
      filters.has(name) && !/^(true|false|1|0)$/i.test(value) ? 'false' : value,
    ]);
  }
  if (faults.has('stats-type-any-case') && endpoint.id.startsWith('stats.')) {
    // bug: the stats handlers lower-case `type` before validating it
    input = input.map(([name, value]): [string, string] => [
      name,
      name === 'type' ? value.toLowerCase() : value,
    ]);
  }
  if (faults.hasAny(['cursor-leading-zeros-rejected', 'huge-cursor-rejected'])) {
    // bug: the cursor is validated as a canonical safe integer (/^(0|[1-9][0-9]*)$/ and
    // Number.isSafeInteger) instead of [0-9]+ without a size limit
    const refused = (value: string) =>
      /^[0-9]+$/.test(value) &&
      ((faults.has('cursor-leading-zeros-rejected') && /^0[0-9]/.test(value)) ||
        (faults.has('huge-cursor-rejected') && !Number.isSafeInteger(Number(value))));
    input = input.map(([name, value]): [string, string] => [
      name,
      name === 'cursor' && refused(value) ? `${value}?` : value,
    ]);
  }
  let reversedEnd: string | undefined;
  if (
    faults.has('events-start-after-end-empty') &&
    (endpoint.id === 'clicks.list' || endpoint.id === 'opens.list')
  ) {
    // bug: the event handlers never compare the bounds; start after end selects nothing
    const start = input.find(([name]) => name === 'start')?.[1];
    const end = input.find(([name]) => name === 'end')?.[1];
    if (
      start !== undefined &&
      end !== undefined &&
      start > end &&
      CalendarDate.safeParse(start).success &&
      CalendarDate.safeParse(end).success
    ) {
      reversedEnd = end;
      input = input.filter(([name]) => name !== 'end');
    }
  }
  const query = parseQuery(input, {
    allowed,
    required: endpoint.requiredQuery,
  });
  if (reversedEnd !== undefined) query.end = reversedEnd;
  if (faults.has('group-type-ignored') && endpoint.id === 'teams.group') delete query.type;
  if (faults.has('ignore-is-opened')) query.isOpened = false;
  if (faults.has('end-day-exclusive') && query.end !== undefined) {
    // bug: `end` used as an exclusive bound, i.e. the window stops at the end day's midnight
    // (with start = end the window becomes empty: start after end selects no day)
    query.end = utcDay(dayStartMs(query.end) - DAY_MS);
  }
  if (
    faults.has('alias-ignores-type') &&
    endpoint.id === ('stats.teamAlias' satisfies EndpointId)
  ) {
    delete query.type;
  }
  const sentNames = new Set(sent.map(([name]) => name));
  if (faults.has('false-filter-negates')) {
    // bug: a filter sent as false is read as "not opened", "not clicked"
    for (const name of TAG_FILTER_PARAMS) {
      if (!sentNames.has(name) || !(name in OPPOSITE_FILTER)) continue;
      const filter = name as keyof typeof OPPOSITE_FILTER;
      if (query[filter] === false) query[OPPOSITE_FILTER[filter]] = true;
    }
  }
  if (faults.has('aggregate-false-aggregates') && sentNames.has('aggregateData')) {
    // bug: `if (params.has('aggregateData'))`
    query.aggregateData = true;
  }
  if (
    (faults.has('stats-type-ignored') && endpoint.id === 'stats.team') ||
    (faults.has('group-stats-type-ignored') && endpoint.id === 'stats.group') ||
    (faults.has('stats-type-per-day-ignored') &&
      endpoint.id.startsWith('stats.') &&
      !query.aggregateData)
  ) {
    delete query.type;
  }
  return query;
}

/**
 * Fault `daily-date-rolls-over`: a `YYYY-MM-DD` whose day is past the end of its month (a
 * real month, day 29 to 31) as `Date.UTC` reads it, rolled into the next month; any other
 * value unchanged.
 */
function rollOver(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (m === null || CalendarDate.safeParse(value).success) return value;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1000 || month < 1 || month > 12 || day < 29 || day > 31) return value;
  return utcDay(Date.UTC(year, month - 1, day));
}
