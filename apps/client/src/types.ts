import type {
  Catalogue,
  Clock,
  Endpoint,
  EndpointId,
  PathParamName,
  QueryOf,
  RecordOf,
  ResponseOf,
  Rtn,
} from '@tagtrack/core';
import type { ListPage } from './paginate.ts';

/**
 * The types of the SDK: options, and the client's methods as a mapped type over core's
 * endpoint catalogue (tRPC's `createTRPCClient` over an untyped runtime): one method per
 * catalogue id, its arguments from the path template and the query schema, its result from
 * the record schema. Nothing here lists an endpoint or a query parameter.
 */

/** Time source and sleeper (core's transport `Clock`); inject a fake one to test pacing. */
export type { Clock } from '@tagtrack/core';

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

/** Options of `createClient`. */
export interface ClientOptions {
  /** Base URL of the API, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  readonly baseUrl: string;
  /** The authentication identifier (spec §3). */
  readonly authId: string;
  /** The access key, the HMAC-SHA1 key of the signature (spec §3). */
  readonly accessKey: string;
  /**
   * Requests per second the client paces itself to (spec §7). Default: 1 (the original
   * service's limit) for a remote host, none for `localhost`, `127.0.0.1` and `::1`.
   * `0` or `Infinity` turns pacing off.
   */
  readonly rateLimit?: number | undefined;
  /** Time limit of one attempt (response headers and body), in ms; default 30,000. */
  readonly timeoutMs?: number | undefined;
  /**
   * Largest response body read, in bytes; default 32 MiB (`DEFAULT_MAX_BODY_BYTES`). The body
   * is streamed and a bigger one throws `ResponseTooLargeError` without being kept in memory.
   */
  readonly maxBodyBytes?: number | undefined;
  /** The `fetch` to use; default the global `fetch`. */
  readonly fetch?: typeof fetch | undefined;
  /** Validate JSON responses against the endpoint's schema; default `true`. */
  readonly validate?: boolean | undefined;
  /** Clock of pacing and retry waits (not of timeouts); default `systemClock`. */
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
  /** Aborts the call (then `AbortError` is thrown). */
  readonly signal?: AbortSignal | undefined;
  /** Overrides the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number | undefined;
}
/** Call options of a JSON call (the default `rtn`). */
export interface JsonCallOptions extends BaseCallOptions {
  readonly rtn?: 'json' | undefined;
}
/** Call options asking for the `text` (TSV) or `html` rendering (spec §8): a string. */
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
 * A list endpoint's method. Called directly it fetches one page (`{ data, paging }`) at
 * `query.cursor`; with `{ rtn: 'text' | 'html' }` it returns the body as a string. A 204 No
 * Content (paging end `no-content`, spec §5 Revision 2) is an empty page: `{ data: [],
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

/**
 * The query object of endpoint `Id`'s method: core's `QueryOf<Id>` without `rtn`, which goes
 * in the call options (it decides the result type). `total` and `next` are accepted and
 * ignored by the server (spec §5 Revision 2); they are sent as given, on every page of a
 * walk too, and signed like every other parameter.
 */
export type MethodQuery<Id extends EndpointId> = Omit<QueryOf<Id>, 'rtn'>;

/** @deprecated Derived now: `MethodQuery<'contacts.list'>` (the common parameters). */
export type CommonQuery = MethodQuery<'contacts.list'>;
/** @deprecated Derived now: `MethodQuery<'contacts.list'>`. */
export type PageQuery = MethodQuery<'contacts.list'>;
/** @deprecated Derived now: `MethodQuery<'contacts.get'>`. */
export type SingleQuery = MethodQuery<'contacts.get'>;
/** @deprecated Derived now: `MethodQuery<'contacts.get'>`. */
export type NoQuery = MethodQuery<'contacts.get'>;
/** @deprecated Derived now: `MethodQuery<'teams.list'>`. */
export type MemberQuery = MethodQuery<'teams.list'>;
/** @deprecated Derived now: `MethodQuery<'clicks.list'>`. */
export type WindowQuery = MethodQuery<'clicks.list'>;
/** @deprecated Derived now: `MethodQuery<'teams.tags'>`. */
export type TagListQuery = MethodQuery<'teams.tags'>;
/** @deprecated Derived now: `MethodQuery<'stats.member'>`. */
export type MemberStatsQuery = MethodQuery<'stats.member'>;
/** @deprecated Derived now: `MethodQuery<'stats.team'>`. */
export type StatsQuery = MethodQuery<'stats.team'>;
/** @deprecated Derived now: `MethodQuery<'tags.daily'>`. */
export type DailyQuery = MethodQuery<'tags.daily'>;

/**
 * The arguments of endpoint `Id`'s method before the call options: one string per path
 * placeholder in path order, then the query object (optional unless a parameter is
 * required, as `date` of `tags.daily`).
 */
export type MethodArgs<Id extends EndpointId> = [
  ...Strings<Catalogue[Id]['pathParams']>,
  ...(Record<never, never> extends MethodQuery<Id>
    ? [query?: MethodQuery<Id>]
    : [query: MethodQuery<Id>]),
];

/** One string per element of `T`. */
type Strings<T extends readonly unknown[]> = { -readonly [I in keyof T]: string };

/** The method of endpoint `Id`: a {@link ListMethod} or a {@link SingleMethod} of its record. */
export type MethodOf<Id extends EndpointId> =
  ResponseOf<Id> extends 'list'
    ? ListMethod<MethodArgs<Id>, RecordOf<Id>>
    : SingleMethod<MethodArgs<Id>, RecordOf<Id>>;

type ResourceOf<Id extends string> = Id extends `${infer R}.${string}` ? R : never;

/**
 * One namespace per resource of the catalogue ids, one method per action:
 * `teams.memberTags` is `client.teams.memberTags`.
 */
export type ResourceMethods = {
  readonly [R in ResourceOf<EndpointId>]: {
    readonly [Id in EndpointId as Id extends `${R}.${infer A}` ? A : never]: MethodOf<Id>;
  };
};

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
  /** Query values by name (strings, numbers, booleans); `undefined` leaves one out. */
  readonly query?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The untyped runtime of the client (tRPC's `createTRPCUntypedClient`, built by
 * `createRuntime`): calls any catalogue endpoint by its `Endpoint` entry with a plain query
 * object; the typed client is a mapped view over it.
 */
export interface Runtime {
  /**
   * `{ data, paging }`, `{ data }`, or a string for `rtn` text/html; the JSON answer is
   * validated against the endpoint's envelope schema unless `validate: false`.
   */
  call(endpoint: Endpoint, call: EndpointCall, options?: CallOptions): Promise<unknown>;
  /** The pages of a list endpoint from `call.query.cursor` on (see `paginatePages`). */
  pages(
    endpoint: Endpoint,
    call: EndpointCall,
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

/**
 * The client: one method per endpoint of core's catalogue, named after its id
 * (`teams.memberTags` is `client.teams.memberTags`), path parameters first in path order,
 * then the query object (typed by the endpoint's query schema), then call options; plus the
 * untyped calls by id and the runtime's `raw` request and `rateLimit`.
 */
export interface TagtrackClient extends ResourceMethods, Pick<Runtime, 'raw' | 'rateLimit'> {
  /**
   * Calls an endpoint by catalogue id: `{ data, paging }`, `{ data }`, or a string for
   * `rtn` text/html. Same errors as the typed methods.
   */
  request(id: EndpointId, call?: EndpointCall, options?: CallOptions): Promise<unknown>;
  /** Walks the pages of a list endpoint by id (see `paginatePages`). */
  pages(
    id: EndpointId,
    call?: EndpointCall,
    options?: WalkOptions,
  ): AsyncGenerator<ListPage<unknown>, void, undefined>;
}
