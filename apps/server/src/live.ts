/**
 * Live data (spec §5 Revision 3: data may change while a client reads it): the server
 * appends tags, opens and clicks to every team of its dataset at a steady rate, and answers
 * each request from one immutable version of the data.
 *
 * This file holds the versions ({@link LiveData}); the generator of the appended records is
 * live/generator.ts, and appending them through an engine's database is live/appender.ts.
 *
 * - **Rate.** Record k (1-based) of the appended sequence is due `ceil(k * 1000 / rate)` ms
 *   after the live data started (exact decimal arithmetic on the rate as written, so rate 0.05
 *   appends exactly one record per 20 s). A record is a tag, an open or a click; it is dated
 *   at its due instant, truncated to whole UTC seconds (never after the clock's now).
 * - **Records.** Each record goes to a team drawn uniformly among the teams that have
 *   members. About 5% are new tags sent now by a member of the team to 1-6 recipients
 *   (existing contacts of the team, a fifth of them new contacts drawn like the generator's
 *   pool); the rest are opens (about 70%) and clicks of a tag of the team already sent, more
 *   often a recent one, by one of its recipients, with the generator's device, location,
 *   agent and respelt email (core's `generatedEvent`). A contact keeps one home and one usual
 *   device (drawn from its normalised email and the seed).
 * - **Determinism.** The sequence of appended records depends only on the base dataset,
 *   the seed and the clock's readings at the start and at each tick: the same seed and clock
 *   give the same records, however the ticks fall.
 * - **Versions.** Records due since the last version accumulate; {@link LiveData.tick}
 *   appends them and swaps in a new {@link LiveVersion} (new arrays, a freshly built index and
 *   store), never mutating an older one. A timer ticks every `intervalMs` (default 200 ms),
 *   or every 4 times the last rebuild's duration when that is longer, so rebuilding takes at
 *   most about a fifth of one core whatever the dataset's size. The timer is `unref`ed and
 *   {@link LiveData.stop} clears it.
 */
import type { Dataset, ReportingIndex } from '@tagtrack/core';
import {
  type Batch,
  LiveGenerator,
  type LiveOptions,
  liveRate,
  liveSchedule,
  MAX_RECORDS_PER_TICK,
} from './live/generator.ts';

export { LIVE_BASE_TAGS_PER_TEAM, LiveAppender } from './live/appender.ts';
export { type LiveOptions, liveRate, MAX_RECORDS_PER_TICK } from './live/generator.ts';

/** One immutable version of the live data: what one request is answered from. */
export interface LiveVersion<V> {
  /** 0 for the dataset as loaded, then +1 for each swap that appended records. */
  readonly version: number;
  /** The version's dataset: the base dataset plus the records appended so far, never mutated. */
  readonly dataset: Dataset;
  /** Records appended to the base dataset in this version (tags, opens and clicks). */
  readonly appended: number;
  /** What the server answers `dataset` with (its index and the application over it). */
  readonly served: V;
}

/**
 * The live data of a server as tests and embedders see it ({@link TagtrackServer.live} in
 * server.ts): the current version with its index, a way to append what is due now, the cost
 * of the last rebuild.
 */
export interface LiveHandle {
  /** The version requests are answered from now. */
  readonly current: LiveVersion<{ readonly index: ReportingIndex }>;
  /**
   * Appends the records due at the clock's now and swaps in a new version if there were any
   * (what the timer does); returns the current version.
   */
  tick(): LiveVersion<{ readonly index: ReportingIndex }>;
  /** Milliseconds the last swap spent building its index and store (0 before the first). */
  readonly lastBuildMs: number;
}
/**
 * The live data of a server: the current {@link LiveVersion}, the generator of appended
 * records and the timer that appends them (see the module comment). `build` makes what the
 * server answers from out of a version's dataset (core's index and the store); it runs on
 * every swap, so its cost bounds the swap rate.
 */
export class LiveData<V> {
  readonly #generator: LiveGenerator;
  readonly #clock: () => number;
  readonly #rate: { num: bigint; den: bigint };
  readonly #startMs: number;
  readonly #intervalMs: number;
  readonly #build: (dataset: Dataset) => V;
  #current: LiveVersion<V>;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #lastBuildMs = 0;

  /**
   * Starts the live data over `base` (what `build` made of it: `served`) at `clock()` now, and its
   * timer. Throws a `RangeError` for a rate that is not a finite number > 0, a seed that is
   * not a safe integer, an interval that is not a finite number >= 0, or a dataset without
   * any team member (nothing could be appended).
   */
  constructor(base: Dataset, served: V, options: LiveOptions, build: (dataset: Dataset) => V) {
    this.#rate = liveRate(options.rate);
    const { seed, intervalMs } = liveSchedule(options);
    this.#generator = new LiveGenerator(base, seed);
    if (!this.#generator.canAppend) {
      throw new RangeError('live data needs a dataset with at least one team member');
    }
    this.#clock = options.clock ?? Date.now;
    this.#startMs = Math.floor(this.#clock());
    this.#intervalMs = intervalMs;
    this.#build = build;
    this.#current = { version: 0, dataset: base, appended: 0, served };
    this.#schedule();
  }

  /** The version requests are answered from now. */
  get current(): LiveVersion<V> {
    return this.#current;
  }

  /** Records due by `nowMs` since the start: floor(elapsed ms * rate / 1000). */
  #due(nowMs: number): number {
    const elapsed = BigInt(Math.max(0, Math.floor(nowMs) - this.#startMs));
    return Number((elapsed * this.#rate.num) / (this.#rate.den * 1000n));
  }

  /** Epoch seconds of record `k` (1-based): its due instant, truncated to whole seconds. */
  #dueSeconds(k: number): number {
    const { num, den } = this.#rate;
    const ms = (BigInt(k) * den * 1000n + num - 1n) / num;
    return Math.floor((this.#startMs + Number(ms)) / 1000);
  }

  /**
   * Appends the records due at `clock()` now (at most {@link MAX_RECORDS_PER_TICK}) and, if
   * there were any, swaps in a new version. Returns the current version afterwards. Does
   * nothing once stopped.
   */
  tick(): LiveVersion<V> {
    const before = this.#current;
    if (this.#stopped) return before;
    const due = Math.min(this.#due(this.#clock()), before.appended + MAX_RECORDS_PER_TICK);
    if (due <= before.appended) return before;
    const batch: Batch = { tags: [], opens: [], clicks: [] };
    for (let k = before.appended + 1; k <= due; k++) {
      this.#generator.next(this.#dueSeconds(k), batch);
    }
    const d = before.dataset;
    const dataset: Dataset = {
      teams: d.teams,
      tags: batch.tags.length > 0 ? d.tags.concat(batch.tags) : d.tags,
      opens: batch.opens.length > 0 ? d.opens.concat(batch.opens) : d.opens,
      clicks: batch.clicks.length > 0 ? d.clicks.concat(batch.clicks) : d.clicks,
      credentials: d.credentials,
    };
    const t0 = performance.now();
    const served = this.#build(dataset);
    this.#lastBuildMs = performance.now() - t0;
    this.#current = { version: before.version + 1, dataset, appended: due, served };
    return this.#current;
  }

  /** Milliseconds the last swap spent building its index and store (0 before the first). */
  get lastBuildMs(): number {
    return this.#lastBuildMs;
  }

  /** Stops appending for good: clears the timer; the current version stays. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#stopped) return;
    const delay = Math.max(this.#intervalMs, 4 * this.#lastBuildMs);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.tick();
      this.#schedule();
    }, delay);
    this.#timer.unref();
  }
}
