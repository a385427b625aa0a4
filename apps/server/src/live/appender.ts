/**
 * Live data over an engine whose data lives in a database (spec §5 Revision 3): the
 * {@link LiveAppender}, which appends the live generator's records through the engine
 * (`LiveEngine.append`, e.g. the SQL engine's INSERTs) instead of rebuilding an index.
 */
import type { LiveEngine } from '@tagtrack/core';
import {
  type Batch,
  LiveGenerator,
  type LiveOptions,
  liveRate,
  liveSchedule,
  MAX_RECORDS_PER_TICK,
} from './generator.ts';

/** Each team's latest tags the generator over a database draws its events from, at most. */
export const LIVE_BASE_TAGS_PER_TEAM = 2000;

/**
 * The live data of a server over an engine whose data lives in a database (an engine with
 * `live`, e.g. the SQL engine): the same appended records as {@link LiveData} (the same
 * generator, rate and seed), appended through the engine (`LiveEngine.append`: plain INSERTs,
 * the database's triggers keeping its counters) instead of rebuilding an index. The generator
 * draws from the engine's `base` (each team's latest {@link LIVE_BASE_TAGS_PER_TEAM} tags).
 * Ticks run one at a time: every `intervalMs` (default 200 ms), or 4 times the last append's
 * duration when that is longer. After each append `onAppended` runs (the server answers
 * from fresh caches from then on). A failed append is reported to `onError` and its records
 * are drawn again never: the next tick goes on with what is due next.
 */
export class LiveAppender {
  readonly #engine: LiveEngine;
  readonly #clock: () => number;
  readonly #rate: { num: bigint; den: bigint };
  readonly #intervalMs: number;
  readonly #onAppended: () => void;
  readonly #onError: (e: unknown) => void;
  readonly #seed: number;
  readonly #startMs: number;
  readonly ready: Promise<void>;
  #generator: LiveGenerator | undefined;
  #appended = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #lastAppendMs = 0;

  /**
   * Starts appending at `options.rate` records per second from `clock()` now. Throws a
   * `RangeError` for a rate that is not a finite number > 0, a seed that is not a safe
   * integer or an interval that is not a finite number >= 0; `ready` rejects when the base
   * cannot be read or has no team member.
   */
  constructor(
    engine: LiveEngine,
    options: LiveOptions,
    onAppended: () => void,
    onError: (e: unknown) => void,
  ) {
    this.#rate = liveRate(options.rate);
    const { seed, intervalMs } = liveSchedule(options);
    this.#engine = engine;
    this.#seed = seed;
    this.#clock = options.clock ?? Date.now;
    this.#intervalMs = intervalMs;
    this.#onAppended = onAppended;
    this.#onError = onError;
    this.#startMs = Math.floor(this.#clock());
    this.ready = engine.base(LIVE_BASE_TAGS_PER_TEAM).then((base) => {
      const generator = new LiveGenerator(base, this.#seed);
      if (!generator.canAppend) {
        throw new RangeError('live data needs a dataset with at least one team member');
      }
      this.#generator = generator;
    });
    this.ready.then(
      () => this.#schedule(),
      (e) => this.#onError(e),
    );
  }

  /** Records appended so far. */
  get appended(): number {
    return this.#appended;
  }

  /** Milliseconds the last append took (0 before the first). */
  get lastAppendMs(): number {
    return this.#lastAppendMs;
  }

  /**
   * Appends the records due at `clock()` now (at most {@link MAX_RECORDS_PER_TICK}) in one
   * transaction, once the base is read; resolves when done (a tick already running is
   * waited for instead). Does nothing once stopped.
   */
  tick(): Promise<void> {
    this.#running ??= this.#append().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #append(): Promise<void> {
    await this.ready;
    const generator = this.#generator!;
    if (this.#stopped) return;
    const elapsed = BigInt(Math.max(0, Math.floor(this.#clock()) - this.#startMs));
    const dueNow = Number((elapsed * this.#rate.num) / (this.#rate.den * 1000n));
    const due = Math.min(dueNow, this.#appended + MAX_RECORDS_PER_TICK);
    if (due <= this.#appended) return;
    const batch: Batch = { tags: [], opens: [], clicks: [] };
    const { num, den } = this.#rate;
    for (let k = this.#appended + 1; k <= due; k++) {
      const ms = (BigInt(k) * den * 1000n + num - 1n) / num;
      generator.next(Math.floor((this.#startMs + Number(ms)) / 1000), batch);
    }
    this.#appended = due;
    const t0 = performance.now();
    try {
      await this.#engine.append(batch);
    } finally {
      this.#lastAppendMs = performance.now() - t0;
    }
    this.#onAppended();
  }

  /** Stops appending for good (clears the timer); resolves once a running append ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => {});
  }

  #schedule(): void {
    if (this.#stopped) return;
    const delay = Math.max(this.#intervalMs, 4 * this.#lastAppendMs);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.tick().then(
        () => this.#schedule(),
        (e) => {
          this.#onError(e);
          this.#schedule();
        },
      );
    }, delay);
    this.#timer.unref();
  }
}
