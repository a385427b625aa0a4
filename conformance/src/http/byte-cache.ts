import { LRUCache } from 'lru-cache';

/**
 * Bytes the run's caches may hold together by default (`--cache-bytes`,
 * `TAGTRACK_CACHE_BYTES`): 128 MiB, shared as {@link cacheShares} says. The answers of the
 * run's requests are kept, whole and then compressed (`AnswerStore`), and within their shares
 * none is let go, so the requests sent are the same at any concurrency and in any run of a
 * seed. The walks and discoveries only save CPU: past their shares the least recently used
 * go, and what asks for them again is rebuilt from the kept answers, with no request.
 */
export const DEFAULT_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * How the run's `cacheBytes` is shared: the whole answers a quarter (the canonical dataset's
 * answers nearly fit: little is compressed), the compressed answers three eighths (a large run
 * of one admin keeps every answer it reads, about 4,400, within them), walks of lists an
 * eighth, the credentials' discoveries a quarter (one admin's discovery of a million-event
 * team, about 30 MB, stays cached: every check that discovers ids reuses it without reading
 * it again).
 */
export function cacheShares(cacheBytes: number): {
  readonly responses: number;
  readonly hotResponses: number;
  readonly walks: number;
  readonly discoveries: number;
} {
  return {
    responses: (cacheBytes * 3) / 8,
    hotResponses: cacheBytes / 4,
    walks: cacheBytes / 8,
    discoveries: cacheBytes / 4,
  };
}

/** What an entry counts while its promise is pending (its size is known once it resolves). */
const PENDING_BYTES = 1024;

/** Options of a {@link ByteCache}. */
export interface ByteCacheOptions {
  /**
   * A resolved value that left the cache (evicted, or larger than the whole cap) is still
   * handed out while something else holds it (a `WeakRef`): asking again then costs no
   * memory, where reading it again would hold a second copy. Values must be objects.
   */
  readonly shareWhileAlive?: boolean;
}

/**
 * A least-recently-used cache of promised values by key, capped by bytes (lru-cache with
 * `maxSize`), for values the run can rebuild without a request (walks and discoveries, read
 * again from the kept answers): which entries it still holds depends on timing and on the
 * garbage collector, so it decides CPU only, never a request. An entry counts
 * {@link PENDING_BYTES} while pending, then `sizeOf(value)` bytes
 * once it resolves; an entry larger than the whole cap is dropped then, and a rejected one at
 * once. Identical asks while a promise is pending share it; with `shareWhileAlive`, so do
 * asks for a value that left the cache while it is still held elsewhere.
 */
export class ByteCache<V> {
  readonly #lru: LRUCache<string, Promise<V>>;
  /** Weak references to the resolved values, by key (`shareWhileAlive` only). */
  readonly #alive: Map<string, WeakRef<V & object>> | undefined;
  /** Forgets the weak reference of a key once its value was collected. */
  readonly #collected: FinalizationRegistry<string> | undefined;
  /** Every key set since the cache was made or last cleared (see {@link wasSet}). */
  readonly #everSet = new Set<string>();

  /**
   * `maxBytes`: the cap (at least 1); `sizeOf`: the estimated bytes a resolved value holds;
   * `options`: see {@link ByteCacheOptions}.
   */
  constructor(
    readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
    options: ByteCacheOptions = {},
  ) {
    this.#lru = new LRUCache<string, Promise<V>>({ maxSize: Math.max(1, Math.floor(maxBytes)) });
    if (options.shareWhileAlive === true) {
      const alive = new Map<string, WeakRef<V & object>>();
      this.#alive = alive;
      this.#collected = new FinalizationRegistry((key) => {
        if (alive.get(key)?.deref() === undefined) alive.delete(key);
      });
    }
  }

  /** The promise under `key` (marking it most recently used), or `undefined`. */
  get(key: string): Promise<V> | undefined {
    const hit = this.#lru.get(key);
    if (hit !== undefined || this.#alive === undefined) return hit;
    const value = this.#alive.get(key)?.deref();
    return value === undefined ? undefined : Promise.resolve(value);
  }

  /** Keeps `promise` under `key`; its size is counted when it resolves (see the class). */
  set(key: string, promise: Promise<V>): void {
    this.#everSet.add(key);
    this.#lru.set(key, promise, { size: PENDING_BYTES });
    promise.then(
      (value) => {
        if (this.#alive !== undefined && typeof value === 'object' && value !== null) {
          this.#alive.set(key, new WeakRef(value));
          this.#collected?.register(value, key);
        }
        // only this entry: the key may hold a later promise by now. lru-cache keeps the size
        // of a value set again as it was, so the entry is set anew with its real size
        if (this.#lru.peek(key) !== promise) return;
        this.#lru.delete(key);
        this.#lru.set(key, promise, { size: Math.max(1, Math.ceil(this.sizeOf(value))) });
      },
      () => {
        if (this.#lru.peek(key) === promise) this.#lru.delete(key);
      },
    );
  }

  /** Drops `key` if it holds `promise` (any promise when `promise` is not given). */
  delete(key: string, promise?: Promise<V>): void {
    if (promise === undefined || this.#lru.peek(key) === promise) {
      this.#lru.delete(key);
      this.#alive?.delete(key);
    }
  }

  /**
   * Whether `key` was set since the cache was made or last {@link clear}ed, whether or not it
   * still holds it: asking for its value again is then a rebuild (see `walkThroughCache`).
   */
  wasSet(key: string): boolean {
    return this.#everSet.has(key);
  }

  /** Drops every entry, and forgets which keys were set. */
  clear(): void {
    this.#everSet.clear();
    this.#lru.clear();
    this.#alive?.clear();
  }

  /** Number of entries. */
  get size(): number {
    return this.#lru.size;
  }

  /** Bytes the entries count now. */
  get bytes(): number {
    return this.#lru.calculatedSize;
  }
}
