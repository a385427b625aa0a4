import { ENDPOINTS, type EndpointId, type PathParamName } from '../endpoints.ts';
import { missingParameter, type ParamName, type QueryParams } from '../params.ts';
import { notFoundMessage } from './rules.ts';
import type { Answer, Caller, EndpointRequest } from './types.ts';

/**
 * The rules the endpoints answer with (spec §4, §5, §10): each engine implements every
 * rule once ({@link Rules}), and {@link ENDPOINT_PLAN} says which rule answers which
 * endpoint and how.
 *
 * - `members`: visible members (of one group with subject `group`), optionally of one type;
 * - `member`: one visible member;
 * - `tags`: visible tags (of one member with subject `member`), windowed and filtered;
 * - `stats`: per-day or aggregated stats of the team, one group or one member;
 * - `eventGroups`: the opens or clicks of the window grouped by tag;
 * - `tagEvents`: the opens or clicks of one tag;
 * - `daily`: unique opens and clicks of one tag on one day;
 * - `contacts`: contacts of the visible tags (of one tag with subject `tag`);
 * - `contact`: one contact.
 */
export type RuleName =
  | 'members'
  | 'member'
  | 'tags'
  | 'stats'
  | 'eventGroups'
  | 'tagEvents'
  | 'daily'
  | 'contacts'
  | 'contact';

/** Every {@link RuleName}. */
export const RULE_NAMES: readonly RuleName[] = [
  'members',
  'member',
  'tags',
  'stats',
  'eventGroups',
  'tagEvents',
  'daily',
  'contacts',
  'contact',
];

/** What a path id names: the record an endpoint is scoped to (spec §4). */
export type Subject = 'member' | 'group' | 'tag' | 'contact';

/** The path parameter carrying each {@link Subject}. */
export const SUBJECT_PARAM: { readonly [S in Subject]: PathParamName } = {
  member: 'memberID',
  group: 'group',
  tag: 'tagID',
  contact: 'contactID',
};

/** How one endpoint is answered: one row of {@link ENDPOINT_PLAN}. */
export interface EndpointPlan {
  /** The rule that answers. */
  readonly rule: RuleName;
  /**
   * The record the path id names, when the endpoint has one: an id that is absent, unknown
   * or outside the caller's scope is not found, with the same words (spec §4).
   */
  readonly subject?: Subject;
  /** The kind of events (`eventGroups`, `tagEvents`). */
  readonly events?: 'opens' | 'clicks';
  /** The query parameters the rule reads (spec §6), beyond `rtn`, `cursor` and the paging ones. */
  readonly params: readonly ParamName[];
  /** A list (`{ data: [...], paging }`) or a single record (spec §5). */
  readonly response: 'list' | 'single';
  /**
   * How one page of a list is computed (core's `RecordWindow`): `query` the engine can
   * compute one window and the list's length without the rest (a SQL `LIMIT`/`OFFSET` and
   * count); `cut` the list is computed whole and cut (one tag's events, few records);
   * `none` for a single record.
   */
  readonly window: 'query' | 'cut' | 'none';
}

const DAYS = ['start', 'end'] as const;
const TAG_QUERY = [...DAYS, 'isClicked', 'isUnclicked', 'isOpened', 'isUnopened'] as const;
const STATS_QUERY = [...DAYS, 'aggregateData', 'type'] as const;

/**
 * The endpoint plan: for every endpoint of the catalogue, the rule it answers with, its path
 * subject, the query parameters it reads, whether it is a list and how a page of it is
 * computed. The in-memory index (`answerRequest`), the plain rules (`plainAnswer`) and the
 * SQL engine (`@tagtrack/engine`) all answer through it ({@link answerByPlan}).
 */
export const ENDPOINT_PLAN: { readonly [Id in EndpointId]: EndpointPlan } = {
  'teams.list': { rule: 'members', params: ['type'], response: 'list', window: 'query' },
  'teams.tags': { rule: 'tags', params: TAG_QUERY, response: 'list', window: 'query' },
  'teams.member': {
    rule: 'member',
    subject: 'member',
    params: [],
    response: 'single',
    window: 'none',
  },
  'teams.memberTags': {
    rule: 'tags',
    subject: 'member',
    params: TAG_QUERY,
    response: 'list',
    window: 'query',
  },
  'teams.group': {
    rule: 'members',
    subject: 'group',
    params: ['type'],
    response: 'list',
    window: 'query',
  },
  'stats.team': { rule: 'stats', params: STATS_QUERY, response: 'list', window: 'query' },
  'stats.teamAlias': { rule: 'stats', params: STATS_QUERY, response: 'list', window: 'query' },
  'stats.group': {
    rule: 'stats',
    subject: 'group',
    params: STATS_QUERY,
    response: 'list',
    window: 'query',
  },
  'stats.member': {
    rule: 'stats',
    subject: 'member',
    params: [...DAYS, 'aggregateData'],
    response: 'list',
    window: 'query',
  },
  'clicks.list': {
    rule: 'eventGroups',
    events: 'clicks',
    params: DAYS,
    response: 'list',
    window: 'query',
  },
  'clicks.tag': {
    rule: 'tagEvents',
    subject: 'tag',
    events: 'clicks',
    params: [],
    response: 'list',
    window: 'cut',
  },
  'opens.list': {
    rule: 'eventGroups',
    events: 'opens',
    params: DAYS,
    response: 'list',
    window: 'query',
  },
  'opens.tag': {
    rule: 'tagEvents',
    subject: 'tag',
    events: 'opens',
    params: [],
    response: 'list',
    window: 'cut',
  },
  'tags.daily': {
    rule: 'daily',
    subject: 'tag',
    params: ['date'],
    response: 'single',
    window: 'none',
  },
  'contacts.list': { rule: 'contacts', params: [], response: 'list', window: 'query' },
  'contacts.get': {
    rule: 'contact',
    subject: 'contact',
    params: [],
    response: 'single',
    window: 'none',
  },
  'contacts.tag': {
    rule: 'contacts',
    subject: 'tag',
    params: [],
    response: 'list',
    window: 'query',
  },
};

/**
 * One rule asked for one request: the caller, the endpoint and its plan, the parsed query,
 * and the subject's path id (present whenever the plan has a subject: an absent one is not
 * found before any rule is asked).
 */
export interface RuleCall {
  readonly caller: Caller;
  readonly endpoint: EndpointId;
  readonly plan: EndpointPlan;
  readonly query: QueryParams;
  /** The path id of `plan.subject`; `undefined` when the endpoint has no subject. */
  readonly id: string | undefined;
}

/**
 * An engine's implementation of every rule over its context `C` (an index, a dataset, a
 * database): what the rule finds for a call, as `R`. With {@link answerByPlan}, `R` is the
 * records of a list, the record, or `undefined` when the subject is unknown or out of scope.
 */
export type Rules<C, R> = { readonly [K in RuleName]: (context: C, call: RuleCall) => R };

/**
 * The {@link RuleCall} of `request`, or the not-found answer of an endpoint whose subject id
 * the path does not carry. Throws core's `QueryParamError` (`missing_parameter`) for a
 * required parameter the query lacks (`date` on endpoint 14), before anything is looked up.
 */
export function planRequest(caller: Caller, request: EndpointRequest): RuleCall | Answer {
  const plan = ENDPOINT_PLAN[request.endpoint];
  for (const name of ENDPOINTS[request.endpoint].requiredQuery) {
    if (request.query[name as keyof QueryParams] === undefined) throw missingParameter(name);
  }
  const id =
    plan.subject === undefined ? undefined : request.pathParams[SUBJECT_PARAM[plan.subject]];
  if (plan.subject !== undefined && id === undefined) return notFoundAnswer(plan, undefined);
  return { caller, endpoint: request.endpoint, plan, query: request.query, id };
}

/** Whether {@link planRequest} answered (not found) instead of planning a call. */
export function isAnswer(planned: RuleCall | Answer): planned is Answer {
  return 'kind' in planned;
}

/**
 * The not-found answer of an endpoint of `plan` for the subject id `id`: unknown and
 * out-of-scope ids get the same words (spec §4).
 */
export function notFoundAnswer(plan: EndpointPlan, id: string | undefined): Answer {
  return { kind: 'not_found', message: notFoundMessage(plan.subject ?? 'record', id) };
}

/**
 * The answer a rule's result makes for `call`: the list of `found` records, the single
 * record `found`, or not found when `found` is `undefined` (spec §4, §5).
 */
export function answerOfFound(call: RuleCall, found: unknown): Answer {
  if (found === undefined) return notFoundAnswer(call.plan, call.id);
  return call.plan.response === 'list'
    ? { kind: 'list', records: found as readonly unknown[] }
    : { kind: 'single', record: found };
}

/**
 * The answer to `request` for `caller` by `rules` over `context` (synchronous engines: the
 * in-memory index, the plain rules): the plan's rule asked, its result made an answer
 * ({@link answerOfFound}). Throws as {@link planRequest}.
 */
export function answerByPlan<C>(
  context: C,
  caller: Caller,
  request: EndpointRequest,
  rules: Rules<C, unknown>,
): Answer {
  const call = planRequest(caller, request);
  if (isAnswer(call)) return call;
  return answerOfFound(call, rules[call.plan.rule](context, call));
}
