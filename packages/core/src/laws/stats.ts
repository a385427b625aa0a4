import { dailyStatsOfTags, statsOfTags } from '../aggregate/rules.ts';
import { parseTimestampMs } from '../aggregate/time.ts';
import type { EndpointId } from '../endpoints.ts';
import { emptyStats, mergeAllStats, STATS_COUNTER_FIELDS, type StatsSummary } from '../stats.ts';
import {
  firstOf,
  outOfOrder,
  STATS_ENDPOINTS,
  sameInstant,
  statsDifference,
  TAG_ENDPOINTS,
} from './helpers.ts';
import type { Law, StatsAnswers, StatsMerge, StatsMergeOperation } from './types.ts';

/*
 * Laws of stats answers: a stats record against the tags it summarises, the aggregated record
 * against the per-day ones, wholes against the merge of their parts, and the merge itself
 * (docs/spec.md §10, cited spec §10; §6 stats lists, cited spec §5).
 */

// ---- stats answers (spec §10 stats, merging; §3 stats lists) ----------------------------

export const statsSummariseTags: Law<StatsAnswers> = {
  id: 'REL-STATS-SUM-TAGS',
  title:
    'stats are the summary of the selected tags: count, summed counters (unique per tag, summed), latest dateSent, one record per send day',
  clause: 'spec §10 (stats summary of a set of tags), §5 (one record per UTC day)',
  endpoints: [...STATS_ENDPOINTS, ...TAG_ENDPOINTS],
  check: ({ tags, daily, aggregated }) => {
    const agg = aggregated[0];
    const aggDiff = agg && statsDifference(statsOfTags(tags), agg);
    if (aggDiff) return `aggregated stats: ${aggDiff} from the ${tags.length} selected tags`;
    const want = dailyStatsOfTags(tags);
    const days = (rs: readonly StatsSummary[]) => rs.map((r) => r.date).join(', ');
    if (days(daily) !== days(want))
      return `daily records for days [${days(daily)}], expected the send days [${days(want)}]`;
    return firstOf(want.keys(), (i) => {
      const diff = statsDifference(want[i]!, daily[i]!);
      return diff && `daily record of ${want[i]!.date}: ${diff} from the tags sent that day`;
    });
  },
};

export const aggregatedIsMergeOfDays: Law<Pick<StatsAnswers, 'daily' | 'aggregated'>> = {
  id: 'REL-AGGREGATE-MERGE',
  title:
    'aggregateData=true gives one record without date, the merge of the aggregateData=false records (zeros and dateLastSent null when none)',
  clause: 'spec §5 (stats endpoints), §10 (merging)',
  endpoints: STATS_ENDPOINTS,
  check: ({ daily, aggregated }) => {
    if (aggregated.length !== 1) return `${aggregated.length} aggregated records, expected one`;
    const agg = aggregated[0]!;
    if (agg.date !== undefined) return `the aggregated record carries date ${agg.date}`;
    const diff = statsDifference(mergeAllStats(daily), agg);
    return diff && `aggregated record: ${diff} from the merge of ${daily.length} daily records`;
  },
};

export const statsDaysAscending: Law<Pick<StatsAnswers, 'daily'>> = {
  id: 'PAGE-ORDER-STATS-DAYS',
  title: 'per-day stats records carry their date, one per day, oldest first',
  clause: 'spec §5 (stats lists, order)',
  endpoints: STATS_ENDPOINTS,
  check: ({ daily }) => {
    const undated = daily.findIndex((r) => r.date === undefined);
    if (undated >= 0) return `daily record ${undated} has no date`;
    return outOfOrder(
      daily,
      (a, b) => a.date! < b.date!,
      (a, b) => `daily records of ${a.date} then ${b.date}: not one per day, oldest first`,
    );
  },
};

/**
 * A law "`whole` is the merge of `parts`" with its id, wording and the endpoints its records
 * come from (data: `endpoints`, never derived from the id).
 */
function mergeLaw(
  id: string,
  title: string,
  clause: string,
  endpoints: readonly EndpointId[],
  parts: string,
): Law<StatsMerge> {
  return {
    id,
    title,
    clause,
    endpoints,
    check: ({ subject, whole, parts: records }) => {
      const diff = statsDifference(mergeAllStats(records), whole);
      return diff && `${subject}: ${diff} from the merge of its ${records.length} ${parts}`;
    },
  };
}

export const teamStatsAreMergeOfMemberStats = mergeLaw(
  'REL-TEAM-MERGE-MEMBERS',
  'team stats are the merge of member stats: the visible members’ aggregated stats (of one account type with type) merge to the team’s',
  'spec §10 (team stats = merge of member stats), §6 (type)',
  ['stats.team', 'stats.member', 'teams.list'],
  'members’ stats',
);

export const groupStatsAreMergeOfMemberStats = mergeLaw(
  'REL-GROUP-MERGE-MEMBERS',
  'group stats are the merge of the group members’ stats (of one account type with type)',
  'spec §10 (group stats), §6 (group segment)',
  ['stats.group', 'teams.group', 'stats.member'],
  'members’ stats',
);

export const rangeSplitMerges = mergeLaw(
  'REL-RANGE-SPLIT',
  'stats of two adjacent date ranges merge to the stats of the whole range',
  'spec §10 (splitting a date range)',
  ['stats.team', 'stats.member'],
  'adjacent ranges’ stats',
);

export const typedStatsMergeToUntyped = mergeLaw(
  'REL-STATS-TYPES-MERGE',
  'stats of one account type (type=admin, manager, user) merge to the stats without type, per day and aggregated: type keeps the tags sent by members of that type',
  'spec §10 (merging), §6 Revision 3 (type on the stats endpoints 6, 13, 7)',
  ['stats.team', 'stats.teamAlias', 'stats.group'],
  'account types’ stats',
);

/**
 * A property of the merge operation itself (core's `mergeStats`), not of any response: it is
 * in `MERGE_LAWS`, not in `LAWS`, and speaks of no endpoint.
 */
export const mergeIsCommutativeMonoid: Law<StatsMergeOperation> = {
  id: 'AGG-MERGE-MONOID',
  title:
    'merging stats records is a commutative monoid: counters add, dateLastSent takes the latest, the empty record (zeros, null) is the identity; the merge carries no date',
  clause: 'spec §10 (merging)',
  endpoints: [],
  check: ({ merge, records: [a, b, c] }) => {
    const say = (what: string, want: StatsSummary, got: StatsSummary) => {
      const diff = statsDifference(want, got);
      return diff && `${what}: ${diff}`;
    };
    const ab = merge(a, b);
    const latest =
      a.dateLastSent === null ||
      (b.dateLastSent !== null &&
        parseTimestampMs(b.dateLastSent) > parseTimestampMs(a.dateLastSent))
        ? b.dateLastSent
        : a.dateLastSent;
    return (
      say('merge(empty, a) is not a', a, merge(emptyStats(), a)) ??
      say('merge(a, empty) is not a', a, merge(a, emptyStats())) ??
      say('merge(a, b) differs from merge(b, a)', merge(b, a), ab) ??
      say(
        'merge(merge(a, b), c) differs from merge(a, merge(b, c))',
        merge(a, merge(b, c)),
        merge(ab, c),
      ) ??
      firstOf(STATS_COUNTER_FIELDS, (k) =>
        ab[k] === a[k] + b[k] ? undefined : `merge(a, b).${k} ${ab[k]} is not ${a[k]} + ${b[k]}`,
      ) ??
      (sameInstant(ab.dateLastSent, latest)
        ? undefined
        : `merge(a, b).dateLastSent ${ab.dateLastSent} is not the latest of ${a.dateLastSent} and ${b.dateLastSent}`) ??
      (ab.date === undefined ? undefined : `merge(a, b) carries date ${ab.date}`)
    );
  },
};
