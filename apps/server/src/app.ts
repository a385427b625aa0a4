import type { HttpBindings } from '@hono/node-server';
import {
  AuthError,
  buildQueryString,
  type Caller,
  type EndpointMatch,
  matchEndpoint,
  type Page,
  pageOf,
  pagingOf,
  parseAuthorization,
  QueryParamError,
  type QueryParams,
  verifySignature,
} from '@tagtrack/core';
import { type Context, Hono } from 'hono';
import { type RequestIdVariables, requestId } from 'hono/request-id';
import type { Logger } from 'pino';
import { LruCache } from './cache.ts';
import type { FaultSet } from './faults.ts';
import type { RateLimitDecision, RateLimiter } from './rate-limit.ts';
import {
  contentTypeOf,
  linkHeader,
  type Rendered,
  renderError,
  renderListBody,
  renderSingleBody,
} from './render.ts';
import { parseRequestQuery, queryEntries, type RequestTarget, splitTarget } from './request.ts';
import type { Store } from './store.ts';

/** What the HTTP layer needs: the store, the active faults and the profile options. */
export interface AppDeps {
  readonly store: Store;
  readonly faults: FaultSet;
  /** Records per page (decisions §3, profile option; default 250). */
  readonly pageSize: number;
  readonly rateLimiter?: RateLimiter | undefined;
  readonly logger?: Logger | undefined;
  /** The OpenAPI document, already serialised. */
  readonly openApiJson: () => string;
}

/** A rendered response kept for identical requests (same caller, method and target). */
interface CachedResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
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
  return c.body(r.body, r.status as 200, r.headers);
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
 * Routing comes from core's endpoint catalogue ({@link matchEndpoint}), the single source
 * of path templates shared with the client and the conformance suite. The checks run in
 * this order, the first failing one answering:
 *
 * 1. unknown path: 404;
 * 2. method other than GET or HEAD: 405 with `Allow: GET, HEAD`;
 * 3. authentication (decisions §1): 401;
 * 4. rate limit of the credential, when set (decisions §6): 429;
 * 5. query parameters (decisions §4): 400;
 * 6. unknown or out-of-scope id (decisions §2): 404;
 * 7. 200.
 *
 * Authentication comes before parameter validation on purpose: a caller without valid
 * credentials learns nothing about the API beyond its paths (not which parameters an
 * endpoint takes, nor whether a value is valid), and the rate limit counts every
 * authenticated request, valid or not.
 */
export function createApp(deps: AppDeps): Hono<Env> {
  const { store, faults, pageSize, rateLimiter, logger } = deps;
  const app = new Hono<Env>();
  const responses = new LruCache<CachedResponse>(4096, 64 * 1024 * 1024);
  const encoder = new TextEncoder();
  const verifiedAuth = new LruCache<{ caller: Caller; authId: string }>(16_384, 16 * 1024 * 1024);

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

  app.onError((err, c) => {
    logger?.error({ reqId: c.get('requestId'), err }, 'unhandled error');
    return respond(c, renderError(500, 'internal error', faults));
  });

  app.all('*', (c) => {
    const target = splitTarget(rawTarget(c));
    const method = c.req.method;
    const isRead = method === 'GET' || method === 'HEAD';

    if (target.path === '/openapi.json') {
      if (!isRead) return respond(c, methodNotAllowed(target.path));
      return c.body(deps.openApiJson(), 200, { 'Content-Type': 'application/json; charset=utf-8' });
    }

    const match = matchEndpoint(target.path);
    if (!match) {
      return respond(c, renderError(404, `unknown path '${shortPath(target.path)}'`, faults));
    }
    if (!isRead) return respond(c, methodNotAllowed(target.path));

    const authorization = c.req.header('authorization');
    // A verified (Authorization, query string) pair stays valid: HMAC is deterministic and
    // credentials never change after start-up. Remembering it skips the base64 decoding and
    // up to three HMAC-SHA1 computations on repeated requests (the benchmark's hot path).
    const authKey = `${authorization}\u0000${target.rawQuery}`;
    let verified = authorization === undefined ? undefined : verifiedAuth.get(authKey);
    if (!verified) {
      try {
        verified = authenticate(authorization, target.rawQuery);
      } catch (e) {
        if (e instanceof AuthError) return respond(c, renderError(401, e.message, faults));
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
          renderError(
            429,
            `rate limit of ${decision.limit} requests per ${rateLimiter.rate.windowMs / 1000} s exceeded; retry after ${decision.retryAfterSeconds} s`,
            faults,
            headers,
          ),
        );
      }
    }

    // The data never changes after start-up, so the response to the same caller, method and
    // request target is always the same: render it once (decisions §3 stable order).
    const origin = new URL(c.req.url).origin;
    const key = `${caller.memberID}\u0000${method}\u0000${origin}\u0000${target.path}\u0000${target.rawQuery}`;
    let cached = responses.get(key);
    if (!cached) {
      const rendered = answerRequest(caller, match, target, origin, method);
      const body = encoder.encode(rendered.body);
      cached = { status: rendered.status, headers: rendered.headers, body };
      responses.set(key, cached, body.byteLength + 512);
    }
    const headers =
      rateLimiter === undefined ? cached.headers : { ...cached.headers, ...limitHeaders };
    return c.body(cached.body as Uint8Array<ArrayBuffer>, cached.status as 200, headers);
  });

  /** Step 3 of the order of checks (decisions §1); throws {@link AuthError}. */
  function authenticate(
    authorization: string | undefined,
    rawQuery: string,
  ): { caller: Caller; authId: string } {
    const auth = parseAuthorization(authorization);
    const credential = store.credential(auth.authId);
    if (!credential) throw new AuthError('unknown_credential', 'unknown credentials');
    if (
      !faults.has('signature-not-checked') &&
      !verifySignature(rawQuery, credential.accessKey, auth.signature)
    ) {
      throw new AuthError(
        'bad_signature',
        'signature does not match the query string (HMAC-SHA1 of the query string as sent or percent-decoded)',
      );
    }
    return { caller: credential.caller, authId: auth.authId };
  }

  /** Steps 5 to 7 of the order of checks: query parameters, scope, the answer. */
  function answerRequest(
    caller: Caller,
    match: EndpointMatch,
    target: RequestTarget,
    origin: string,
    method: string,
  ): Rendered {
    const entries = queryEntries(target.rawQuery);
    let query: QueryParams;
    try {
      query = parseRequestQuery(match.endpoint, entries, faults);
    } catch (e) {
      if (e instanceof QueryParamError) return renderError(400, e.message, faults);
      throw e;
    }
    const answer = store.answer(caller, {
      endpoint: match.endpoint.id,
      pathParams: match.pathParams,
      query,
    });
    switch (answer.kind) {
      case 'not_found':
        return renderError(404, answer.message, faults);
      case 'forbidden':
        return renderError(403, answer.message, faults);
      case 'single':
        return {
          status: 200,
          headers: { 'Content-Type': contentTypeOf(query.rtn, faults) },
          body: renderSingleBody(match.endpoint, answer.record, query.rtn, faults),
        };
      case 'list': {
        let page: Page<unknown> = pageOf(answer.records, query.cursor, pageSize);
        if (faults.has('page-overlap') && page.hasNext) {
          // bug: the next cursor points at the last record of this page
          page = { ...page, next: page.next - 1 };
        }
        const base = `${origin}${target.path}`;
        const paging = pagingOf(page, (cursor) => `${base}?${withCursor(entries, cursor)}`);
        const headers: Record<string, string> = {
          'Content-Type': contentTypeOf(query.rtn, faults),
          'X-Total-Count': String(
            method === 'HEAD' && faults.has('head-total-differs')
              ? page.records.length // bug: HEAD counts the page, GET the whole list
              : page.total,
          ),
        };
        const link = linkHeader(paging);
        if (link !== undefined) headers.Link = link;
        return {
          status: 200,
          headers,
          body:
            method === 'HEAD'
              ? ''
              : renderListBody(match.endpoint, page, paging, query.rtn, faults),
        };
      }
    }
  }

  function methodNotAllowed(path: string): Rendered {
    const r = renderError(
      405,
      `method not allowed on '${shortPath(path)}'; allowed: ${ALLOW}`,
      faults,
    );
    return { ...r, headers: { ...r.headers, Allow: ALLOW } };
  }

  return app;
}

/**
 * The query string of the same request at another cursor: parameters in request order,
 * `cursor` replaced in place (or appended), percent-encoded as {@link buildQueryString} does.
 */
function withCursor(entries: readonly (readonly [string, string])[], cursor: number): string {
  let found = false;
  const out = entries.map(([k, v]): [string, string] => {
    if (k !== 'cursor') return [k, v];
    found = true;
    return [k, String(cursor)];
  });
  if (!found) out.push(['cursor', String(cursor)]);
  return buildQueryString(out);
}

function shortPath(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
