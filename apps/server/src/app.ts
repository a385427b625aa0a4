import type { HttpBindings } from '@hono/node-server';
import {
  AuthError,
  type Caller,
  type EndpointMatch,
  type PagingEnd,
  QueryParamError,
  type QueryParams,
} from '@tagtrack/core';
import { type Context, Hono } from 'hono';
import { type RequestIdVariables, requestId } from 'hono/request-id';
import type { Logger } from 'pino';
import { type Authenticated, authenticate } from './auth.ts';
import { LruCache } from './cache.ts';
import type { FaultSet } from './faults.ts';
import { listPage, singleHeaders } from './paging.ts';
import type { RateLimitDecision, RateLimiter } from './rate-limit.ts';
import type { Rendered, Renderer } from './render.ts';
import {
  matchRequestPath,
  parseRequestQuery,
  queryEntries,
  type RequestTarget,
  splitTarget,
} from './request.ts';
import type { Store } from './store.ts';
import { extraHeaders } from './transport.ts';
import type { VariantSet } from './variants.ts';

/** What the HTTP layer needs: the store, the renderer, the faults, variants and profile options. */
export interface AppDeps {
  readonly store: Store;
  readonly renderer: Renderer;
  readonly faults: FaultSet;
  readonly variants: VariantSet;
  /** Records per page (decisions §3, profile option; default 250). */
  readonly pageSize: number;
  /** How a list ends (decisions §3 Revision 2, profile option; default `no-content`). */
  readonly pagingEnd: PagingEnd;
  /** The base URL of `nextURL`/`previousURL`/`Link`, no trailing slash; may change on `listen`. */
  readonly publicUrl: () => string;
  readonly rateLimiter?: RateLimiter | undefined;
  readonly logger?: Logger | undefined;
  /** The OpenAPI document, already serialised. */
  readonly openApiJson: () => string;
}

/** A rendered response kept for identical requests (same base URL, caller, method and target). */
interface CachedResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array<ArrayBuffer>;
}

type Env = { Bindings: Partial<HttpBindings>; Variables: RequestIdVariables };

/** Methods every endpoint allows (decisions §4). */
const ALLOW = 'GET, HEAD';

/**
 * The request target as received: on a socket the raw request line of Node's
 * `IncomingMessage` (so the query string is signed exactly as the client sent it, decisions
 * §1); in memory the `Request`'s URL (already normalised by the WHATWG URL parser).
 */
function rawTarget(c: Context<Env>): string {
  const incoming = c.env?.incoming?.url;
  if (typeof incoming === 'string' && incoming !== '') return incoming;
  return c.req.url;
}

function respond(c: Context<Env>, r: Rendered): Response {
  return send(c, r.status, r.headers, r.body);
}

/** A response; a 204 gets no body at all (a `Response` refuses one). */
function send(
  c: Context<Env>,
  status: number,
  headers: Record<string, string>,
  body: string | Uint8Array<ArrayBuffer>,
): Response {
  if (status === 204) return c.body(null, 204, headers);
  return typeof body === 'string'
    ? c.body(body, status as 200, headers)
    : c.body(body, status as 200, headers);
}

function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  return {
    'X-Rate-Limit-Limit': String(d.limit),
    'X-Rate-Limit-Remaining': String(d.remaining),
    'X-Rate-Limit-Reset': String(d.resetEpochSeconds),
  };
}

/**
 * Builds the Hono application of the reference server.
 *
 * Routing comes from core's endpoint catalogue (`matchEndpoint`, which percent-decodes each
 * segment), the single source of path templates shared with the client and the conformance
 * suite. The checks run in the order of decisions §3 Revision 2, the first failing one
 * answering:
 *
 * 1. unknown path: 404;
 * 2. method other than GET or HEAD: 405 with `Allow: GET, HEAD`;
 * 3. authentication (decisions §1): 401;
 * 4. rate limit of the credential, when set (decisions §6): 429;
 * 5. query parameters (decisions §4): 400;
 * 6. unknown or out-of-scope id (decisions §2): 404;
 * 7. 200, or 204 for an empty list page under pagingEnd `no-content`.
 *
 * Authentication comes before parameter validation on purpose: a caller without valid
 * credentials learns nothing about the API beyond its paths (not which parameters an
 * endpoint takes, nor whether a value is valid), and the rate limit counts every
 * authenticated request, valid or not.
 */
export function createApp(deps: AppDeps): Hono<Env> {
  const { store, renderer, faults, pageSize, pagingEnd, rateLimiter, logger } = deps;
  const app = new Hono<Env>();
  const responses = new LruCache<CachedResponse>(4096, 64 * 1024 * 1024);
  const encoder = new TextEncoder();
  const verifiedAuth = new LruCache<Authenticated>(16_384, 16 * 1024 * 1024);

  app.use(requestId());
  if (logger) {
    app.use(async (c, next) => {
      const started = performance.now();
      await next();
      logger.info(
        {
          reqId: c.get('requestId'),
          method: c.req.method,
          url: splitTarget(rawTarget(c)).path,
          status: c.res.status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        },
        'request',
      );
    });
  }
  const extra = extraHeaders(deps.variants);
  if (extra) app.use(extra);

  app.onError((err, c) => {
    logger?.error({ reqId: c.get('requestId'), err }, 'unhandled error');
    return respond(c, renderer.error(500, 'internal error'));
  });

  app.all('*', (c) => {
    const target = splitTarget(rawTarget(c));
    const method = c.req.method;
    const isRead = method === 'GET' || method === 'HEAD';

    if (target.path === '/openapi.json') {
      if (!isRead) return respond(c, methodNotAllowed(target.path));
      return c.body(deps.openApiJson(), 200, { 'Content-Type': 'application/json; charset=utf-8' });
    }

    const match = matchRequestPath(target.path, faults);
    if (!match) {
      return respond(c, renderer.error(404, `unknown path '${shortPath(target.path)}'`));
    }
    if (!isRead) return respond(c, methodNotAllowed(target.path));

    const authorization = c.req.header('authorization');
    // A verified (Authorization, query string) pair stays valid: HMAC is deterministic and
    // credentials never change after start-up. Remembering it skips the base64 decoding and
    // up to two HMAC-SHA1 computations on repeated requests (the benchmark's hot path).
    const authKey = `${authorization}\u0000${target.rawQuery}`;
    let verified = authorization === undefined ? undefined : verifiedAuth.get(authKey);
    if (!verified) {
      try {
        verified = authenticate(store, faults, authorization, target.rawQuery);
      } catch (e) {
        if (e instanceof AuthError) return respond(c, renderer.error(401, e.message));
        throw e;
      }
      verifiedAuth.set(authKey, verified, authKey.length);
    }
    const { caller, authId } = verified;

    let limitHeaders: Record<string, string> = {};
    if (rateLimiter) {
      const decision = rateLimiter.take(authId);
      limitHeaders = rateLimitHeaders(decision);
      if (!decision.allowed) {
        const headers = faults.has('rate-limit-no-retry-after')
          ? limitHeaders
          : { ...limitHeaders, 'Retry-After': String(decision.retryAfterSeconds) };
        return respond(
          c,
          renderer.error(
            429,
            `rate limit of ${decision.limit} requests per ${rateLimiter.rate.windowMs / 1000} s exceeded; retry after ${decision.retryAfterSeconds} s`,
            headers,
          ),
        );
      }
    }

    // The data never changes after start-up, so the response to the same caller, method and
    // request target (on the same public base URL) is always the same: render it once
    // (decisions §3 stable order). The request's Host plays no part (decisions §3 Revision 2).
    const publicUrl = deps.publicUrl();
    const key = `${publicUrl}\u0000${caller.memberID}\u0000${method}\u0000${target.path}\u0000${target.rawQuery}`;
    let cached = responses.get(key);
    if (!cached) {
      const rendered = answerRequest(caller, match, target, publicUrl, method);
      const body = encoder.encode(rendered.body);
      cached = { status: rendered.status, headers: rendered.headers, body };
      responses.set(key, cached, body.byteLength + 512);
    }
    const headers =
      rateLimiter === undefined ? cached.headers : { ...cached.headers, ...limitHeaders };
    return send(c, cached.status, headers, cached.body);
  });

  /** Steps 5 to 7 of the order of checks: query parameters, scope, the answer. */
  function answerRequest(
    caller: Caller,
    match: EndpointMatch,
    target: RequestTarget,
    publicUrl: string,
    method: string,
  ): Rendered {
    let query: QueryParams;
    try {
      query = parseRequestQuery(match.endpoint, queryEntries(target.rawQuery), faults);
    } catch (e) {
      if (e instanceof QueryParamError) return renderer.error(400, e.message);
      throw e;
    }
    const answer = store.answer(caller, {
      endpoint: match.endpoint.id,
      pathParams: match.pathParams,
      query,
    });
    const contentType = { 'Content-Type': renderer.contentType(query.rtn) };
    switch (answer.kind) {
      case 'not_found':
        return renderer.error(404, answer.message);
      case 'forbidden':
        return renderer.error(403, answer.message);
      case 'single':
        return {
          status: 200,
          headers: { ...contentType, ...singleHeaders(faults) },
          body:
            method === 'HEAD' ? '' : renderer.singleBody(match.endpoint, answer.record, query.rtn),
        };
      case 'list': {
        const { page, paging, headers, noContent } = listPage(
          {
            records: answer.records,
            cursor: query.cursor,
            pageSize,
            pagingEnd,
            publicUrl,
            target,
            rtn: query.rtn,
            method,
          },
          faults,
        );
        // A 204 keeps the Content-Type the body would have had, so HEAD and GET agree and
        // the HTTP layer does not add a default one.
        return {
          status: noContent ? 204 : 200,
          headers: { ...contentType, ...headers },
          body:
            method === 'HEAD' || noContent
              ? ''
              : renderer.listBody(match.endpoint, page.records, paging, query.rtn),
        };
      }
    }
  }

  function methodNotAllowed(path: string): Rendered {
    const r = renderer.error(405, `method not allowed on '${shortPath(path)}'; allowed: ${ALLOW}`);
    return { ...r, headers: { ...r.headers, Allow: ALLOW } };
  }

  return app;
}

function shortPath(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
