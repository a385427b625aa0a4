import * as z from 'zod';
import type { Device } from '../events.ts';
import type { AccountType } from '../member.ts';
import { CalendarDate, DAY_MS, dayStartMs, formatTimestamp } from '../values.ts';
import { AGENTS, type GeoLocation, LOCATIONS, PROXY_LOCATION } from './locations.ts';
import { Prng } from './prng.ts';
import type {
  Dataset,
  DatasetCredential,
  DatasetEvent,
  DatasetMember,
  DatasetTag,
  DatasetTeam,
} from './schema.ts';
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

/** At most this many opens of one tag by one recipient (1 + capped repeat opens). */
export const MAX_OPENS_PER_RECIPIENT = 8;
/** At most this many clicks of one tag by one recipient. */
export const MAX_CLICKS_PER_RECIPIENT = 5;
/** Every event falls within this many days after its tag's `dateSent` (strictly after it). */
export const MAX_EVENT_DELAY_DAYS = 32;

const HOUR_S = 3600;
const DAY_S = 86_400;

const Rate = z.number().min(0).max(1);
const Count = (max: number) => z.int().min(0).max(max);

/**
 * The size and shape of a generated dataset. Counts are per parent (members per team, tags per
 * member...); rates are probabilities in [0, 1]:
 * - `openRate`: a recipient of a tag opens it;
 * - `repeatOpenRate`: after each open, one more (capped at {@link MAX_OPENS_PER_RECIPIENT});
 * - `clickRate`: a recipient who opened also clicks;
 * - `repeatClickRate`: after each click, one more (capped at {@link MAX_CLICKS_PER_RECIPIENT});
 * - `clicksWithoutOpenRate`: a recipient who did not open clicks anyway (images blocked; §9).
 * `dateRange` bounds the tags' `dateSent` (whole UTC days, inclusive); events follow within
 * {@link MAX_EVENT_DELAY_DAYS} days. `contactPoolSize` is the number of distinct contacts that
 * recipients are drawn from (shared across tags, so contacts receive several tags).
 * Member roles per team, in order: admin, manager with the first group, manager without a
 * group, user without a group, then users spread over the groups (with one manager for each
 * further group when the team is large enough).
 */
export const Scale = z
  .object({
    teams: Count(1000).min(1),
    membersPerTeam: Count(10_000).min(1),
    groupsPerTeam: Count(1000),
    tagsPerMember: Count(1_000_000),
    recipientsPerTag: z
      .object({ min: Count(1000).min(1), max: Count(1000).min(1) })
      .refine((r) => r.min <= r.max, 'recipientsPerTag.min must be <= recipientsPerTag.max'),
    contactPoolSize: Count(10_000_000).min(1),
    openRate: Rate,
    repeatOpenRate: Rate,
    clickRate: Rate,
    repeatClickRate: Rate,
    clicksWithoutOpenRate: Rate,
    dateRange: z
      .object({ start: CalendarDate, end: CalendarDate })
      .refine((r) => r.start <= r.end, 'dateRange.start must not be after dateRange.end')
      .refine(
        (r) => r.start >= '2000-01-01' && r.end <= '2099-11-30',
        'dateRange must lie within 2000-01-01 and 2099-11-30',
      ),
  })
  .meta({ id: 'Scale' });
export type Scale = z.infer<typeof Scale>;

/** Names of the built-in scales. */
export const SCALE_NAMES = ['tiny', 'small', 'medium', 'large'] as const;
export type ScaleName = (typeof SCALE_NAMES)[number];

const BASE_RATES = {
  openRate: 0.55,
  repeatOpenRate: 0.45,
  clickRate: 0.35,
  repeatClickRate: 0.25,
  clicksWithoutOpenRate: 0.05,
} as const;

const DEFAULT_DATE_RANGE = { start: '2023-01-01', end: '2025-11-15' } as const;

/**
 * The built-in scales: `tiny` (1 team of 5, ~225 events; for unit tests), `small` (2 teams of
 * 6, 300 tags, ~2,500 events; the canonical dataset's scale), `medium` (~100,000 events) and
 * `large` (~1,090,000 events, always over one million).
 */
export const SCALES: Readonly<Record<ScaleName, Scale>> = {
  tiny: {
    teams: 1,
    membersPerTeam: 5,
    groupsPerTeam: 1,
    tagsPerMember: 10,
    recipientsPerTag: { min: 1, max: 6 },
    contactPoolSize: 40,
    ...BASE_RATES,
    dateRange: { start: '2024-01-01', end: '2024-12-31' },
  },
  small: {
    teams: 2,
    membersPerTeam: 6,
    groupsPerTeam: 2,
    tagsPerMember: 25,
    recipientsPerTag: { min: 1, max: 12 },
    contactPoolSize: 400,
    ...BASE_RATES,
    dateRange: DEFAULT_DATE_RANGE,
  },
  medium: {
    teams: 4,
    membersPerTeam: 12,
    groupsPerTeam: 3,
    tagsPerMember: 250,
    recipientsPerTag: { min: 1, max: 12 },
    contactPoolSize: 20_000,
    ...BASE_RATES,
    dateRange: DEFAULT_DATE_RANGE,
  },
  large: {
    teams: 10,
    membersPerTeam: 20,
    groupsPerTeam: 4,
    tagsPerMember: 650,
    recipientsPerTag: { min: 1, max: 12 },
    contactPoolSize: 100_000,
    ...BASE_RATES,
    dateRange: DEFAULT_DATE_RANGE,
  },
};

/** `1 + r + r^2 + ... + r^(cap-1)`: the mean of 1 + a geometric count of repeats capped at cap. */
function cappedRepeatMean(rate: number, cap: number): number {
  let sum = 0;
  let term = 1;
  for (let i = 0; i < cap; i++) {
    sum += term;
    term *= rate;
  }
  return sum;
}

/**
 * The expected number of events (opens plus clicks) a scale generates, from its counts and
 * rates. A generated dataset's actual count varies around it (binomial noise).
 */
export function expectedEvents(scale: Scale): number {
  const tags = scale.teams * scale.membersPerTeam * scale.tagsPerMember;
  const { min, max } = scale.recipientsPerTag;
  let recipients = 0;
  for (let k = min; k <= max; k++) recipients += Math.min(k, scale.contactPoolSize);
  recipients /= max - min + 1;
  const opens = cappedRepeatMean(scale.repeatOpenRate, MAX_OPENS_PER_RECIPIENT);
  const clicks = cappedRepeatMean(scale.repeatClickRate, MAX_CLICKS_PER_RECIPIENT);
  const perRecipient =
    scale.openRate * opens +
    scale.openRate * scale.clickRate * clicks +
    (1 - scale.openRate) * scale.clicksWithoutOpenRate * clicks;
  return tags * recipients * perRecipient;
}

const dayPrefixes = new Map<number, string>();
const timeSuffixes: string[] = [];

/**
 * `formatTimestamp(epochSeconds * 1000)` for whole epoch seconds, several times faster: the
 * `YYYY-MM-DDT` prefix comes from `Date` once per day and the `HH:MM:SSZ` suffix once per
 * second of the day, both cached. Generating a million events formats a million timestamps.
 */
export function formatEpochSeconds(epochSeconds: number): string {
  const day = Math.floor(epochSeconds / DAY_S);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    prefix = formatTimestamp(day * DAY_MS).slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  const second = epochSeconds - day * DAY_S;
  let suffix = timeSuffixes[second];
  if (suffix === undefined) {
    suffix = formatTimestamp(second * 1000).slice(11);
    timeSuffixes[second] = suffix;
  }
  return prefix + suffix;
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/**
 * A scale expected to generate about `events` events (opens plus clicks), with the `small`
 * scale's rates: within a few percent for `events` >= 1,000 (within ~20% from about 100).
 * Throws `RangeError` unless `events` is a positive safe integer.
 */
export function scaleForEvents(events: number): Scale {
  if (!Number.isSafeInteger(events) || events < 1) {
    throw new RangeError(`events must be a positive integer, got ${String(events)}`);
  }
  const recipientsPerTag = { min: 1, max: 12 };
  const perTag = expectedEvents({
    ...SCALES.small,
    teams: 1,
    membersPerTeam: 1,
    tagsPerMember: 1,
    recipientsPerTag,
  });
  const tags = events / perTag;
  const teams = clamp(Math.ceil(tags / 5_000), 1, 10);
  let membersPerTeam = clamp(Math.ceil(tags / teams / 200), 6, 50);
  if (tags < membersPerTeam * teams) membersPerTeam = Math.max(1, Math.round(tags / teams));
  const tagsPerMember = Math.max(1, Math.round(tags / (teams * membersPerTeam)));
  const totalTags = teams * membersPerTeam * tagsPerMember;
  return {
    ...SCALES.small,
    teams,
    membersPerTeam,
    groupsPerTeam: clamp(Math.floor(membersPerTeam / 4), 1, 10),
    tagsPerMember,
    recipientsPerTag,
    contactPoolSize: clamp(Math.round((totalTags * 6.5) / 5), 20, 200_000),
  };
}

/** Options of {@link generateDataset}: a seed (any safe integer) and a scale or scale name. */
export interface GenerateOptions {
  readonly seed: number;
  readonly scale: ScaleName | Scale;
}

/** Resolves a scale name or validates a scale; throws `RangeError` naming what was wrong. */
export function resolveScale(scale: ScaleName | Scale): Scale {
  if (typeof scale === 'string') {
    if (!(SCALE_NAMES as readonly string[]).includes(scale)) {
      throw new RangeError(`unknown scale "${scale}"; expected one of ${SCALE_NAMES.join(', ')}`);
    }
    return SCALES[scale];
  }
  const parsed = Scale.safeParse(scale);
  if (!parsed.success) throw new RangeError(`invalid scale:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DEVICES: readonly Device[] = ['desktop', 'mobile', 'tablet', 'unknown'];
/** Cumulative weights of desktop, mobile, tablet, unknown: 50%, 30%, 10%, 10%. */
const DEVICE_CUMULATIVE = [0.5, 0.8, 0.9, 1];
/** Share of events whose recipient email differs from the tag's in case or whitespace. */
const EMAIL_VARIANT_RATE = 0.05;

function randomDevice(rng: Prng): Device {
  const u = rng.float();
  const i = DEVICE_CUMULATIVE.findIndex((w) => u < w);
  return DEVICES[i] ?? 'desktop';
}

/** A recipient as the pool holds it: name, email, home location and usual device. */
interface PoolContact {
  readonly name: string;
  readonly email: string;
  readonly home: GeoLocation;
  readonly device: Device;
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

/** The email as an event may carry it: same contact after trim + lowercase (decisions §9). */
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

/** Mints 24-lowercase-hex ids (decisions §8) from the generator, never repeating one. */
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
 * Generates a referentially consistent {@link Dataset} (decisions §9 event log), fully
 * determined by `seed` and `scale` (same inputs, deep-equal output, on any engine).
 *
 * The dataset has `scale.teams` teams with groups and members of all three account types
 * (see {@link Scale} for the roles), one credential per member (`authId`: 20 uppercase
 * alphanumerics; `accessKey`: 40 lowercase hex), tags with subjects that include
 * {@link HOSTILE_SUBJECTS}, recipients drawn from a shared contact pool, and open and click
 * events strictly after their tag's `dateSent`, some on later days, with repeat opens, clicks
 * without opens, all four device classes, locations from {@link LOCATIONS}, and some event
 * emails differing from the recipient's in case or surrounding whitespace. Ids are 24 lowercase
 * hex (decisions §8); timestamps are `YYYY-MM-DDTHH:MM:SSZ`.
 * Events are listed per tag and recipient, not in date order.
 * Throws `RangeError` for a seed that is not a safe integer or an invalid scale.
 */
export function generateDataset(options: GenerateOptions): Dataset {
  const scale = resolveScale(options.scale);
  const rng = new Prng(options.seed);
  const ids = new IdMinter(rng);

  const pool: PoolContact[] = [];
  for (let i = 0; i < scale.contactPoolSize; i++) {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    const style = rng.float();
    const name =
      style < 0.02
        ? ''
        : style < 0.05
          ? `${last.display}, ${first.display}`
          : `${first.display} ${last.display}`;
    pool.push({
      name,
      email: `${first.slug}.${last.slug}${i + 1}@${rng.pick(CONTACT_DOMAINS)}`,
      home: rng.pick(LOCATIONS),
      device: randomDevice(rng),
    });
  }

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

  const event = (tagID: string, contact: PoolContact, epochS: number): DatasetEvent => {
    const device = rng.chance(0.75) ? contact.device : randomDevice(rng);
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
  };

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
            : rng.chance(0.08)
              ? rng.pick(HOSTILE_SUBJECTS)
              : fillSubject(rng, rng.pick(SUBJECTS));
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
