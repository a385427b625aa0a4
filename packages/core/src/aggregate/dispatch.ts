import type { EndpointId, PathParamName } from '../endpoints.ts';
import { missingParameter, type QueryParams } from '../params.ts';
import type {
  Answer,
  Caller,
  EndpointRequest,
  ReportingIndex,
  StatsQuery,
  StatsSubject,
} from './types.ts';

/** Answers one endpoint's request with the methods of a {@link ReportingIndex}. */
type Handler = (index: ReportingIndex, caller: Caller, request: EndpointRequest) => Answer;

/** Finds what a path id names for a caller; `undefined` when unknown or out of scope. */
type Find<T> = (
  index: ReportingIndex,
  caller: Caller,
  id: string,
  query: QueryParams,
) => T | undefined;

/**
 * How each endpoint is answered: which index method, with which path parameter and query
 * fields, and the not-found message. An id the path does not carry finds nothing; an unknown
 * and an out-of-scope id get the same words (decisions §2).
 */
const HANDLERS = {
  'teams.list': (ix, caller, { query: q }) => list(ix.members(caller, { type: q.type }), 'members'),
  'teams.tags': (ix, caller, { query: q }) =>
    list(ix.tags(caller, { ...windowOf(q), ...filtersOf(q) }), 'tags'),
  'teams.member': byId(single, 'memberID', 'member', (ix, caller, id) => ix.member(caller, id)),
  'teams.memberTags': byId(list, 'memberID', 'member', (ix, caller, id, q) =>
    ix.tags(caller, { ...windowOf(q), ...filtersOf(q), memberID: id }),
  ),
  'teams.group': byId(list, 'group', 'group', (ix, caller, group, q) =>
    ix.groupMembers(caller, group, { type: q.type }),
  ),
  'stats.team': teamStats,
  'stats.teamAlias': teamStats,
  'stats.group': byId(list, 'group', 'group', (ix, caller, group, q) =>
    ix.stats(caller, statsQuery(q, { kind: 'group', group })),
  ),
  'stats.member': byId(list, 'memberID', 'member', (ix, caller, memberID, q) =>
    ix.stats(caller, statsQuery(q, { kind: 'member', memberID })),
  ),
  'clicks.list': (ix, caller, { query: q }) => list(ix.clickGroups(caller, windowOf(q)), 'clicks'),
  'opens.list': (ix, caller, { query: q }) => list(ix.openGroups(caller, windowOf(q)), 'opens'),
  'clicks.tag': byId(list, 'tagID', 'tag', (ix, caller, id) => ix.tagClicks(caller, id)),
  'opens.tag': byId(list, 'tagID', 'tag', (ix, caller, id) => ix.tagOpens(caller, id)),
  'tags.daily': (ix, caller, request) => {
    const { date } = request.query;
    if (date === undefined) throw missingParameter('date');
    return byId(single, 'tagID', 'tag', (ix, c, id) => ix.daily(c, id, date))(ix, caller, request);
  },
  'contacts.list': (ix, caller) => list(ix.contacts(caller), 'contacts'),
  'contacts.get': byId(single, 'contactID', 'contact', (ix, caller, id) => ix.contact(caller, id)),
  'contacts.tag': byId(list, 'tagID', 'tag', (ix, caller, id) => ix.tagContacts(caller, id)),
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

/**
 * The handler of an endpoint naming one record (or the list of one record's children) by
 * the path parameter `param`: what `find` finds as `shape` (`list` or `single`), or not found
 * naming `kind` and the id.
 */
function byId<T>(
  shape: (found: T | undefined, what: string) => Answer,
  param: PathParamName,
  kind: string,
  find: Find<T>,
): Handler {
  return (ix, caller, { pathParams, query }) => {
    const id = pathParams[param];
    return shape(id === undefined ? undefined : find(ix, caller, id, query), describe(kind, id));
  };
}

/** Endpoints 6 and 13 (`/teams/stats` is an alias of `/stats`). */
function teamStats(ix: ReportingIndex, caller: Caller, { query: q }: EndpointRequest): Answer {
  return list(ix.stats(caller, statsQuery(q, { kind: 'team' })), 'stats');
}

/** The stats query of endpoints 6, 7, 8 and 13; `type` filters the team and group ones. */
function statsQuery(q: QueryParams, subject: StatsSubject): StatsQuery {
  const query = { ...windowOf(q), subject, aggregateData: q.aggregateData };
  return subject.kind === 'member' ? query : { ...query, type: q.type };
}

/** The day window of a query (decisions §4). */
function windowOf(q: QueryParams) {
  return { start: q.start, end: q.end };
}

/** The four tag filters of a query (decisions §4). */
function filtersOf(q: QueryParams) {
  return {
    isOpened: q.isOpened,
    isUnopened: q.isUnopened,
    isClicked: q.isClicked,
    isUnclicked: q.isUnclicked,
  };
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
