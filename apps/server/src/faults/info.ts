import type { AuthLayer } from '../auth.ts';
import type { ResponseCacheKey } from '../middleware/cache.ts';
import type { RateLimitRefusal } from '../middleware/rate-limit.ts';
import type { PathMatcher } from '../middleware/route.ts';
import type { PagingLayer } from '../paging.ts';
import type { RenderLayer } from '../render.ts';
import type { ParamsLayer } from '../request.ts';
import type { StoreLayer } from './store-layer.ts';

/** The layer of the server a fault is injected into. */
export type FaultArea =
  | 'store'
  | 'params'
  | 'routing'
  | 'paging'
  | 'render'
  | 'auth'
  | 'rate-limit';

/**
 * What a fault breaks: its name, the layer it lives in, the effect, and the requirement ids
 * of the conformance suite that catch it in each mode. The fault matrix
 * (conformance/test/faults.test.ts) runs every fault in both modes under three seeds and
 * asserts that the run fails and that one of the declared ids fails each time.
 */
export interface FaultInfo {
  readonly name: string;
  readonly area: FaultArea;
  readonly description: string;
  /** Requirement ids that fail on this fault in fixture mode (canonical dataset loaded). */
  readonly detectedBy: readonly string[];
  /**
   * Blind mode with one admin credential: the ids that fail there, when they differ from
   * {@link detectedBy} (omitted: the same ids), or `{ unobservable }` with the reason one
   * admin credential cannot observe the fault (the matrix skips it in that mode only).
   */
  readonly blind?: readonly string[] | { readonly unobservable: string };
  /**
   * Blind mode with the canonical profile's twelve credentials declared (every team, account
   * type, with and without a group): the ids that fail there, when they differ from those of
   * {@link detectedBy} and {@link blind} without the `ORACLE-*` ids (omitted: those), or
   * `{ unobservable }` with the reason no credential can observe the fault without the
   * dataset (the matrix lists it as an exception).
   */
  readonly blindDeclared?: readonly string[] | { readonly unobservable: string };
  /**
   * The fault's implementation: for each layer it breaks, a wrapper that gets that layer as
   * the server composed it (clean, or already wrapped by an earlier fault) and returns the
   * broken one. Omitted for the faults of the layers not migrated yet (see `index.ts`).
   */
  readonly wrap?: FaultLayers;
}

/**
 * The layers a fault can wrap (CONVENTIONS: a fault is a wrapper over the layer it changes),
 * each a small interface the server composes: `compose.ts` passes the clean layer through
 * the wrappers of the injected faults (`FaultSet.wrap`) in `FAULTS` order.
 */
export interface FaultLayers {
  /** The store's index layer (store-layer.ts, spec §4, §5, §9, §10). */
  readonly store?: (clean: StoreLayer) => StoreLayer;
  /** The router: a raw request path to the endpoint it names (middleware/route.ts). */
  readonly route?: (clean: PathMatcher) => PathMatcher;
  /** The key of the response cache (middleware/cache.ts). */
  readonly cacheKey?: (clean: ResponseCacheKey) => ResponseCacheKey;
  /** The headers of a 429 (middleware/rate-limit.ts, spec §7). */
  readonly rateLimitRefusal?: (clean: RateLimitRefusal) => RateLimitRefusal;
  /** Authentication's steps (auth.ts, spec §3). */
  readonly auth?: (clean: AuthLayer) => AuthLayer;
  /** The query parser's stages (request.ts, spec §6). */
  readonly params?: (clean: ParamsLayer) => ParamsLayer;
  /** The paging layer's stages (paging.ts, spec §5). */
  readonly paging?: (clean: PagingLayer) => PagingLayer;
  /** The renderer's stages (render.ts, spec §6, §8). */
  readonly render?: (clean: RenderLayer) => RenderLayer;
}

/** The interface of layer `L` of {@link FaultLayers}. */
export type FaultLayer<L extends keyof FaultLayers> = Parameters<NonNullable<FaultLayers[L]>>[0];
