import {
  aggregatedIsMergeOfDays,
  dailyStatsOfTags,
  emptyStats,
  groupStatsAreMergeOfMemberStats,
  rangeSplitMerges,
  STATS_COUNTER_FIELDS,
  type StatsSummary,
  statsDaysAscending,
  statsSummariseTags,
  teamStatsAreMergeOfMemberStats,
  typedStatsMergeToUntyped,
} from '@tagtrack/core';
import fc from 'fast-check';
import { LOOP_BATCH } from '../../check/context.ts';
import { type Check, defineCheck, lawCheck } from '../../check/define.ts';
import { describe, ensure, listDifferenceKind } from '../../check/failure.ts';
import { knownVisibleGroups, mayHideEmptyGroups, resolveGroupSegment } from '../../check/groups.ts';
import {
  addDays,
  boundaryWindows,
  firstDifference,
  windowQuery,
  withPicks,
} from '../../check/sample.ts';
import {
  aggregated,
  allTags,
  arbMemberID,
  arbWindow,
  members,
  obey,
  type Pairs,
  type StatsEndpoint,
  sameStats,
  windowDays,
} from './reads.ts';

/** Stats merge and split like the summaries they are (spec §5, §6, §10). */
export const checks: readonly Check[] = [
  lawCheck(rangeSplitMerges, {
    async run(ctx) {
      const days = await windowDays(ctx);
      const ids = (await members(ctx)).map((m) => m.memberID);
      const arb = fc.record({
        bounds: fc
          .uniqueArray(fc.constantFrom(...days), { minLength: 2, maxLength: 2 })
          .map((b) => b.sort()),
        member: arbMemberID(ids),
      });
      await ctx.property(arb, async ({ bounds, member }) => {
        const [a, b] = bounds as [string, string];
        const mid = days.filter((d) => d >= a && d < b);
        const m = mid[Math.floor(mid.length / 2)] ?? a;
        const [endpoint, pathParams] =
          member === undefined
            ? (['stats.team', {}] as const)
            : (['stats.member', { memberID: member }] as const);
        const left = await aggregated(ctx, endpoint, { pathParams, query: windowQuery(a, m) });
        const right = await aggregated(ctx, endpoint, {
          pathParams,
          query: windowQuery(addDays(m, 1), b),
        });
        const whole = await aggregated(ctx, endpoint, { pathParams, query: windowQuery(a, b) });
        const subject = `stats of ${a}..${b} (split into ${a}..${m} and ${addDays(m, 1)}..${b})`;
        obey(
          rangeSplitMerges.check({
            subject,
            whole: whole.record,
            parts: [left.record, right.record],
          }),
          'counter',
          whole.exchange,
        );
      });
    },
  }),
  lawCheck(aggregatedIsMergeOfDays, {
    also: 'the aggregateData=false records of each window come one per UTC day, oldest first (PAGE-ORDER-STATS-DAYS)',
    async run(ctx) {
      const days = await windowDays(ctx);
      const d = await ctx.discover();
      const ids = (await members(ctx)).map((m) => m.memberID);
      const subjects: [StatsEndpoint, Record<string, string>][] = [
        ['stats.team', {}],
        ...d.groups.map((g): [StatsEndpoint, Record<string, string>] => [
          'stats.group',
          { group: g.groupID },
        ]),
        ...ids.map((id): [StatsEndpoint, Record<string, string>] => [
          'stats.member',
          { memberID: id },
        ]),
      ];
      const arb = fc.record({ subject: fc.constantFrom(...subjects), window: arbWindow(days) });
      await ctx.property(arb, async ({ subject: [endpoint, pathParams], window }) => {
        const query = windowQuery(window.start, window.end);
        const daily = await ctx.walk(endpoint, {
          pathParams,
          query: [...query, ['aggregateData', 'false']],
        });
        const records = daily.records;
        const order = statsDaysAscending.check({ daily: records });
        obey(
          order,
          order?.includes('no date') ? 'missing' : 'order',
          daily.pages[0],
          describe(daily.pages[0]!),
        );
        const agg = await aggregated(ctx, endpoint, { pathParams, query });
        obey(
          aggregatedIsMergeOfDays.check({ daily: records, aggregated: [agg.record] }),
          'counter',
          agg.exchange,
        );
      });
    },
  }),
  lawCheck(statsSummariseTags, {
    async run(ctx) {
      const days = await windowDays(ctx);
      const ids = (await members(ctx)).map((m) => m.memberID);
      const arb = fc.record({
        window: arbWindow(days),
        member: arbMemberID(ids),
      });
      // picked from the data, always tried: the whole range (every send day a record), and
      // one-day windows on the days of the tags sent nearest a UTC midnight
      const examples = [
        { start: undefined, end: undefined },
        ...boundaryWindows((await allTags(ctx)).map((t) => t.dateSent)),
      ].map((window) => ({ window, member: undefined }));
      await ctx.property(
        arb,
        async ({ window, member: memberID }) => {
          const query = windowQuery(window.start, window.end);
          const tags = await allTags(ctx, memberID, query);
          const [endpoint, pathParams] =
            memberID === undefined
              ? (['stats.team', {}] as const)
              : (['stats.member', { memberID }] as const);
          const agg = await aggregated(ctx, endpoint, { pathParams, query });
          const daily = await ctx.walk(endpoint, {
            pathParams,
            query: [...query, ['aggregateData', 'false']],
          });
          const records = daily.records;
          const problem = statsSummariseTags.check({
            tags,
            daily: records,
            aggregated: [agg.record],
          });
          if (problem?.startsWith('aggregated')) obey(problem, 'counter', agg.exchange);
          const expectedDays = dailyStatsOfTags(tags).map((r) => r.date);
          const days = records.map((r) => r.date);
          obey(
            problem,
            days.join() === expectedDays.join()
              ? 'counter'
              : listDifferenceKind(expectedDays, days),
            daily.pages[0],
            describe(daily.pages[0]!),
          );
        },
        withPicks(ctx, examples),
      );
    },
  }),
  lawCheck(teamStatsAreMergeOfMemberStats, {
    async run(ctx) {
      const days = await windowDays(ctx);
      const arb = fc.record({
        window: arbWindow(days),
        type: fc.option(fc.constantFrom('admin', 'manager', 'user')),
      });
      await ctx.property(arb, async ({ window, type }) => {
        const query = windowQuery(window.start, window.end);
        const typeQ: Pairs = type === null ? [] : [['type', type]];
        const ms = (await ctx.walk('teams.list', { query: typeQ })).records;
        const parts: StatsSummary[] = [];
        for (const m of ms)
          parts.push(
            (await aggregated(ctx, 'stats.member', { pathParams: { memberID: m.memberID }, query }))
              .record,
          );
        const team = await aggregated(ctx, 'stats.team', { query: [...query, ...typeQ] });
        obey(
          teamStatsAreMergeOfMemberStats.check({
            subject: `team stats${type === null ? '' : ` of type ${type}`}`,
            whole: team.record,
            parts,
          }),
          'counter',
          team.exchange,
        );
      });
    },
  }),
  lawCheck(groupStatsAreMergeOfMemberStats, {
    also: 'a group answers the same by id and by name',
    async run(ctx) {
      const d = await ctx.discover();
      if (d.groups.length === 0) ctx.skip('no group is visible to the credential');
      const days = await windowDays(ctx);
      const arb = fc.record({
        group: fc.constantFrom(...d.groups),
        window: arbWindow(days),
        type: fc.option(fc.constantFrom('admin', 'manager', 'user'), { freq: 3 }),
      });
      // an admin sees every group of the team, also groups without members, which the member
      // list cannot show: such a group may share a name with a visible one and have a lower
      // groupID, and then the name resolves to it (spec §4 Revision 2 and 3)
      const hidden = mayHideEmptyGroups(ctx);
      const visible = knownVisibleGroups(ctx, d);
      await ctx.property(arb, async ({ group, window, type }) => {
        const query = windowQuery(window.start, window.end);
        const typeQ: Pairs = type === null ? [] : [['type', type]];
        const byId = await ctx.walk('teams.group', {
          pathParams: { group: group.groupID },
          query: typeQ,
        });
        const parts: StatsSummary[] = [];
        for (const m of byId.records)
          parts.push(
            (await aggregated(ctx, 'stats.member', { pathParams: { memberID: m.memberID }, query }))
              .record,
          );
        const stats = await aggregated(ctx, 'stats.group', {
          pathParams: { group: group.groupID },
          query: [...query, ...typeQ],
        });
        obey(
          groupStatsAreMergeOfMemberStats.check({
            subject: `stats of group ${group.groupName}${type === null ? '' : ` of type ${type}`}`,
            whole: stats.record,
            parts,
          }),
          'counter',
          stats.exchange,
        );

        // by name: the group the name resolves to among the visible ones (an exact groupID
        // first, else the lowest groupID of that name), never the group it was read from
        const named = resolveGroupSegment(visible, group.groupName) ?? group;
        const why =
          named.groupID === group.groupID
            ? 'the group of that name'
            : `the lowest groupID of the groups named so, not ${group.groupID}`;
        const namedById =
          named.groupID === group.groupID
            ? byId
            : await ctx.walk('teams.group', { pathParams: { group: named.groupID }, query: typeQ });
        const byName = await ctx.walk('teams.group', {
          pathParams: { group: group.groupName },
          query: typeQ,
        });
        const statsNamed =
          named.groupID === group.groupID
            ? stats
            : await aggregated(ctx, 'stats.group', {
                pathParams: { group: named.groupID },
                query: [...query, ...typeQ],
              });
        const statsByName = await aggregated(ctx, 'stats.group', {
          pathParams: { group: group.groupName },
          query: [...query, ...typeQ],
        });
        const diff = firstDifference(namedById.records, byName.records);
        // a hidden empty group of that name with a lower groupID answers no member and the
        // empty stats record: conforming for an admin (or a caller of unknown account type)
        const hiddenEmptyGroup =
          diff !== undefined &&
          hidden &&
          byName.records.length === 0 &&
          isEmptyStats(statsByName.record);
        if (hiddenEmptyGroup) return;
        ensure(
          diff === undefined,
          () =>
            `group segment "${group.groupName}" resolves to group ${named.groupID} (${why}), but answers otherwise than by that id: ${diff}`,
          {
            kind: 'value',
            exchange: byName.pages[0],
          },
        );
        sameStats(
          statsNamed.record,
          statsByName.record,
          `group stats by name "${group.groupName}" differ from those of group ${named.groupID} (${why})`,
          statsByName.exchange,
        );
      });
    },
  }),
  lawCheck(typedStatsMergeToUntyped, {
    async run(ctx) {
      const d = await ctx.discover();
      const days = await windowDays(ctx);
      // the whole range, and a window inside it
      const windows: Pairs[] = [[], windowQuery(days[1]!, days[Math.ceil(days.length / 2)]!)];
      const calls: { endpoint: StatsEndpoint; pathParams?: { group: string }; what: string }[] = [
        { endpoint: 'stats.team', what: 'team stats' },
        { endpoint: 'stats.teamAlias', what: 'team stats (/teams/stats)' },
        ...d.groups.slice(0, 2).map((g) => ({
          endpoint: 'stats.group' as const,
          pathParams: { group: g.groupID },
          what: `stats of group ${g.groupID}`,
        })),
      ];
      await ctx.each(
        calls.flatMap((c) =>
          windows.flatMap((window) =>
            ['false', 'true'].map((aggregateData) => ({ ...c, window, aggregateData })),
          ),
        ),
        async ({ endpoint, pathParams, what, window, aggregateData }) => {
          const records = async (type: Pairs) => {
            const w = await ctx.walk(endpoint, {
              ...(pathParams === undefined ? {} : { pathParams }),
              query: [...window, ...type, ['aggregateData', aggregateData]],
            });
            return { records: w.records, exchange: w.pages[0]! };
          };
          const whole = await records([]);
          const typed = [];
          for (const type of ['admin', 'manager', 'user'])
            typed.push(await records([['type', type]]));
          const span = window.length === 0 ? '' : ` of ${window.map(([, v]) => v).join('..')}`;
          const dayOf = (r: StatsSummary) => r.date ?? '';
          // per day (aggregateData=false) or the one aggregated record (keyed by '')
          const keys = new Set([whole, ...typed].flatMap((a) => a.records.map(dayOf)));
          if (aggregateData === 'true') keys.add('');
          // each answer's records by day, indexed once (one lookup per day and answer)
          const byDay = new Map<{ records: StatsSummary[] }, Map<string, StatsSummary[]>>();
          for (const a of [whole, ...typed]) {
            const m = new Map<string, StatsSummary[]>();
            for (const r of a.records) {
              const list = m.get(dayOf(r));
              if (list === undefined) m.set(dayOf(r), [r]);
              else list.push(r);
            }
            byDay.set(a, m);
          }
          for (const key of [...keys].sort()) {
            const at = (a: { records: StatsSummary[] }) => byDay.get(a)!.get(key) ?? [];
            obey(
              typedStatsMergeToUntyped.check({
                subject: `${what}${span}${key === '' ? ' (aggregated)' : ` on ${key}`}`,
                whole: at(whole)[0] ?? emptyStats(),
                parts: typed.flatMap(at),
              }),
              'counter',
              at(whole).length > 0 ? whole.exchange : typed[0]!.exchange,
            );
          }
        },
        { concurrency: LOOP_BATCH, readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'REL-STATS-ALIAS',
    title: '/stats and /teams/stats give the same answer for the same parameters (type included)',
    clause: 'spec §6 (both /stats and /teams/stats; type works on both)',
    endpoints: ['stats.team', 'stats.teamAlias'],
    async run(ctx) {
      const days = await windowDays(ctx);
      const arb = fc.record({
        window: arbWindow(days),
        type: fc.option(fc.constantFrom('admin', 'manager', 'user')),
        aggregateData: fc.constantFrom('true', 'false'),
      });
      await ctx.property(arb, async ({ window, type, aggregateData }) => {
        const query: Pairs = [
          ...windowQuery(window.start, window.end),
          ...(type === null ? [] : ([['type', type]] as Pairs)),
          ['aggregateData', aggregateData],
        ];
        const a = await ctx.walk('stats.team', { query });
        const b = await ctx.walk('stats.teamAlias', { query });
        const diff = firstDifference(a.records, b.records);
        ensure(
          diff === undefined,
          () => `${describe(b.pages[0]!)} differs from ${describe(a.pages[0]!)}: ${diff}`,
          {
            kind: 'value',
            exchange: b.pages[0],
          },
        );
      });
    },
  }),
];

/** Whether a stats record is the empty one: every counter 0 and no send date (spec §10). */
function isEmptyStats(record: StatsSummary): boolean {
  return (
    STATS_COUNTER_FIELDS.every((f) => record[f] === 0) &&
    (record.dateLastSent === null || record.dateLastSent === undefined)
  );
}
