import { DEVICE_DESKTOP, DEVICE_MOBILE, type EventColumns } from '../resolve.ts';
import { sortIndicesByKey } from '../sort.ts';

/** Kind of events: opens or clicks. */
export type EventKind = 'opens' | 'clicks';

/**
 * The events of one kind with their date order, per-tag and per-member lists, and the per-tag
 * counters of decisions §8 and §9 (a tag's `stats` are read from here).
 */
export interface EventIndex {
  readonly cols: EventColumns;
  /** The name of the date field in API records: `openDate` or `clickDate`. */
  readonly dateField: 'openDate' | 'clickDate';
  /** Event indices in date order (stable: ties by input order). */
  readonly byDate: Int32Array;
  /** Per tag, event indices in date order: `tagEvents[tagStart[t] .. tagStart[t+1])`. */
  readonly tagStart: Int32Array;
  readonly tagEvents: Int32Array;
  /** Per member, date ranks ascending: `memberRanks[memberStart[m] .. memberStart[m+1])`. */
  readonly memberStart: Int32Array;
  readonly memberRanks: Int32Array;
  /** Per tag: total events, distinct entries (unique), desktop and mobile events. */
  readonly total: Int32Array;
  readonly unique: Int32Array;
  readonly desktop: Int32Array;
  readonly mobile: Int32Array;
  /** Whether recipient entry `k` has at least one event of this kind. */
  readonly seen: Uint8Array;
}

/** Exclusive prefix sums of `counts` in place (`counts[g]` becomes the start of group `g`). */
function startsOf(counts: Int32Array): void {
  let sum = 0;
  for (let g = 0; g < counts.length; g++) {
    const c = counts[g]!;
    counts[g] = sum;
    sum += c;
  }
}

/**
 * Indexes the events of one kind: sorts them by date, lists them per tag and per member
 * (both in date order, by one counting pass and one scatter pass) and counts them per tag
 * and per recipient entry. Recipient entries are the distinct normalised emails of one tag,
 * so "distinct recipients" (unique counters, decisions §9) = distinct entries.
 */
export function indexEvents(
  cols: EventColumns,
  dateField: EventIndex['dateField'],
  tagCount: number,
  tagMember: Int32Array,
  memberCount: number,
  entryCount: number,
): EventIndex {
  const { tag, entry, device } = cols;
  const n = tag.length;
  const byDate = sortIndicesByKey(cols.ms);
  const tagStart = new Int32Array(tagCount + 1);
  const memberStart = new Int32Array(memberCount + 1);
  const desktop = new Int32Array(tagCount);
  const mobile = new Int32Array(tagCount);
  const unique = new Int32Array(tagCount);
  const seen = new Uint8Array(entryCount);
  for (let e = 0; e < n; e++) {
    const t = tag[e]!;
    tagStart[t]!++;
    memberStart[tagMember[t]!]!++;
    const k = entry[e]!;
    if (seen[k] === 0) {
      seen[k] = 1;
      unique[t]!++;
    }
    const d = device[e];
    if (d === DEVICE_DESKTOP) desktop[t]!++;
    else if (d === DEVICE_MOBILE) mobile[t]!++;
  }
  const total = tagStart.slice(0, tagCount);
  startsOf(tagStart);
  startsOf(memberStart);
  const tagPos = tagStart.slice(0, tagCount);
  const memberPos = memberStart.slice(0, memberCount);
  const tagEvents = new Int32Array(n);
  const memberRanks = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const e = byDate[r]!;
    const t = tag[e]!;
    tagEvents[tagPos[t]!++] = e;
    memberRanks[memberPos[tagMember[t]!]!++] = r;
  }
  return {
    cols,
    dateField,
    byDate,
    tagStart,
    tagEvents,
    memberStart,
    memberRanks,
    total,
    unique,
    desktop,
    mobile,
    seen,
  };
}
