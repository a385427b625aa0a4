import type { MiddlewareHandler } from 'hono';
import { AUTH_LAYER, type AuthLayer } from './auth.ts';
import { type ResponseCacheKey, responseCacheKey } from './middleware/cache.ts';
import type { Env } from './middleware/context.ts';
import { type RateLimitRefusal, rateLimitRefusal } from './middleware/rate-limit.ts';
import { matchRequestPath, type PathMatcher } from './middleware/route.ts';
import { PAGING_LAYER, type PagingLayer, type PagingPathForm } from './paging.ts';
import { PARAMS_LAYER, type ParamsLayer } from './request.ts';

/**
 * The layers the middleware are built over, each a small interface (clean in
 * {@link CLEAN_LAYERS}); `compose.ts` gives them as the server was configured.
 */
export interface AppLayers {
  /** The router: a raw request path to the endpoint it names (spec §5 Revision 2). */
  readonly matchPath: PathMatcher;
  /** The query parser's stages (spec §6). */
  readonly params: ParamsLayer;
  /** Authentication's steps (spec §3). */
  readonly auth: AuthLayer;
  /** The headers of a 429 (spec §7). */
  readonly rateLimitRefusal: RateLimitRefusal;
  /** The key of the response cache. */
  readonly cacheKey: ResponseCacheKey;
  /** The paging layer's stages (spec §5). */
  readonly paging: PagingLayer;
  /**
   * Whether a list page is asked of the store as a window (one page): true unless the paging
   * layer reads more of the list than its page.
   */
  readonly pageWindows: boolean;
  /** The path form of paging URLs (spec §5 Revision 3, free): as received or canonical. */
  readonly pagingPath: PagingPathForm;
  /** Middleware around the whole pipeline (after the request id and log), outermost first. */
  readonly around: readonly MiddlewareHandler<Env>[];
}

/** The clean {@link AppLayers}. */
export const CLEAN_LAYERS: AppLayers = {
  matchPath: matchRequestPath,
  params: PARAMS_LAYER,
  auth: AUTH_LAYER,
  rateLimitRefusal,
  cacheKey: responseCacheKey,
  paging: PAGING_LAYER,
  pageWindows: true,
  pagingPath: 'as-received',
  around: [],
};
