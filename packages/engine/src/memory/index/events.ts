import type {
  Caller,
  Click,
  ClickGroup,
  DailyCounts,
  DayWindow,
  Open,
  OpenGroup,
} from '@tagtrack/core';
import { DAY_MS, dayNumber, windowBounds, withFields } from '@tagtrack/core';
import { partitionPoint } from '../sort.ts';
import type { EventIndex, EventKind } from './event-index.ts';
import type { Records } from './records.ts';
import type { Scopes } from './scope.ts';
import { Stamps } from './stamps.ts';
import type { Tables } from './tables.ts';

/**
 * Endpoints 9 to 12 and 14: events grouped by tag or of one tag, and a tag's daily counts
 * (spec §5, §6, §10), read from the event indexes built with the tables.
 */
export class Events {
  /** Scratch marks over recipient entries (daily counts) and tags (grouping), made on first use. */
  private entryStamps: Stamps | undefined;
  private tagStamps: Stamps | undefined;
  private tagRankCache: Int32Array | undefined;

  constructor(
    private readonly tables: Tables,
    private readonly scopes: Scopes,
    private readonly records: Records,
  ) {}

  /** The rank of each tag in tag order (the inverse of `tagOrder`), made on first use. */
  private tagRank(): Int32Array {
    if (!this.tagRankCache) {
      const { tagOrder } = this.tables;
      this.tagRankCache = new Int32Array(tagOrder.length);
      for (let r = 0; r < tagOrder.length; r++) this.tagRankCache[tagOrder[r]!] = r;
    }
    return this.tagRankCache;
  }

  /**
   * The scope's events of one kind in the day window, grouped by tag: groups in tag order,
   * events oldest first (ties in input order), each `{ recipient, details }`.
   */
  private groups(
    caller: Caller,
    window: DayWindow,
    kind: EventKind,
  ): { tagID: string; events: unknown[] }[] {
    const scope = this.scopes.of(caller);
    const { tagOrder, dataset } = this.tables;
    const tagRank = this.tagRank();
    const idx = this.tables[kind];
    const events = this.scopes.eventsByDate(scope, kind);
    const { startMs, endMs } = windowBounds(window);
    const { ms, tag } = idx.cols;
    const lo = partitionPoint(0, events.length, (i) => ms[events[i]!]! < startMs);
    const hi = partitionPoint(lo, events.length, (i) => ms[events[i]!]! < endMs);
    this.tagStamps ??= new Stamps(dataset.tags.length);
    const stamps = this.tagStamps;
    const gen = stamps.next();
    const groupRanks: number[] = [];
    for (let i = lo; i < hi; i++) {
      const t = tag[events[i]!]!;
      if (stamps.mark[t] !== gen) {
        stamps.mark[t] = gen;
        groupRanks.push(tagRank[t]!);
      }
    }
    const sortedRanks = Int32Array.from(groupRanks).sort();
    const groups: { tagID: string; events: unknown[] }[] = [];
    for (let g = 0; g < sortedRanks.length; g++) {
      const t = tagOrder[sortedRanks[g]!]!;
      stamps.slot[t] = g;
      groups.push({ tagID: dataset.tags[t]!.tagID, events: [] });
    }
    for (let i = lo; i < hi; i++) {
      const e = events[i]!;
      groups[stamps.slot[tag[e]!]!]!.events.push({
        recipient: this.records.eventRecipient(idx, e),
        details: this.records.eventDetails(idx, e),
      });
    }
    return groups;
  }

  /** Endpoint 9. */
  clickGroups(caller: Caller, window: DayWindow): ClickGroup[] {
    return this.groups(caller, window, 'clicks').map((g) => ({
      tagID: g.tagID,
      clicks: g.events as ClickGroup['clicks'],
    }));
  }

  /** Endpoint 11. */
  openGroups(caller: Caller, window: DayWindow): OpenGroup[] {
    return this.groups(caller, window, 'opens').map((g) => ({
      tagID: g.tagID,
      opens: g.events as OpenGroup['opens'],
    }));
  }

  /** The events of one visible tag, oldest first, as records: the details, then `tagID`. */
  private ofTag(caller: Caller, tagID: string, kind: EventKind): unknown[] | undefined {
    const t = this.scopes.visibleTag(this.scopes.of(caller), tagID);
    if (t === undefined) return undefined;
    const idx = this.tables[kind];
    const events = idx.eventsOfTag(t);
    const out: unknown[] = [];
    for (let k = 0; k < events.length; k++) {
      out.push(withFields(this.records.eventDetails(idx, events[k]!), { tagID }));
    }
    return out;
  }

  /** Endpoint 10. */
  tagClicks(caller: Caller, tagID: string): Click[] | undefined {
    return this.ofTag(caller, tagID, 'clicks') as Click[] | undefined;
  }

  /** Endpoint 12. */
  tagOpens(caller: Caller, tagID: string): Open[] | undefined {
    return this.ofTag(caller, tagID, 'opens') as Open[] | undefined;
  }

  /** Endpoint 14: distinct recipients (entries) with an open, and with a click, on `date`. */
  daily(caller: Caller, tagID: string, date: string): DailyCounts | undefined {
    const t = this.scopes.visibleTag(this.scopes.of(caller), tagID);
    if (t === undefined) return undefined;
    const dayStart = dayNumber(date) * DAY_MS;
    const count = (idx: EventIndex): number => {
      const { cols } = idx;
      const events = idx.eventsOfTag(t);
      const b = events.length;
      const lo = partitionPoint(0, b, (k) => cols.ms[events[k]!]! < dayStart);
      this.entryStamps ??= new Stamps(this.tables.res.recipPos.length);
      const stamps = this.entryStamps;
      const gen = stamps.next();
      let n = 0;
      for (let k = lo; k < b; k++) {
        const e = events[k]!;
        if (cols.ms[e]! >= dayStart + DAY_MS) break;
        const entry = cols.entry[e]!;
        if (stamps.mark[entry] !== gen) {
          stamps.mark[entry] = gen;
          n++;
        }
      }
      return n;
    };
    return { opens: count(this.tables.opens), clicks: count(this.tables.clicks) };
  }
}
