import {
  CalendarDate,
  DAY_MS,
  dayStartMs,
  type Endpoint,
  type EndpointId,
  IGNORED_PARAMS,
  PARAM_NAMES,
  parseQuery,
  type QueryParams,
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
 * Parses the query of a request to `endpoint` per decisions §4 (through core's
 * {@link parseQuery}; throws its `QueryParamError`), with the parameter-layer faults
 * applied: `unknown-param-ignored`, `bad-date-200`, `ignore-is-opened`,
 * `end-day-exclusive`, `alias-ignores-type`, `next-param-rejected`,
 * `cursor-unchecked-single`, `empty-value-as-absent`, `foreign-param-accepted`,
 * `repeated-param-last-wins`.
 */
export function parseRequestQuery(
  endpoint: Endpoint,
  entries: readonly (readonly [string, string])[],
  faults: FaultSet,
): QueryParams {
  let input = entries;
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
  const query = parseQuery(input, {
    allowed,
    required: endpoint.requiredQuery,
  });
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
  return query;
}
