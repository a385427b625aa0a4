import type {
  AccountType,
  Dataset,
  DatasetCredential,
  DatasetEvent,
  DatasetMember,
  DatasetTag,
  DatasetTeam,
  Device,
} from '@tagtrack/core';
import { DAY_MS, dayStartMs } from '@tagtrack/core';
import { withEdgeCases } from './edge-cases.ts';
import { AGENTS, type GeoLocation, LOCATIONS, PROXY_LOCATION } from './locations.ts';
import { Prng } from './prng.ts';
import {
  DAY_S,
  formatEpochSeconds,
  type GenerateOptions,
  HOUR_S,
  MAX_CLICKS_PER_RECIPIENT,
  MAX_EVENT_DELAY_DAYS,
  MAX_OPENS_PER_RECIPIENT,
  resolveScale,
  type ScaleName,
} from './scales.ts';
import {
  CONTACT_DOMAINS,
  FIRST_NAMES,
  GROUP_NAMES,
  HOSTILE_SUBJECTS,
  LAST_NAMES,
  SUBJECTS,
  TEAM_NAMES,
  WEEKDAYS,
} from './vocabulary.ts';

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DEVICES: readonly Device[] = ['desktop', 'mobile', 'tablet', 'unknown'];
/** Cumulative weights of desktop, mobile, tablet, unknown: 50%, 30%, 10%, 10%. */
const DEVICE_CUMULATIVE = [0.5, 0.8, 0.9, 1];
/** Share of events whose recipient email differs from the tag's in case or whitespace. */
const EMAIL_VARIANT_RATE = 0.05;

/**
 * A device class drawn as the generator draws a contact's usual device: desktop 50%, mobile
 * 30%, tablet 10%, unknown 10%. Consumes one draw of `rng`.
 */
export function generatedDevice(rng: Prng): Device {
  const u = rng.float();
  const i = DEVICE_CUMULATIVE.findIndex((w) => u < w);
  return DEVICES[i] ?? 'desktop';
}

/**
 * A recipient as the generator's contact pool holds it: display name, email, home location
 * and usual device (events of the contact mostly come from there, on that device).
 */
export interface GeneratedContact {
  readonly name: string;
  readonly email: string;
  readonly home: GeoLocation;
  readonly device: Device;
}

/**
 * The `i`-th contact of a generated pool (0-based), drawn from `rng` as {@link generateDataset}
 * draws its pool: a name from the vocabulary (sometimes empty or `Last, First`), the email
 * `first.last<i + 1>@domain` (distinct `i`, distinct email), a home location and a device.
 */
export function generatedContact(rng: Prng, i: number): GeneratedContact {
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const style = rng.float();
  const name =
    style < 0.02
      ? ''
      : style < 0.05
        ? `${last.display}, ${first.display}`
        : `${first.display} ${last.display}`;
  return {
    name,
    email: `${first.slug}.${last.slug}${i + 1}@${rng.pick(CONTACT_DOMAINS)}`,
    home: rng.pick(LOCATIONS),
    device: generatedDevice(rng),
  };
}

/**
 * One open or click of tag `tagID` by `contact` at `epochS` (epoch seconds, rendered
 * `YYYY-MM-DDTHH:MM:SSZ`), with details as {@link generateDataset} draws them: the contact's
 * device 75% of the time, its home location 85% (a proxy location for most unknown devices),
 * an agent of the device class, and 5% of emails respelt (case, surrounding whitespace: the
 * same contact after trim + lowercase, spec §10).
 */
export function generatedEvent(
  rng: Prng,
  tagID: string,
  contact: Pick<GeneratedContact, 'email' | 'home' | 'device'>,
  epochS: number,
): DatasetEvent {
  const device = rng.chance(0.75) ? contact.device : generatedDevice(rng);
  const location =
    device === 'unknown' && rng.chance(0.7)
      ? PROXY_LOCATION
      : rng.chance(0.85)
        ? contact.home
        : rng.pick(LOCATIONS);
  const agent = rng.pick(AGENTS[device]);
  const email = rng.chance(EMAIL_VARIANT_RATE) ? emailVariant(rng, contact.email) : contact.email;
  return {
    tagID,
    email,
    date: formatEpochSeconds(epochS),
    counry: location.counry,
    region: location.region,
    city: location.city,
    latitude: location.latitude,
    longitude: location.longitude,
    device,
    os: agent.os,
    browser: agent.browser,
  };
}

/**
 * A tag subject as the generator writes most of them: 8% one of {@link HOSTILE_SUBJECTS}
 * (HTML metacharacters, quotes, tabs, newlines, emoji), else a filled template of `SUBJECTS`.
 */
export function generatedSubject(rng: Prng): string {
  return rng.chance(0.08) ? rng.pick(HOSTILE_SUBJECTS) : fillSubject(rng, rng.pick(SUBJECTS));
}

/** Seconds from sending to an event: mostly hours, a quarter on the next days, some weeks. */
function sendDelay(rng: Prng): number {
  const u = rng.float();
  if (u < 0.55) return 30 + rng.int(6 * HOUR_S);
  if (u < 0.85) return 6 * HOUR_S + rng.int(3 * DAY_S);
  return 3 * DAY_S + rng.int((MAX_EVENT_DELAY_DAYS - 6) * DAY_S);
}

/** Seconds from a first open to a click: mostly minutes, sometimes a day later. */
function clickDelay(rng: Prng): number {
  return rng.chance(0.85) ? 5 + rng.int(2 * HOUR_S) : 2 * HOUR_S + rng.int(DAY_S);
}

/** How many times, 1 + capped geometric repeats with probability `rate`. */
function repeatCount(rng: Prng, rate: number, cap: number): number {
  let n = 1;
  while (n < cap && rng.chance(rate)) n++;
  return n;
}

/** The email as an event may carry it: same contact after trim + lowercase (spec §10). */
function emailVariant(rng: Prng, email: string): string {
  switch (rng.int(5)) {
    case 0:
      return email.toUpperCase();
    case 1:
      return email.charAt(0).toUpperCase() + email.slice(1);
    case 2:
      return `  ${email}`;
    case 3:
      return `${email} `;
    default:
      return `\t${email.replace(/@.*/, (d) => d.toUpperCase())}`;
  }
}

function fillSubject(rng: Prng, template: string): string {
  return template
    .replace('{company}', rng.pick(TEAM_NAMES).split(' ')[0] ?? 'Acme')
    .replace('{n}', String(rng.between(100, 999)))
    .replace('{day}', rng.pick(WEEKDAYS))
    .replace('{q}', String(rng.between(1, 4)));
}

/** Mints 24-lowercase-hex ids (spec §9) from the generator, never repeating one. */
class IdMinter {
  readonly #seen = new Set<string>();
  constructor(private readonly rng: Prng) {}
  next(): string {
    for (;;) {
      const id = this.rng.hex(24);
      if (!this.#seen.has(id)) {
        this.#seen.add(id);
        return id;
      }
    }
  }
}

interface Role {
  readonly accountType: AccountType;
  readonly group: number | undefined;
}

/** The role of member `i` of team `t` (see {@link Scale}); admins of odd teams join group 0. */
function roleOf(t: number, i: number, groups: number): Role {
  const g0 = groups > 0 ? 0 : undefined;
  if (i === 0) return { accountType: 'admin', group: t % 2 === 1 ? g0 : undefined };
  if (i === 1) return { accountType: 'manager', group: g0 };
  if (i === 2) return { accountType: 'manager', group: undefined };
  if (i === 3) return { accountType: 'user', group: undefined };
  if (groups === 0) return { accountType: 'user', group: undefined };
  const j = i - 4;
  const group = j % groups;
  const manager = j >= groups && j < 2 * groups && group >= 1;
  return { accountType: manager ? 'manager' : 'user', group };
}

function numbered(names: readonly string[], i: number): string {
  const base = names[i % names.length] ?? 'Unnamed';
  const round = Math.floor(i / names.length);
  return round === 0 ? base : `${base} ${round + 1}`;
}

/**
 * Generates a referentially consistent {@link Dataset} (spec §10 event log), fully
 * determined by `seed` and `scale` (same inputs, deep-equal output, on any engine).
 *
 * The dataset has `scale.teams` teams with groups and members of all three account types
 * (see {@link Scale} for the roles), one credential per member (`authId`: 20 uppercase
 * alphanumerics; `accessKey`: 40 lowercase hex), tags with subjects that include
 * {@link HOSTILE_SUBJECTS}, recipients drawn from a shared contact pool, and open and click
 * events strictly after their tag's `dateSent`, some on later days, with repeat opens, clicks
 * without opens, all four device classes, locations from {@link LOCATIONS}, and some event
 * emails differing from the recipient's in case or surrounding whitespace. Ids are 24 lowercase
 * hex (spec §9); timestamps are `YYYY-MM-DDTHH:MM:SSZ`.
 * Events are listed per tag and recipient, not in date order.
 * Throws `RangeError` for a seed that is not a safe integer or an invalid scale.
 */
export function generateDataset(options: GenerateOptions): Dataset {
  const scale = resolveScale(options.scale);
  const rng = new Prng(options.seed);
  const ids = new IdMinter(rng);

  const pool: GeneratedContact[] = [];
  for (let i = 0; i < scale.contactPoolSize; i++) pool.push(generatedContact(rng, i));

  const teams: DatasetTeam[] = [];
  const tags: DatasetTag[] = [];
  const opens: DatasetEvent[] = [];
  const clicks: DatasetEvent[] = [];
  const credentials: DatasetCredential[] = [];
  const authIds = new Set<string>();
  const rangeStart = dayStartMs(scale.dateRange.start) / 1000;
  const rangeSpan = (dayStartMs(scale.dateRange.end) + DAY_MS) / 1000 - rangeStart;
  const sliceSize = Math.max(1, Math.floor(pool.length / scale.teams));
  let memberCount = 0;

  const event = (tagID: string, contact: GeneratedContact, epochS: number): DatasetEvent =>
    generatedEvent(rng, tagID, contact, epochS);

  const times: number[] = [];
  const sortTimes = (n: number, from: number, delay: (rng: Prng) => number): number[] => {
    times.length = 0;
    for (let i = 0; i < n; i++) times.push(from + delay(rng));
    return times.sort((a, b) => a - b);
  };

  for (let t = 0; t < scale.teams; t++) {
    const teamID = ids.next();
    const groups = Array.from({ length: scale.groupsPerTeam }, (_, g) => ({
      groupID: ids.next(),
      groupName: numbered(GROUP_NAMES, g),
    }));
    const members: DatasetMember[] = [];
    const sliceStart = Math.min(t * sliceSize, pool.length - sliceSize);
    const pickContact = (): number =>
      rng.chance(0.2) ? rng.int(pool.length) : sliceStart + rng.int(sliceSize);

    for (let i = 0; i < scale.membersPerTeam; i++) {
      const role = roleOf(t, i, groups.length);
      const first = rng.pick(FIRST_NAMES);
      // Member 5 shares member 4's last name, so ordering by lastname needs its tie-breakers.
      const last =
        i === 5
          ? (LAST_NAMES.find((n) => n.display === members[4]?.lastname) ?? rng.pick(LAST_NAMES))
          : rng.pick(LAST_NAMES);
      const memberID = ids.next();
      const groupID = role.group === undefined ? undefined : groups[role.group]?.groupID;
      const member: DatasetMember = {
        memberID,
        firstname: first.display,
        lastname: last.display,
        email: `${first.slug}.${last.slug}.${i + 1}@team${t + 1}.example.com`,
        accountType: role.accountType,
        ...(groupID === undefined ? {} : { groupID }),
      };
      members.push(member);

      let authId = rng.chars(20, UPPER_ALNUM);
      while (authIds.has(authId)) authId = rng.chars(20, UPPER_ALNUM);
      authIds.add(authId);
      credentials.push({ authId, accessKey: rng.hex(40), memberID });

      for (let j = 0; j < scale.tagsPerMember; j++) {
        const tagID = ids.next();
        const sentS = rangeStart + rng.int(rangeSpan);
        const subject =
          j === 0
            ? (HOSTILE_SUBJECTS[memberCount % HOSTILE_SUBJECTS.length] ?? '')
            : generatedSubject(rng);
        const k = Math.min(
          rng.between(scale.recipientsPerTag.min, scale.recipientsPerTag.max),
          pool.length,
        );
        const chosen: number[] = [];
        while (chosen.length < k) {
          let c = pickContact();
          for (let tries = 0; chosen.includes(c) && tries < 20; tries++) c = pickContact();
          while (chosen.includes(c)) c = (c + 1) % pool.length;
          chosen.push(c);
        }
        const recipients = chosen.map((c) => {
          const contact = pool[c]!;
          return { name: contact.name, email: contact.email };
        });
        tags.push({
          tagID,
          memberID,
          subject,
          dateSent: formatEpochSeconds(sentS),
          recipients,
        });

        for (const c of chosen) {
          const contact = pool[c]!;
          if (rng.chance(scale.openRate)) {
            const n = repeatCount(rng, scale.repeatOpenRate, MAX_OPENS_PER_RECIPIENT);
            const openTimes = sortTimes(n, sentS, sendDelay);
            const firstOpen = openTimes[0]!;
            for (const s of openTimes) opens.push(event(tagID, contact, s));
            if (rng.chance(scale.clickRate)) {
              const m = repeatCount(rng, scale.repeatClickRate, MAX_CLICKS_PER_RECIPIENT);
              for (const s of sortTimes(m, firstOpen, clickDelay)) {
                clicks.push(event(tagID, contact, s));
              }
            }
          } else if (rng.chance(scale.clicksWithoutOpenRate)) {
            const m = repeatCount(rng, scale.repeatClickRate, MAX_CLICKS_PER_RECIPIENT);
            for (const s of sortTimes(m, sentS, sendDelay)) clicks.push(event(tagID, contact, s));
          }
        }
      }
      memberCount++;
    }
    teams.push({ teamID, name: numbered(TEAM_NAMES, t), groups, members });
  }

  return { teams, tags, opens, clicks, credentials };
}

/** The seed of the committed canonical dataset (`canonical.json`, `pnpm generate`). */
export const CANONICAL_SEED = 20_240_305;
/** The scale of the committed canonical dataset: 2 teams of 6 members, 300 tags. */
export const CANONICAL_SCALE: ScaleName = 'small';

/**
 * The canonical dataset as committed (`canonical.json`): {@link generateDataset} from
 * {@link CANONICAL_SEED} at {@link CANONICAL_SCALE}, then {@link withEdgeCases} (a few
 * records changed so that rules the generator never hits by chance are exercised).
 */
export function generateCanonicalDataset(): Dataset {
  return withEdgeCases(generateDataset({ seed: CANONICAL_SEED, scale: CANONICAL_SCALE }));
}
