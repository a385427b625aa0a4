import {
  type Endpoint,
  parseQuery,
  parseQueryString,
  type QueryEntry,
  type QueryParams,
} from '@tagtrack/core';

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

/**
 * The stages of the query parser a fault wraps (`faults/params.ts`), each clean in
 * {@link PARAMS_LAYER} unless a fault replaced it (spec §6 and its Revisions).
 */
export interface ParamsLayer {
  /**
   * The parameters of the raw query string in request order (core's {@link parseQueryString}:
   * `application/x-www-form-urlencoded`, spec §6 Revision 3); may throw core's
   * `QueryParamError`.
   */
  entries(endpoint: Endpoint, rawQuery: string): QueryEntry[];
  /** The parameters `parse` reads out of those sent: all of them. */
  input(endpoint: Endpoint, sent: readonly QueryEntry[]): readonly QueryEntry[];
  /** The parameters `endpoint` accepts: `endpoint.query`. */
  allowed(endpoint: Endpoint): readonly Endpoint['query'][number][];
  /** The parameters checked and typed (core's {@link parseQuery}); throws its `QueryParamError`. */
  parse(
    endpoint: Endpoint,
    input: readonly QueryEntry[],
    allowed: readonly Endpoint['query'][number][],
  ): QueryParams;
  /** The parsed parameters as the handler uses them (`sent`: as received): unchanged. */
  query(endpoint: Endpoint, query: QueryParams, sent: readonly QueryEntry[]): QueryParams;
}

/** The clean {@link ParamsLayer}. */
export const PARAMS_LAYER: ParamsLayer = {
  entries: (_endpoint, rawQuery) => parseQueryString(rawQuery),
  input: (_endpoint, sent) => sent,
  allowed: (endpoint) => endpoint.query,
  parse: (endpoint, input, allowed) =>
    parseQuery(input, { allowed, required: endpoint.requiredQuery }),
  query: (_endpoint, query) => query,
};

/**
 * Parses the raw query string of a request to `endpoint` per spec §6 (its parameters
 * read by {@link parseQueryString}, then checked by core's {@link parseQuery}; throws its
 * `QueryParamError`). `layer` is {@link PARAMS_LAYER} or the stages as the parameter faults
 * break them.
 */
export function parseRequestQuery(
  endpoint: Endpoint,
  rawQuery: string,
  layer: ParamsLayer = PARAMS_LAYER,
): QueryParams {
  const sent = layer.entries(endpoint, rawQuery);
  const query = layer.parse(endpoint, layer.input(endpoint, sent), layer.allowed(endpoint));
  return layer.query(endpoint, query, sent);
}
