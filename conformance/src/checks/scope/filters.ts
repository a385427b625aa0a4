import { mergeAllStats, type StatsSummary } from '@tagtrack/core';
import { judgedCredentials } from '../../check/callers.ts';
import type { EndpointCall } from '../../check/context.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import { firstDifference, type Pair, showStats } from '../../check/sample.ts';

import { aggregatedStats, answerDifference, CACHE_PROBES, TYPES } from './visibility.ts';

/** Scope under filters and caches (spec §4): the account-type filter, and no cached answer served to another caller. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'SCOPE-TYPE-FILTER',
    title:
      'type=X lists only members of account type X, and the three typed lists partition the untyped one (teams, every visible group); the typed stats of admin, manager and user merge to the untyped stats',
    clause: 'spec §6 (type), §10 (merging stats records), §4 (account types)',
    endpoints: ['teams.list', 'teams.group', 'stats.team', 'stats.group'],
    async run(ctx) {
      const d = await ctx.discover();
      const lists: { endpoint: 'teams.list' | 'teams.group'; call: EndpointCall; what: string }[] =
        [
          { endpoint: 'teams.list', call: {}, what: 'the team' },
          ...d.groups.map((g) => ({
            endpoint: 'teams.group' as const,
            call: { pathParams: { group: g.groupID } },
            what: `group ${g.groupID} ${JSON.stringify(g.groupName)}`,
          })),
        ];
      const members = (endpoint: 'teams.list' | 'teams.group', call: EndpointCall) =>
        endpoint === 'teams.list'
          ? ctx.walk<'teams.list'>('teams.list', call)
          : ctx.walk<'teams.group'>('teams.group', call);
      await ctx.each(
        lists,
        async ({ endpoint, call, what }) => {
          const all = await members(endpoint, call);
          const seen: string[] = [];
          for (const type of TYPES) {
            const w = await members(endpoint, { ...call, query: [['type', type]] });
            const wrong = w.records.find((m) => m.accountType !== type);
            if (wrong !== undefined)
              throw new Violation(
                `${describe(w.pages[0]!)} lists member ${wrong.memberID} of account type ${wrong.accountType} (${what})`,
                { kind: 'extra', exchange: w.pages[0] },
              );
            seen.push(...w.records.map((m) => m.memberID));
          }
          const expected = all.records.map((m) => m.memberID).sort();
          const seenSet = new Set(seen);
          const expectedSet = new Set(expected);
          const missing = expected.find((id) => !seenSet.has(id));
          const extra = seen.find((id) => !expectedSet.has(id));
          if (missing !== undefined || extra !== undefined || seen.length !== expected.length)
            throw new Violation(
              `the lists of ${what} with type=${TYPES.join(', type=')} hold ${seen.length} members, the list without type ${expected.length}${missing === undefined ? '' : `; member ${missing} is in no typed list`}${extra === undefined ? '' : `; member ${extra} is only in a typed list`}`,
              { kind: missing !== undefined ? 'missing' : 'extra', exchange: all.pages[0] },
            );
        },
        { stopAt: 3 },
      );
      const stats: { endpoint: 'stats.team' | 'stats.group'; call: EndpointCall; what: string }[] =
        [
          { endpoint: 'stats.team', call: {}, what: 'team stats' },
          ...d.groups.slice(0, 2).map((g) => ({
            endpoint: 'stats.group' as const,
            call: { pathParams: { group: g.groupID } },
            what: `stats of group ${g.groupID}`,
          })),
        ];
      await ctx.each(
        stats,
        async ({ endpoint, call, what }) => {
          const whole = await aggregatedStats(ctx, endpoint, call);
          const parts: StatsSummary[] = [];
          for (const type of TYPES)
            parts.push(
              (await aggregatedStats(ctx, endpoint, { ...call, query: [['type', type]] })).record,
            );
          const merged = mergeAllStats(parts);
          // one way: fields only the implementation sends are free (spec §9 Revision 2)
          const diff = firstDifference(merged, whole.record);
          if (diff !== undefined)
            throw new Violation(
              `${describe(whole.exchange)}: ${what} ${showStats(whole.record)} are not the merge of the stats with type=${TYPES.join(', type=')} ${showStats(merged)} (${diff})`,
              { kind: 'counter', exchange: whole.exchange },
            );
        },
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'SCOPE-CACHE-PER-CALLER',
    title:
      'the same URL asked by two callers gives each its own answer: a response cached for one caller is never served to another',
    clause: 'spec §4 (everything follows the caller’s scope)',
    endpoints: CACHE_PROBES.map(([e]) => e),
    skipIf: (env) =>
      env.credentials.length < 2 ? 'needs two credentials (list them in the profile)' : undefined,
    async run(ctx) {
      const others = (await judgedCredentials(ctx)).filter((c) => c.authId !== ctx.primary.authId);
      // the primary and each other credential, the one or the other asking first (both ways
      // with a single other), each pair on two of the probes (rotating): about 50 requests
      const pairs = others.flatMap((o, i) =>
        [
          { first: ctx.primary, second: o },
          { first: o, second: ctx.primary },
        ].filter((_, k) => others.length === 1 || k === i % 2),
      );
      let compared = 0;
      // `total` is ignored (spec §5 Revision 2): a value of its own makes a URL no other
      // request of the run asked, so the first caller to ask it is known
      let n = 0;
      const fresh = (query: Pair[], tag: string): Pair[] => [
        ...query,
        ['total', `scope-cache-${tag}-${n++}`],
      ];
      await ctx.each(
        pairs.flatMap((p, i) =>
          [i, i + 1].map((k) => {
            const [endpoint, query] = CACHE_PROBES[k % CACHE_PROBES.length]!;
            return { ...p, endpoint, query };
          }),
        ),
        async ({ first, second, endpoint, query }) => {
          // each caller's own answer, on URLs only that caller asks
          const own = await ctx.call(endpoint, {
            query: fresh(query, 'own'),
            credential: second,
            cache: false,
          });
          const theirs = await ctx.call(endpoint, {
            query: fresh(query, 'theirs'),
            credential: first,
            cache: false,
          });
          if (answerDifference(endpoint, own, theirs, 'as another caller') === undefined) return;
          compared++;
          ctx.compared();
          // one URL, asked first by `first`, then by `second`
          const shared = fresh(query, 'shared');
          await ctx.call(endpoint, { query: shared, credential: first, cache: false });
          const after = await ctx.call(endpoint, {
            query: shared,
            credential: second,
            cache: false,
          });
          const d = answerDifference(
            endpoint,
            own,
            after,
            `as ${second.label}, right after ${first.label} asked the same URL`,
          );
          if (d === undefined) return;
          const replayed = answerDifference(endpoint, theirs, after, '') === undefined;
          throw new Violation(
            `${d.message}${replayed ? `: it is ${first.label}'s answer (a response cache keyed without the caller)` : ''}`,
            { kind: 'value', exchange: after },
          );
        },
        // each pair's verdict rests on its own four reads (uncached): a failing pair is read
        // again on still data when the data moved (spec §5 Revision 3)
        { stopAt: 3, readsOwn: true },
      );
      if (compared === 0) ctx.skip('no two credentials get different answers to the same request');
    },
  }),
];
