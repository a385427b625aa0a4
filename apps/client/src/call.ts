import {
  buildPath,
  type Endpoint,
  ErrorBody,
  envelopeSchema,
  REASON_PHRASES,
  type Rtn,
} from '@tagtrack/core';
import * as z from 'zod';
import {
  ApiError,
  formatIssuePath,
  InvalidArgumentError,
  ResponseValidationError,
} from './errors.ts';
import { DEFAULT_MAX_PAGES, type ListPage, noContentPage, paginatePages } from './paginate.ts';
import { createTransport } from './transport.ts';
import type {
  CallOptions,
  ClientOptions,
  EndpointCall,
  RawOptions,
  RawResponse,
  Runtime,
  WalkOptions,
} from './types.ts';

/**
 * The untyped runtime of the client: {@link createRuntime} (the typed client, `client.ts`, is
 * a thin mapped view over it), {@link queryPairs}, and the error of a non-2xx answer.
 */

/**
 * The query parameters of a call as `[name, value]` pairs, in the documented, stable order
 * that is signed (spec §3): the order of the endpoint's `query` list in core's catalogue
 * (the keys of its query schema: its own parameters as the source document lists them, then
 * `rtn`, `cursor`, `total`, `next`). Absent values are left out; `rtn` is sent only when not
 * `json` (it goes in the call options, not the query); booleans as `true`/`false`, numbers in
 * decimal, strings as given (`''` included). Values are not validated: the server answers a
 * bad one with 400. Throws {@link InvalidArgumentError} for a parameter the endpoint does not
 * take, a value that is not a string, number or boolean, or a missing required parameter.
 */
export function queryPairs(
  endpoint: Endpoint,
  query: Readonly<Record<string, unknown>> = {},
  rtn: Rtn = 'json',
): [string, string][] {
  for (const name of Object.keys(query)) {
    if (name === 'rtn' || !endpoint.query.some((q) => q === name)) {
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

/** The {@link ApiError} of a non-2xx response: its `ErrorBody` if it has one (spec §6). */
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

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Whether `query` is a list of pairs rather than a record. */
function isPairs(
  query: Iterable<readonly [string, string]> | Readonly<Record<string, string>>,
): query is Iterable<readonly [string, string]> {
  return Symbol.iterator in query;
}

/**
 * Creates the runtime of a client (spec §3 signing, §3 paging, §5 errors, §6 pacing).
 * Errors: {@link ApiError} (non-2xx), `TimeoutError`, `AbortError`, `NetworkError`,
 * {@link ResponseValidationError} (JSON body not of the endpoint's schema, unless
 * `validate: false`), {@link InvalidArgumentError}.
 */
export function createRuntime(options: ClientOptions): Runtime {
  const transport = createTransport(options);
  const validate = options.validate ?? true;
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;

  async function call(
    endpoint: Endpoint,
    request: EndpointCall,
    callOptions: CallOptions = {},
  ): Promise<unknown> {
    const rtn = callOptions.rtn ?? 'json';
    const pairs = queryPairs(endpoint, request.query, rtn);
    let path: string;
    try {
      path = buildPath(endpoint, request.pathParams);
    } catch (e) {
      throw new InvalidArgumentError(messageOf(e));
    }
    const res = await transport.send(path, pairs, { ...callOptions, method: 'GET', retry: true });
    if (res.status < 200 || res.status > 299) throw apiErrorOf(res);
    if (res.status === 204 && endpoint.response === 'list') {
      // paging end `no-content` (spec §5 Revision 2): a page without records
      return rtn === 'json' ? noContentPage(res.headers, Number(request.query?.cursor ?? 0)) : '';
    }
    if (rtn !== 'json') return res.body;
    let json: unknown;
    try {
      json = JSON.parse(res.body);
    } catch (e) {
      // the cause stays in the message: what JSON.parse said and how the body starts
      const start = res.body.trim().replace(/\s+/g, ' ');
      throw new ResponseValidationError(
        '',
        `response of ${endpoint.id} is not JSON: ${messageOf(e)}; the body starts ${JSON.stringify(start.length > 80 ? `${start.slice(0, 80)}…` : start)}`,
        res.url,
      );
    }
    if (validate) {
      const parsed = envelopeSchema(endpoint).safeParse(json);
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const at = formatIssuePath(first?.path ?? []);
        throw new ResponseValidationError(
          at,
          `response of ${endpoint.id} does not match its schema at ${at === '' ? '(root)' : at}:\n${z.prettifyError(parsed.error)}`,
          res.url,
          parsed.error.issues,
        );
      }
    }
    return json;
  }

  function pages(
    endpoint: Endpoint,
    request: EndpointCall,
    walkOptions: WalkOptions = {},
  ): AsyncGenerator<ListPage<unknown>, void, undefined> {
    if (endpoint.response !== 'list') {
      throw new InvalidArgumentError(`${endpoint.id} is not a list endpoint`);
    }
    const given = request.query?.cursor;
    const { maxPages: walkMax, ...callOptions } = walkOptions;
    return paginatePages(
      async (cursor) => {
        // the first page is requested as given (no `cursor` when none was given)
        const sendCursor = given === undefined && cursor === 0 ? undefined : cursor;
        const query = { ...request.query, cursor: sendCursor };
        // a list endpoint's JSON answer (validated unless `validate: false`; paginatePages
        // checks the cursors it follows either way)
        return (await call(
          endpoint,
          { ...request, query },
          { ...callOptions, rtn: 'json' },
        )) as ListPage<unknown>;
      },
      { cursor: Number(given ?? 0), maxPages: walkMax ?? maxPages },
    );
  }

  function raw(
    path: string,
    query: Iterable<readonly [string, string]> | Readonly<Record<string, string>> = [],
    rawOptions: RawOptions = {},
  ): Promise<RawResponse> {
    if (!path.startsWith('/')) {
      throw new InvalidArgumentError(`raw path must start with '/': ${path}`);
    }
    return transport.send(path, isPairs(query) ? query : Object.entries(query), {
      ...rawOptions,
      method: rawOptions.method ?? 'GET',
      retry: rawOptions.retry ?? true,
    });
  }

  return { call, pages, raw, rateLimit: transport.rateLimit };
}
