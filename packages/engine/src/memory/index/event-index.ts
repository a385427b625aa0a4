import type { EventColumns } from '@tagtrack/core/internal';
import { sortRangeByKey } from '../sort.ts';

/** Kind of events: opens or clicks. */
export type EventKind = 'opens' | 'clicks';

/**
 * The events of one kind: built eagerly, the per-tag counters of spec §9 and §10 (a tag's
 * `stats` are read from here) and where each tag's events start; built on first use and
 * cached, the per-tag lists (contacts, and each scope's events in date order: `scope.ts`) and
 * a tag's list in date order (endpoints 10, 12, 14).
 */
export interface EventIndex {
  readonly cols: EventColumns;
  /** The name of the date field in API records: `openDate` or `clickDate`. */
  readonly dateField: 'openDate' | 'clickDate';
  /**
   * Whether the events come grouped by tag in tag order (as usual): then tag `t`'s events are
   * `tagStart[t] .. tagStart[t+1]` themselves, and `tagEvents` is the identity.
   */
  readonly grouped: boolean;
  /**
   * Per tag, its event indices in input order: `tagEvents[tagStart[t] .. tagStart[t+1])`.
   * `tagEvents` is made on first use (the identity when `grouped`; else a stable counting
   * sort of the events by tag).
   */
  readonly tagStart: Int32Array;
  readonly tagEvents: Int32Array;
  /**
   * The events of tag `t` in date order, ties in input order, made on the first call for `t`
   * (time about `k log k` for the tag's `k` events) and cached. Not to be mutated.
   */
  eventsOfTag(t: number): Int32Array;
  /** Per tag: total events, distinct entries (unique), desktop and mobile events. */
  readonly total: Int32Array;
  readonly unique: Int32Array;
  readonly desktop: Int32Array;
  readonly mobile: Int32Array;
  /** Whether recipient entry `k` has at least one event of this kind. */
  readonly seen: Uint8Array;
}

/** An {@link EventIndex} whose per-tag lists are built on first use. */
class LazyEventIndex implements EventIndex {
  #tagEvents: Int32Array | undefined;
  /** The events of each tag asked for, in date order. */
  readonly #byDateOfTag = new Map<number, Int32Array>();

  constructor(
    readonly cols: EventColumns,
    readonly dateField: EventIndex['dateField'],
    readonly tagStart: Int32Array,
    readonly total: Int32Array,
    readonly unique: Int32Array,
    readonly desktop: Int32Array,
    readonly mobile: Int32Array,
    readonly seen: Uint8Array,
    readonly grouped: boolean,
  ) {}

  get tagEvents(): Int32Array {
    this.#tagEvents ??= this.grouped
      ? identity(this.cols.tag.length)
      : groupByTag(this.cols.tag, this.tagStart);
    return this.#tagEvents;
  }

  eventsOfTag(t: number): Int32Array {
    let events = this.#byDateOfTag.get(t);
    if (!events) {
      const from = this.tagStart[t]!;
      const to = this.tagStart[t + 1]!;
      events = new Int32Array(to - from);
      if (this.grouped) for (let i = 0; i < events.length; i++) events[i] = from + i;
      else events.set(this.tagEvents.subarray(from, to));
      sortRangeByKey(events, 0, events.length, this.cols.ms);
      this.#byDateOfTag.set(t, events);
    }
    return events;
  }
}

/** `0..n-1`. */
function identity(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** The events in tag order, each tag's in input order (a stable counting sort by `tag`). */
function groupByTag(tag: Int32Array, tagStart: Int32Array): Int32Array {
  const out = new Int32Array(tag.length);
  const pos = tagStart.slice(0, tagStart.length - 1);
  for (let e = 0; e < tag.length; e++) out[pos[tag[e]!]!++] = e;
  return out;
}

/**
 * The one pass of {@link indexEvents} (a small function of its own: one loop, quick to compile
 * on a cold start): adds each event to its tag's counters and marks its entry `seen`; while
 * the tags ascend (events grouped by tag in tag order), sets each tag's start in `tagStart` to
 * its first event. Returns whether they ascended throughout (else `tagStart` is not set).
 * Counters are summed per run of events of one tag and added at the run's end.
 */
function countEvents(
  cols: EventColumns,
  total: Int32Array,
  unique: Int32Array,
  desktop: Int32Array,
  mobile: Int32Array,
  seen: Uint8Array,
  tagStart: Int32Array,
): boolean {
  const { tag, entry, device } = cols;
  const n = tag.length;
  let grouped = true;
  let run = -1;
  let count = 0;
  let distinct = 0;
  let onDesktop = 0;
  let onMobile = 0;
  for (let e = 0; e < n; e++) {
    const t = tag[e]!;
    if (t !== run) {
      if (run >= 0) {
        total[run]! += count;
        unique[run]! += distinct;
        desktop[run]! += onDesktop;
        mobile[run]! += onMobile;
      }
      if (t < run) grouped = false;
      else if (grouped) for (let u = run + 1; u <= t; u++) tagStart[u] = e;
      run = t;
      count = 0;
      distinct = 0;
      onDesktop = 0;
      onMobile = 0;
    }
    count++;
    // Without branches (first events and devices come in no predictable order).
    const k = entry[e]!;
    distinct += 1 - seen[k]!;
    seen[k] = 1;
    const d = device[e]!;
    // DEVICE_DESKTOP is 0, DEVICE_MOBILE 1, DEVICE_NONE 2 (resolve.ts).
    onDesktop += ((d - 1) >>> 31) & 1;
    onMobile += d & 1;
  }
  if (run >= 0) {
    total[run]! += count;
    unique[run]! += distinct;
    desktop[run]! += onDesktop;
    mobile[run]! += onMobile;
  }
  if (grouped) for (let u = run + 1; u < tagStart.length; u++) tagStart[u] = n;
  return grouped;
}

/**
 * Indexes the events of one kind (`tagCount` tags, `entryCount` recipient entries) in one
 * pass: counts them per tag (total, distinct entries, desktop, mobile) and per recipient
 * entry, and finds where each tag's events start. The per-tag lists and the orders by date
 * are left to first use ({@link EventIndex.tagEvents}, {@link EventIndex.eventsOfTag}, and
 * per scope `Scopes.eventsByDate`). Recipient entries are the distinct normalised emails of
 * one tag, so "distinct recipients" (unique counters, spec §10) = distinct entries.
 */
export function indexEvents(
  cols: EventColumns,
  dateField: EventIndex['dateField'],
  tagCount: number,
  entryCount: number,
): EventIndex {
  const total = new Int32Array(tagCount);
  const desktop = new Int32Array(tagCount);
  const mobile = new Int32Array(tagCount);
  const unique = new Int32Array(tagCount);
  const seen = new Uint8Array(entryCount);
  const tagStart = new Int32Array(tagCount + 1);
  const grouped = countEvents(cols, total, unique, desktop, mobile, seen, tagStart);
  if (!grouped) for (let t = 0; t < tagCount; t++) tagStart[t + 1] = tagStart[t]! + total[t]!;
  return new LazyEventIndex(
    cols,
    dateField,
    tagStart,
    total,
    unique,
    desktop,
    mobile,
    seen,
    grouped,
  );
}
