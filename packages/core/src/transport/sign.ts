import { authorizationHeader, buildQueryString } from '../signing.ts';

/**
 * The signed-request builder (spec §3): one place that turns a path and a query into the
 * URL that goes on the wire and the `Authorization` header over exactly that URL's query
 * string. Pure web-platform code (WHATWG `URL`), used by the client's transport and the
 * suite's HTTP client.
 */

/** Computes the `Authorization` header value for a query string (no leading `?`). */
export type Authorizer = (queryString: string) => string;

/** The HMAC authorizer of spec §3: `base64(authId:hex(HMAC-SHA1(accessKey, query)))`. */
export function hmacAuthorizer(authId: string, accessKey: string): Authorizer {
  return (queryString) => authorizationHeader(authId, accessKey, queryString);
}

/** What to build: a path below a base URL and its query, as pairs or verbatim. */
export interface RequestTarget {
  /** The base URL without a trailing slash (a path prefix is kept). */
  readonly baseUrl: string;
  /** Path below the base URL, starting with `/`. */
  readonly path: string;
  /** Query pairs, percent-encoded with `encodeURIComponent` in the given order. */
  readonly query?: Iterable<readonly [string, string]> | undefined;
  /**
   * A query string to send verbatim instead of `query` (no leading `?`): for probes of the
   * signed forms. The WHATWG URL serializer still escapes what a URL cannot hold.
   */
  readonly rawQuery?: string | undefined;
}

/** A request ready to go out: where it goes and the header that signs it. */
export interface SignedRequest {
  /** The URL as the WHATWG parser serializes it (what `fetch` sends). */
  readonly href: string;
  /** `baseUrl + target`: the base URL and the path as given, with the sent query string. */
  readonly url: string;
  /** The path as given and `?queryString` when there is one. */
  readonly target: string;
  /** The query string that goes on the wire (no leading `?`): the one that is signed. */
  readonly queryString: string;
  /** The `Authorization` value over `queryString`; `undefined` without an authorizer. */
  readonly authorization: string | undefined;
}

/**
 * Builds a signed request. The query string is built (`rawQuery`, else the pairs through
 * `buildQueryString`), then parsed as `fetch` will parse it: the WHATWG serializer
 * percent-encodes a few characters `encodeURIComponent` leaves alone in a query (e.g. `'`),
 * so the signed string is the parsed URL's query, never the built one (spec §3). Throws
 * `TypeError` when `baseUrl + path` is not a URL.
 */
export function signRequest(target: RequestTarget, authorize: Authorizer | null): SignedRequest {
  const built = target.rawQuery ?? buildQueryString(target.query ?? []);
  const parsed = new URL(`${target.baseUrl}${target.path}${built === '' ? '' : `?${built}`}`);
  const queryString = parsed.search.replace(/^\?/, '');
  const relative = `${target.path}${queryString === '' ? '' : `?${queryString}`}`;
  return {
    href: parsed.href,
    url: `${target.baseUrl}${relative}`,
    target: relative,
    queryString,
    authorization: authorize === null ? undefined : authorize(queryString),
  };
}
