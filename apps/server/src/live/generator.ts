/**
 * The live generator (spec §5 Revision 3): the options and rate of live data, and
 * {@link LiveGenerator}, which draws the appended tags, opens and clicks one at a time from a
 * seed (the shares, recipients and determinism described in live.ts's module comment). Both
 * the in-memory live data (live.ts) and the appender through an engine (live/appender.ts)
 * draw from it.
 */
import {
  type Dataset,
  type DatasetEvent,
  type DatasetTag,
  formatTimestamp,
  normaliseEmail,
  type Recipient,
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
 * The seed and the interval of a live generator's options (`seed` default 1, `intervalMs`
 * default 200 ms). Throws a `RangeError` naming the value for a seed that is not a safe
 * integer or an interval that is not a finite number >= 0.
 */
export function liveSchedule(options: { readonly seed?: number; readonly intervalMs?: number }): {
  seed: number;
  intervalMs: number;
} {
  const seed = options.seed ?? 1;
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`invalid live seed ${String(seed)}: expected an integer`);
  }
  const intervalMs = options.intervalMs ?? 200;
  if (!Number.isFinite(intervalMs) || intervalMs < 0) {
    throw new RangeError(`invalid live interval ${String(intervalMs)}: expected milliseconds >= 0`);
  }
  return { seed, intervalMs };
}

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

export interface Batch {
  readonly tags: DatasetTag[];
  readonly opens: DatasetEvent[];
  readonly clicks: DatasetEvent[];
}

/**
 * Draws the records appended to a dataset, one at a time, deterministically from a seed
 * (see live.ts's module comment for the shares). Keeps per-team state (members, sent tags,
 * contacts) updated with the tags it appends.
 */
export class LiveGenerator {
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
