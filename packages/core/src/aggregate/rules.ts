import type { Contact } from '../contact.ts';
import type { DatasetEvent, DatasetMember, DatasetTag, DatasetTeam } from '../dataset/schema.ts';
import { normaliseEmail } from '../dataset/schema.ts';
import type { ClickDetails, DailyCounts, EventRecipient, OpenDetails } from '../events.ts';
import type { TeamMember } from '../member.ts';
import { emptyStats, type StatsSummary } from '../stats.ts';
import type { Tag, TagCounters } from '../tag.ts';
import { DAY_MS, formatTimestamp, type Timestamp } from '../values.ts';
import { withFields } from '../with-fields.ts';
import { contactIdOf } from './contact-id.ts';
import { dayNumber, dayOf, dayString, parseTimestampMs } from './time.ts';
import type { DayWindow, TagFilters } from './types.ts';

/**
 * The aggregation rules of spec §4, §5, §9 and §10 as small pure functions over the
 * dataset's shapes. They state each rule once, plainly; the indexes of `buildIndex` compute
 * the same numbers fast, and the tests check that both agree.
 */

/**
 * The fields of an event the counters read (spec §9, §10): a dataset event, or an event
 * as the API lists it mapped back to its tag, recipient email and device.
 */
export interface CountedEvent {
  readonly tagID: string;
  readonly email: string;
  readonly device: string;
}

/** The fields of an event that daily counts and windows read: {@link CountedEvent} plus `date`. */
export interface DatedEvent extends CountedEvent {
  readonly date: Timestamp;
}

/** How a device counts (spec §9): `desktop`; `mobile` and `tablet` are mobile; else neither. */
export type DeviceClass = 'desktop' | 'mobile' | 'none';

/** The counter class of a `device` value (spec §9; `unknown` or any other value: `none`). */
export function deviceClass(device: string): DeviceClass {
  if (device === 'desktop') return 'desktop';
  if (device === 'mobile' || device === 'tablet') return 'mobile';
  return 'none';
}

/** The profile's rendering of a timestamp: `YYYY-MM-DDTHH:MM:SSZ` (spec §9). */
export function canonicalTimestamp(ts: Timestamp): Timestamp {
  return ts.length === 20 ? ts : formatTimestamp(parseTimestampMs(ts));
}

/** The eight counters, all zero. */
export function zeroCounters(): TagCounters {
  return {
    totalOpens: 0,
    uniqueOpens: 0,
    totalClicks: 0,
    uniqueClicks: 0,
    desktopOpens: 0,
    mobileOpens: 0,
    desktopClicks: 0,
    mobileClicks: 0,
  };
}

/**
 * The counters of one tag (spec §10): `totalOpens` = its open events, `uniqueOpens` =
 * distinct normalised recipient emails with at least one open, likewise for clicks;
 * desktop/mobile per {@link deviceClass}. Events of other tags in `opens`/`clicks` are ignored.
 */
export function tagCounters(
  tag: Pick<DatasetTag, 'tagID'>,
  opens: readonly CountedEvent[],
  clicks: readonly CountedEvent[],
): TagCounters {
  const out = zeroCounters();
  const opened = new Set<string>();
  const clicked = new Set<string>();
  for (const e of opens) {
    if (e.tagID !== tag.tagID) continue;
    out.totalOpens++;
    opened.add(normaliseEmail(e.email));
    const cls = deviceClass(e.device);
    if (cls === 'desktop') out.desktopOpens++;
    else if (cls === 'mobile') out.mobileOpens++;
  }
  for (const e of clicks) {
    if (e.tagID !== tag.tagID) continue;
    out.totalClicks++;
    clicked.add(normaliseEmail(e.email));
    const cls = deviceClass(e.device);
    if (cls === 'desktop') out.desktopClicks++;
    else if (cls === 'mobile') out.mobileClicks++;
  }
  out.uniqueOpens = opened.size;
  out.uniqueClicks = clicked.size;
  return out;
}

/**
 * Daily counts of a tag on UTC day `date` (spec §10, endpoint 14): distinct normalised
 * recipient emails with an open (click) of the tag during that day.
 */
export function dailyCounts(
  tag: Pick<DatasetTag, 'tagID'>,
  opens: readonly DatedEvent[],
  clicks: readonly DatedEvent[],
  date: string,
): DailyCounts {
  const day = dayNumber(date);
  const distinct = (events: readonly DatedEvent[]): number => {
    const seen = new Set<string>();
    for (const e of events) {
      if (e.tagID === tag.tagID && dayOf(parseTimestampMs(e.date)) === day) {
        seen.add(normaliseEmail(e.email));
      }
    }
    return seen.size;
  };
  return { opens: distinct(opens), clicks: distinct(clicks) };
}

/** The later of two timestamps (by instant), `null` being earlier than any. */
function laterOf(a: Timestamp | null, b: Timestamp): Timestamp {
  return a === null || parseTimestampMs(b) > parseTimestampMs(a) ? b : a;
}

/**
 * The stats summary of a set of tags (spec §10): `totalSent` = number of tags, the four
 * counters are sums of the per-tag counters (unique per tag, summed), `dateLastSent` = the
 * latest `dateSent` (`null` for no tags). No `date` field.
 */
export function statsOfTags(tags: readonly Pick<Tag, 'dateSent' | 'stats'>[]): StatsSummary {
  const out = emptyStats();
  for (const t of tags) {
    out.totalSent++;
    out.totalOpens += t.stats.totalOpens;
    out.totalClicks += t.stats.totalClicks;
    out.uniqueOpens += t.stats.uniqueOpens;
    out.uniqueClicks += t.stats.uniqueClicks;
    out.dateLastSent = laterOf(out.dateLastSent, canonicalTimestamp(t.dateSent));
  }
  return out;
}

/**
 * The per-day stats records of a set of tags (spec §5): one record per UTC day of
 * `dateSent` that has at least one tag, oldest first, each {@link statsOfTags} of that day's
 * tags plus `date` (`YYYY-MM-DD`).
 */
export function dailyStatsOfTags(tags: readonly Pick<Tag, 'dateSent' | 'stats'>[]): StatsSummary[] {
  const byDay = new Map<number, Pick<Tag, 'dateSent' | 'stats'>[]>();
  for (const t of tags) {
    const day = dayOf(parseTimestampMs(t.dateSent));
    const list = byDay.get(day);
    if (list) list.push(t);
    else byDay.set(day, [t]);
  }
  return [...byDay.keys()]
    .sort((a, b) => a - b)
    .map((day) => withFields(statsOfTags(byDay.get(day)!), { date: dayString(day) }));
}

/**
 * The half-open epoch-millisecond interval `[startMs, endMs)` of a window of whole UTC days,
 * both bounds inclusive (spec §6): from `start`T00:00:00Z up to but excluding the
 * midnight after `end`. An absent bound is unbounded (`±Infinity`).
 */
export function windowBounds(window: DayWindow): { startMs: number; endMs: number } {
  return {
    startMs: window.start === undefined ? -Infinity : dayNumber(window.start) * DAY_MS,
    endMs: window.end === undefined ? Infinity : (dayNumber(window.end) + 1) * DAY_MS,
  };
}

/** Whether timestamp `ts` lies in the day window (spec §6). */
export function inDayWindow(ts: Timestamp, window: DayWindow): boolean {
  const ms = parseTimestampMs(ts);
  const { startMs, endMs } = windowBounds(window);
  return ms >= startMs && ms < endMs;
}

/**
 * The tag filters of spec §6, a conjunction: `isOpened` keeps uniqueOpens > 0,
 * `isUnopened` totalOpens = 0, `isClicked` uniqueClicks > 0, `isUnclicked` totalClicks = 0.
 */
export function matchesTagFilters(stats: TagCounters, filters: TagFilters): boolean {
  if (filters.isOpened && !(stats.uniqueOpens > 0)) return false;
  if (filters.isUnopened && stats.totalOpens !== 0) return false;
  if (filters.isClicked && !(stats.uniqueClicks > 0)) return false;
  if (filters.isUnclicked && stats.totalClicks !== 0) return false;
  return true;
}

/** Code-unit string order (locale-independent, so every implementation agrees). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Member order of spec §5: `lastname`, then `firstname`, then `memberID`. */
export function compareMembers(
  a: Pick<DatasetMember, 'lastname' | 'firstname' | 'memberID'>,
  b: Pick<DatasetMember, 'lastname' | 'firstname' | 'memberID'>,
): number {
  return (
    compareStrings(a.lastname, b.lastname) ||
    compareStrings(a.firstname, b.firstname) ||
    compareStrings(a.memberID, b.memberID)
  );
}

/**
 * Tag order of spec §5 over `dateSent` values as a response shows them: newest first
 * (by instant, at the precision shown), then `tagID`. To order stored tags, compare what the
 * response will show ({@link compareTagsAsShown}; spec §5 Revision 3).
 */
export function compareTags(
  a: Pick<DatasetTag, 'dateSent' | 'tagID'>,
  b: Pick<DatasetTag, 'dateSent' | 'tagID'>,
): number {
  return (
    parseTimestampMs(b.dateSent) - parseTimestampMs(a.dateSent) || compareStrings(a.tagID, b.tagID)
  );
}

/**
 * Tag order of spec §5 Revision 3 over stored tags: by the `dateSent` the responses show
 * ({@link canonicalTimestamp}, seconds precision), then `tagID`; a sub-second part that is
 * not shown never orders two tags.
 */
export function compareTagsAsShown(
  a: Pick<DatasetTag, 'dateSent' | 'tagID'>,
  b: Pick<DatasetTag, 'dateSent' | 'tagID'>,
): number {
  return compareTags(
    { dateSent: canonicalTimestamp(a.dateSent), tagID: a.tagID },
    { dateSent: canonicalTimestamp(b.dateSent), tagID: b.tagID },
  );
}

/**
 * A tag's recipients as the tag endpoints list them (spec §5 Revision 2): each
 * normalised email once, the first entry's name and email as written, in list order.
 */
export function distinctRecipients(
  recipients: readonly DatasetTag['recipients'][number][],
): DatasetTag['recipients'] {
  const seen = new Set<string>();
  const out: DatasetTag['recipients'] = [];
  for (const r of recipients) {
    const key = normaliseEmail(r.email);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ name: r.name, email: r.email });
  }
  return out;
}

/** How a member without a group is rendered (spec §9; a profile option). */
export type MemberWithoutGroup = 'omit' | 'empty';

/**
 * A dataset member as endpoints 1, 3 and 5 return it: `groupName` from the team's group;
 * without a group `groupID`/`groupName` are omitted, or empty strings with option `'empty'`.
 */
export function renderMember(
  member: DatasetMember,
  team: DatasetTeam,
  withoutGroup: MemberWithoutGroup = 'omit',
): TeamMember {
  const out: TeamMember = {
    memberID: member.memberID,
    firstname: member.firstname,
    lastname: member.lastname,
    email: member.email,
    accountType: member.accountType,
  };
  const group =
    member.groupID === undefined
      ? undefined
      : team.groups.find((g) => g.groupID === member.groupID);
  if (group) {
    out.groupID = group.groupID;
    out.groupName = group.groupName;
  } else if (withoutGroup === 'empty') {
    out.groupID = '';
    out.groupName = '';
  }
  return out;
}

/**
 * The contact record of an email over a set of (visible) tags (spec §10), or `undefined`
 * when none of `tags` was sent to it. Over the tags sent to the contact: `totalSent` = those
 * tags; total counters = the contact's events on them; unique counters = how many of them
 * it opened (clicked) at least once; desktop/mobile = its events by device; `dateLastSent` =
 * the latest of them; `name` = its recipient name on the first of them in tag order
 * (newest, then smallest tagID). `email` is the normalised email.
 */
export function contactOf(
  email: string,
  tags: readonly Pick<DatasetTag, 'tagID' | 'dateSent' | 'recipients'>[],
  opens: readonly CountedEvent[],
  clicks: readonly CountedEvent[],
): Contact | undefined {
  const key = normaliseEmail(email);
  const sent = tags
    .filter((t) => t.recipients.some((r) => normaliseEmail(r.email) === key))
    .sort(compareTagsAsShown);
  const latest = sent[0];
  if (!latest) return undefined;
  const sentIds = new Set(sent.map((t) => t.tagID));
  const stats = { ...zeroCounters(), totalSent: sent.length };
  const openedTags = new Set<string>();
  const clickedTags = new Set<string>();
  for (const e of opens) {
    if (!sentIds.has(e.tagID) || normaliseEmail(e.email) !== key) continue;
    stats.totalOpens++;
    openedTags.add(e.tagID);
    const cls = deviceClass(e.device);
    if (cls === 'desktop') stats.desktopOpens++;
    else if (cls === 'mobile') stats.mobileOpens++;
  }
  for (const e of clicks) {
    if (!sentIds.has(e.tagID) || normaliseEmail(e.email) !== key) continue;
    stats.totalClicks++;
    clickedTags.add(e.tagID);
    const cls = deviceClass(e.device);
    if (cls === 'desktop') stats.desktopClicks++;
    else if (cls === 'mobile') stats.mobileClicks++;
  }
  stats.uniqueOpens = openedTags.size;
  stats.uniqueClicks = clickedTags.size;
  const name = latest.recipients.find((r) => normaliseEmail(r.email) === key)!.name;
  return {
    contactID: contactIdOf(key),
    name,
    email: key,
    dateLastSent: canonicalTimestamp(latest.dateSent),
    stats,
  };
}

/**
 * A dataset tag as endpoints 2 and 4 return it (spec §5, §9, §10): `dateSent` in the
 * profile's form, each recipient once ({@link distinctRecipients}), its {@link tagCounters}.
 */
export function renderTag(
  tag: DatasetTag,
  opens: readonly CountedEvent[],
  clicks: readonly CountedEvent[],
): Tag {
  return {
    tagID: tag.tagID,
    subject: tag.subject,
    dateSent: canonicalTimestamp(tag.dateSent),
    recipients: distinctRecipients(tag.recipients),
    stats: tagCounters(tag, opens, clicks),
  };
}

/**
 * The records a stats endpoint answers for a set of tags (spec §5): with
 * `aggregateData` exactly one record, {@link statsOfTags} (the empty record when there is no
 * tag); without, {@link dailyStatsOfTags}, one record per send day, oldest first.
 */
export function statsList(
  tags: readonly Pick<Tag, 'dateSent' | 'stats'>[],
  aggregateData: boolean,
): StatsSummary[] {
  return aggregateData ? [statsOfTags(tags)] : dailyStatsOfTags(tags);
}

/**
 * The events of one tag dated in `window` (spec §6: by their own date), oldest first;
 * events of the same instant keep their order in `events` (spec §5).
 */
export function eventsOfTag<E extends DatedEvent>(
  events: readonly E[],
  tagID: string,
  window: DayWindow = {},
): E[] {
  return events
    .filter((e) => e.tagID === tagID && inDayWindow(e.date, window))
    .sort((a, b) => parseTimestampMs(a.date) - parseTimestampMs(b.date));
}

/** Which events: opens (date field `openDate`) or clicks (`clickDate`). */
export type EventKind = 'opens' | 'clicks';

/**
 * An event's details as endpoints 9–12 show them (source: "Click detail fields"): the date
 * (`openDate` or `clickDate`, in the profile's form) first, then the location fields.
 */
export function eventDetails(event: DatasetEvent, kind: EventKind): OpenDetails | ClickDetails {
  const date = canonicalTimestamp(event.date);
  const location = {
    counry: event.counry,
    region: event.region,
    city: event.city,
    latitude: event.latitude,
    longitude: event.longitude,
    device: event.device,
    os: event.os,
    browser: event.browser,
  };
  return kind === 'opens' ? { openDate: date, ...location } : { clickDate: date, ...location };
}

/**
 * The recipient of an event of `tag` by `email` (endpoints 9 and 11; spec §9, §10): the
 * contact's id, the name of the tag's first recipient with that normalised email, and the
 * normalised email.
 */
export function eventRecipient(tag: Pick<DatasetTag, 'recipients'>, email: string): EventRecipient {
  const key = normaliseEmail(email);
  const recipient = tag.recipients.find((r) => normaliseEmail(r.email) === key);
  return { recipientID: contactIdOf(key), name: recipient?.name ?? '', email: key };
}

/**
 * The contacts of a set of tags (spec §10): their recipients' distinct normalised
 * emails, in email order (code units, spec §5).
 */
export function recipientEmails(tags: readonly Pick<DatasetTag, 'recipients'>[]): string[] {
  const emails = new Set<string>();
  for (const t of tags) for (const r of t.recipients) emails.add(normaliseEmail(r.email));
  return [...emails].sort(compareStrings);
}

/**
 * The message of a 404 (spec §4: an unknown and an out-of-scope id get the same words):
 * `member "x" not found`, or `member not found (no member id given)`.
 */
export function notFoundMessage(kind: string, id: string | undefined): string {
  return id === undefined
    ? `${kind} not found (no ${kind} id given)`
    : `${kind} ${JSON.stringify(id)} not found`;
}
