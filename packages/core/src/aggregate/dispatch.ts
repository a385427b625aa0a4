import type { QueryParams } from '../params.ts';
import { answerByPlan, type RuleCall, type Rules } from './plan.ts';
import type {
  Answer,
  Caller,
  EndpointRequest,
  ReportingIndex,
  StatsQuery,
  StatsSubject,
} from './types.ts';

/**
 * The rules of the endpoint plan over the methods of a {@link ReportingIndex}: each rule asks
 * the method that answers it, with the query fields the plan says it reads. A method's
 * `undefined` is not found (unknown or out-of-scope id, spec §4).
 */
export const INDEX_RULES: Rules<ReportingIndex, unknown> = {
  members: (ix, { caller, plan, id, query: q }) =>
    plan.subject === 'group'
      ? ix.groupMembers(caller, id!, { type: q.type })
      : ix.members(caller, { type: q.type }),
  member: (ix, { caller, id }) => ix.member(caller, id!),
  tags: (ix, { caller, id, query: q }) =>
    ix.tags(
      caller,
      id === undefined
        ? { ...windowOf(q), ...filtersOf(q) }
        : { ...windowOf(q), ...filtersOf(q), memberID: id },
    ),
  stats: (ix, call) => ix.stats(call.caller, statsQuery(call)),
  eventGroups: (ix, { caller, plan, query: q }) =>
    plan.events === 'clicks'
      ? ix.clickGroups(caller, windowOf(q))
      : ix.openGroups(caller, windowOf(q)),
  tagEvents: (ix, { caller, plan, id }) =>
    plan.events === 'clicks' ? ix.tagClicks(caller, id!) : ix.tagOpens(caller, id!),
  daily: (ix, { caller, id, query: q }) => ix.daily(caller, id!, q.date!),
  contacts: (ix, { caller, id }) =>
    id === undefined ? ix.contacts(caller) : ix.tagContacts(caller, id),
  contact: (ix, { caller, id }) => ix.contact(caller, id!),
};

/**
 * The answer of `index` to `request` for `caller` (the `answer` method of a
 * {@link ReportingIndex}, over its other methods, by the endpoint plan): the whole list, the
 * single record, or not found. Throws core's `QueryParamError` when endpoint 14 has no `date`.
 */
export function answerRequest(
  index: ReportingIndex,
  caller: Caller,
  request: EndpointRequest,
): Answer {
  return answerByPlan(index, caller, request, INDEX_RULES);
}

/** The stats query of endpoints 6, 7, 8 and 13; `type` filters the team and group ones. */
function statsQuery({ plan, id, query: q }: RuleCall): StatsQuery {
  const subject: StatsSubject =
    plan.subject === 'member'
      ? { kind: 'member', memberID: id! }
      : plan.subject === 'group'
        ? { kind: 'group', group: id! }
        : { kind: 'team' };
  const query = { ...windowOf(q), subject, aggregateData: q.aggregateData };
  return subject.kind === 'member' ? query : { ...query, type: q.type };
}

/** The day window of a query (spec §6). */
function windowOf(q: QueryParams) {
  return { start: q.start, end: q.end };
}

/** The four tag filters of a query (spec §6). */
function filtersOf(q: QueryParams) {
  return {
    isOpened: q.isOpened,
    isUnopened: q.isUnopened,
    isClicked: q.isClicked,
    isUnclicked: q.isUnclicked,
  };
}
