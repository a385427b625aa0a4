import type { Caller, StatsQuery } from '@tagtrack/core';
import { dayNumber, dayString, emptyStats, type StatsSummary, withFields } from '@tagtrack/core';
import { dayOf } from '@tagtrack/core/internal';
import { partitionPoint } from '../sort.ts';
import type { Records } from './records.ts';
import type { Scope, Scopes } from './scope.ts';
import { type Prefix, StatsSeries } from './scope-parts.ts';
import { ACCOUNT_CODES, type Tables } from './tables.ts';

/** Per-tag counters summed by a series: total and unique opens and clicks (spec §10). */
interface TagCounterColumns {
  readonly to: Int32Array;
  readonly tc: Int32Array;
  readonly uo: Int32Array;
  readonly uc: Int32Array;
}

type SeriesArrays = { day: Int32Array; prefix: Prefix; lastTag: Int32Array };

/** The arrays of `n` series entries (days) and their prefix sums. */
function seriesArrays(n: number): SeriesArrays {
  const p = () => new Float64Array(n + 1);
  return { day: new Int32Array(n), prefix: [p(), p(), p(), p(), p()], lastTag: new Int32Array(n) };
}

/**
 * Builds the day entries of tags `tagsNewestFirst[from .. to)` (tag order, newest first) into
 * the arrays at entry `at`; returns the end of the entries written.
 */
function fillSeries(
  tagsNewestFirst: ArrayLike<number>,
  from: number,
  to: number,
  tagMs: Float64Array,
  counters: TagCounterColumns,
  out: SeriesArrays,
  at: number,
): number {
  const [pSent, pOpens, pClicks, pUo, pUc] = out.prefix;
  let k = at - 1;
  let lastDay = Number.NaN;
  for (let i = to - 1; i >= from; i--) {
    const t = tagsNewestFirst[i]!;
    const d = dayOf(tagMs[t]!);
    if (d !== lastDay) {
      k++;
      lastDay = d;
      out.day[k] = d;
      pSent[k + 1] = pSent[k]!;
      pOpens[k + 1] = pOpens[k]!;
      pClicks[k + 1] = pClicks[k]!;
      pUo[k + 1] = pUo[k]!;
      pUc[k + 1] = pUc[k]!;
    }
    out.lastTag[k] = t;
    pSent[k + 1]! += 1;
    pOpens[k + 1]! += counters.to[t]!;
    pClicks[k + 1]! += counters.tc[t]!;
    pUo[k + 1]! += counters.uo[t]!;
    pUc[k + 1]! += counters.uc[t]!;
  }
  return k + 1;
}

/**
 * Endpoints 6, 7, 8 and 13: stats of the visible team, a group or a member, per UTC day of
 * `dateSent` oldest first, or one aggregated record (spec §5, §10). A member's series and
 * a scope's series of several members (per subject and account type) are built on first use,
 * in time about proportional to their tags, and cached.
 */
export class Stats {
  private readonly memberSeries: (StatsSeries | undefined)[];
  private readonly counters: TagCounterColumns;

  constructor(
    private readonly tables: Tables,
    private readonly scopes: Scopes,
    private readonly records: Records,
  ) {
    const { opens, clicks, memberCount } = tables;
    this.counters = { to: opens.total, tc: clicks.total, uo: opens.unique, uc: clicks.unique };
    this.memberSeries = new Array(memberCount);
  }

  /** The series of member `m`'s tags. */
  private ofMember(m: number): StatsSeries {
    let series = this.memberSeries[m];
    if (!series) {
      const { res, tagOrder, memberTagStart, memberTagRanks } = this.tables;
      const from = memberTagStart[m]!;
      const n = memberTagStart[m + 1]! - from;
      const newestFirst = new Int32Array(n);
      for (let i = 0; i < n; i++) newestFirst[i] = tagOrder[memberTagRanks[from + i]!]!;
      const out = seriesArrays(n);
      const end = fillSeries(newestFirst, 0, n, res.tagMs, this.counters, out, 0);
      series = new StatsSeries(out.day, out.prefix, out.lastTag, 0, end);
      this.memberSeries[m] = series;
    }
    return series;
  }

  /** The stats a query asks for; `undefined` when its group or member is not visible. */
  stats(caller: Caller, query: StatsQuery): StatsSummary[] | undefined {
    const scope = this.scopes.of(caller);
    const { memberType, res } = this.tables;
    const typeCode = query.type === undefined ? -1 : ACCOUNT_CODES[query.type];
    let series: StatsSeries;
    const subject = query.subject;
    if (subject.kind === 'member') {
      const m = this.scopes.visibleMember(scope, subject.memberID);
      if (m === undefined) return undefined;
      if (typeCode >= 0 && memberType[m] !== typeCode) {
        return query.aggregateData ? [emptyStats()] : [];
      }
      series = this.ofMember(m);
    } else if (subject.kind === 'group') {
      const found = this.scopes.visibleGroup(scope, subject.group);
      if (!found) return undefined;
      const g = found.group;
      series = this.scopeSeries(
        scope,
        `g${g}:${typeCode}`,
        (m) => res.memberGroup[m] === g && (typeCode < 0 || memberType[m] === typeCode),
      );
    } else {
      series =
        scope.single >= 0 && typeCode < 0
          ? this.ofMember(scope.single)
          : this.scopeSeries(
              scope,
              `t:${typeCode}`,
              (m) => typeCode < 0 || memberType[m] === typeCode,
            );
    }
    return this.query(series, query);
  }

  /** The series of the scope's tags whose member passes `keep`, cached under `key`. */
  private scopeSeries(scope: Scope, key: string, keep: (member: number) => boolean): StatsSeries {
    const cached = scope.series.get(key);
    if (cached) return cached;
    const { tagOrder, res } = this.tables;
    const ranks = this.scopes.tagRanks(scope);
    const newestFirst: number[] = [];
    for (const r of ranks) {
      const t = tagOrder[r]!;
      if (keep(res.tagMember[t]!)) newestFirst.push(t);
    }
    const n = newestFirst.length;
    const out = seriesArrays(n);
    const end = fillSeries(newestFirst, 0, n, res.tagMs, this.counters, out, 0);
    const series = new StatsSeries(out.day, out.prefix, out.lastTag, 0, end);
    scope.series.set(key, series);
    return series;
  }

  /** The records of a series within the query's day window, per day or aggregated. */
  private query(s: StatsSeries, query: StatsQuery): StatsSummary[] {
    const startDay = query.start === undefined ? -Infinity : dayNumber(query.start);
    const endDay = query.end === undefined ? Infinity : dayNumber(query.end);
    const lo = partitionPoint(s.from, s.to, (i) => s.day[i]! < startDay);
    const hi = partitionPoint(lo, s.to, (i) => s.day[i]! <= endDay);
    const [pSent, pOpens, pClicks, pUo, pUc] = s.prefix;
    const record = (a: number, b: number): StatsSummary => ({
      totalSent: pSent[b]! - pSent[a]!,
      totalOpens: pOpens[b]! - pOpens[a]!,
      totalClicks: pClicks[b]! - pClicks[a]!,
      uniqueOpens: pUo[b]! - pUo[a]!,
      uniqueClicks: pUc[b]! - pUc[a]!,
      dateLastSent: this.records.dateSent(s.lastTag[b - 1]!),
    });
    if (query.aggregateData) return [lo < hi ? record(lo, hi) : emptyStats()];
    const out: StatsSummary[] = [];
    for (let i = lo; i < hi; i++)
      out.push(withFields(record(i, i + 1), { date: dayString(s.day[i]!) }));
    return out;
  }
}
