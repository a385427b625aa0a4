import {
  type Dataset,
  type DatasetEvent,
  type DatasetTag,
  formatTimestamp,
  type LiveEngine,
  normaliseEmail,
  type Recipient,
  type ReportingIndex,
} from '@tagtrack/core';
import {
  type GeneratedContact,
  generatedContact,
  generatedDevice,
  generatedEvent,
  generatedSubject,
  LOCATIONS,
  Prng,
} from '@tagtrack/dataset';

/**
 * Live data (spec §5 Revision 3: data may change while a client reads it): the server
 * appends tags, opens and clicks to every team of its dataset at a steady rate, and answers
 * each request from one immutable version of the data.
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

/** Options of the live data (`ServerOptions.live`; CLI `--live RATE --live-seed N`). */
export interface LiveOptions {
  /** Appended records (tags, opens and clicks) per second over the whole dataset: finite, > 0. */
  readonly rate: number;
  /** Seed of the appended records (a safe integer); default 1. */
  readonly seed?: number;
  /** Epoch milliseconds now; default `Date.now` (tests inject a controlled clock). */
  readonly clock?: () => number;
  /** Least milliseconds between two ticks of the timer; default 200. */
  readonly intervalMs?: number;
}

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

/** At most this many records are appended by one tick; the rest are due at the next ones. */
export const MAX_RECORDS_PER_TICK = 10_000;

/** Shares of the appended records: new tags, then opens; the rest are clicks. */
const TAG_SHARE = 0.05;
const OPEN_SHARE = 0.665;
/** Share of a new tag's recipients that are new contacts. */
const NEW_CONTACT_SHARE = 0.2;
/** Events go to one of the team's this many most recently sent tags this often. */
const RECENT_TAGS = 25;
const RECENT_SHARE = 0.6;

/**
 * Checks a live rate and returns it as the exact fraction `num / den` of its shortest decimal
 * form (`0.05` is 5/100). Throws a `RangeError` naming the value unless it is a finite
 * number > 0.
 */
export function liveRate(rate: number): { num: bigint; den: bigint } {
  const m =
    Number.isFinite(rate) && rate > 0
      ? /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(rate))
      : null;
  if (m === null) {
    throw new RangeError(
      `invalid live rate ${String(rate)}: expected records (tags, opens, clicks) per second > 0`,
    );
  }
  const fraction = m[2] ?? '';
  const exponent = Number(m[3] ?? 0) - fraction.length;
  const digits = BigInt(`${m[1]}${fraction}`);
  return exponent >= 0
    ? { num: digits * 10n ** BigInt(exponent), den: 1n }
    : { num: digits, den: 10n ** BigInt(-exponent) };
}

/** A team as the live generator draws from it. */
interface LiveTeam {
  readonly memberIDs: readonly string[];
  /** Tags with at least one recipient, by `dateSent` (epoch seconds) ascending. */
  readonly tags: {
    readonly tagID: string;
    readonly sentS: number;
    readonly recipients: readonly Recipient[];
  }[];
  /** Distinct contacts of the team's tags (first spelling and name), and their normalised emails. */
  readonly contacts: Recipient[];
  readonly contactKeys: Set<string>;
}

/** FNV-1a over a string's UTF-16 code units: a 32-bit seed for a contact's profile. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The appended records of one tick, by table. */
interface Batch {
  readonly tags: DatasetTag[];
  readonly opens: DatasetEvent[];
  readonly clicks: DatasetEvent[];
}

/**
 * Draws the records appended to a dataset, one at a time, deterministically from a seed
 * (see the module comment for the shares). Keeps per-team state (members, sent tags,
 * contacts) updated with the tags it appends.
 */
class LiveGenerator {
  readonly #rng: Prng;
  readonly #seed: number;
  readonly #teams: LiveTeam[] = [];
  readonly #tagIDs: Set<string>;
  readonly #emails = new Set<string>();
  readonly #profiles = new Map<string, Pick<GeneratedContact, 'home' | 'device'>>();
  #nextContact: number;

  constructor(dataset: Dataset, seed: number) {
    this.#rng = new Prng(seed);
    this.#seed = seed;
    this.#tagIDs = new Set(dataset.tags.map((t) => t.tagID));
    const teamOf = new Map<string, LiveTeam>();
    for (const team of dataset.teams) {
      if (team.members.length === 0) continue;
      const live: LiveTeam = {
        memberIDs: team.members.map((m) => m.memberID),
        tags: [],
        contacts: [],
        contactKeys: new Set(),
      };
      this.#teams.push(live);
      for (const m of team.members) teamOf.set(m.memberID, live);
    }
    for (const tag of dataset.tags) {
      for (const r of tag.recipients) this.#emails.add(normaliseEmail(r.email));
      const team = teamOf.get(tag.memberID);
      if (team === undefined) continue;
      this.#addTag(team, tag);
    }
    for (const team of this.#teams) team.tags.sort((a, b) => a.sentS - b.sentS);
    this.#nextContact = this.#emails.size;
  }

  /** Whether any team has a member (otherwise nothing can be appended). */
  get canAppend(): boolean {
    return this.#teams.length > 0;
  }

  #addTag(team: LiveTeam, tag: DatasetTag): void {
    for (const r of tag.recipients) {
      const key = normaliseEmail(r.email);
      if (team.contactKeys.has(key)) continue;
      team.contactKeys.add(key);
      team.contacts.push(r);
    }
    if (tag.recipients.length > 0) {
      team.tags.push({
        tagID: tag.tagID,
        sentS: Math.floor(Date.parse(tag.dateSent) / 1000),
        recipients: tag.recipients,
      });
    }
  }

  /** A contact's home and usual device: fixed per normalised email and seed. */
  #profile(email: string): Pick<GeneratedContact, 'home' | 'device'> {
    const key = normaliseEmail(email);
    let p = this.#profiles.get(key);
    if (p === undefined) {
      const rng = new Prng((hash32(key) ^ this.#seed) >>> 0);
      p = { home: rng.pick(LOCATIONS), device: generatedDevice(rng) };
      this.#profiles.set(key, p);
    }
    return p;
  }

  /** Appends one record dated `epochS` (epoch seconds) to `batch`. */
  next(epochS: number, batch: Batch): void {
    const rng = this.#rng;
    const team = rng.pick(this.#teams);
    // the team's tags already sent at epochS: a prefix of its tags by send date
    let sent = team.tags.length;
    while (sent > 0 && team.tags[sent - 1]!.sentS > epochS) sent--;
    const u = rng.float();
    if (u < TAG_SHARE || sent === 0) {
      batch.tags.push(this.#newTag(team, epochS));
      return;
    }
    const i = rng.chance(RECENT_SHARE)
      ? sent - 1 - rng.int(Math.min(sent, RECENT_TAGS))
      : rng.int(sent);
    const tag = team.tags[i]!;
    const r = rng.pick(tag.recipients);
    const event = generatedEvent(
      rng,
      tag.tagID,
      { email: r.email, ...this.#profile(r.email) },
      epochS,
    );
    (u < TAG_SHARE + OPEN_SHARE ? batch.opens : batch.clicks).push(event);
  }

  #newTag(team: LiveTeam, epochS: number): DatasetTag {
    const rng = this.#rng;
    let tagID = rng.hex(24);
    while (this.#tagIDs.has(tagID)) tagID = rng.hex(24);
    this.#tagIDs.add(tagID);
    const memberID = rng.pick(team.memberIDs);
    const subject = generatedSubject(rng);
    const k = rng.between(1, 6);
    const recipients: Recipient[] = [];
    const chosen = new Set<string>();
    for (let n = 0; n < k; n++) {
      if (team.contacts.length > 0 && !rng.chance(NEW_CONTACT_SHARE)) {
        const c = rng.pick(team.contacts);
        const key = normaliseEmail(c.email);
        if (chosen.has(key)) continue;
        chosen.add(key);
        recipients.push({ name: c.name, email: c.email });
        continue;
      }
      let contact = generatedContact(rng, this.#nextContact++);
      while (this.#emails.has(normaliseEmail(contact.email))) {
        contact = generatedContact(rng, this.#nextContact++);
      }
      const key = normaliseEmail(contact.email);
      this.#emails.add(key);
      this.#profiles.set(key, { home: contact.home, device: contact.device });
      chosen.add(key);
      recipients.push({ name: contact.name, email: contact.email });
    }
    const tag: DatasetTag = {
      tagID,
      memberID,
      subject,
      dateSent: formatTimestamp(epochS * 1000),
      recipients,
    };
    this.#addTag(team, tag);
    // a tag sent now is the team's latest (tags dated later than now stay after it)
    const tags = team.tags;
    let at = tags.length - 1;
    while (at > 0 && tags[at - 1]!.sentS > epochS) {
      [tags[at - 1], tags[at]] = [tags[at]!, tags[at - 1]!];
      at--;
    }
    return tag;
  }
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
    const seed = options.seed ?? 1;
    if (!Number.isSafeInteger(seed)) {
      throw new RangeError(`invalid live seed ${String(seed)}: expected an integer`);
    }
    const intervalMs = options.intervalMs ?? 200;
    if (!Number.isFinite(intervalMs) || intervalMs < 0) {
      throw new RangeError(
        `invalid live interval ${String(intervalMs)}: expected milliseconds >= 0`,
      );
    }
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
    const seed = options.seed ?? 1;
    if (!Number.isSafeInteger(seed)) {
      throw new RangeError(`invalid live seed ${String(seed)}: expected an integer`);
    }
    const intervalMs = options.intervalMs ?? 200;
    if (!Number.isFinite(intervalMs) || intervalMs < 0) {
      throw new RangeError(
        `invalid live interval ${String(intervalMs)}: expected milliseconds >= 0`,
      );
    }
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
