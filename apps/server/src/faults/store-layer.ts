import type { Answer, Caller, EndpointRequest, ReportingIndex } from '@tagtrack/core';
import type { RawQuery, StoreReader } from '../store.ts';

/**
 * The layer the store faults wrap (`store.ts`, `store-windows.ts` here): the in-memory index
 * asked synchronously, clean in {@link storeLayer} (spec §4, §5, §9, §10).
 */
export interface StoreLayer {
  /** The index the store answers from (a fault may ask it again, e.g. without a window). */
  readonly index: ReportingIndex;
  /**
   * Whether answers depend on `rtn` or on the raw query beyond the parsed parameters (then
   * both are part of the store's cache key): false.
   */
  readonly rawInKey: boolean;
  /** The request the index answers, from the parsed one and the raw query: unchanged. */
  request(request: EndpointRequest, raw: RawQuery): EndpointRequest;
  /** The answer to `request` for `caller`: core's `ReportingIndex.answer`. */
  answer(caller: Caller, request: EndpointRequest): Answer;
}

/** The clean {@link StoreLayer} over `index`. */
export function storeLayer(index: ReportingIndex): StoreLayer {
  return {
    index,
    rawInKey: false,
    request: (request) => request,
    answer: (caller, request) => index.answer(caller, request),
  };
}

/**
 * The store's reader over a (wrapped) {@link StoreLayer}: whole answers only (a fault may read
 * the whole list), the raw query in the cache key when the layer reads it.
 */
export function layerReader(layer: StoreLayer): StoreReader {
  return {
    servesWindows: false,
    rawInKey: layer.rawInKey,
    answer: async (caller, request, raw) => layer.answer(caller, layer.request(request, raw)),
  };
}
