import * as z from 'zod';
import { CalendarDate, Counter, Timestamp } from './values.ts';

/**
 * A statistics summary (source: "Statistics summary"; spec §5, §10).
 * With `aggregateData=false` each record covers one UTC day and carries `date`
 * (`YYYY-MM-DD`); the aggregated record has no `date`. `dateLastSent` is `null` only in
 * the empty aggregated record.
 */
export const StatsSummary = z
  .object({
    totalSent: Counter.describe(
      'Number of tags (sent messages) the record covers: those of the subject sent in the window (spec §10; law REL-STATS-SUM-TAGS)',
    ),
    totalOpens: Counter.describe(
      'Open events of those tags: the sum of their totalOpens (spec §10; law REL-STATS-SUM-TAGS)',
    ),
    totalClicks: Counter.describe(
      'Click events of those tags: the sum of their totalClicks (spec §10; law REL-STATS-SUM-TAGS)',
    ),
    uniqueOpens: Counter.describe(
      "Sum over those tags of each tag's uniqueOpens (distinct recipients with at least one open, unique per tag, not across tags); at most totalOpens (spec §10; laws REL-STATS-SUM-TAGS, AGG-UNIQUE-LE-TOTAL)",
    ),
    uniqueClicks: Counter.describe(
      "Sum over those tags of each tag's uniqueClicks (distinct recipients with at least one click, unique per tag); at most totalClicks (spec §10; laws REL-STATS-SUM-TAGS, AGG-UNIQUE-LE-TOTAL)",
    ),
    dateLastSent: Timestamp.nullable().describe(
      'Latest dateSent of those tags; null only when no tag matched, in the aggregated record (spec §10; law AGG-MERGE-MONOID)',
    ),
    date: CalendarDate.optional().describe(
      'The UTC day of a per-day record (aggregateData=false); absent in the aggregated record, which merges the per-day records (spec §5, §10; law REL-AGGREGATE-MERGE)',
    ),
  })
  .meta({ id: 'StatsSummary' });
export type StatsSummary = z.infer<typeof StatsSummary>;

/** The counter fields of a {@link StatsSummary}. */
export const STATS_COUNTER_FIELDS = [
  'totalSent',
  'totalOpens',
  'totalClicks',
  'uniqueOpens',
  'uniqueClicks',
] as const satisfies readonly (keyof StatsSummary)[];

/** The identity of {@link mergeStats}: all counters zero, `dateLastSent: null` (spec §10). */
export function emptyStats(): StatsSummary {
  return {
    totalSent: 0,
    totalOpens: 0,
    totalClicks: 0,
    uniqueOpens: 0,
    uniqueClicks: 0,
    dateLastSent: null,
  };
}

function laterTimestamp(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

/**
 * Merges two stats records (spec §10, aggregateData): counters add, `dateLastSent`
 * takes the later one, and the result carries no `date`. A commutative monoid with
 * {@link emptyStats} as identity.
 */
export function mergeStats(a: StatsSummary, b: StatsSummary): StatsSummary {
  return {
    totalSent: a.totalSent + b.totalSent,
    totalOpens: a.totalOpens + b.totalOpens,
    totalClicks: a.totalClicks + b.totalClicks,
    uniqueOpens: a.uniqueOpens + b.uniqueOpens,
    uniqueClicks: a.uniqueClicks + b.uniqueClicks,
    dateLastSent: laterTimestamp(a.dateLastSent, b.dateLastSent),
  };
}

/** Folds {@link mergeStats} over `records`; `[]` gives {@link emptyStats} (spec §10). */
export function mergeAllStats(records: Iterable<StatsSummary>): StatsSummary {
  let acc = emptyStats();
  for (const r of records) acc = mergeStats(acc, r);
  return acc;
}
