import type { Contact } from '../contact.ts';
import type { Dataset, DatasetEvent, DatasetTag } from '../dataset/schema.ts';
import type { EndpointId, PathParamName } from '../endpoints.ts';
import type { Click, ClickGroup, DailyCounts, Open, OpenGroup } from '../events.ts';
import type { AccountType, TeamMember } from '../member.ts';
import type { QueryParams } from '../params.ts';
import type { StatsSummary } from '../stats.ts';
import type { Tag } from '../tag.ts';
import type { CalendarDate } from '../values.ts';

/** The member a credential belongs to, as far as scoping needs it (spec §4). */
export interface Caller {
  readonly memberID: string;
  readonly teamID: string;
  readonly accountType: AccountType;
}

/** An inclusive window of whole UTC days; either bound may be absent (spec §6). */
export interface DayWindow {
  readonly start?: CalendarDate | undefined;
  readonly end?: CalendarDate | undefined;
}

/** The four tag filters of spec §6, a conjunction; absent means `false`. */
export interface TagFilters {
  readonly isClicked?: boolean | undefined;
  readonly isUnclicked?: boolean | undefined;
  readonly isOpened?: boolean | undefined;
  readonly isUnopened?: boolean | undefined;
}

/** What a tag list is asked for: one member's tags or all visible tags, windowed and filtered. */
export interface TagQuery extends DayWindow, TagFilters {
  /** Only this member's tags (endpoint 4); absent: every visible tag (endpoint 2). */
  readonly memberID?: string | undefined;
}

/** Whose statistics: the visible team, one group (id or name), or one member. */
export type StatsSubject =
  | { readonly kind: 'team' }
  | { readonly kind: 'group'; readonly group: string }
  | { readonly kind: 'member'; readonly memberID: string };

/** What a stats list is asked for (endpoints 6, 7, 8, 13; spec §5). */
export interface StatsQuery extends DayWindow {
  readonly subject: StatsSubject;
  readonly aggregateData?: boolean | undefined;
  /** Only members of this account type (endpoints 6, 7). */
  readonly type?: AccountType | undefined;
}

/** One request in domain terms: the endpoint, its decoded path parameters and parsed query. */
export interface EndpointRequest {
  readonly endpoint: EndpointId;
  readonly pathParams: Partial<Record<PathParamName, string>>;
  readonly query: QueryParams;
}

/**
 * The answer to an {@link EndpointRequest} before paging and rendering: the whole stably
 * ordered list, a single record, or not found (unknown or out of scope: spec §4).
 */
export type Answer =
  | { readonly kind: 'list'; readonly records: readonly unknown[] }
  | { readonly kind: 'single'; readonly record: unknown }
  | { readonly kind: 'not_found'; readonly message: string };

/**
 * Indexes over a {@link Dataset}, built once, that answer every endpoint for a caller in time
 * about proportional to the size of the answer (spec §4, §5, §10). Every method applies
 * the caller's scope; `undefined` means the id is unknown or outside the scope (404).
 * Lists come in the stable order of spec §5.
 */
export interface ReportingIndex {
  readonly dataset: Dataset;
  /** The access key and member of an auth id, or `undefined` when unknown. */
  credential(authId: string): { readonly accessKey: string; readonly caller: Caller } | undefined;
  /** The caller for a member id, or `undefined` when no such member. */
  callerOf(memberID: string): Caller | undefined;

  /** Endpoint 1: visible members, optionally of one account type. */
  members(caller: Caller, query?: { type?: AccountType | undefined }): TeamMember[];
  /** Endpoint 3. */
  member(caller: Caller, memberID: string): TeamMember | undefined;
  /** Endpoint 5: visible members of a group given by exact id, else exact name. */
  groupMembers(
    caller: Caller,
    group: string,
    query?: { type?: AccountType | undefined },
  ): TeamMember[] | undefined;
  /** Endpoints 2 and 4: tags newest first, with counters (`undefined`: member not visible). */
  tags(caller: Caller, query: TagQuery): Tag[] | undefined;
  /** Endpoints 6, 7, 8, 13: per-day records oldest first, or one aggregated record. */
  stats(caller: Caller, query: StatsQuery): StatsSummary[] | undefined;
  /** Endpoint 9: clicks in the window grouped by tag (tag order; events oldest first). */
  clickGroups(caller: Caller, window: DayWindow): ClickGroup[];
  /** Endpoint 11: opens in the window grouped by tag. */
  openGroups(caller: Caller, window: DayWindow): OpenGroup[];
  /** Endpoint 10: clicks of one tag, oldest first. */
  tagClicks(caller: Caller, tagID: string): Click[] | undefined;
  /** Endpoint 12: opens of one tag, oldest first. */
  tagOpens(caller: Caller, tagID: string): Open[] | undefined;
  /** Endpoint 14: unique opens and clicks of a tag on one UTC day. */
  daily(caller: Caller, tagID: string, date: CalendarDate): DailyCounts | undefined;
  /** Endpoint 15: contacts of visible tags, by email, counters over visible tags. */
  contacts(caller: Caller): Contact[];
  /** Endpoint 16. */
  contact(caller: Caller, contactID: string): Contact | undefined;
  /** Endpoint 17: the contacts of one tag, by email. */
  tagContacts(caller: Caller, tagID: string): Contact[] | undefined;

  /** Dispatches an {@link EndpointRequest} to the methods above. */
  answer(caller: Caller, request: EndpointRequest): Answer;
}

/**
 * A window of a list answer: `limit` records (>= 1) from the 0-based record `offset`
 * (spec §5: the page at cursor `offset` of page size `limit`). `offset` may exceed
 * the list's length (an empty window).
 */
export interface RecordWindow {
  readonly offset: number;
  readonly limit: number;
}

/**
 * A window of a list answer (spec §5): the records from `offset` (at most the window's
 * `limit`, fewer at the end, none past it) and `total`, the length of the whole list (the
 * `X-Total-Count`). An engine that computes lists in a database answers one page so.
 */
export interface AnswerSlice {
  readonly kind: 'slice';
  readonly records: readonly unknown[];
  readonly offset: number;
  readonly total: number;
}

/**
 * What a {@link ReportingEngine} answers: an {@link Answer} (a whole list, a single record or
 * not found) or, for a list asked with a window, an {@link AnswerSlice}.
 */
export type EngineAnswer = Answer | AnswerSlice;

/**
 * Where a server's answers come from, behind one interface (spec §4, §5, §10): the
 * in-memory index ({@link ReportingIndex}, through `@tagtrack/engine`'s `indexEngine`) or a
 * SQL database (`@tagtrack/engine`'s `openSqlEngine`). Answers are asynchronous (a database
 * is asked) and, for lists, may be one window: the same records a whole list would hold at
 * those places, in the same stable order. Credentials are few and looked up synchronously.
 * What an engine can do is said by its capability flags ({@link servesWindows},
 * {@link index}); its {@link name} is for messages only.
 */
export interface ReportingEngine {
  /** What answers, for messages and logs (e.g. `memory`, `pglite`, `postgres`); never switched on. */
  readonly name: string;
  /**
   * Whether a list asked with a window is answered as that window only (an
   * {@link AnswerSlice}, computed where the data lives): a caller then asks page by page and
   * keeps few whole answers. False: a window is ignored and the whole list answered.
   */
  readonly servesWindows: boolean;
  /**
   * The in-memory index the engine answers from, when it has one: what needs answers
   * synchronously or the index's own methods (a server's store layer over the index, live
   * data) asks it. Absent for an engine answering elsewhere (a database).
   */
  readonly index?: ReportingIndex | undefined;
  /**
   * Present when the engine's data and credentials live where others write them (a database):
   * the server then takes its appended records there ({@link LiveEngine.append}) and re-reads
   * the credentials ({@link LiveEngine.refreshCredentials}). Absent: the data never changes
   * under the engine.
   */
  readonly live?: LiveEngine | undefined;
  /** The access key and member of an auth id (spec §3), or `undefined` when unknown. */
  credential(authId: string): { readonly accessKey: string; readonly caller: Caller } | undefined;
  /**
   * The answer to `request` for `caller`, as `ReportingIndex.answer` gives it. With `window`,
   * a list may come as the {@link AnswerSlice} of that window (an engine may still answer the
   * whole list); without, always the whole list. Throws core's `QueryParamError` when
   * endpoint 14 has no `date`; rejects when the engine fails (e.g. the database is gone).
   */
  answer(caller: Caller, request: EndpointRequest, window?: RecordWindow): Promise<EngineAnswer>;
  /** Releases what the engine holds (database connections); the in-memory one holds nothing. */
  close(): Promise<void>;
}

/** Records appended to live data: new tags (with their recipients), opens and clicks. */
export interface AppendedRecords {
  readonly tags?: readonly DatasetTag[];
  readonly opens?: readonly DatasetEvent[];
  readonly clicks?: readonly DatasetEvent[];
}

/**
 * The live side of an engine whose data others may change while it serves (spec §5
 * Revision 3: data may change while a client reads it), such as a database with vendors'
 * own INSERTs: each answer reads one consistent snapshot of it.
 */
export interface LiveEngine {
  /**
   * Appends `records` in one transaction (requests see all of them or none), keeping every
   * counter current. Rejects naming the reason when they cannot be appended (then nothing was).
   */
  append(records: AppendedRecords): Promise<void>;
  /**
   * What a generator of appended records draws from: the teams and credentials, and the
   * tags with their recipients (at most `tagsPerTeam` of each team's latest), no events.
   */
  base(tagsPerTeam: number): Promise<Dataset>;
  /**
   * Re-reads the credentials (spec §3) unless they were read less than a second ago;
   * resolves `true` when it re-read them. Concurrent calls share one read.
   */
  refreshCredentials(): Promise<boolean>;
}
