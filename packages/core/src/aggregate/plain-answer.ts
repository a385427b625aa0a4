import type { Contact } from '../contact.ts';
import type { Dataset, DatasetTag } from '../dataset/schema.ts';
import type { Click, ClickGroup, DailyCounts, Open, OpenGroup } from '../events.ts';
import type { AccountType, TeamMember } from '../member.ts';
import { defaultQueryParams, type QueryParams } from '../params.ts';
import type { StatsSummary } from '../stats.ts';
import type { Tag } from '../tag.ts';
import type { CalendarDate } from '../values.ts';
import { contactIdOf } from './contact-id.ts';
import { answerByPlan, type Rules } from './plan.ts';
import {
  contactOf,
  dailyCounts,
  eventDetails,
  eventRecipient,
  eventsOfTag,
  inDayWindow,
  type MemberWithoutGroup,
  matchesTagFilters,
  recipientEmails,
  renderMember,
  renderTag,
  statsList,
} from './rules.ts';
import type {
  Answer,
  Caller,
  DayWindow,
  EndpointRequest,
  ReportingIndex,
  StatsQuery,
  TagFilters,
  TagQuery,
} from './types.ts';
import { DatasetError, validateDataset } from './validate.ts';
import { resolveGroup, visibleGroups, visibleMembers, visibleTags } from './visibility.ts';

/** Options of {@link plainAnswer}, as those of `buildIndex`. */
export interface PlainAnswerOptions {
  /** Rendering of a member without a group (spec §9 option); default `'omit'`. */
  readonly memberWithoutGroup?: MemberWithoutGroup;
}

/** What the plain rules read: the dataset and how a member without a group is written. */
export interface PlainContext {
  readonly dataset: Dataset;
  readonly withoutGroup: MemberWithoutGroup;
}

/**
 * The answer to one endpoint request computed from the plain rules of `rules.ts` alone
 * (spec §4, §5, §6, §9, §10): no index, every list recomputed from the dataset by the
 * obviously correct loop ({@link PLAIN_RULES}, by the endpoint plan). It is the oracle
 * `buildIndex(dataset).answer` is tested against (the differential test) and what fixture
 * mode expects. Small enough for the canonical dataset (about 150 ms for `contacts.list`
 * there, the slowest; most answers take a few milliseconds), not for large datasets.
 *
 * Same shape and meaning as `ReportingIndex.answer`: the whole stably ordered list, the
 * single record, or `not_found` for an unknown or out-of-scope id (same message for both).
 * Reads only the query parameters the endpoint takes. Throws the `QueryParamError` of a
 * missing `date` on endpoint 14. Expects a consistent dataset (`validateDataset` finds
 * nothing); its results are fresh objects.
 */
export function plainAnswer(
  dataset: Dataset,
  caller: Caller,
  request: EndpointRequest,
  options: PlainAnswerOptions = {},
): Answer {
  const context: PlainContext = { dataset, withoutGroup: options.memberWithoutGroup ?? 'omit' };
  return answerByPlan(context, caller, request, PLAIN_RULES);
}

/**
 * The rules of the endpoint plan computed from the dataset by the plain rules: every list
 * recomputed by the obviously correct loop over the caller's visible records (spec §4).
 * `undefined` is not found (an unknown or out-of-scope subject).
 */
export const PLAIN_RULES: Rules<PlainContext, unknown> = {
  members(cx, { caller, plan, id, query: q }) {
    if (plan.subject !== 'group') return memberRecords(cx, caller, q.type);
    const g = visibleGroup(cx, caller, id);
    return g && memberRecords(cx, caller, q.type, g.groupID);
  },
  member(cx, { caller, id }) {
    const m = visibleMember(cx, caller, id);
    return m && renderMember(m, teamOf(cx, caller), cx.withoutGroup);
  },
  tags(cx, { caller, plan, id, query: q }) {
    const tags = visibleTags(cx.dataset, caller);
    if (plan.subject !== 'member') return tagRecords(cx, tags, q);
    const m = visibleMember(cx, caller, id);
    return (
      m &&
      tagRecords(
        cx,
        tags.filter((t) => t.memberID === m.memberID),
        q,
      )
    );
  },
  stats(cx, { caller, plan, id, query: q }) {
    if (plan.subject === 'member') {
      const m = visibleMember(cx, caller, id);
      return m && statsOf(cx, caller, new Set([m.memberID]), q);
    }
    const members = membersOfType(cx, caller, q.type);
    if (plan.subject !== 'group') return statsOf(cx, caller, idsOf(members), q);
    const g = visibleGroup(cx, caller, id);
    return g && statsOf(cx, caller, idsOf(members.filter((m) => m.groupID === g.groupID)), q);
  },
  eventGroups(cx, { caller, plan, query: q }) {
    const kind = plan.events!;
    const window: DayWindow = { start: q.start, end: q.end };
    return visibleTags(cx.dataset, caller).flatMap((tag) => {
      const events = eventsOfTag(cx.dataset[kind], tag.tagID, window).map((e) => ({
        recipient: eventRecipient(tag, e.email),
        details: eventDetails(e, kind),
      }));
      return events.length === 0 ? [] : [{ tagID: tag.tagID, [kind]: events }];
    });
  },
  tagEvents(cx, { caller, plan, id }) {
    const t = visibleTag(cx, caller, id);
    const kind = plan.events!;
    return (
      t &&
      eventsOfTag(cx.dataset[kind], t.tagID).map((e) => ({
        ...eventDetails(e, kind),
        tagID: t.tagID,
      }))
    );
  },
  daily(cx, { caller, id, query: q }) {
    const t = visibleTag(cx, caller, id);
    return t && dailyCounts(t, cx.dataset.opens, cx.dataset.clicks, q.date!);
  },
  contacts(cx, { caller, plan, id }) {
    if (plan.subject !== 'tag') return contactsOf(cx, caller);
    const t = visibleTag(cx, caller, id);
    return t && contactsOf(cx, caller, recipientEmails([t]));
  },
  contact(cx, { caller, id }) {
    const email = recipientEmails(visibleTags(cx.dataset, caller)).find(
      (e) => contactIdOf(e) === id,
    );
    return email === undefined ? undefined : contactsOf(cx, caller, [email])[0];
  },
};

/** The caller's team. */
function teamOf(cx: PlainContext, caller: Caller) {
  return cx.dataset.teams.find((t) => t.teamID === caller.teamID)!;
}

/** The caller's visible members, of account type `type` when given. */
function membersOfType(cx: PlainContext, caller: Caller, type: AccountType | undefined) {
  return visibleMembers(cx.dataset, caller).filter(
    (m) => type === undefined || m.accountType === type,
  );
}

/** The member records of the caller's visible members, of one type and group when given. */
function memberRecords(
  cx: PlainContext,
  caller: Caller,
  type: AccountType | undefined,
  groupID?: string,
) {
  const team = teamOf(cx, caller);
  return membersOfType(cx, caller, type)
    .filter((m) => groupID === undefined || m.groupID === groupID)
    .map((m) => renderMember(m, team, cx.withoutGroup));
}

function visibleMember(cx: PlainContext, caller: Caller, id: string | undefined) {
  return id === undefined
    ? undefined
    : visibleMembers(cx.dataset, caller).find((m) => m.memberID === id);
}

function visibleGroup(cx: PlainContext, caller: Caller, segment: string | undefined) {
  return segment === undefined
    ? undefined
    : resolveGroup(visibleGroups(cx.dataset, caller), segment);
}

function visibleTag(cx: PlainContext, caller: Caller, id: string | undefined) {
  return id === undefined ? undefined : visibleTags(cx.dataset, caller).find((t) => t.tagID === id);
}

/** The tags of `tags` sent in the query's day window, rendered with their counters. */
function sentInWindow(cx: PlainContext, tags: readonly DatasetTag[], q: QueryParams) {
  const window: DayWindow = { start: q.start, end: q.end };
  return tags
    .filter((t) => inDayWindow(t.dateSent, window))
    .map((t) => renderTag(t, cx.dataset.opens, cx.dataset.clicks));
}

/** The tag records of endpoints 2 and 4: sent in the window, matching the four filters. */
function tagRecords(cx: PlainContext, tags: readonly DatasetTag[], q: QueryParams) {
  const filters: TagFilters = {
    isOpened: q.isOpened,
    isUnopened: q.isUnopened,
    isClicked: q.isClicked,
    isUnclicked: q.isUnclicked,
  };
  return sentInWindow(cx, tags, q).filter((t) => matchesTagFilters(t.stats, filters));
}

/** The stats over the visible tags sent by `senders` in the window (spec §10). */
function statsOf(cx: PlainContext, caller: Caller, senders: ReadonlySet<string>, q: QueryParams) {
  const tags = visibleTags(cx.dataset, caller).filter((t) => senders.has(t.memberID));
  return statsList(sentInWindow(cx, tags, q), q.aggregateData);
}

function idsOf(list: readonly { memberID: string }[]): Set<string> {
  return new Set(list.map((m) => m.memberID));
}

/** The contacts of these emails over the visible tags (spec §4, §10). */
function contactsOf(cx: PlainContext, caller: Caller, emails?: readonly string[]) {
  const tags = visibleTags(cx.dataset, caller);
  return (emails ?? recipientEmails(tags)).map(
    (e) => contactOf(e, tags, cx.dataset.opens, cx.dataset.clicks)!,
  );
}

/** Query parameters to set on the defaults; an `undefined` value keeps the default. */
type QueryOverrides = { readonly [K in keyof QueryParams]?: QueryParams[K] | undefined };

/**
 * The plain rules behind the {@link ReportingIndex} interface: every method asks
 * {@link plainAnswer} the endpoint it stands for (no index; each call walks the dataset, so
 * for small datasets: tests, fixtures, the canonical dataset). It is the oracle engines are
 * compared with (`@tagtrack/engine`'s in-memory index; a SQL engine later) and lets the laws
 * and rules be tested without an engine. A method returns `undefined` where the endpoint
 * answers not found. Throws {@link DatasetError} listing the problems when `validateDataset`
 * finds any (as `buildIndex` does).
 */
export function plainIndex(dataset: Dataset, options: PlainAnswerOptions = {}): ReportingIndex {
  const problems = validateDataset(dataset);
  if (problems.length > 0) throw new DatasetError(problems);
  const ask = (
    caller: Caller,
    endpoint: EndpointRequest['endpoint'],
    pathParams: EndpointRequest['pathParams'],
    query: QueryOverrides = {},
  ): unknown => {
    const a = plainAnswer(
      dataset,
      caller,
      {
        endpoint,
        pathParams,
        query: defaultQueryParams(
          Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)),
        ),
      },
      options,
    );
    return a.kind === 'list' ? a.records : a.kind === 'single' ? a.record : undefined;
  };
  const tagFilters = (q: TagFilters & DayWindow): QueryOverrides => ({
    start: q.start,
    end: q.end,
    isOpened: q.isOpened ?? false,
    isUnopened: q.isUnopened ?? false,
    isClicked: q.isClicked ?? false,
    isUnclicked: q.isUnclicked ?? false,
  });
  const index: ReportingIndex = {
    dataset,
    credential(authId) {
      for (const cred of dataset.credentials) {
        if (cred.authId !== authId) continue;
        const caller = index.callerOf(cred.memberID);
        if (caller) return { accessKey: cred.accessKey, caller };
      }
      return undefined;
    },
    callerOf(memberID) {
      for (const team of dataset.teams) {
        const m = team.members.find((x) => x.memberID === memberID);
        if (m) return { memberID, teamID: team.teamID, accountType: m.accountType };
      }
      return undefined;
    },
    members: (caller, query = {}) =>
      ask(caller, 'teams.list', {}, { type: query.type }) as TeamMember[],
    member: (caller, memberID) =>
      ask(caller, 'teams.member', { memberID }) as TeamMember | undefined,
    groupMembers: (caller, group, query = {}) =>
      ask(caller, 'teams.group', { group }, { type: query.type }) as TeamMember[] | undefined,
    tags: (caller, query: TagQuery) =>
      (query.memberID === undefined
        ? ask(caller, 'teams.tags', {}, tagFilters(query))
        : ask(caller, 'teams.memberTags', { memberID: query.memberID }, tagFilters(query))) as
        | Tag[]
        | undefined,
    stats(caller, query: StatsQuery) {
      const q = { start: query.start, end: query.end, aggregateData: query.aggregateData ?? false };
      const s = query.subject;
      const stats =
        s.kind === 'team'
          ? ask(caller, 'stats.team', {}, { ...q, type: query.type })
          : s.kind === 'group'
            ? ask(caller, 'stats.group', { group: s.group }, { ...q, type: query.type })
            : ask(caller, 'stats.member', { memberID: s.memberID }, q);
      return stats as StatsSummary[] | undefined;
    },
    clickGroups: (caller, window) =>
      ask(caller, 'clicks.list', {}, { start: window.start, end: window.end }) as ClickGroup[],
    openGroups: (caller, window) =>
      ask(caller, 'opens.list', {}, { start: window.start, end: window.end }) as OpenGroup[],
    tagClicks: (caller, tagID) => ask(caller, 'clicks.tag', { tagID }) as Click[] | undefined,
    tagOpens: (caller, tagID) => ask(caller, 'opens.tag', { tagID }) as Open[] | undefined,
    daily: (caller, tagID, date: CalendarDate) =>
      ask(caller, 'tags.daily', { tagID }, { date }) as DailyCounts | undefined,
    contacts: (caller) => ask(caller, 'contacts.list', {}) as Contact[],
    contact: (caller, contactID) =>
      ask(caller, 'contacts.get', { contactID }) as Contact | undefined,
    tagContacts: (caller, tagID) => ask(caller, 'contacts.tag', { tagID }) as Contact[] | undefined,
    answer: (caller, request) => plainAnswer(dataset, caller, request, options),
  };
  return index;
}
