import type { DatedEvent } from '../aggregate/rules.ts';
import type { Contact } from '../contact.ts';
import type { EndpointId } from '../endpoints.ts';
import type { Click, ClickGroup, DailyCounts, Open, OpenGroup } from '../events.ts';
import type { Steps } from '../slices.ts';
import type { StatsSummary } from '../stats.ts';
import type { Tag } from '../tag.ts';
import type { CalendarDate } from '../values.ts';

/**
 * A law of the API's records (docs/spec.md §5, §10) as data plus a predicate: see
 * `../laws.ts`. The predicate returns `undefined` when its input obeys the law, else the
 * first violation in domain words; it never throws on schema-valid records.
 */
export interface Law<In> {
  /** Requirement id: the id of the conformance suite's check that applies the law. */
  readonly id: string;
  /** The law in one sentence. */
  readonly title: string;
  /** Where the specification states it, e.g. `spec §10 (per tag)`. */
  readonly clause: string;
  /**
   * The endpoints whose records the law speaks about, stated with the law (never derived
   * from its id); the suite's check of the law takes them for its coverage. Empty for a
   * property of core's own code (`MERGE_LAWS`).
   */
  readonly endpoints: readonly EndpointId[];
  /** `undefined` when `input` obeys the law, else the violation in domain words. */
  readonly check: (input: In) => string | undefined;
  /**
   * The same predicate as {@link check}, yielding between records (`Steps`, slices.ts), for
   * the laws whose input is a whole list (contacts, tags, events): the suite runs it in time
   * slices (`runInSlices`) so the event loop keeps turning on a list of a million records.
   * `check(input)` is `runAtOnce(steps(input))`. Absent for laws of one record.
   */
  readonly steps?: (input: In) => Steps<string | undefined>;
}

/** A record with open and click counters: a tag (2, 4), a contact (15–17), a stats record. */
export type CountedRecord = Tag | Contact | StatsSummary;

/**
 * An event as the laws read it: tag, recipient email, device and date. A dataset event is
 * one; {@link plainEvents} maps the event groups of endpoints 9 and 11 to it.
 */
export type LawEvent = DatedEvent;

/** A tag and events of it (events of other tags are ignored). */
export interface TagWithEvents {
  readonly tag: Tag;
  readonly opens: readonly LawEvent[];
  readonly clicks: readonly LawEvent[];
}

/** A tag's daily counts on one UTC day (endpoint 14) and the tag's events. */
export interface TagOnDay extends TagWithEvents {
  readonly date: CalendarDate;
  readonly daily: DailyCounts;
}

/** A tag's daily counts on every day with an event of it (other days may be included). */
export interface TagDailySeries {
  readonly tag: Tag;
  readonly days: readonly { readonly date: CalendarDate; readonly daily: DailyCounts }[];
}

/**
 * The answers to one stats query (endpoints 6, 7, 8, 13): per day (`aggregateData=false`),
 * aggregated (`true`), and the tags the same subject and window select (endpoints 2, 4).
 */
export interface StatsAnswers {
  readonly tags: readonly Tag[];
  readonly daily: readonly StatsSummary[];
  readonly aggregated: readonly StatsSummary[];
}

/** An aggregated stats record and the aggregated records of its parts; `subject` names it. */
export interface StatsMerge {
  readonly subject: string;
  readonly whole: StatsSummary;
  readonly parts: readonly StatsSummary[];
}

/**
 * A merge of stats records and three records to try it on. The merge laws speak of the
 * operation (core's `mergeStats`, which the suite and the other laws merge with), so the
 * operation is part of the input.
 */
export interface StatsMergeOperation {
  readonly merge: (a: StatsSummary, b: StatsSummary) => StatsSummary;
  readonly records: readonly [StatsSummary, StatsSummary, StatsSummary];
}

/** What one caller sees: contacts (15), tags (2) and the events of those tags (9, 11). */
export interface ContactView {
  readonly contacts: readonly Contact[];
  readonly tags: readonly Tag[];
  readonly opens: readonly LawEvent[];
  readonly clicks: readonly LawEvent[];
}

/** Events of endpoint 10 or 12, or the details of one event group of 9 or 11. */
export type EventList = readonly (Pick<Open, 'openDate'> | Pick<Click, 'clickDate'>)[];

/** Event groups (endpoint 9 or 11) and the tag list (2) of the same caller. */
export interface EventGroupsView {
  readonly tags: readonly Pick<Tag, 'tagID'>[];
  readonly groups: readonly (OpenGroup | ClickGroup)[];
}
