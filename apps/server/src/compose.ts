/**
 * Composition: the one place where the server's clean layers meet the injected faults
 * (`faults/`) and the variants taken (`variants/`). A fault is a wrapper over the layer it
 * changes, a variant a wrapper or a setting of the layer it lives in; here each layer is
 * built clean and passed through them. The request path (`app.ts`, `middleware/`,
 * `store.ts`) takes the layers as given and names neither.
 */
import type { Dataset, ReportingEngine } from '@tagtrack/core';
import type { FaultSet } from './faults/index.ts';
import { layerReader, storeLayer } from './faults/store-layer.ts';
import { type AppLayers, CLEAN_LAYERS } from './layers.ts';
import { Renderer } from './render.ts';
import { engineReader, Store } from './store.ts';
import type { VariantSet } from './variants/index.ts';
import { withPagingVariants } from './variants/paging.ts';
import { withRenderVariants } from './variants/render.ts';
import { withStoreVariants } from './variants/store.ts';
import { extraHeaders, type FetchHandler, withTransport } from './variants/transport.ts';

/** The server's layers as its faults and variants make them. */
export interface Composition {
  /** The layers of the HTTP pipeline (`createApp`). */
  readonly layers: AppLayers;
  /** The render layer (spec §6, §8). */
  readonly renderer: Renderer;
  /**
   * The store over `engine` serving `dataset` (what some store variants read). The store
   * faults wrap the engine's in-memory index: an engine without one cannot take them
   * (`createServer` refuses that earlier; here it throws).
   */
  store(engine: ReportingEngine, dataset: Dataset | undefined): Store;
  /** The application's `fetch` as a socket serves it (the transport variants). */
  socket(fetch: FetchHandler): FetchHandler;
}

/** The layers of a server with `faults` injected and `variants` taken. */
export function compose(faults: FaultSet, variants: VariantSet): Composition {
  const clean = CLEAN_LAYERS;
  const extra = extraHeaders(variants);
  const layers: AppLayers = {
    matchPath: faults.wrap('route', clean.matchPath),
    params: faults.wrap('params', clean.params),
    auth: faults.wrap('auth', clean.auth),
    rateLimitRefusal: faults.wrap('rateLimitRefusal', clean.rateLimitRefusal),
    cacheKey: faults.wrap('cacheKey', clean.cacheKey),
    paging: faults.wrap('paging', withPagingVariants(clean.paging, variants)),
    // a paging fault's stages may read the whole list, not only the page's window
    pageWindows: faults.wrapping('paging').length === 0,
    pagingPath: variants.has('paging-path-canonical') ? 'canonical' : 'as-received',
    around: extra === undefined ? [] : [extra],
  };
  // the render variants replace stages of the clean layer; the render faults wrap the result
  const renderer = new Renderer((clean) =>
    faults.wrap('render', withRenderVariants(clean, variants)),
  );
  const storeFaults = faults.wrapping('store');
  return {
    layers,
    renderer,
    store(engine, dataset) {
      let reader = engineReader(engine);
      if (storeFaults.length > 0) {
        if (engine.index === undefined) {
          throw new Error(
            `fault ${storeFaults.join(', ')} needs an engine with an in-memory index`,
          );
        }
        reader = layerReader(faults.wrap('store', storeLayer(engine.index)));
      }
      return new Store(engine, withStoreVariants(reader, variants, dataset));
    },
    socket: (fetch) => withTransport(fetch, variants),
  };
}
