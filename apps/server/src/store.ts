import type { Answer, Caller, EndpointRequest, ReportingIndex } from '@tagtrack/core';
import { LruCache } from './cache.ts';
import { EventRecipients } from './store-recipients.ts';
import { RecordVariants } from './store-variants.ts';
import { VariantSet } from './variants.ts';

/**
 * What the store answers: core's {@link Answer}, or (only under the fault
 * `out-of-scope-403`) `forbidden` for an id that exists outside the caller's scope.
 */
export type StoreAnswer = Answer | { readonly kind: 'forbidden'; readonly message: string };

/** The query pairs of a request as received (decoded, in request order). */
export type RawQuery = readonly (readonly [string, string])[];

/**
 * The store's query methods a fault wraps (`faults/store.ts`, `faults/store-windows.ts`):
 * clean in {@link storeLayer} unless a fault replaced them (decisions §2, §3, §8, §9).
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
  answer(caller: Caller, request: EndpointRequest): StoreAnswer;
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
 * The server's read side: core's {@link ReportingIndex} (built once at start-up) plus the
 * store variants ({@link RecordVariants}, {@link EventRecipients}), with a bounded cache of
 * answers per (caller, request without `cursor` and `rtn`), so walking the pages of a large
 * list does not recompute it. The index is immutable, so a cached answer never goes stale.
 * `wrap` gets the clean {@link StoreLayer} and returns the one to use (the store faults wrap
 * it: `FaultSet.wrap('store', …)`).
 */
export class Store {
  readonly #cache = new LruCache<StoreAnswer>(2048);
  readonly #variants: RecordVariants;
  readonly #recipients: EventRecipients;
  readonly #layer: StoreLayer;

  constructor(
    readonly index: ReportingIndex,
    wrap: (clean: StoreLayer) => StoreLayer = (clean) => clean,
    variants: VariantSet = new VariantSet(),
  ) {
    this.#variants = new RecordVariants(index.dataset, variants);
    this.#recipients = new EventRecipients(index.dataset, variants);
    this.#layer = wrap(storeLayer(index));
  }

  /** The access key and caller of an auth id (decisions §1), `undefined` when unknown. */
  credential(authId: string): { readonly accessKey: string; readonly caller: Caller } | undefined {
    return this.index.credential(authId);
  }

  /**
   * Answers `request` for `caller` (decisions §2, §3, §9): the whole ordered list, the
   * single record, not found, or (fault `out-of-scope-403`) forbidden. `raw` is the query as
   * received (decoded pairs in request order): only some faults read it.
   */
  answer(caller: Caller, request: EndpointRequest, raw: RawQuery = []): StoreAnswer {
    const layer = this.#layer;
    const { cursor: _cursor, rtn: _rtn, ...rest } = request.query;
    // under the faults that read the raw query or rtn, those are part of the answer
    const extra = layer.rawInKey
      ? `\u0000${request.query.rtn}\u0000${JSON.stringify(raw.filter(([k]) => k !== 'cursor'))}`
      : '';
    const key = `${caller.memberID}\u0000${request.endpoint}\u0000${JSON.stringify(request.pathParams)}\u0000${JSON.stringify(rest)}${extra}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const { request: variantIn, echo } = this.#variants.requestIn(request);
    const inCore = layer.request(variantIn, raw);
    let computed = layer.answer(caller, inCore);
    if (this.#recipients.active) computed = this.#recipients.answerOut(inCore, computed);
    const answer = this.#variants.answerOut(request.endpoint, computed, echo);
    this.#cache.set(key, answer);
    return answer;
  }
}
