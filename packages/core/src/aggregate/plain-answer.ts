import type { Contact } from '../contact.ts';
import type { Dataset, DatasetTag } from '../dataset/schema.ts';
import type { Click, ClickGroup, DailyCounts, Open, OpenGroup } from '../events.ts';
import type { AccountType, TeamMember } from '../member.ts';
import { defaultQueryParams, missingParameter, type QueryParams } from '../params.ts';
import type { StatsSummary } from '../stats.ts';
import type { Tag } from '../tag.ts';
import type { CalendarDate } from '../values.ts';
import { contactIdOf } from './contact-id.ts';
import {
  contactOf,
  dailyCounts,
  type EventKind,
  eventDetails,
  eventRecipient,
  eventsOfTag,
  inDayWindow,
  type MemberWithoutGroup,
  matchesTagFilters,
  notFoundMessage,
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
  /** Rendering of a member without a group (decisions §8 option); default `'omit'`. */
  readonly memberWithoutGroup?: MemberWithoutGroup;
}

/**
 * The answer to one endpoint request computed from the plain rules of `rules.ts` alone
 * (decisions §2, §3, §4, §8, §9): no index, every list recomputed from the dataset by the
 * obviously correct loop. It is the oracle `buildIndex(dataset).answer` is tested against
 * (the differential test) and what fixture mode expects. Small enough for the canonical
 * dataset (about 150 ms for `contacts.list` there, the slowest; most answers take a few
 * milliseconds), not for large datasets.
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
  const { pathParams: p, query: q } = request;
  const withoutGroup = options.memberWithoutGroup ?? 'omit';
  const window: DayWindow = { start: q.start, end: q.end };
  const filters: TagFilters = {
    isOpened: q.isOpened,
    isUnopened: q.isUnopened,
    isClicked: q.isClicked,
    isUnclicked: q.isUnclicked,
  };
  const team = dataset.teams.find((t) => t.teamID === caller.teamID);
  const members = (type: AccountType | undefined) =>
    visibleMembers(dataset, caller).filter((m) => type === undefined || m.accountType === type);
  const memberRecords = (type: AccountType | undefined, groupID?: string) =>
    members(type)
      .filter((m) => groupID === undefined || m.groupID === groupID)
      .map((m) => renderMember(m, team!, withoutGroup));
  const visibleMember = (id: string | undefined) =>
    id === undefined ? undefined : visibleMembers(dataset, caller).find((m) => m.memberID === id);
  const visibleGroup = (segment: string | undefined) =>
    segment === undefined ? undefined : resolveGroup(visibleGroups(dataset, caller), segment);
  const visibleTag = (id: string | undefined) =>
    id === undefined ? undefined : visibleTags(dataset, caller).find((t) => t.tagID === id);
  const sentInWindow = (tags: readonly DatasetTag[]) =>
    tags
      .filter((t) => inDayWindow(t.dateSent, window))
      .map((t) => renderTag(t, dataset.opens, dataset.clicks));
  const tagRecords = (tags: readonly DatasetTag[]) =>
    sentInWindow(tags).filter((t) => matchesTagFilters(t.stats, filters));
  const statsOf = (senders: ReadonlySet<string>) =>
    statsList(
      sentInWindow(visibleTags(dataset, caller).filter((t) => senders.has(t.memberID))),
      q.aggregateData,
    );
  const ids = (list: readonly { memberID: string }[]) => new Set(list.map((m) => m.memberID));
  /** The contacts of these emails over the visible tags (decisions §2, §9). */
  const contacts = (emails?: readonly string[]) => {
    const tags = visibleTags(dataset, caller);
    return (emails ?? recipientEmails(tags)).map(
      (e) => contactOf(e, tags, dataset.opens, dataset.clicks)!,
    );
  };
  const groups = (kind: EventKind) =>
    visibleTags(dataset, caller).flatMap((tag) => {
      const events = eventsOfTag(dataset[kind], tag.tagID, window).map((e) => ({
        recipient: eventRecipient(tag, e.email),
        details: eventDetails(e, kind),
      }));
      return events.length === 0 ? [] : [{ tagID: tag.tagID, [kind]: events }];
    });
  const tagEvents = (tag: DatasetTag, kind: EventKind) =>
    eventsOfTag(dataset[kind], tag.tagID).map((e) => ({
      ...eventDetails(e, kind),
      tagID: tag.tagID,
    }));

  const list = (records: readonly unknown[]): Answer => ({ kind: 'list', records });
  const single = (record: unknown): Answer => ({ kind: 'single', record });
  const missing = (kind: string, id: string | undefined): Answer => ({
    kind: 'not_found',
    message: notFoundMessage(kind, id),
  });

  switch (request.endpoint) {
    case 'teams.list':
      return list(memberRecords(q.type));
    case 'teams.tags':
      return list(tagRecords(visibleTags(dataset, caller)));
    case 'teams.member': {
      const m = visibleMember(p.memberID);
      return m ? single(renderMember(m, team!, withoutGroup)) : missing('member', p.memberID);
    }
    case 'teams.memberTags': {
      const m = visibleMember(p.memberID);
      if (!m) return missing('member', p.memberID);
      return list(
        tagRecords(visibleTags(dataset, caller).filter((t) => t.memberID === m.memberID)),
      );
    }
    case 'teams.group': {
      const g = visibleGroup(p.group);
      return g ? list(memberRecords(q.type, g.groupID)) : missing('group', p.group);
    }
    case 'stats.team':
    case 'stats.teamAlias':
      return list(statsOf(ids(members(q.type))));
    case 'stats.group': {
      const g = visibleGroup(p.group);
      if (!g) return missing('group', p.group);
      return list(statsOf(ids(members(q.type).filter((m) => m.groupID === g.groupID))));
    }
    case 'stats.member': {
      const m = visibleMember(p.memberID);
      return m ? list(statsOf(new Set([m.memberID]))) : missing('member', p.memberID);
    }
    case 'clicks.list':
      return list(groups('clicks'));
    case 'opens.list':
      return list(groups('opens'));
    case 'clicks.tag':
    case 'opens.tag': {
      const t = visibleTag(p.tagID);
      const kind = request.endpoint === 'clicks.tag' ? 'clicks' : 'opens';
      return t ? list(tagEvents(t, kind)) : missing('tag', p.tagID);
    }
    case 'tags.daily': {
      if (q.date === undefined) throw missingParameter('date');
      const t = visibleTag(p.tagID);
      return t
        ? single(dailyCounts(t, dataset.opens, dataset.clicks, q.date))
        : missing('tag', p.tagID);
    }
    case 'contacts.list':
      return list(contacts());
    case 'contacts.get': {
      const id = p.contactID;
      const email = recipientEmails(visibleTags(dataset, caller)).find(
        (e) => contactIdOf(e) === id,
      );
      return email === undefined ? missing('contact', id) : single(contacts([email])[0]);
    }
    case 'contacts.tag': {
      const t = visibleTag(p.tagID);
      return t ? list(contacts(recipientEmails([t]))) : missing('tag', p.tagID);
    }
  }
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
