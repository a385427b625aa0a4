import { dailyCounts, recipientEmails, tagCounters } from '../aggregate/rules.ts';
import { dayNumber, parseTimestampMs } from '../aggregate/time.ts';
import type { Tag } from '../tag.ts';
import {
  CONTACT_ENDPOINTS,
  countersOf,
  firstOf,
  KINDS,
  labelOf,
  STATS_ENDPOINTS,
  TAG_ENDPOINTS,
} from './helpers.ts';
import type { CountedRecord, Law, TagDailySeries, TagOnDay, TagWithEvents } from './types.ts';

/*
 * Laws of tags, contacts and stats records one at a time, of a tag against its events, and
 * of daily counts (docs/spec.md §10, cited spec §10; §10 devices, cited spec §9).
 */

// ---- one record with counters (spec §10, per tag; stats and contacts sum them) ---------

export const uniqueAtMostTotal: Law<CountedRecord> = {
  id: 'AGG-UNIQUE-LE-TOTAL',
  title: 'unique opens/clicks never exceed total opens/clicks',
  clause: 'spec §10 (invariants)',
  endpoints: [...TAG_ENDPOINTS, ...CONTACT_ENDPOINTS, ...STATS_ENDPOINTS],
  check: (r) => {
    const s = countersOf(r);
    return firstOf(KINDS, ({ Kind }) =>
      s[`unique${Kind}`] > s[`total${Kind}`]
        ? `unique${Kind} ${s[`unique${Kind}`]} > total${Kind} ${s[`total${Kind}`]} for ${labelOf(r)}`
        : undefined,
    );
  },
};

export const uniqueZeroIffTotalZero: Law<CountedRecord> = {
  id: 'AGG-UNIQUE-ZERO-IFF-TOTAL-ZERO',
  title: 'unique opens/clicks are 0 exactly when total opens/clicks are 0',
  clause: 'spec §10 (invariants)',
  endpoints: uniqueAtMostTotal.endpoints,
  check: (r) => {
    const s = countersOf(r);
    return firstOf(KINDS, ({ Kind }) =>
      (s[`unique${Kind}`] === 0) !== (s[`total${Kind}`] === 0)
        ? `unique${Kind} ${s[`unique${Kind}`]} but total${Kind} ${s[`total${Kind}`]} for ${labelOf(r)}`
        : undefined,
    );
  },
};

export const deviceAtMostTotal: Law<CountedRecord> = {
  id: 'AGG-DEVICE-LE-TOTAL',
  title:
    'desktop + mobile opens/clicks never exceed the totals (tablets count as mobile, unknown devices in neither; stats records carry no device counters)',
  clause: 'spec §10 (invariants), §9 (device classes)',
  endpoints: [...TAG_ENDPOINTS, ...CONTACT_ENDPOINTS],
  check: (r) => {
    const s = countersOf(r);
    return firstOf(KINDS, ({ Kind }) => {
      const desktop = s[`desktop${Kind}`];
      const mobile = s[`mobile${Kind}`];
      if (desktop === undefined || mobile === undefined) return undefined;
      return desktop + mobile > s[`total${Kind}`]
        ? `desktop${Kind} ${desktop} + mobile${Kind} ${mobile} > total${Kind} ${s[`total${Kind}`]} for ${labelOf(r)}`
        : undefined;
    });
  },
};

export const uniqueAtMostRecipients: Law<CountedRecord> = {
  id: 'AGG-UNIQUE-LE-RECIPIENTS',
  title:
    'unique opens/clicks of a tag never exceed its number of recipients; a contact’s never exceed its totalSent (a stats record names no recipients)',
  clause: 'spec §10 (invariants)',
  endpoints: [...TAG_ENDPOINTS, ...CONTACT_ENDPOINTS],
  check: (r) => {
    if (!('stats' in r)) return undefined;
    const [bound, what] =
      'tagID' in r
        ? [recipientEmails([r]).length, 'recipients']
        : [r.stats.totalSent, `totalSent ${r.stats.totalSent}`];
    return firstOf(KINDS, ({ Kind }) =>
      r.stats[`unique${Kind}`] > bound
        ? `unique${Kind} ${r.stats[`unique${Kind}`]} > ${what === 'recipients' ? `${bound} recipients` : what} for ${labelOf(r)}`
        : undefined,
    );
  },
};

// ---- a tag and its events (spec §10, per tag; §8 devices) -------------------------------

export const uniqueOpensAreDistinctRecipients: Law<TagWithEvents> = {
  id: 'REL-TAG-COUNTERS-EVENTS',
  title:
    'unique opens are distinct recipients: a tag’s uniqueOpens (uniqueClicks) is the number of distinct recipients (normalised emails) with an open (click) of it; its total counters count its events, desktop and mobile ones by device (tablet as mobile)',
  clause: 'spec §10 (per tag), §9 (device classes)',
  endpoints: [...TAG_ENDPOINTS, 'opens.list', 'clicks.list', 'opens.tag', 'clicks.tag'],
  check: ({ tag, opens, clicks }) => {
    const want = tagCounters(tag, opens, clicks);
    return firstOf(KINDS, ({ Kind, kind, verb }) => {
      const says = (field: keyof Tag['stats'], what: string) =>
        tag.stats[field] === want[field]
          ? undefined
          : `tag ${tag.tagID}: ${field} ${tag.stats[field]}, but ${want[field]} ${what}`;
      return (
        says(`unique${Kind}`, `distinct recipients ${verb} it`) ??
        says(`total${Kind}`, `${kind.slice(0, -1)} events are listed for it`) ??
        says(`desktop${Kind}`, `of its ${kind} are from a desktop`) ??
        says(`mobile${Kind}`, `of its ${kind} are from a mobile or tablet`)
      );
    });
  },
};

// ---- daily counts (spec §10, daily counts; endpoint 14) ---------------------------------

export const dailyAtMostUnique: Law<Pick<TagOnDay, 'tag' | 'date' | 'daily'>> = {
  id: 'AGG-DAILY-LE-UNIQUE',
  title: 'daily opens/clicks of a tag never exceed its uniqueOpens/uniqueClicks',
  clause: 'spec §10 (daily counts)',
  endpoints: ['tags.daily', ...TAG_ENDPOINTS],
  check: ({ tag, date, daily }) =>
    firstOf(KINDS, ({ kind, Kind }) =>
      daily[kind] > tag.stats[`unique${Kind}`]
        ? `daily ${kind} ${daily[kind]} > unique${Kind} ${tag.stats[`unique${Kind}`]} for tag ${tag.tagID} on ${date}`
        : undefined,
    ),
};

export const dailyZeroBeforeSend: Law<Pick<TagOnDay, 'tag' | 'date' | 'daily'>> = {
  id: 'AGG-DAILY-ZERO-BEFORE-SEND',
  title: 'daily counts are 0 on the days before the tag was sent',
  clause: 'spec §10 (daily counts)',
  endpoints: ['tags.daily', ...TAG_ENDPOINTS],
  check: ({ tag, date, daily }) =>
    dayNumber(date) < Math.floor(parseTimestampMs(tag.dateSent) / 86_400_000) &&
    (daily.opens !== 0 || daily.clicks !== 0)
      ? `daily opens ${daily.opens}, clicks ${daily.clicks} on ${date}, before tag ${tag.tagID} was sent (${tag.dateSent})`
      : undefined,
};

export const dailyAreDistinctRecipients: Law<
  Omit<TagOnDay, 'tag'> & { readonly tag: Pick<Tag, 'tagID'> }
> = {
  id: 'REL-DAILY-DISTINCT-RECIPIENTS',
  title:
    'daily counts of a tag on a day are the distinct recipients with an open (click) of it that UTC day',
  clause: 'spec §10 (daily counts)',
  endpoints: ['tags.daily', 'opens.list', 'clicks.list'],
  check: ({ tag, date, daily, opens, clicks }) => {
    const want = dailyCounts(tag, opens, clicks, date);
    return firstOf(KINDS, ({ kind, verb }) =>
      daily[kind] !== want[kind]
        ? `daily ${kind} ${daily[kind]} for tag ${tag.tagID} on ${date}, but ${want[kind]} distinct recipients ${verb} it that day`
        : undefined,
    );
  },
};

export const dailySumAtLeastUnique: Law<TagDailySeries> = {
  id: 'AGG-DAILY-SUM-GE-UNIQUE',
  title:
    'the daily opens/clicks of a tag summed over its event days are at least its unique counts',
  clause: 'spec §10 (daily counts)',
  endpoints: ['tags.daily', ...TAG_ENDPOINTS, 'opens.tag', 'clicks.tag'],
  check: ({ tag, days }) =>
    firstOf(KINDS, ({ kind, Kind }) => {
      const sum = days.reduce((s, d) => s + d.daily[kind], 0);
      return sum < tag.stats[`unique${Kind}`]
        ? `daily ${kind} summed over ${days.length} days = ${sum} < unique${Kind} ${tag.stats[`unique${Kind}`]} for tag ${tag.tagID}`
        : undefined;
    }),
};
