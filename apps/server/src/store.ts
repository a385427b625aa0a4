import type {
  Answer,
  Caller,
  EndpointRequest,
  EngineAnswer,
  RecordWindow,
  ReportingEngine,
} from '@tagtrack/core';
import { LRUCache } from 'lru-cache';

/**
 * Bytes the store's cache of whole answers may hold, by {@link answerWeight}'s estimate: a
 * few whole lists of a large dataset, whatever the number of callers walking them.
 */
const STORE_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * The estimated bytes of a cached answer: 256 per record (a tag or event as the index holds
 * it) plus 256 for the answer itself. An estimate: records the index shares are counted too.
 */
function answerWeight(answer: Answer): number {
  return 256 + (answer.kind === 'list' ? answer.records.length * 256 : 256);
}

/** The query pairs of a request as received (decoded, in request order). */
export type RawQuery = readonly (readonly [string, string])[];

/**
 * What {@link Store.answer} resolves: core's `Answer` (a whole list, a single record, or not
 * found) or, for a list asked with a window the reader serves, core's `AnswerSlice`.
 */
export type StoreReply = EngineAnswer;

/**
 * Where a {@link Store} reads its answers: an engine ({@link engineReader}), or a reader
 * wrapping another (composed in `compose.ts`). Answers mean what core's `ReportingEngine`
 * answers mean (spec §4, §5, §10).
 */
export interface StoreReader {
  /**
   * Whether a list asked with a window is answered as that window only (core's
   * `AnswerSlice`); then the store passes windows on and does not cache.
   */
  readonly servesWindows: boolean;
  /**
   * Whether answers depend on `rtn` or on the raw query beyond the parsed parameters (then
   * both are part of the store's cache key).
   */
  readonly rawInKey: boolean;
  /**
   * The answer to `request` for `caller`; `raw` is the query as received (decoded pairs in
   * request order). With `window` (only when {@link servesWindows}), a list may come as the
   * slice of that window; without, never a slice.
   */
  answer(
    caller: Caller,
    request: EndpointRequest,
    raw: RawQuery,
    window?: RecordWindow,
  ): Promise<StoreReply>;
}

/** The {@link StoreReader} of `engine`: its answers, windows when it serves them. */
export function engineReader(engine: ReportingEngine): StoreReader {
  return {
    servesWindows: engine.servesWindows,
    rawInKey: false,
    answer: (caller, request, _raw, window) => engine.answer(caller, request, window),
  };
}

/**
 * The server's read side: the credentials of a {@link ReportingEngine} (spec §3) and the
 * answers of a {@link StoreReader} (by default the engine's), with a bounded cache of whole
 * answers per (caller, request without `cursor` and `rtn`), so walking the pages of a large
 * list does not recompute it. The data is immutable, so a cached answer never goes stale.
 *
 * A request with a window (`RecordWindow`: the page's cursor and size) is passed on as is
 * when the reader serves windows (a SQL engine), and its slice returned uncached (a database
 * answers a page fast, and identical requests are replayed by the response cache).
 * Otherwise the window is ignored and the whole list answered.
 */
export class Store {
  readonly #cache = new LRUCache<string, Answer>({
    max: 2048,
    maxSize: STORE_CACHE_BYTES,
    sizeCalculation: answerWeight,
  });
  readonly #engine: ReportingEngine;
  readonly #reader: StoreReader;

  constructor(engine: ReportingEngine, reader: StoreReader = engineReader(engine)) {
    this.#engine = engine;
    this.#reader = reader;
  }

  /** The access key and caller of an auth id (spec §3), `undefined` when unknown. */
  credential(authId: string): { readonly accessKey: string; readonly caller: Caller } | undefined {
    return this.#engine.credential(authId);
  }

  /**
   * Re-reads the engine's credentials when they live in a database (`LiveEngine`) and were
   * read more than a second ago; resolves whether it re-read them (`false` for an engine
   * whose credentials never change).
   */
  refreshCredentials(): Promise<boolean> {
    return this.#engine.live?.refreshCredentials() ?? Promise.resolve(false);
  }

  /**
   * Answers `request` for `caller` (spec §4, §5, §10): the whole ordered list, the
   * single record, or not found; with `window`, a list may come as the slice of that window
   * (see the class comment). `raw` is the query as received (decoded pairs in request
   * order). Rejects when the engine does (e.g. a database gone), and with core's
   * `QueryParamError` when endpoint 14 has no `date`.
   */
  async answer(
    caller: Caller,
    request: EndpointRequest,
    raw: RawQuery = [],
    window?: RecordWindow,
  ): Promise<StoreReply> {
    const reader = this.#reader;
    if (window !== undefined && reader.servesWindows) {
      return reader.answer(caller, request, raw, window);
    }
    const { cursor: _cursor, rtn: _rtn, ...rest } = request.query;
    const extra = reader.rawInKey
      ? `\u0000${request.query.rtn}\u0000${JSON.stringify(raw.filter(([k]) => k !== 'cursor'))}`
      : '';
    const key = `${caller.memberID}\u0000${request.endpoint}\u0000${JSON.stringify(request.pathParams)}\u0000${JSON.stringify(rest)}${extra}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const answer = await reader.answer(caller, request, raw);
    if (answer.kind === 'slice') {
      throw new Error(`the ${this.#engine.name} engine answered a window to a whole-list request`);
    }
    this.#cache.set(key, answer);
    return answer;
  }
}
