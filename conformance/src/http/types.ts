/**
 * The HTTP layer's shared types: what a request is, what came back, what signs it and what
 * sends it. A leaf: imports nothing of the suite but the retry step's types (retry.ts, itself a
 * leaf).
 */

import type { RetriedTry } from './retry.ts';

/** A credential the suite signs requests with (spec §3). */
export interface Credential {
  readonly label: string;
  readonly authId: string;
  readonly accessKey: string;
}

/** A function with the shape of WHATWG `fetch` taking a `Request` (global fetch or `server.fetch`). */
export type FetchLike = (request: Request) => Promise<Response>;

/** One recorded HTTP exchange: what was sent and what came back (body as text). */
export interface Exchange {
  readonly id: number;
  readonly method: string;
  /** The full URL as sent. */
  readonly url: string;
  /** Path and query relative to the base URL, e.g. `/teams/tags?isOpened=true`. */
  readonly target: string;
  /** Label of the credential that signed the request; `null` when the client signed none. */
  readonly credential: string | null;
  /**
   * Headers as sent, except the Authorization value: `<credential LABEL>` when the client
   * signed it, else the probe's header with every secret in it replaced (see
   * {@link SecretRedactor}). An exchange never holds an access key or a signature.
   */
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  /**
   * The body as UTF-8 text. The exchange a request resolves holds it whole (at most
   * `maxBodyBytes`); the copy kept in {@link HttpClient.exchanges} for reports holds its
   * first {@link KEPT_BODY_CHARS} characters (see `bodyBytes`), and its body and response
   * headers hold no secret a server echoed back (`SecretRedactor.redactEchoes`).
   */
  readonly body: string;
  /** Size of the whole body in bytes (as received, before any truncation). */
  readonly bodyBytes: number;
  /** Wall time of the request in milliseconds. */
  readonly durationMs: number;
  /** When the request went out: ISO 8601 in UTC (HAR's `startedDateTime`). */
  readonly startedAt?: string | undefined;
  /**
   * The tries that failed on the transport before this answer (a timeout, a reset
   * connection, a 502/503/504; see retry.ts), in order; absent when the first try was
   * answered. Only this answer was compared.
   */
  readonly retries?: readonly RetriedTry[] | undefined;
}

/** What to send. `query` pairs are sent (and signed) in the given order (spec §3). */
export interface RequestSpec {
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  readonly path: string;
  readonly query?: readonly (readonly [string, string])[];
  /**
   * The query string to send verbatim instead of `query` (no leading `?`; a `+` or `%2b`
   * stays as written), signed as sent: for probes of the signed forms (spec §3). The
   * WHATWG URL serializer still escapes characters a URL cannot hold (space, `"`, `<`…).
   */
  readonly rawQuery?: string;
  /** Signs with this credential; `null` sends no Authorization header. */
  readonly credential: Credential | null;
  /** Extra headers; an `authorization` here replaces the signed one. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Reuse an identical earlier request's exchange (default true for GET/HEAD); `'read'`:
   * the same, but the answer is kept compressed at once, not whole (what is kept elsewhere,
   * as a long list's pages by its walk).
   */
  readonly cache?: boolean | 'read';
  /**
   * A read made again to rebuild what a check asked for before in the cache epoch (a walk
   * the walk cache let go): an answer served from the cache is not counted as a cache hit,
   * so that the counts do not depend on when the walk went.
   */
  readonly rebuild?: boolean;
  /** Bypass the pacing of the configured rate (rate-limit probe only). */
  readonly unpaced?: boolean;
}

/** A request answered only after retries (a check's `retried`). */
export interface RetriedRequest {
  /** The exchange of the answer that was compared (results.json `exchanges`). */
  readonly exchangeId: number;
  readonly method: string;
  readonly target: string;
  /** Tries made, the answered one included (>= 2). */
  readonly tries: number;
  /** What went wrong with each failed try, in order (`request timed out`, `answered 503`…). */
  readonly causes: readonly string[];
}
