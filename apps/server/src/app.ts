import type { Endpoint, PagingEnd } from '@tagtrack/core';
import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import type { Logger } from 'pino';
import { type AppLayers, CLEAN_LAYERS } from './layers.ts';
import { answer } from './middleware/answer.ts';
import { auth } from './middleware/auth.ts';
import { responseCache } from './middleware/cache.ts';
import { type Env, respond } from './middleware/context.ts';
import { requestLog } from './middleware/log.ts';
import { method } from './middleware/method.ts';
import { openApiDocument } from './middleware/openapi.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { route } from './middleware/route.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { Renderer } from './render.ts';
import { parseRequestQuery } from './request.ts';
import type { Store } from './store.ts';

/** What the HTTP layer needs: the store, the renderer, the layers and profile options. */
export interface AppDeps {
  readonly store: Store;
  readonly renderer: Renderer;
  /** The layers the middleware use; default {@link CLEAN_LAYERS}. */
  readonly layers?: AppLayers | undefined;
  /** Records per page (spec §5, profile option; default 250). */
  readonly pageSize: number;
  /** How a list ends (spec §5 Revision 2, profile option; default `no-content`). */
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
 * (`middleware/`), composed here once over {@link AppLayers}. The checks run in the order of
 * spec §5 Revision 2, the first failing one answering:
 *
 * 1. `route`: unknown path, 404 (`/openapi.json` is served here, without authentication);
 * 2. `method`: a method other than GET or HEAD, 405 with `Allow: GET, HEAD`;
 * 3. `auth`: authentication (spec §3), 401;
 * 4. `rateLimit`: the credential's rate limit, when set (spec §7), 429;
 * 5. `responseCache`: an identical earlier request's response, replayed;
 * 6. `answer`: query parameters (spec §6), 400; unknown or out-of-scope id
 *    (spec §4), 404; then 200, or 204 for an empty list page under `no-content`.
 *
 * Authentication comes before parameter validation on purpose: a caller without valid
 * credentials learns nothing about the API beyond its paths (not which parameters an
 * endpoint takes, nor whether a value is valid), and the rate limit counts every
 * authenticated request, valid or not. Around the pipeline: request ids, the request log,
 * `layers.around`, and a 500 for anything thrown.
 */
export function createApp(deps: AppDeps): Hono<Env> {
  const { store, renderer, rateLimiter, logger } = deps;
  const layers = deps.layers ?? CLEAN_LAYERS;
  const app = new Hono<Env>();

  app.use(requestId());
  if (logger) app.use(requestLog(logger));
  for (const middleware of layers.around) app.use(middleware);
  app.onError((err, c) => {
    logger?.error({ reqId: c.get('requestId'), err }, 'unhandled error');
    return respond(c, renderer.error(500, 'internal error'));
  });

  app.use(route(layers.matchPath, renderer, openApiDocument(deps.openApiJson, renderer)));
  app.use(method(renderer));
  const parseQuery = (endpoint: Endpoint, rawQuery: string) =>
    parseRequestQuery(endpoint, rawQuery, layers.params);
  app.use(auth(store, layers.auth, parseQuery, renderer));
  if (rateLimiter) app.use(rateLimit(rateLimiter, layers.rateLimitRefusal, renderer));
  app.use(responseCache(deps.publicUrl, layers.cacheKey, deps.responseCacheBytes));
  app.all('*', answer({ ...deps, layers }));
  return app;
}
