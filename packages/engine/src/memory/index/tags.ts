import type { Caller, Tag, TagQuery } from '@tagtrack/core';
import { windowBounds } from '@tagtrack/core';
import { partitionPoint } from '../sort.ts';
import type { Records } from './records.ts';
import type { Scopes } from './scope.ts';
import type { Tables } from './tables.ts';

/** Endpoints 2 and 4: visible tags newest first, windowed and filtered (spec §5, §6). */
export class Tags {
  constructor(
    private readonly tables: Tables,
    private readonly scopes: Scopes,
    private readonly records: Records,
  ) {}

  /**
   * The tags of one visible member (`query.memberID`, `undefined` when not visible) or of the
   * whole scope, sent within the day window, passing the four filters (a conjunction).
   * Two binary searches bound the window, so the time is about proportional to the answer.
   */
  tags(caller: Caller, query: TagQuery): Tag[] | undefined {
    const scope = this.scopes.of(caller);
    const { tagOrder, memberTagStart, memberTagRanks, opens, clicks, res } = this.tables;
    let ranks: Int32Array;
    if (query.memberID !== undefined) {
      const m = this.scopes.visibleMember(scope, query.memberID);
      if (m === undefined) return undefined;
      ranks = memberTagRanks.subarray(memberTagStart[m]!, memberTagStart[m + 1]!);
    } else ranks = this.scopes.tagRanks(scope);
    const tagMs = res.tagMs;
    const { startMs, endMs } = windowBounds(query);
    const from = partitionPoint(0, ranks.length, (i) => tagMs[tagOrder[ranks[i]!]!]! >= endMs);
    const out: Tag[] = [];
    for (let i = from; i < ranks.length; i++) {
      const t = tagOrder[ranks[i]!]!;
      if (tagMs[t]! < startMs) break;
      if (query.isOpened && opens.unique[t] === 0) continue;
      if (query.isUnopened && opens.total[t] !== 0) continue;
      if (query.isClicked && clicks.unique[t] === 0) continue;
      if (query.isUnclicked && clicks.total[t] !== 0) continue;
      out.push(this.records.tag(t));
    }
    return out;
  }
}
