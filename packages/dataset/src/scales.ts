import { CalendarDate, DAY_MS, formatTimestamp } from '@tagtrack/core';
import * as z from 'zod';

/**
 * The sizes of generated datasets (scales) and the expected number of events of a scale:
 * the knobs of {@link generateDataset} (generate.ts), kept apart from the generator itself.
 */

/** At most this many opens of one tag by one recipient (1 + capped repeat opens). */
export const MAX_OPENS_PER_RECIPIENT = 8;
/** At most this many clicks of one tag by one recipient. */
export const MAX_CLICKS_PER_RECIPIENT = 5;
/** Every event falls within this many days after its tag's `dateSent` (strictly after it). */
export const MAX_EVENT_DELAY_DAYS = 32;

/** Seconds in an hour and in a day. */
export const HOUR_S = 3600;
export const DAY_S = 86_400;

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
