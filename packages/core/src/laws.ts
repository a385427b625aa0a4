/*
 * The laws of the API's records, each stated once as data plus a predicate (docs/spec.md §10
 * aggregation laws, cited `spec §10`, and the §5 ordering laws, cited `spec §5`).
 * Core's property tests apply them to the index's answers on generated datasets, the
 * conformance suite to a vendor's answers, and docs/requirements.md lists them.
 *
 * A predicate takes plain records as the API returns them (tags, contacts, stats records,
 * daily counts, member lists, events) and returns `undefined` when they obey the law, else
 * the first violation in domain words ("uniqueOpens 7 > totalOpens 5 for tag t1").
 * Predicates never throw on schema-valid records and compare timestamps as instants.
 *
 * Each law is exported by name (`uniqueOpensAreDistinctRecipients`,
 * `teamStatsAreMergeOfMemberStats`, ...), grouped by the records it takes (`COUNTER_LAWS`,
 * `STATS_LAWS`, ...) and listed in `LAWS`. The predicates live in laws/tags.ts (one record,
 * a tag and its events, daily counts), laws/stats.ts (stats answers and merges) and
 * laws/lists.ts (contacts, list order); they compute expected values with the plain rules
 * of aggregate/rules.ts.
 */

import type { ClickGroup, OpenGroup } from './events.ts';
import {
  type CallerContact,
  type CallersView,
  callerWithinAdmin,
  contactCountsCallerTags,
  type GroupNameAnswer,
  groupNameInCallerTeam,
  managerGroupStatsAsAdmin,
  type StatsAsTwoCallers,
} from './laws/callers.ts';
import {
  contactCountersOverTheirTags,
  contactSumsEqualTagSums,
  contactsByEmail,
  eventGroupsInTagOrder,
  eventsOldestFirst,
  membersByName,
  tagsNewestFirst,
} from './laws/lists.ts';
import {
  aggregatedIsMergeOfDays,
  groupStatsAreMergeOfMemberStats,
  mergeIsCommutativeMonoid,
  rangeSplitMerges,
  statsDaysAscending,
  statsSummariseTags,
  teamStatsAreMergeOfMemberStats,
  typedStatsMergeToUntyped,
} from './laws/stats.ts';
import {
  dailyAreDistinctRecipients,
  dailyAtMostUnique,
  dailySumAtLeastUnique,
  dailyZeroBeforeSend,
  deviceAtMostTotal,
  uniqueAtMostRecipients,
  uniqueAtMostTotal,
  uniqueOpensAreDistinctRecipients,
  uniqueZeroIffTotalZero,
} from './laws/tags.ts';
import type {
  ContactView,
  CountedRecord,
  EventGroupsView,
  EventList,
  Law,
  LawEvent,
  StatsAnswers,
  StatsMerge,
  StatsMergeOperation,
  TagDailySeries,
  TagOnDay,
  TagWithEvents,
} from './laws/types.ts';
import type { TeamMember } from './member.ts';
import { runAtOnce, type Steps } from './slices.ts';
import type { Tag } from './tag.ts';

export * from './laws/callers.ts';
export * from './laws/lists.ts';
export * from './laws/stats.ts';
export * from './laws/tags.ts';
export type * from './laws/types.ts';

/** The events of event groups (endpoints 9, 11) as {@link LawEvent}s. */
export function plainEvents(groups: readonly (OpenGroup | ClickGroup)[]): LawEvent[] {
  return runAtOnce(plainEventsSteps(groups));
}

/** {@link plainEvents} yielding after each event group (`Steps`, slices.ts). */
export function* plainEventsSteps(groups: readonly (OpenGroup | ClickGroup)[]): Steps<LawEvent[]> {
  const out: LawEvent[] = [];
  for (const g of groups) {
    // one literal of the four fields, one hidden class for every event (see withFields)
    if ('opens' in g) for (const e of g.opens) out.push(lawEventOf(g.tagID, e, e.details.openDate));
    else for (const e of g.clicks) out.push(lawEventOf(g.tagID, e, e.details.clickDate));
    yield;
  }
  return out;
}

/**
 * The events of event groups (endpoints 9, 11) as {@link LawEvent}s, by `tagID` (a tag's
 * groups, if it has several, in list order): built once, so a law of one tag and its events
 * reads only that tag's events (linear over all tags, where passing every event per tag
 * would be tags × events).
 */
export function plainEventsByTag(
  groups: readonly (OpenGroup | ClickGroup)[],
): Map<string, LawEvent[]> {
  return runAtOnce(plainEventsByTagSteps(groups));
}

/** {@link plainEventsByTag} yielding after each event group (`Steps`, slices.ts). */
export function* plainEventsByTagSteps(
  groups: readonly (OpenGroup | ClickGroup)[],
): Steps<Map<string, LawEvent[]>> {
  const out = new Map<string, LawEvent[]>();
  for (const g of groups) {
    const list = out.get(g.tagID);
    const events = runAtOnce(plainEventsSteps([g]));
    if (list === undefined) out.set(g.tagID, events);
    else for (const e of events) list.push(e);
    yield;
  }
  return out;
}

function lawEventOf(
  tagID: string,
  e: { recipient: { email: string }; details: { device: string } },
  date: string,
): LawEvent {
  return { tagID, email: e.recipient.email, device: e.details.device, date };
}

// ---- the laws, grouped by the records they take ----------------------------------------------

/** Laws of one record with counters (a tag, a contact or a stats record). */
export const COUNTER_LAWS: readonly Law<CountedRecord>[] = [
  uniqueAtMostTotal,
  uniqueZeroIffTotalZero,
  deviceAtMostTotal,
  uniqueAtMostRecipients,
];
/** Laws of a tag and its events. */
export const TAG_EVENT_LAWS: readonly Law<TagWithEvents>[] = [uniqueOpensAreDistinctRecipients];
/** Laws of a tag's daily counts on one day. */
export const DAILY_LAWS: readonly Law<TagOnDay>[] = [
  dailyAtMostUnique,
  dailyZeroBeforeSend,
  dailyAreDistinctRecipients,
];
/** Laws of a tag's daily counts over its event days. */
export const DAILY_SERIES_LAWS: readonly Law<TagDailySeries>[] = [dailySumAtLeastUnique];
/** Laws of the answers to one stats query. */
export const STATS_LAWS: readonly Law<StatsAnswers>[] = [
  statsSummariseTags,
  aggregatedIsMergeOfDays,
  statsDaysAscending,
];
/** Laws of a stats record and its parts (members, adjacent ranges). */
export const STATS_MERGE_LAWS: readonly Law<StatsMerge>[] = [
  teamStatsAreMergeOfMemberStats,
  groupStatsAreMergeOfMemberStats,
  rangeSplitMerges,
  typedStatsMergeToUntyped,
];
/**
 * Properties of core's merge of stats records (`mergeStats`), not of the API's records: no
 * response carries a merge, so no check of the suite can apply them and they are not in
 * {@link LAWS} (no requirement id of the profile). Core's property tests apply them.
 */
export const MERGE_LAWS: readonly Law<StatsMergeOperation>[] = [mergeIsCommutativeMonoid];
/** Laws of a caller's contacts against its tags and events. */
export const CONTACT_LAWS: readonly Law<ContactView>[] = [
  contactCountersOverTheirTags,
  contactSumsEqualTagSums,
  contactsByEmail,
];
/** Laws of a tag list. */
export const TAG_LIST_LAWS: readonly Law<readonly Tag[]>[] = [tagsNewestFirst];
/** Laws of a member list. */
export const MEMBER_LIST_LAWS: readonly Law<readonly TeamMember[]>[] = [membersByName];
/** Laws of an event list (endpoints 10, 12, or the details of one event group). */
export const EVENT_LIST_LAWS: readonly Law<EventList>[] = [eventsOldestFirst];
/** Laws of event groups against the tag list. */
export const EVENT_GROUP_LAWS: readonly Law<EventGroupsView>[] = [eventGroupsInTagOrder];

/**
 * Laws between two callers' answers (spec §4): a caller's lists within its admin's, a
 * manager's group stats as its admin's, a contact's record over each caller's own tags, a
 * group name resolved within the caller's team.
 */
export const CALLER_LAWS: readonly (
  | Law<CallersView>
  | Law<StatsAsTwoCallers>
  | Law<CallerContact>
  | Law<GroupNameAnswer>
)[] = [callerWithinAdmin, managerGroupStatsAsAdmin, contactCountsCallerTags, groupNameInCallerTeam];

/**
 * Every law of the API's records, in the order above (ids unique): each is a requirement of
 * the profile, applied by exactly one check of the conformance suite that carries its id.
 * The merge properties ({@link MERGE_LAWS}) are not among them.
 */
export const LAWS: readonly Law<never>[] = [
  ...COUNTER_LAWS,
  ...TAG_EVENT_LAWS,
  ...DAILY_LAWS,
  ...DAILY_SERIES_LAWS,
  ...STATS_LAWS,
  ...STATS_MERGE_LAWS,
  ...CONTACT_LAWS,
  ...TAG_LIST_LAWS,
  ...MEMBER_LIST_LAWS,
  ...EVENT_LIST_LAWS,
  ...EVENT_GROUP_LAWS,
  ...CALLER_LAWS,
];

/** The law with that id, or `undefined`. */
export function lawById(id: string): Law<never> | undefined {
  return LAWS.find((l) => l.id === id);
}
