import type { EndpointId } from '../../endpoints.ts';
import { missingParameter, type QueryParams } from '../../params.ts';
import type {
  Answer,
  Caller,
  DayWindow,
  EndpointRequest,
  ReportingIndex,
  StatsQuery,
  TagFilters,
} from '../types.ts';

/** Answers one endpoint's request with the methods of a {@link ReportingIndex}. */
type Handler = (index: ReportingIndex, caller: Caller, request: EndpointRequest) => Answer;

/**
 * How each endpoint is answered: which index method, with which path parameter and query
 * fields, and the not-found message. An id the path does not carry finds nothing; an unknown
 * and an out-of-scope id get the same words (decisions §2).
 */
const HANDLERS = {
  'teams.list': (ix, caller, { query: q }) => list(ix.members(caller, { type: q.type }), 'members'),
  'teams.tags': (ix, caller, { query: q }) =>
    list(ix.tags(caller, { ...windowOf(q), ...filtersOf(q) }), 'tags'),
  'teams.member': (ix, caller, { pathParams: { memberID } }) =>
    single(
      found(memberID, (id) => ix.member(caller, id)),
      describe('member', memberID),
    ),
  'teams.memberTags': (ix, caller, { pathParams: { memberID }, query: q }) =>
    list(
      found(memberID, (id) => ix.tags(caller, { ...windowOf(q), ...filtersOf(q), memberID: id })),
      describe('member', memberID),
    ),
  'teams.group': (ix, caller, { pathParams: { group }, query: q }) =>
    list(
      found(group, (g) => ix.groupMembers(caller, g, { type: q.type })),
      describe('group', group),
    ),
  'stats.team': (ix, caller, { query: q }) => list(teamStats(ix, caller, q), 'stats'),
  'stats.teamAlias': (ix, caller, { query: q }) => list(teamStats(ix, caller, q), 'stats'),
  'stats.group': (ix, caller, { pathParams: { group }, query: q }) =>
    list(
      found(group, (g) =>
        ix.stats(caller, {
          ...windowOf(q),
          subject: { kind: 'group', group: g },
          aggregateData: q.aggregateData,
          type: q.type,
        }),
      ),
      describe('group', group),
    ),
  'stats.member': (ix, caller, { pathParams: { memberID }, query: q }) =>
    list(
      found(memberID, (id) =>
        ix.stats(caller, {
          ...windowOf(q),
          subject: { kind: 'member', memberID: id },
          aggregateData: q.aggregateData,
        }),
      ),
      describe('member', memberID),
    ),
  'clicks.list': (ix, caller, { query: q }) => list(ix.clickGroups(caller, windowOf(q)), 'clicks'),
  'opens.list': (ix, caller, { query: q }) => list(ix.openGroups(caller, windowOf(q)), 'opens'),
  'clicks.tag': (ix, caller, { pathParams: { tagID } }) =>
    list(
      found(tagID, (id) => ix.tagClicks(caller, id)),
      describe('tag', tagID),
    ),
  'opens.tag': (ix, caller, { pathParams: { tagID } }) =>
    list(
      found(tagID, (id) => ix.tagOpens(caller, id)),
      describe('tag', tagID),
    ),
  'tags.daily': (ix, caller, { pathParams: { tagID }, query: { date } }) => {
    if (date === undefined) throw missingParameter('date');
    return single(
      found(tagID, (id) => ix.daily(caller, id, date)),
      describe('tag', tagID),
    );
  },
  'contacts.list': (ix, caller) => list(ix.contacts(caller), 'contacts'),
  'contacts.get': (ix, caller, { pathParams: { contactID } }) =>
    single(
      found(contactID, (id) => ix.contact(caller, id)),
      describe('contact', contactID),
    ),
  'contacts.tag': (ix, caller, { pathParams: { tagID } }) =>
    list(
      found(tagID, (id) => ix.tagContacts(caller, id)),
      describe('tag', tagID),
    ),
} satisfies Record<EndpointId, Handler>;

/**
 * The answer of `index` to `request` for `caller` (the `answer` method of a
 * {@link ReportingIndex}, over its other methods): the whole list, the single record, or
 * not found. Throws core's `QueryParamError` when endpoint 14 has no `date`.
 */
export function answerRequest(
  index: ReportingIndex,
  caller: Caller,
  request: EndpointRequest,
): Answer {
  const handler: Handler = HANDLERS[request.endpoint];
  return handler(index, caller, request);
}

function teamStats(ix: ReportingIndex, caller: Caller, q: QueryParams) {
  const query: StatsQuery = {
    ...windowOf(q),
    subject: { kind: 'team' },
    aggregateData: q.aggregateData,
    type: q.type,
  };
  return ix.stats(caller, query);
}

function windowOf(q: QueryParams): DayWindow {
  return { start: q.start, end: q.end };
}

function filtersOf(q: QueryParams): TagFilters {
  return {
    isOpened: q.isOpened,
    isUnopened: q.isUnopened,
    isClicked: q.isClicked,
    isUnclicked: q.isUnclicked,
  };
}

/** `find(id)` for a path parameter; an absent one finds nothing. */
function found<T>(id: string | undefined, find: (id: string) => T | undefined): T | undefined {
  return id === undefined ? undefined : find(id);
}

function list(records: readonly unknown[] | undefined, what: string): Answer {
  return records === undefined ? notFound(what) : { kind: 'list', records };
}

function single(record: unknown, what: string): Answer {
  return record === undefined ? notFound(what) : { kind: 'single', record };
}

/** Names what was not found; unknown and out-of-scope ids get the same words (decisions §2). */
function describe(kind: string, id: string | undefined): string {
  return id === undefined
    ? `${kind} not found (no ${kind} id given)`
    : `${kind} ${JSON.stringify(id)} not found`;
}

function notFound(message: string): Answer {
  return { kind: 'not_found', message };
}
