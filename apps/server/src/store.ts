import type {
  Answer,
  AnswerSlice,
  Caller,
  Dataset,
  EndpointRequest,
  RecordWindow,
  ReportingEngine,
  ReportingIndex,
} from '@tagtrack/core';
import { LRUCache } from 'lru-cache';
import { EventRecipients } from './store-recipients.ts';
import { RecordVariants } from './store-variants.ts';
import { VariantSet } from './variants.ts';

/**
 * Bytes the store's cache of whole answers may hold, by {@link answerWeight}'s estimate: a
 * few whole lists of a large dataset, whatever the number of callers walking them.
 */
const STORE_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * The estimated bytes of a cached answer: 256 per record (a tag or event as the index holds
 * it) plus 256 for the answer itself. An estimate: records the index shares are counted too.
 */
function answerWeight(answer: StoreAnswer): number {
  return 256 + (answer.kind === 'list' ? answer.records.length * 256 : 256);
}

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
 * What a {@link Store} answers from: the engine, and what only some faults and variants need.
 * `createServer` gives the in-memory index's engine (core's `indexEngine`) with its `index`,
 * or an engine of its `engine` option (a SQL database) without one.
 */
export interface StoreSource {
  /** Where answers come from (decisions §2, §3, §9). */
  readonly engine: ReportingEngine;
  /**
   * The in-memory index behind `engine`, when there is one: the store faults wrap it
   * synchronously ({@link StoreLayer}); absent for a SQL engine.
   */
  readonly index?: ReportingIndex | undefined;
  /**
   * The dataset `engine` serves, when known: the store variants that rewrite ids or emails
   * (`contact-ids-alternative`, `event-recipient-email-*`) read it; absent: they throw.
   */
  readonly dataset?: Dataset | undefined;
}

/**
 * What {@link Store.answer} resolves: a {@link StoreAnswer} or, for a list asked with a
 * window the store could pass on to its engine, core's {@link AnswerSlice} of that window.
 */
export type StoreReply = StoreAnswer | AnswerSlice;

/**
 * The server's read side: a {@link ReportingEngine} (the in-memory index built once at
 * start-up, or a SQL database) plus the store variants ({@link RecordVariants},
 * {@link EventRecipients}), with a bounded cache of whole answers per (caller, request
 * without `cursor` and `rtn`), so walking the pages of a large list does not recompute it.
 * The data is immutable, so a cached answer never goes stale. `wrap` gets the clean
 * {@link StoreLayer} over the source's index and returns the one to use (the store faults
 * wrap it: `FaultSet.wrap('store', …)`); without an index it is not called (`createServer`
 * refuses the store faults then).
 *
 * A request with a window (`RecordWindow`: the page's cursor and size) is passed on to a
 * SQL engine as is, and its {@link AnswerSlice} returned uncached (a database answers a page
 * fast, and identical requests are replayed by the response cache), when nothing reads the
 * whole list: no store fault and no store variant. Otherwise, and always with the in-memory
 * engine, the window is ignored and the whole list answered.
 */
export class Store {
  readonly #cache = new LRUCache<string, StoreAnswer>({
    max: 2048,
    maxSize: STORE_CACHE_BYTES,
    sizeCalculation: answerWeight,
  });
  readonly #variants: RecordVariants;
  readonly #recipients: EventRecipients;
  readonly #engine: ReportingEngine;
  /** The store faults' layer over the index, or `undefined` when no fault wraps the store. */
  readonly #faulted: StoreLayer | undefined;
  /** Whether a window is passed on to the engine (see the class comment). */
  readonly #windows: boolean;

  constructor(
    source: StoreSource,
    wrap: (clean: StoreLayer) => StoreLayer = (clean) => clean,
    variants: VariantSet = new VariantSet(),
  ) {
    this.#engine = source.engine;
    const dataset = source.dataset ?? source.index?.dataset;
    this.#variants = new RecordVariants(dataset, variants);
    this.#recipients = new EventRecipients(dataset, variants);
    if (source.index !== undefined) {
      const clean = storeLayer(source.index);
      const layer = wrap(clean);
      this.#faulted = layer === clean ? undefined : layer;
    }
    this.#windows =
      source.engine.kind !== 'memory' &&
      this.#faulted === undefined &&
      !this.#variants.active &&
      !this.#recipients.active;
  }

  /** The access key and caller of an auth id (decisions §1), `undefined` when unknown. */
  credential(authId: string): { readonly accessKey: string; readonly caller: Caller } | undefined {
    return this.#engine.credential(authId);
  }

  /**
   * Answers `request` for `caller` (decisions §2, §3, §9): the whole ordered list, the
   * single record, not found, or (fault `out-of-scope-403`) forbidden; with `window`, a list
   * may come as the {@link AnswerSlice} of that window (see the class comment). `raw` is the
   * query as received (decoded pairs in request order): only some faults read it. Rejects
   * when the engine does (e.g. a database gone), and with core's `QueryParamError` when
   * endpoint 14 has no `date`.
   */
  async answer(
    caller: Caller,
    request: EndpointRequest,
    raw: RawQuery = [],
    window?: RecordWindow,
  ): Promise<StoreReply> {
    if (window !== undefined && this.#windows) {
      return this.#engine.answer(caller, request, window);
    }
    const layer = this.#faulted;
    const { cursor: _cursor, rtn: _rtn, ...rest } = request.query;
    // under the faults that read the raw query or rtn, those are part of the answer
    const extra = layer?.rawInKey
      ? `\u0000${request.query.rtn}\u0000${JSON.stringify(raw.filter(([k]) => k !== 'cursor'))}`
      : '';
    const key = `${caller.memberID}\u0000${request.endpoint}\u0000${JSON.stringify(request.pathParams)}\u0000${JSON.stringify(rest)}${extra}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const { request: variantIn, echo } = this.#variants.requestIn(request);
    const inCore = layer ? layer.request(variantIn, raw) : variantIn;
    let computed = layer ? layer.answer(caller, inCore) : await this.#whole(caller, inCore);
    if (this.#recipients.active) computed = this.#recipients.answerOut(inCore, computed);
    const answer = this.#variants.answerOut(request.endpoint, computed, echo);
    this.#cache.set(key, answer);
    return answer;
  }

  /** The engine's answer without a window: never a slice. */
  async #whole(caller: Caller, request: EndpointRequest): Promise<Answer> {
    const answer = await this.#engine.answer(caller, request);
    if (answer.kind === 'slice') {
      throw new Error(`the ${this.#engine.kind} engine answered a window to a whole-list request`);
    }
    return answer;
  }
}
