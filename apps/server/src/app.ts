import type { HttpBindings } from '@hono/node-server';
import {
  AuthError,
  buildQueryString,
  type Caller,
  matchEndpoint,
  type Page,
  pageOf,
  pagingOf,
  parseAuthorization,
  QueryParamError,
  verifySignature,
} from '@tagtrack/core';
import { type Context, Hono } from 'hono';
import { type RequestIdVariables, requestId } from 'hono/request-id';
import type { Logger } from 'pino';
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
import { parseRequestQuery, queryEntries, splitTarget } from './request.ts';
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

    let caller: Caller;
    let authId: string;
    try {
      const auth = parseAuthorization(c.req.header('authorization'));
      authId = auth.authId;
      const credential = store.credential(auth.authId);
      if (!credential) throw new AuthError('unknown_credential', 'unknown credentials');
      if (
        !faults.has('signature-not-checked') &&
        !verifySignature(target.rawQuery, credential.accessKey, auth.signature)
      ) {
        throw new AuthError(
          'bad_signature',
          'signature does not match the query string (HMAC-SHA1 of the query string as sent or percent-decoded)',
        );
      }
      caller = credential.caller;
    } catch (e) {
      if (e instanceof AuthError) return respond(c, renderError(401, e.message, faults));
      throw e;
    }

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

    const entries = queryEntries(target.rawQuery);
    let rendered: Rendered;
    try {
      const query = parseRequestQuery(match.endpoint, entries, faults);
      const answer = store.answer(caller, {
        endpoint: match.endpoint.id,
        pathParams: match.pathParams,
        query,
      });
      switch (answer.kind) {
        case 'not_found':
          rendered = renderError(404, answer.message, faults, limitHeaders);
          break;
        case 'forbidden':
          rendered = renderError(403, answer.message, faults, limitHeaders);
          break;
        case 'single':
          rendered = {
            status: 200,
            headers: { ...limitHeaders, 'Content-Type': contentTypeOf(query.rtn, faults) },
            body: renderSingleBody(match.endpoint, answer.record, query.rtn, faults),
          };
          break;
        case 'list': {
          let page: Page<unknown> = pageOf(answer.records, query.cursor, pageSize);
          if (faults.has('page-overlap') && page.hasNext) {
            // bug: the next cursor points at the last record of this page
            page = { ...page, next: page.next - 1 };
          }
          const base = `${new URL(c.req.url).origin}${target.path}`;
          const paging = pagingOf(page, (cursor) => `${base}?${withCursor(entries, cursor)}`);
          const headers: Record<string, string> = {
            ...limitHeaders,
            'Content-Type': contentTypeOf(query.rtn, faults),
            'X-Total-Count': String(
              method === 'HEAD' && faults.has('head-total-differs')
                ? page.records.length // bug: HEAD counts the page, GET the whole list
                : page.total,
            ),
          };
          const link = linkHeader(paging);
          if (link !== undefined) headers.Link = link;
          rendered = {
            status: 200,
            headers,
            body:
              method === 'HEAD'
                ? ''
                : renderListBody(match.endpoint, page, paging, query.rtn, faults),
          };
          break;
        }
      }
    } catch (e) {
      if (e instanceof QueryParamError) {
        return respond(c, renderError(400, e.message, faults, limitHeaders));
      }
      throw e;
    }
    return respond(c, rendered);
  });

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
