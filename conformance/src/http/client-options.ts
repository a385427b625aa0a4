/**
 * The options of the suite's HTTP client (`HttpClientOptions`) and the size limits it applies
 * by default: the response-body cap, the characters of a body kept for reports, and the caps
 * of the kept bodies and of the run's request cache.
 */
import type { Clock } from '@tagtrack/core';
import type { Profile } from '../profile/profile.ts';
import type { Rerun } from './rerun.ts';
import type { TlsConnect } from './transport.ts';
import type { Credential, Exchange, FetchLike } from './types.ts';

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  readonly baseUrl: string;
  readonly auth: Profile['auth'];
  /** Whether `fetch` is the caller's own (in memory) rather than a wrapper of the global one; default: `fetch` was given. */
  readonly ownFetch?: boolean | undefined;
  readonly fetch?: FetchLike | undefined;
  /** Per-request timeout in milliseconds (of each try). */
  readonly timeoutMs: number;
  /**
   * Retries of a GET or HEAD whose transport failed (a timeout, a reset connection, a 502,
   * 503 or 504; never a 500): default {@link DEFAULT_RETRIES}; 0 sends each request once.
   */
  readonly retries?: number | undefined;
  /** Wait before the first retry in ms, doubled each time (default 250; tests pass less). */
  readonly retryBackoffMs?: number | undefined;
  /** Aborts every request in flight when it aborts (the run's stop), with its reason. */
  readonly signal?: AbortSignal | undefined;
  /** Requests per second to pace to; `undefined` for no pacing. */
  readonly ratePerSecond?: number | undefined;
  /** Clock of the pacing; default `performance.now()` and `setTimeout` (tests pass a fake). */
  readonly clock?: Clock | undefined;
  /** Called after every exchange sent over the wire (not cache hits). */
  readonly onExchange?: ((exchange: Exchange) => void) | undefined;
  /**
   * Largest response body read, in bytes (default {@link DEFAULT_MAX_BODY_BYTES}): the body
   * is streamed and reading stops past the cap (a `Content-Length` over it is refused before
   * reading), so a 200 MB or endless body never sits in memory; the request then throws a
   * {@link ConnectionError}.
   */
  readonly maxBodyBytes?: number | undefined;
  /** The run's credentials: their access keys and signed headers never appear in an artifact. */
  readonly credentials?: readonly Credential[] | undefined;
  /**
   * Extra headers sent with every request (`-H`, e.g. a gateway's key), by lower-case name;
   * a request's own `headers` win over them. Their values are secrets: an exchange shows
   * `<redacted>`, and the redactor replaces them in any text. Never `authorization`.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Where the run took its credentials, headers and TLS settings: what {@link HttpClient.reproduce} names. */
  readonly rerun?: Rerun | undefined;
  /** The TLS options `fetch` applies, for a probe that opens its own socket (see transport.ts). */
  readonly tlsConnect?: TlsConnect | undefined;
  /**
   * Bytes the answers of identical GET/HEAD requests may hold, compressed (`AnswerStore`:
   * within it every answer of the cache epoch is kept; past it the least recently used go
   * and are sent again when asked for); default the responses' share of
   * {@link DEFAULT_CACHE_BYTES}.
   */
  readonly cacheBytes?: number | undefined;
  /**
   * Bytes of the answers kept whole, ready to hand out again, as the heap holds their bodies
   * (`bodyHeapBytes` of answer-store.ts; past it the least recently used are kept compressed: CPU only,
   * never a request); default `cacheBytes` when given, else the whole answers' share of
   * {@link DEFAULT_CACHE_BYTES}.
   */
  readonly hotCacheBytes?: number | undefined;
  /**
   * A JSON page of a list of more records than this (its `paging.cursors.total`) counts
   * {@link LONG_PAGE_FACTOR} times its body's characters in the response cache: what it
   * holds, with the records parsed from it. Default: undefined (every answer counts the bytes
   * of its body, `wholeAnswerBytes` of answer-store.ts). The runner gives the run's `sampleAbove`, so the
   * canonical dataset's answers (no list that long) count as before.
   */
  readonly longListAbove?: number | undefined;
}

/**
 * What a page of a long list costs the response cache per body character: the body (two
 * bytes a character once a name holds a character past Latin-1) and the records parsed from it
 * (about one and a half times the characters).
 */
export const LONG_PAGE_FACTOR = 3;

/**
 * `paging.cursors.total` of a JSON list body, read from the end of the body without parsing
 * it (an estimate for the cache; undefined when there is none).
 */
export function pagedTotalOf(body: string): number | undefined {
  const at = body.lastIndexOf('"total"');
  if (at < 0) return undefined;
  const m = /^"total"\s*:\s*(\d+)/.exec(body.slice(at, at + 40));
  return m === null ? undefined : Number(m[1]);
}

/** Default response-body cap of the suite: 32 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Characters of a body kept in {@link HttpClient.exchanges} for reports (the rest dropped). */
export const KEPT_BODY_CHARS = 16 * 1024;

/**
 * Once the kept bodies hold this many characters, later exchanges are kept for reports as a
 * compact record ({@link COMPACT_BODY_CHARS}; a run of the canonical dataset keeps about 5 M
 * characters, so it keeps every exchange whole; a long run stays within its heap). A check's
 * log still holds their first 1,024 characters and headers while the check runs, and an
 * exchange a failure cites keeps those in the report.
 */
export const KEPT_BODIES_BUDGET = 8 * 1024 * 1024;

/** Characters of the body of a request cited by a failure past {@link KEPT_BODIES_BUDGET}. */
export const CITED_BODY_CHARS = 1024;

/**
 * Characters of the body a compact record keeps past {@link KEPT_BODIES_BUDGET}: what
 * report.html's list of exchanges previews of a body (60 characters) and what HAR then shows.
 */
export const COMPACT_BODY_CHARS = 60;

/**
 * The response headers a compact record keeps (what HAR reads into fields of their own: the
 * MIME type and the redirect); the others, and the request's, are not kept.
 */
export const COMPACT_HEADERS: readonly string[] = ['content-type', 'location'];

/** A body over this size is not kept in the run's request cache (the next identical request goes out again). */
export const CACHE_MAX_BODY_CHARS = 1024 * 1024;
