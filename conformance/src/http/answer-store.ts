import { Buffer } from 'node:buffer';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { Exchange } from './types.ts';

/**
 * What an answer the store keeps counts besides its compressed body: the exchange's target,
 * headers and fields (an estimate).
 */
export const ANSWER_OVERHEAD_BYTES = 1024;

/**
 * zlib's level for kept bodies: list pages come out 7 to 10 times smaller (level 1: 5 to 9),
 * at about 1 ms per 100 KB.
 */
const DEFLATE_LEVEL = 5;

/** Characters of a body below which compressing it saves nothing worth its time. */
const STORE_PLAIN_BELOW_CHARS = 2048;

/**
 * Bytes the JavaScript heap holds `body` in: one a character while every character is
 * Latin-1, two once one is not (V8's one-byte and two-byte strings; a name such as 東京
 * doubles a whole page). `utf8Bytes` is the body's size on the wire: equal to its length, the
 * body is ASCII and is not scanned.
 */
export function bodyHeapBytes(body: string, utf8Bytes?: number): number {
  if (utf8Bytes === body.length) return body.length;
  return /[\u0100-\uffff]/.test(body) ? body.length * 2 : body.length;
}

/** What a whole answer counts by default: its body's {@link bodyHeapBytes} and {@link ANSWER_OVERHEAD_BYTES}. */
export function wholeAnswerBytes(ex: Exchange): number {
  return bodyHeapBytes(ex.body, ex.bodyBytes) + ANSWER_OVERHEAD_BYTES;
}

/** One answer kept by an {@link AnswerStore}: the exchange without its body, and its body. */
interface StoredAnswer {
  /** The exchange as the request resolved it, its body dropped (`''`). */
  readonly shell: Exchange;
  /** The body: as text when short, else deflated UTF-8 bytes. */
  readonly body: string | Buffer;
  /** Whether a copy made again may be kept whole (see {@link AnswerStore.set}). */
  readonly hot: boolean;
}

/** Options of an {@link AnswerStore}. */
export interface AnswerStoreOptions {
  /**
   * Bytes the compressed answers may hold (bodies deflated, plus {@link ANSWER_OVERHEAD_BYTES}
   * each). Within it no answer of the run is let go, so whether a request is sent depends only
   * on whether it was asked before; past it the least recently used answers go (and are sent
   * again when asked for).
   */
  readonly maxBytes: number;
  /**
   * What the whole answers (exchanges ready to hand out) may count (see `hotSize`): past it
   * the least recently used are compressed; a saving of CPU only, never of a request.
   */
  readonly hotBytes: number;
  /** Longest body a hot answer may have (default no bound): a longer one is only kept compressed. */
  readonly hotMaxChars?: number | undefined;
  /** What a hot answer counts (default {@link wholeAnswerBytes}). */
  readonly hotSize?: ((exchange: Exchange) => number) | undefined;
  /** Called with each copy of a kept answer made again from the store (see {@link AnswerStore.get}). */
  readonly materialized?: ((copy: Exchange, shell: Exchange) => void) | undefined;
}

/**
 * The answers of identical GET/HEAD requests within one cache epoch, by key, such that
 * whether a request is sent never depends on timing, concurrency or the garbage collector: an
 * answer asked for before (answered, or still in flight) is handed out again, as long as the
 * compressed answers fit `maxBytes`. A copy handed out again has the id, headers and body of
 * the answer as it came.
 *
 * An answer is kept whole first (least recently used going first past `hotBytes`); one the
 * whole answers let go, or one not to keep whole (`hot: false`), is kept compressed (deflate).
 * Moving an answer from one form to the other loses nothing: only the compressed answers past
 * `maxBytes` are let go, and are sent again when asked for. A run whose answers fit in the
 * whole ones (the canonical dataset's) compresses nothing.
 */
export class AnswerStore {
  /** Answers in flight, by key: asks meanwhile share the promise. */
  readonly #pending = new Map<string, Promise<Exchange>>();
  readonly #kept: LRUCache<string, StoredAnswer>;
  readonly #hot: LRUCache<string, Exchange>;
  readonly #materialized: AnswerStoreOptions['materialized'];
  readonly #hotMaxChars: number;
  readonly #hotSize: (exchange: Exchange) => number;
  readonly #hotBytes: number;
  /** Answers in flight (see {@link whenKept}). */
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(options: AnswerStoreOptions) {
    this.#kept = new LRUCache<string, StoredAnswer>({
      maxSize: Math.max(1, Math.floor(options.maxBytes)),
      sizeCalculation: (a) => ANSWER_OVERHEAD_BYTES + a.body.length,
    });
    const hotSize =
      options.hotSize ?? ((ex: Exchange) => bodyHeapBytes(ex.body, ex.bodyBytes) + 1024);
    this.#hot = new LRUCache<string, Exchange>({
      maxSize: Math.max(1, Math.floor(options.hotBytes)),
      sizeCalculation: (ex) => Math.max(1, Math.ceil(hotSize(ex))),
      // a whole answer let go (or too large to be one) is kept compressed, unless it is already
      disposeAfter: (ex, key, reason) => {
        if (reason === 'evict' && !this.#kept.has(key)) this.#keep(key, ex, true);
      },
    });
    this.#materialized = options.materialized;
    this.#hotMaxChars = options.hotMaxChars ?? Number.POSITIVE_INFINITY;
    this.#hotSize = hotSize;
    this.#hotBytes = Math.max(1, Math.floor(options.hotBytes));
  }

  /** Whether `ex` may be kept whole: not a body over `hotMaxChars`, nor larger than them all. */
  #whole(ex: Exchange): boolean {
    return ex.body.length <= this.#hotMaxChars && this.#hotSize(ex) <= this.#hotBytes;
  }

  /** Keeps `ex` compressed under `key`; `hot`: a copy made again may be kept whole. */
  #keep(key: string, ex: Exchange, hot: boolean): void {
    this.#kept.set(key, { shell: { ...ex, body: '' }, body: compressed(ex.body), hot });
  }

  /**
   * The answer kept under `key` (or the promise of the request in flight), or `undefined`
   * when none is: then the caller sends the request and hands its promise to {@link set}.
   */
  get(key: string): Promise<Exchange> | undefined {
    const pending = this.#pending.get(key);
    if (pending !== undefined) return pending;
    const hot = this.#hot.get(key);
    if (hot !== undefined) return Promise.resolve(hot);
    const kept = this.#kept.get(key);
    if (kept === undefined) return undefined;
    const copy: Exchange = { ...kept.shell, body: bodyText(kept.body) };
    this.#materialized?.(copy, kept.shell);
    // kept compressed too: when the whole answers let it go again, nothing is compressed again
    if (kept.hot && this.#whole(copy)) this.#hot.set(key, copy);
    return Promise.resolve(copy);
  }

  /**
   * Keeps the answer `promise` resolves under `key`: shared while in flight, then kept whole
   * (`hot: false`, a body over `hotMaxChars` or larger than `hotBytes`: compressed at once; a
   * long list's page its walk keeps the records of, a very large body). A rejected promise keeps nothing: the next
   * ask sends again.
   */
  set(key: string, promise: Promise<Exchange>, hot: boolean): void {
    this.#pending.set(key, promise);
    const done = promise.then(
      (ex) => {
        // only this entry: after {@link clear} or another set the key holds something else
        if (this.#pending.get(key) !== promise) return;
        this.#pending.delete(key);
        if (hot && this.#whole(ex)) this.#hot.set(key, ex);
        else this.#keep(key, ex, false);
      },
      () => {
        if (this.#pending.get(key) === promise) this.#pending.delete(key);
      },
    );
    this.#inFlight.add(done);
    void done.finally(() => this.#inFlight.delete(done));
  }

  /** Resolves once every answer set so far is kept (answered) or let go (rejected). */
  async whenKept(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /** Drops every answer, kept, hot or in flight (a new cache epoch). */
  clear(): void {
    this.#pending.clear();
    this.#kept.clear();
    this.#hot.clear();
  }

  /** Answers kept, whole or compressed (in flight ones not counted). */
  get size(): number {
    let whole = 0;
    for (const key of this.#hot.keys()) if (!this.#kept.has(key)) whole++;
    return whole + this.#kept.size;
  }

  /** Bytes the compressed answers count now. */
  get bytes(): number {
    return this.#kept.calculatedSize;
  }
}

/**
 * `text` as the store keeps it: deflated UTF-8 bytes, or the text itself when short or not
 * well-formed UTF-16 (a lone surrogate would not come back from UTF-8 as it was; a body decoded
 * from bytes has none). Deflated at once, on the main thread (a few ms for a 600 KB page):
 * no body waits for a worker, so the bodies held at once stay those the checks hold. The bytes
 * are held in memory of their own size (a `Buffer` whose `buffer` is exactly as long).
 */
export function compressed(text: string): string | Buffer {
  if (text.length < STORE_PLAIN_BELOW_CHARS || !wellFormed(text)) return text;
  return exact(deflateRawSync(Buffer.from(text, 'utf8'), { level: DEFLATE_LEVEL }));
}

/**
 * `bytes` in memory of its own size. zlib's synchronous output shorter than its 16 KB chunk is
 * a view of that chunk: a 2 KB body kept as it comes holds 16 KB, eight times what the store
 * counts.
 */
function exact(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  return Buffer.from(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

/** The text of a kept body ({@link compressed}'s result). */
export function bodyText(body: string | Buffer): string {
  return typeof body === 'string' ? body : inflateRawSync(body).toString('utf8');
}

/** Whether `text` has no lone surrogate (`String.prototype.isWellFormed` where the runtime has it). */
function wellFormed(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  if (typeof native === 'function') return native.call(text);
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
