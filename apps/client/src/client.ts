import {
  type AccountType,
  authorizationHeader,
  buildPath,
  buildQueryString,
  type CalendarDate,
  type Click,
  type ClickGroup,
  type Contact,
  type DailyCounts,
  ENDPOINTS,
  type Endpoint,
  type EndpointId,
  ErrorBody,
  envelopeSchema,
  type Open,
  type OpenGroup,
  type PathParamName,
  REASON_PHRASES,
  type Rtn,
  type StatsSummary,
  type Tag,
  type TeamMember,
} from '@tagtrack/core';
import * as z from 'zod';
import {
  AbortError,
  ApiError,
  formatIssuePath,
  InvalidArgumentError,
  NetworkError,
  ResponseValidationError,
  TimeoutError,
} from './errors.ts';
import { DEFAULT_MAX_PAGES, type ListPage, noContentPage, paginatePages } from './paginate.ts';

/**
 * The typed SDK of the Tag Tracking Reporting API, reference profile `tagtrack/v1`
 * (docs/spec.md). Pure web-platform code (global `fetch`, `AbortController`, `URL`): no
 * Node-only imports, so it runs in Node 20+, Deno, Bun and browsers.
 */

/** Time source and sleeper; inject a fake one to test pacing without real waits. */
export interface Clock {
  /** Milliseconds since an arbitrary origin (monotonic enough for pacing). */
  now(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
}

/** The real clock: `Date.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Bounds of the automatic retries. */
export interface RetryOptions {
  /** Retries after a 429 (waiting per `Retry-After` / `X-Rate-Limit-Reset`); default 3. */
  readonly rateLimited?: number;
  /** Retries of a GET/HEAD that got no response (network error); default 2. */
  readonly network?: number;
  /** First network-retry delay in ms, doubled on each retry; default 250. */
  readonly backoffMs?: number;
  /** Longest wait honoured for one 429, in ms; default 60,000. */
  readonly maxWaitMs?: number;
}

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** Base URL of the API, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  readonly baseUrl: string;
  /** The authentication identifier (decisions §1). */
  readonly authId: string;
  /** The access key, the HMAC-SHA1 key of the signature (decisions §1). */
  readonly accessKey: string;
  /**
   * Requests per second the client paces itself to (decisions §6). Default: 1 (the original
   * service's limit) for a remote host, none for `localhost`, `127.0.0.1` and `::1`.
   * `0` or `Infinity` turns pacing off.
   */
  readonly rateLimit?: number | undefined;
  /** Time limit of one attempt (response headers and body), in ms; default 30,000. */
  readonly timeoutMs?: number | undefined;
  /** The `fetch` to use; default the global `fetch`. */
  readonly fetch?: typeof fetch | undefined;
  /** Validate JSON responses against the endpoint's schema; default `true`. */
  readonly validate?: boolean | undefined;
  /** Clock of pacing and retry waits (not of timeouts); default {@link systemClock}. */
  readonly clock?: Clock | undefined;
  readonly retries?: RetryOptions | undefined;
  /**
   * Most pages one `.all()`/`.pages()` walk fetches before it throws `PaginationError`
   * `page_cap` (a list that never ends); default 100,000. Per walk: {@link WalkOptions}.
   */
  readonly maxPages?: number | undefined;
}

/** Per-call options shared by every method. */
export interface BaseCallOptions {
  /** Aborts the call (then {@link AbortError} is thrown). */
  readonly signal?: AbortSignal | undefined;
  /** Overrides the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number | undefined;
}
/** Call options of a JSON call (the default `rtn`). */
export interface JsonCallOptions extends BaseCallOptions {
  readonly rtn?: 'json' | undefined;
}
/** Call options asking for the `text` (TSV) or `html` rendering (decisions §7): a string. */
export interface FormatCallOptions extends BaseCallOptions {
  readonly rtn: 'text' | 'html';
}
/** Call options with any `rtn`. */
export interface CallOptions extends BaseCallOptions {
  readonly rtn?: Rtn | undefined;
}
/** Options of a page walk (`.all()`, `.pages()`). */
export interface WalkOptions extends BaseCallOptions {
  /** Overrides the client's `maxPages` for this walk. */
  readonly maxPages?: number | undefined;
}

/**
 * The parameters every endpoint takes besides `rtn` (core's `COMMON_PARAMS`; decisions §3
 * and its Revision 2). `total` and `next` are accepted and ignored by the server; the
 * original Node client sends both on every call. They are sent as given (on every page of a
 * walk too) and signed like every other parameter.
 */
export interface CommonQuery {
  /** Offset of the first record (decisions §3); default 0; ignored where nothing pages. */
  readonly cursor?: number | undefined;
  /** Ignored by the server, any value (empty included); sent as given. */
  readonly total?: string | number | undefined;
  /** Ignored by the server, any value (empty included); sent as given. */
  readonly next?: string | number | undefined;
}
/** Query of endpoints that page but take no other parameter. */
export type PageQuery = CommonQuery;
/** Query of the member lists (endpoints 1, 5). */
export interface MemberQuery extends PageQuery {
  readonly type?: AccountType | undefined;
}
/** A window of whole UTC days, both bounds inclusive (decisions §4). */
export interface WindowQuery extends PageQuery {
  readonly start?: CalendarDate | undefined;
  readonly end?: CalendarDate | undefined;
}
/** Query of the tag lists (endpoints 2, 4): window and the four filters (a conjunction). */
export interface TagListQuery extends WindowQuery {
  readonly isClicked?: boolean | undefined;
  readonly isUnclicked?: boolean | undefined;
  readonly isOpened?: boolean | undefined;
  readonly isUnopened?: boolean | undefined;
}
/** Query of member statistics (endpoint 8). */
export interface MemberStatsQuery extends WindowQuery {
  readonly aggregateData?: boolean | undefined;
}
/** Query of team and group statistics (endpoints 6, 7, 13). */
export interface StatsQuery extends MemberStatsQuery {
  readonly type?: AccountType | undefined;
}
/** Query of the daily counts (endpoint 14): `date` is required. */
export interface DailyQuery extends CommonQuery {
  readonly date: CalendarDate;
}
/** Query of single-record endpoints without their own parameters (endpoints 3, 16). */
export type SingleQuery = CommonQuery;
/** @deprecated Use {@link SingleQuery}: single-record endpoints take the common parameters. */
export type NoQuery = SingleQuery;

/**
 * A list endpoint's method. Called directly it fetches one page (`{ data, paging }`) at
 * `query.cursor`; with `{ rtn: 'text' | 'html' }` it returns the body as a string. A 204 No
 * Content (paging end `no-content`, decisions §3 Revision 2) is an empty page: `{ data: [],
 * paging }` as described by `noContentPage`, or `''` for text/html.
 * `.all(...)` yields every record from `query.cursor` on, page by page in constant memory;
 * `.pages(...)` yields the pages (`paginatePages`: ends in both paging ends, never loops).
 */
export interface ListMethod<A extends unknown[], R> {
  (...args: [...A, options?: JsonCallOptions]): Promise<ListPage<R>>;
  (...args: [...A, options: FormatCallOptions]): Promise<string>;
  (...args: [...A, options: CallOptions]): Promise<ListPage<R> | string>;
  all(...args: [...A, options?: WalkOptions]): AsyncGenerator<R, void, undefined>;
  pages(...args: [...A, options?: WalkOptions]): AsyncGenerator<ListPage<R>, void, undefined>;
  readonly endpoint: Endpoint;
}

/** A single-record endpoint's method: `{ data }`, or a string for `rtn` text/html. */
export interface SingleMethod<A extends unknown[], R> {
  (...args: [...A, options?: JsonCallOptions]): Promise<{ data: R }>;
  (...args: [...A, options: FormatCallOptions]): Promise<string>;
  (...args: [...A, options: CallOptions]): Promise<{ data: R } | string>;
  readonly endpoint: Endpoint;
}

/** A raw response: status, headers and body text. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  readonly url: string;
  readonly method: string;
}

/** Options of {@link TagtrackClient.raw}. */
export interface RawOptions extends BaseCallOptions {
  readonly method?: 'GET' | 'HEAD' | undefined;
  /** Apply the 429 and network retries; default `true`. */
  readonly retry?: boolean | undefined;
}

/** A request by endpoint id, for generic callers (the CLI, the conformance suite). */
export interface EndpointCall {
  readonly pathParams?: Partial<Record<PathParamName, string>> | undefined;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>> | undefined;
}

/**
 * The client: one method per endpoint of the ENDPOINTS catalogue, named after its id
 * (`teams.memberTags` is `client.teams.memberTags`), path parameters first in path order,
 * then the query object, then call options.
 */
export interface TagtrackClient {
  readonly teams: {
    /** Endpoint 1: team members visible to the caller. */
    readonly list: ListMethod<[query?: MemberQuery], TeamMember>;
    /** Endpoint 2: all visible tags, newest first. */
    readonly tags: ListMethod<[query?: TagListQuery], Tag>;
    /** Endpoint 3: one member. */
    readonly member: SingleMethod<[memberID: string, query?: SingleQuery], TeamMember>;
    /** Endpoint 4: the tags of one member. */
    readonly memberTags: ListMethod<[memberID: string, query?: TagListQuery], Tag>;
    /** Endpoint 5: members of a group given by id or name. */
    readonly group: ListMethod<[group: string, query?: MemberQuery], TeamMember>;
  };
  readonly stats: {
    /** Endpoints 6/13 (`/stats`): team statistics per day or aggregated. */
    readonly team: ListMethod<[query?: StatsQuery], StatsSummary>;
    /** Endpoint 6 by the path of the source's example, `/teams/stats`. */
    readonly teamAlias: ListMethod<[query?: StatsQuery], StatsSummary>;
    /** Endpoint 7: statistics of a group given by id or name. */
    readonly group: ListMethod<[group: string, query?: StatsQuery], StatsSummary>;
    /** Endpoint 8: statistics of a member. */
    readonly member: ListMethod<[memberID: string, query?: MemberStatsQuery], StatsSummary>;
  };
  readonly clicks: {
    /** Endpoint 9: clicks in the window grouped by tag. */
    readonly list: ListMethod<[query?: WindowQuery], ClickGroup>;
    /** Endpoint 10: clicks of one tag. */
    readonly tag: ListMethod<[tagID: string, query?: PageQuery], Click>;
  };
  readonly opens: {
    /** Endpoint 11: opens in the window grouped by tag. */
    readonly list: ListMethod<[query?: WindowQuery], OpenGroup>;
    /** Endpoint 12: opens of one tag. */
    readonly tag: ListMethod<[tagID: string, query?: PageQuery], Open>;
  };
  readonly tags: {
    /** Endpoint 14: unique opens and clicks of a tag on one UTC day. */
    readonly daily: SingleMethod<[tagID: string, query: DailyQuery], DailyCounts>;
  };
  readonly contacts: {
    /** Endpoint 15: contacts of visible tags, by email. */
    readonly list: ListMethod<[query?: PageQuery], Contact>;
    /** Endpoint 16: one contact. */
    readonly get: SingleMethod<[contactID: string, query?: SingleQuery], Contact>;
    /** Endpoint 17: contacts of one tag. */
    readonly tag: ListMethod<[tagID: string, query?: PageQuery], Contact>;
  };
  /**
   * Calls an endpoint by catalogue id: `{ data, paging }`, `{ data }`, or a string for
   * `rtn` text/html. Same errors as the typed methods.
   */
  request(id: EndpointId, call?: EndpointCall, options?: CallOptions): Promise<unknown>;
  /** Walks the pages of a list endpoint by id (see {@link paginatePages}). */
  pages(
    id: EndpointId,
    call?: EndpointCall,
    options?: WalkOptions,
  ): AsyncGenerator<ListPage<unknown>, void, undefined>;
  /**
   * A signed, paced request to any path below the base URL with query parameters in the
   * given order (a record: insertion order), percent-encoded like `buildQueryString`. Never
   * throws on a non-2xx status.
   */
  raw(
    path: string,
    query?: Iterable<readonly [string, string]> | Readonly<Record<string, string>>,
    options?: RawOptions,
  ): Promise<RawResponse>;
  /** The effective pacing, in requests per second (0: none). */
  readonly rateLimit: number;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Default pacing for a base URL (decisions §6): 1 request/s, none on loopback hosts. */
export function defaultRateLimit(baseUrl: string): number {
  return LOOPBACK_HOSTS.has(new URL(baseUrl).hostname) ? 0 : 1;
}

/**
 * The query parameters of a call as `[name, value]` pairs, in the documented, stable order
 * that is signed (decisions §1): the order of the endpoint's `query` list in the ENDPOINTS
 * catalogue (its own parameters as the source document lists them, then `rtn`, `cursor`,
 * `total`, `next`). Absent values are left out; `rtn` is sent only when not `json` (it goes
 * in the call options, not the query); booleans as `true`/`false`, numbers in decimal,
 * strings as given (`''` included). Throws {@link InvalidArgumentError} for a parameter the
 * endpoint does not take.
 */
export function queryPairs(
  endpoint: Endpoint,
  query: Readonly<Record<string, unknown>> = {},
  rtn: Rtn = 'json',
): [string, string][] {
  for (const name of Object.keys(query)) {
    if (!endpoint.query.includes(name as never) || name === 'rtn') {
      const allowed = endpoint.query.filter((q) => q !== 'rtn');
      throw new InvalidArgumentError(
        `${endpoint.id} does not take the parameter '${name}'; allowed: ${allowed.join(', ')} (rtn goes in the call options)`,
      );
    }
  }
  const pairs: [string, string][] = [];
  for (const name of endpoint.query) {
    const value = name === 'rtn' ? (rtn === 'json' ? undefined : rtn) : query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new InvalidArgumentError(
        `${endpoint.id}: parameter '${name}' must be a string, number or boolean`,
      );
    }
    pairs.push([name, String(value)]);
  }
  for (const name of endpoint.requiredQuery) {
    if (!pairs.some(([k]) => k === name)) {
      throw new InvalidArgumentError(`${endpoint.id} requires the parameter '${name}'`);
    }
  }
  return pairs;
}

/** Reserves request slots at a fixed interval; concurrent callers queue in call order. */
class Pacer {
  #nextAt = Number.NEGATIVE_INFINITY;
  constructor(
    readonly intervalMs: number,
    readonly clock: Clock,
  ) {}
  /** Waits until this request may go out. */
  async acquire(signal: AbortSignal | undefined, onAbort: () => Error): Promise<void> {
    const now = this.clock.now();
    const at = Math.max(now, this.#nextAt);
    if (this.intervalMs > 0) this.#nextAt = at + this.intervalMs;
    if (at > now) await sleep(this.clock, at - now, signal, onAbort);
  }
  /** Holds every request back until `at` (after a 429). */
  holdUntil(at: number): void {
    this.#nextAt = Math.max(this.#nextAt, at);
  }
}

function sleep(
  clock: Clock,
  ms: number,
  signal: AbortSignal | undefined,
  onAbort: () => Error,
): Promise<void> {
  if (signal === undefined) return clock.sleep(ms);
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<void>((resolve, reject) => {
    const abort = () => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    clock.sleep(ms).then(
      () => {
        signal.removeEventListener('abort', abort);
        resolve();
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(e);
      },
    );
  });
}

/**
 * How long to wait after a 429, in ms (decisions §6): `Retry-After` (seconds or an HTTP
 * date), else `X-Rate-Limit-Reset` (epoch seconds), else `fallbackMs`. Never negative.
 */
export function retryDelayMs(headers: Headers, nowMs: number, fallbackMs: number): number {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter !== undefined && retryAfter !== '') {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - Date.now());
  }
  const reset = headers.get('x-rate-limit-reset')?.trim();
  if (reset !== undefined && /^\d+(\.\d+)?$/.test(reset)) {
    return Math.max(0, Number(reset) * 1000 - nowMs);
  }
  return fallbackMs;
}

interface SendOptions extends BaseCallOptions {
  readonly method: 'GET' | 'HEAD';
  readonly retry: boolean;
}

function apiErrorOf(res: RawResponse): ApiError {
  let parsed: ErrorBody | undefined;
  try {
    const r = ErrorBody.safeParse(JSON.parse(res.body));
    if (r.success) parsed = r.data;
  } catch {
    // not JSON: described from the status below
  }
  const reason = REASON_PHRASES[res.status] ?? 'Error';
  const text = res.body.trim().replace(/\s+/g, ' ');
  const message =
    parsed?.message ?? (text === '' ? reason : text.length > 200 ? `${text.slice(0, 200)}…` : text);
  return new ApiError(
    res.status,
    parsed?.error ?? reason,
    message,
    res.url,
    res.method,
    res.headers,
  );
}

async function* flatten<T>(pages: AsyncIterable<ListPage<T>>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page.data;
}

const ENDPOINT_BY_ID = new Map(ENDPOINTS.map((e) => [e.id, e]));

/**
 * Creates a client (decisions §1 signing, §3 paging, §5 errors, §6 pacing). Every request
 * is a GET signed over its query string, paced to `rateLimit`, retried after a 429 and on
 * network errors (bounded). Errors: {@link ApiError} (non-2xx), {@link TimeoutError},
 * {@link AbortError}, {@link NetworkError}, {@link ResponseValidationError} (JSON body not of
 * the endpoint's schema, unless `validate: false`), {@link InvalidArgumentError}.
 */
export function createClient(options: ClientOptions): TagtrackClient {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new InvalidArgumentError(`baseUrl is not a URL: ${JSON.stringify(options.baseUrl)}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new InvalidArgumentError(`baseUrl must be http or https: ${options.baseUrl}`);
  }
  if (!options.authId || !options.accessKey) {
    throw new InvalidArgumentError('authId and accessKey are required');
  }
  const baseUrl = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? systemClock;
  const validate = options.validate ?? true;
  const defaultTimeout = options.timeoutMs ?? 30_000;
  const rate = options.rateLimit ?? defaultRateLimit(baseUrl);
  const rateLimit = rate > 0 && Number.isFinite(rate) ? rate : 0;
  const pacer = new Pacer(rateLimit > 0 ? 1000 / rateLimit : 0, clock);
  const maxRateLimited = options.retries?.rateLimited ?? 3;
  const maxNetwork = options.retries?.network ?? 2;
  const backoffMs = options.retries?.backoffMs ?? 250;
  const maxWaitMs = options.retries?.maxWaitMs ?? 60_000;
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;

  async function attempt(
    url: string,
    headers: Record<string, string>,
    opts: SendOptions,
  ): Promise<RawResponse> {
    const timeoutMs = opts.timeoutMs ?? defaultTimeout;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onUserAbort = () => controller.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', onUserAbort, { once: true });
    try {
      const res = await fetchImpl(url, { method: opts.method, headers, signal: controller.signal });
      const body = opts.method === 'HEAD' ? '' : await res.text();
      return { status: res.status, headers: res.headers, body, url, method: opts.method };
    } catch (e) {
      if (opts.signal?.aborted) throw new AbortError(url, opts.method, opts.signal.reason);
      if (timedOut) throw new TimeoutError(timeoutMs, url, opts.method);
      throw new NetworkError(url, opts.method, 1, { cause: e });
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onUserAbort);
    }
  }

  async function send(
    path: string,
    pairs: Iterable<readonly [string, string]>,
    opts: SendOptions,
  ): Promise<RawResponse> {
    // Sign exactly the query string that goes out: fetch parses the URL (WHATWG), which
    // percent-encodes what encodeURIComponent leaves alone in a query (e.g. `'`), so the
    // signed string is the parsed URL's query, not the built one (decisions §1).
    const built = buildQueryString(pairs);
    const target = new URL(`${baseUrl}${path}${built === '' ? '' : `?${built}`}`);
    const qs = target.search.replace(/^\?/, '');
    const url = target.href;
    const headers = { authorization: authorizationHeader(options.authId, options.accessKey, qs) };
    const onAbort = () => new AbortError(url, opts.method, opts.signal?.reason);
    let rateLimitedRetries = 0;
    let networkRetries = 0;
    for (;;) {
      if (opts.signal?.aborted) throw onAbort();
      await pacer.acquire(opts.signal, onAbort);
      let res: RawResponse;
      try {
        res = await attempt(url, headers, opts);
      } catch (e) {
        if (e instanceof NetworkError && opts.retry && networkRetries < maxNetwork) {
          await sleep(clock, backoffMs * 2 ** networkRetries, opts.signal, onAbort);
          networkRetries++;
          continue;
        }
        if (e instanceof NetworkError) {
          throw new NetworkError(url, opts.method, networkRetries + 1, { cause: e.cause });
        }
        throw e;
      }
      if (res.status === 429 && opts.retry && rateLimitedRetries < maxRateLimited) {
        const fallback = Math.max(pacer.intervalMs, 1000);
        const wait = Math.min(retryDelayMs(res.headers, clock.now(), fallback), maxWaitMs);
        pacer.holdUntil(clock.now() + wait);
        rateLimitedRetries++;
        continue;
      }
      return res;
    }
  }

  async function request(
    endpoint: Endpoint,
    call: EndpointCall,
    callOptions: CallOptions = {},
  ): Promise<unknown> {
    const rtn = callOptions.rtn ?? 'json';
    const pairs = queryPairs(endpoint, call.query, rtn);
    let path: string;
    try {
      path = buildPath(endpoint, call.pathParams);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
    const res = await send(path, pairs, { ...callOptions, method: 'GET', retry: true });
    if (res.status < 200 || res.status > 299) throw apiErrorOf(res);
    if (res.status === 204 && endpoint.response === 'list') {
      // paging end `no-content` (decisions §3 Revision 2): a page without records
      return rtn === 'json' ? noContentPage(res.headers, Number(call.query?.cursor ?? 0)) : '';
    }
    if (rtn !== 'json') return res.body;
    let json: unknown;
    try {
      json = JSON.parse(res.body);
    } catch (e) {
      throw new ResponseValidationError(
        '',
        `response of ${endpoint.id} is not JSON: ${(e as Error).message}`,
        res.url,
      );
    }
    if (validate) {
      const parsed = envelopeSchema(endpoint).safeParse(json);
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const path = formatIssuePath(first?.path ?? []);
        throw new ResponseValidationError(
          path,
          `response of ${endpoint.id} does not match its schema at ${path === '' ? '(root)' : path}:\n${z.prettifyError(parsed.error)}`,
          res.url,
          parsed.error.issues,
        );
      }
    }
    return json;
  }

  function pagesOf(
    endpoint: Endpoint,
    call: EndpointCall,
    walkOptions: WalkOptions = {},
  ): AsyncGenerator<ListPage<unknown>, void, undefined> {
    if (endpoint.response !== 'list') {
      throw new InvalidArgumentError(`${endpoint.id} is not a list endpoint`);
    }
    const given = call.query?.cursor;
    const { maxPages: walkMax, ...callOptions } = walkOptions;
    return paginatePages(
      (cursor) => {
        // the first page is requested as given (no `cursor` when none was given)
        const sendCursor = given === undefined && cursor === 0 ? undefined : cursor;
        return request(
          endpoint,
          { ...call, query: { ...call.query, cursor: sendCursor } },
          { ...callOptions, rtn: 'json' },
        ) as Promise<ListPage<unknown>>;
      },
      { cursor: Number(given ?? 0), maxPages: walkMax ?? maxPages },
    );
  }

  /** Splits `(...pathParams, query?, options?)` of a typed method. */
  function splitArgs(
    endpoint: Endpoint,
    args: unknown[],
  ): { call: EndpointCall; options: CallOptions | undefined } {
    const n = endpoint.pathParams.length;
    const pathParams: Partial<Record<PathParamName, string>> = {};
    endpoint.pathParams.forEach((name, i) => {
      const v = args[i];
      if (typeof v !== 'string' || v === '') {
        throw new InvalidArgumentError(
          `${endpoint.id}: argument ${i + 1} (${name}) must be a non-empty string`,
        );
      }
      pathParams[name] = v;
    });
    const query = args[n] as EndpointCall['query'];
    const callOptions = args[n + 1] as CallOptions | undefined;
    return { call: { pathParams, query }, options: callOptions };
  }

  function methodOf(endpoint: Endpoint): unknown {
    const method = async (...args: unknown[]) => {
      const { call, options: o } = splitArgs(endpoint, args);
      return request(endpoint, call, o);
    };
    const extras: Record<string, unknown> = { endpoint };
    if (endpoint.response === 'list') {
      extras.pages = (...args: unknown[]) => {
        const { call, options: o } = splitArgs(endpoint, args);
        return pagesOf(endpoint, call, o);
      };
      extras.all = (...args: unknown[]) => {
        const { call, options: o } = splitArgs(endpoint, args);
        return flatten(pagesOf(endpoint, call, o));
      };
    }
    return Object.assign(method, extras);
  }

  const namespaces: Record<string, Record<string, unknown>> = {};
  for (const endpoint of ENDPOINTS) {
    const [resource, action] = endpoint.id.split('.') as [string, string];
    namespaces[resource] ??= {};
    namespaces[resource][action] = methodOf(endpoint);
  }

  const client = {
    ...namespaces,
    rateLimit,
    request(id: EndpointId, call: EndpointCall = {}, callOptions?: CallOptions) {
      const endpoint = ENDPOINT_BY_ID.get(id);
      if (endpoint === undefined) throw new InvalidArgumentError(`unknown endpoint id '${id}'`);
      return request(endpoint, call, callOptions);
    },
    pages(id: EndpointId, call: EndpointCall = {}, callOptions?: WalkOptions) {
      const endpoint = ENDPOINT_BY_ID.get(id);
      if (endpoint === undefined) throw new InvalidArgumentError(`unknown endpoint id '${id}'`);
      return pagesOf(endpoint, call, callOptions);
    },
    raw(
      path: string,
      query: Iterable<readonly [string, string]> | Readonly<Record<string, string>> = [],
      rawOptions: RawOptions = {},
    ) {
      if (!path.startsWith('/')) {
        throw new InvalidArgumentError(`raw path must start with '/': ${path}`);
      }
      const pairs =
        Symbol.iterator in query
          ? (query as Iterable<readonly [string, string]>)
          : Object.entries(query as Record<string, string>);
      return send(path, pairs, {
        ...rawOptions,
        method: rawOptions.method ?? 'GET',
        retry: rawOptions.retry ?? true,
      });
    },
  };
  return client as unknown as TagtrackClient;
}
