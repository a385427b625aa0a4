import type { Endpoint, PagingEnd } from '@tagtrack/core';
import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import type { Logger } from 'pino';
import { AUTH_LAYER } from './auth.ts';
import type { FaultSet } from './faults/index.ts';
import { answer } from './middleware/answer.ts';
import { auth } from './middleware/auth.ts';
import { responseCache, responseCacheKey } from './middleware/cache.ts';
import { type Env, respond } from './middleware/context.ts';
import { requestLog } from './middleware/log.ts';
import { method } from './middleware/method.ts';
import { openApiDocument } from './middleware/openapi.ts';
import { rateLimit, rateLimitRefusal } from './middleware/rate-limit.ts';
import { matchRequestPath, route } from './middleware/route.ts';
import { PAGING_LAYER } from './paging.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { Renderer } from './render.ts';
import { PARAMS_LAYER, parseRequestQuery } from './request.ts';
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
  /**
   * Bytes of response bodies the response cache keeps (default 64 MiB): less when a database
   * answers, so the server process stays small and the database does the remembering.
   */
  readonly responseCacheBytes?: number | undefined;
}

/**
 * Builds the Hono application of the reference server: one middleware per concern
 * (`middleware/`), composed here once. The checks run in the order of decisions §3
 * Revision 2, the first failing one answering:
 *
 * 1. `route`: unknown path, 404 (`/openapi.json` is served here, without authentication);
 * 2. `method`: a method other than GET or HEAD, 405 with `Allow: GET, HEAD`;
 * 3. `auth`: authentication (decisions §1), 401;
 * 4. `rateLimit`: the credential's rate limit, when set (decisions §6), 429;
 * 5. `responseCache`: an identical earlier request's response, replayed;
 * 6. `answer`: query parameters (decisions §4), 400; unknown or out-of-scope id
 *    (decisions §2), 404; then 200, or 204 for an empty list page under `no-content`.
 *
 * Authentication comes before parameter validation on purpose: a caller without valid
 * credentials learns nothing about the API beyond its paths (not which parameters an
 * endpoint takes, nor whether a value is valid), and the rate limit counts every
 * authenticated request, valid or not. Each fault lives in the layer where the real bug would
 * (see `faults/index.ts`): the router, auth steps, 429 headers and cache key given to the
 * middleware are the clean ones wrapped by the injected faults (`faults.wrap`); around the pipeline: request ids, the request log, the `extra-headers`
 * variant, and a 500 for anything thrown.
 */
export function createApp(deps: AppDeps): Hono<Env> {
  const { store, renderer, faults, rateLimiter, logger } = deps;
  const app = new Hono<Env>();

  app.use(requestId());
  if (logger) app.use(requestLog(logger));
  const extra = extraHeaders(deps.variants);
  if (extra) app.use(extra);
  app.onError((err, c) => {
    logger?.error({ reqId: c.get('requestId'), err }, 'unhandled error');
    return respond(c, renderer.error(500, 'internal error'));
  });

  const matchPath = faults.wrap('route', matchRequestPath);
  app.use(route(matchPath, renderer, openApiDocument(deps.openApiJson, renderer)));
  app.use(method(renderer));
  const params = faults.wrap('params', PARAMS_LAYER);
  const parseQuery = (endpoint: Endpoint, rawQuery: string) =>
    parseRequestQuery(endpoint, rawQuery, params);
  app.use(auth(store, faults.wrap('auth', AUTH_LAYER), parseQuery, renderer));
  if (rateLimiter) {
    app.use(rateLimit(rateLimiter, faults.wrap('rateLimitRefusal', rateLimitRefusal), renderer));
  }
  app.use(
    responseCache(
      deps.publicUrl,
      faults.wrap('cacheKey', responseCacheKey),
      deps.responseCacheBytes,
    ),
  );
  app.all('*', answer({ ...deps, params, paging: faults.wrap('paging', PAGING_LAYER) }));
  return app;
}
