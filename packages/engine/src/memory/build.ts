import type {
  AccountType,
  Answer,
  Caller,
  Click,
  ClickGroup,
  Contact,
  DailyCounts,
  Dataset,
  DayWindow,
  EndpointRequest,
  MemberWithoutGroup,
  Open,
  OpenGroup,
  ReportingIndex,
  StatsQuery,
  StatsSummary,
  Tag,
  TagQuery,
  TeamMember,
} from '@tagtrack/core';
import { answerRequest, DatasetError } from '@tagtrack/core';
import { type ResolvedDataset, resolveDataset } from '@tagtrack/core/internal';
import { Callers, type Credential } from './index/callers.ts';
import { Contacts } from './index/contacts.ts';
import { Events } from './index/events.ts';
import { Members } from './index/members.ts';
import { Records } from './index/records.ts';
import { Scopes } from './index/scope.ts';
import { Stats } from './index/series.ts';
import { buildTables } from './index/tables.ts';
import { Tags } from './index/tags.ts';

export type { ReportingIndex } from '@tagtrack/core';

/** Options of {@link buildIndex}. */
export interface BuildIndexOptions {
  /** Rendering of a member without a group (spec §9 option); default `'omit'`. */
  readonly memberWithoutGroup?: MemberWithoutGroup;
}

/**
 * Builds the reporting indexes of a dataset once (spec §4, §5, §9, §10) and returns a
 * {@link ReportingIndex} answering every endpoint in time about proportional to the answer.
 *
 * Built eagerly, in a few passes over the events and the tags: each tag's recipient entries
 * (its distinct normalised emails), per-tag counters, tag order, per-member tag lists. Built
 * on first use and cached, each in time about proportional to what it covers: per-tag event
 * lists (a tag's in date order), per-member day stats, and the per-scope (team, group,
 * member) merges of these, including a scope's events in date order and its contacts with
 * their counters (spec §10) and their ids.
 * Throws {@link DatasetError} listing the problems when `validateDataset` finds any.
 * Returned records are shared between calls and must not be mutated.
 *
 * Where things are (`aggregate/index/`):
 * - `tables.ts`: member order, tag order, per-member tag lists (eager);
 * - `event-index.ts`: per-tag counters (eager), events per tag (a tag's in date order);
 * - `scope.ts`: what a caller sees (spec §4), visible ids and groups, per-scope lists;
 * - `records.ts`: member, tag and event records as the API renders them;
 * - `members.ts`, `tags.ts`, `series.ts` (stats), `events.ts`, `contacts.ts`: the endpoints;
 * - `callers.ts`: credentials and callers; `dispatch.ts`: the table answering each endpoint.
 */
export function buildIndex(dataset: Dataset, options: BuildIndexOptions = {}): ReportingIndex {
  const res = resolveDataset(dataset);
  if (res.problems.length > 0) throw new DatasetError(res.problems);
  return new Index(buildTables(res), options.memberWithoutGroup ?? 'omit');
}

/**
 * The {@link ReportingIndex} of an already resolved dataset (as {@link buildIndex} does after
 * `resolveDataset`): for stores that resolve their own input, such as the columnar loader
 * (`columnar/`). Throws {@link DatasetError} when `res.problems` is not empty.
 */
export function indexOfResolved(
  res: ResolvedDataset,
  options: BuildIndexOptions = {},
): ReportingIndex {
  if (res.problems.length > 0) throw new DatasetError(res.problems);
  return new Index(buildTables(res), options.memberWithoutGroup ?? 'omit');
}

/** The {@link ReportingIndex} of {@link buildIndex}: its parts, wired once. */
class Index implements ReportingIndex {
  readonly dataset: Dataset;
  readonly #callers: Callers;
  readonly #members: Members;
  readonly #tags: Tags;
  readonly #stats: Stats;
  readonly #events: Events;
  readonly #contacts: Contacts;

  constructor(tables: ReturnType<typeof buildTables>, withoutGroup: MemberWithoutGroup) {
    this.dataset = tables.dataset;
    const scopes = new Scopes(tables);
    const records = new Records(tables, withoutGroup);
    this.#members = new Members(tables, scopes, records);
    this.#tags = new Tags(tables, scopes, records);
    this.#stats = new Stats(tables, scopes, records);
    this.#events = new Events(tables, scopes, records);
    this.#contacts = new Contacts(tables, scopes, records);
    this.#callers = new Callers(tables);
  }

  credential(authId: string): Credential | undefined {
    return this.#callers.credential(authId);
  }
  callerOf(memberID: string): Caller | undefined {
    return this.#callers.callerOf(memberID);
  }
  members(caller: Caller, query?: { type?: AccountType | undefined }): TeamMember[] {
    return this.#members.members(caller, query);
  }
  member(caller: Caller, memberID: string): TeamMember | undefined {
    return this.#members.member(caller, memberID);
  }
  groupMembers(
    caller: Caller,
    group: string,
    query?: { type?: AccountType | undefined },
  ): TeamMember[] | undefined {
    return this.#members.groupMembers(caller, group, query);
  }
  tags(caller: Caller, query: TagQuery): Tag[] | undefined {
    return this.#tags.tags(caller, query);
  }
  stats(caller: Caller, query: StatsQuery): StatsSummary[] | undefined {
    return this.#stats.stats(caller, query);
  }
  clickGroups(caller: Caller, window: DayWindow): ClickGroup[] {
    return this.#events.clickGroups(caller, window);
  }
  openGroups(caller: Caller, window: DayWindow): OpenGroup[] {
    return this.#events.openGroups(caller, window);
  }
  tagClicks(caller: Caller, tagID: string): Click[] | undefined {
    return this.#events.tagClicks(caller, tagID);
  }
  tagOpens(caller: Caller, tagID: string): Open[] | undefined {
    return this.#events.tagOpens(caller, tagID);
  }
  daily(caller: Caller, tagID: string, date: string): DailyCounts | undefined {
    return this.#events.daily(caller, tagID, date);
  }
  contacts(caller: Caller): Contact[] {
    return this.#contacts.contacts(caller);
  }
  contact(caller: Caller, contactID: string): Contact | undefined {
    return this.#contacts.contact(caller, contactID);
  }
  tagContacts(caller: Caller, tagID: string): Contact[] | undefined {
    return this.#contacts.tagContacts(caller, tagID);
  }
  answer(caller: Caller, request: EndpointRequest): Answer {
    return answerRequest(this, caller, request);
  }
}
