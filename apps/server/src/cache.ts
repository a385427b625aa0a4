/**
 * A bounded least-recently-used cache, limited by entry count and by total weight (e.g.
 * bytes). The data a cache is over never changes (under `--live`, each version of the data
 * has its own caches), so entries never go stale; the bounds only cap memory.
 */
export class LruCache<V> {
  readonly #map = new Map<string, { value: V; weight: number }>();
  #weight = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxWeight: number = Number.POSITIVE_INFINITY,
  ) {}

  /** The value of `key`, marking it most recently used; `undefined` when absent. */
  get(key: string): V | undefined {
    const e = this.#map.get(key);
    if (e === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, e);
    return e.value;
  }

  /** Stores `value` under `key`; a value heavier than `maxWeight` is not stored. */
  set(key: string, value: V, weight = 1): void {
    if (weight > this.maxWeight) return;
    const old = this.#map.get(key);
    if (old) {
      this.#weight -= old.weight;
      this.#map.delete(key);
    }
    this.#map.set(key, { value, weight });
    this.#weight += weight;
    while (this.#map.size > this.maxEntries || this.#weight > this.maxWeight) {
      const oldest = this.#map.entries().next();
      if (oldest.done) break;
      this.#map.delete(oldest.value[0]);
      this.#weight -= oldest.value[1].weight;
    }
  }

  /** Number of entries. */
  get size(): number {
    return this.#map.size;
  }
}
