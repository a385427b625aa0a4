import {
  authorizationHeader,
  type Clock,
  monotonicClock,
  Pacer,
  signRequest,
} from '@tagtrack/core';
import type { Profile } from './profile.ts';

/** A credential the suite signs requests with (decisions §1). */
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
  readonly credential: string | null;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly body: string;
  /** Wall time of the request in milliseconds. */
  readonly durationMs: number;
}

/** What to send. `query` pairs are sent (and signed) in the given order (decisions §1). */
export interface RequestSpec {
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  readonly path: string;
  readonly query?: readonly (readonly [string, string])[];
  /**
   * The query string to send verbatim instead of `query` (no leading `?`; a `+` or `%2b`
   * stays as written), signed as sent: for probes of the signed forms (decisions §1). The
   * WHATWG URL serializer still escapes characters a URL cannot hold (space, `"`, `<`…).
   */
  readonly rawQuery?: string;
  /** Signs with this credential; `null` sends no Authorization header. */
  readonly credential: Credential | null;
  /** Extra headers; an `authorization` here replaces the signed one. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Reuse an identical earlier request's exchange (default true for GET/HEAD). */
  readonly cache?: boolean;
  /** Bypass the pacing of the configured rate (rate-limit probe only). */
  readonly unpaced?: boolean;
}

/** The base URL could not be reached at all (DNS, refused, reset, timeout). */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  readonly code = 'connection_failed' as const;
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(message);
  }
}

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  readonly baseUrl: string;
  readonly auth: Profile['auth'];
  readonly fetch?: FetchLike | undefined;
  /** Per-request timeout in milliseconds. */
  readonly timeoutMs: number;
  /** Requests per second to pace to; `undefined` for no pacing. */
  readonly ratePerSecond?: number | undefined;
  /** Clock of the pacing; default `performance.now()` and `setTimeout` (tests pass a fake). */
  readonly clock?: Clock | undefined;
  /** Called after every exchange sent over the wire (not cache hits). */
  readonly onExchange?: ((exchange: Exchange) => void) | undefined;
}

/**
 * The suite's only way to talk to an implementation: signs requests (decisions §1) and paces
 * them to a rate with core's transport steps (`signRequest`, `Pacer`, shared with the client),
 * applies a timeout, caches identical GET/HEAD requests within a run (the
 * relation checks reuse responses), and records every exchange for the report.
 */
export class HttpClient {
  readonly baseUrl: string;
  readonly exchanges: Exchange[] = [];
  requestCount = 0;
  cacheHits = 0;
  private readonly cache = new Map<string, Promise<Exchange>>();
  private readonly fetchFn: FetchLike;
  private readonly pacer: Pacer;

  constructor(private readonly options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchFn = options.fetch ?? ((r) => fetch(r));
    this.pacer = Pacer.perSecond(options.ratePerSecond, options.clock ?? monotonicClock);
  }

  /** The Authorization header value for `credential` over `queryString` (no leading `?`). */
  authorization(credential: Credential, queryString: string): string {
    return this.options.auth === 'bearer'
      ? `Bearer ${credential.accessKey}`
      : authorizationHeader(credential.authId, credential.accessKey, queryString);
  }

  /** Sends (or reuses) a request; resolves its {@link Exchange}. Throws {@link ConnectionError}. */
  request(spec: RequestSpec): Promise<Exchange> {
    const method = spec.method ?? 'GET';
    // signs exactly the query string the URL serializer will send (core's signRequest; a
    // `rawQuery` goes out and is signed verbatim)
    const credential = spec.credential;
    const { target, authorization } = signRequest(
      { baseUrl: this.baseUrl, path: spec.path, query: spec.query, rawQuery: spec.rawQuery },
      credential === null ? null : (qs) => this.authorization(credential, qs),
    );
    const headers: Record<string, string> = {};
    if (authorization !== undefined) headers.authorization = authorization;
    for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k.toLowerCase()] = v;
    const cacheable = (spec.cache ?? true) && (method === 'GET' || method === 'HEAD');
    const key = `${method} ${target} ${headers.authorization ?? '-'} ${JSON.stringify(spec.headers ?? {})}`;
    if (cacheable) {
      const hit = this.cache.get(key);
      if (hit !== undefined) {
        this.cacheHits++;
        return hit;
      }
    }
    const promise = this.send(
      method,
      target,
      headers,
      spec.credential?.label ?? null,
      spec.unpaced,
    );
    if (cacheable) {
      this.cache.set(key, promise);
      promise.catch(() => this.cache.delete(key));
    }
    return promise;
  }

  /** A `curl` command reproducing `exchange`, with its signed header (or a redaction). */
  curl(exchange: Exchange, redact = false): string {
    const parts = ['curl', '-sS', '-i'];
    if (exchange.method === 'HEAD') parts.push('-I');
    else if (exchange.method !== 'GET') parts.push('-X', exchange.method);
    for (const [k, v] of Object.entries(exchange.requestHeaders)) {
      const value = redact && k === 'authorization' ? '<redacted>' : v;
      parts.push('-H', shellQuote(`${k}: ${value}`));
    }
    parts.push(shellQuote(exchange.url));
    return parts.join(' ');
  }

  private async pace(unpaced: boolean | undefined): Promise<void> {
    if (!unpaced) await this.pacer.acquire();
  }

  private async send(
    method: string,
    target: string,
    headers: Record<string, string>,
    credential: string | null,
    unpaced: boolean | undefined,
  ): Promise<Exchange> {
    await this.pace(unpaced);
    const url = `${this.baseUrl}${target}`;
    const started = performance.now();
    this.requestCount++;
    let response: Response | undefined;
    let body = '';
    for (let attempt = 0; response === undefined; attempt++) {
      try {
        response = await this.fetchFn(
          new Request(url, {
            method,
            headers,
            signal: AbortSignal.timeout(this.options.timeoutMs),
          }),
        );
        body = await response.text();
      } catch (e) {
        response = undefined;
        // keep-alive or not is free (decisions §7 Revision 2): a reused connection the server
        // closed as idle just as the request went out is retried once (GET and HEAD only)
        if (attempt === 0 && (method === 'GET' || method === 'HEAD') && isConnectionReset(e))
          continue;
        throw new ConnectionError(url, `cannot reach ${url}: ${describeFetchError(e)}`);
      }
    }
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((v, k) => {
      responseHeaders[k.toLowerCase()] = v;
    });
    const exchange: Exchange = {
      id: this.exchanges.length + 1,
      method,
      url,
      target,
      credential,
      requestHeaders: headers,
      status: response.status,
      responseHeaders,
      body,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    };
    this.exchanges.push(exchange);
    this.options.onExchange?.(exchange);
    return exchange;
  }
}

/** Whether a fetch failed because the connection was reset or closed under it. */
function isConnectionReset(e: unknown): boolean {
  const code = (e as { cause?: { code?: string } })?.cause?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

function describeFetchError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (e.name === 'TimeoutError') return 'request timed out';
  const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined)
    return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  if (cause?.message !== undefined) return `${e.message} (${cause.message})`;
  return e.message;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
