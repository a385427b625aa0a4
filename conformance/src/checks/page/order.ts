import {
  contactsByEmail,
  type EndpointId,
  endpointById,
  eventGroupsInTagOrder,
  eventsOldestFirst,
  type Law,
  membersByName,
  type RecordOf,
  statsDaysAscending,
  TAG_FILTER_PARAMS,
  tagsNewestFirst,
} from '@tagtrack/core';
import type { CheckContext } from '../../check/context.ts';
import { type Check, lawCheck } from '../../check/define.ts';
import { describe, ensure } from '../../check/failure.ts';
import {
  middleWindow,
  type Sample,
  sampleCalls,
  sendDays,
  walkedEventDays,
  windowQuery,
} from '../../check/sample.ts';
import { applyLaw, collect } from '../../check/slices.ts';
import { WALK_MAX_RECORDS, type Walk } from '../../check/walk.ts';

/**
 * The stable order of every list (spec §5 and its Revision 2: strings by UTF-16 code
 * units, ties among events free), one check per law of core (`lawCheck`: id, title, clause
 * and endpoints are the law's). Each judges the lists as sampled and narrowed (filtered,
 * windowed, typed: {@link narrowedCalls}); the walks are shared through the run cache.
 */
export const checks: readonly Check[] = [
  listOrderCheck(tagsNewestFirst, 'tags', ['teams.tags', 'teams.memberTags'], (tags) => tags),
  listOrderCheck(membersByName, 'members', ['teams.list', 'teams.group'], (members) => members),
  listOrderCheck(contactsByEmail, 'contacts', ['contacts.list', 'contacts.tag'], (contacts) => ({
    contacts,
  })),
  lawCheck(eventsOldestFirst, {
    async run(ctx) {
      // the event lists of a tag (10, 12), then the events inside each group of /opens and
      // /clicks, with and without a window
      const lists = await walksOf(ctx, ['opens.tag', 'clicks.tag']);
      const groups = await eventGroupWalks(ctx);
      // every group's events, in time slices (a long walk holds thousands of groups)
      const inGroups = [];
      for (const w of groups) {
        const where = describe(w.pages[0]!);
        const lists = await collect(w.records, (g) => ({
          list: 'opens' in g ? g.opens.map((e) => e.details) : g.clicks.map((e) => e.details),
          where: `${where}, the events of tag ${g.tagID}`,
          exchange: w.pages[0],
        }));
        for (const l of lists) inGroups.push(l);
      }
      const all = [
        ...lists.map(({ w }) => ({
          list: w.records,
          where: describe(w.pages[0]!),
          exchange: w.pages[0],
        })),
        ...inGroups,
      ];
      if (all.every((l) => l.list.length === 0)) ctx.skip('every sampled event list is empty');
      await ctx.each(all, async ({ list, where, exchange }) => {
        const problem = await applyLaw(eventsOldestFirst, list);
        ensure(problem === undefined, () => `${where}: ${problem}`, { kind: 'order', exchange });
      });
    },
  }),
  lawCheck(eventGroupsInTagOrder, {
    async run(ctx) {
      const tags = (await ctx.walk('teams.tags')).records;
      const groups = await eventGroupWalks(ctx);
      if (groups.every((w) => w.records.length === 0))
        ctx.skip('no event group is visible: no order to check');
      await ctx.each(groups, async (w) => {
        const problem = await applyLaw(eventGroupsInTagOrder, { tags, groups: w.records });
        ensure(problem === undefined, () => `${describe(w.pages[0]!)}: ${problem}`, {
          kind: 'order',
          exchange: w.pages[0],
        });
      });
    },
  }),
  listOrderCheck(
    statsDaysAscending,
    'per-day stats records',
    ['stats.team', 'stats.teamAlias', 'stats.group', 'stats.member'],
    (daily) => ({ daily }),
  ),
];

/** The endpoints {@link listOrderCheck} judges, with their records. */
type OrderedList =
  | 'teams.tags'
  | 'teams.memberTags'
  | 'teams.list'
  | 'teams.group'
  | 'contacts.list'
  | 'contacts.tag'
  | 'stats.team'
  | 'stats.teamAlias'
  | 'stats.group'
  | 'stats.member'
  | 'opens.tag'
  | 'clicks.tag';

/**
 * The check of an order law over the sampled and narrowed lists of `endpoints`: `input`
 * makes the law's input of one list's records. Skips when every such list is empty.
 */
function listOrderCheck<E extends OrderedList, In>(
  law: Law<In>,
  what: string,
  endpoints: readonly E[],
  input: (records: readonly RecordOf<E>[]) => In,
): Check {
  return lawCheck(law, {
    async run(ctx) {
      let records = 0;
      // one list at a time, let go once judged: a check's lists together can be far larger
      // than one (the same lists, in the same order, as reading them all first)
      await ctx.each(await listCallsOf(ctx, endpoints), async (call) => {
        const w = await listOf(ctx, call);
        records += w.records.length;
        const problem = await applyLaw(law, input(w.records));
        ensure(problem === undefined, () => `${describe(w.pages[0]!)}: ${problem}`, {
          kind: problem?.includes('no date') ? 'missing' : 'order',
          exchange: w.pages[0],
        });
      });
      if (records === 0) ctx.skip(`every sampled list of ${what} is empty: no order to check`);
    },
  });
}

/** The sampled and narrowed calls of the lists of `endpoints` (see {@link narrowedCalls}). */
async function listCallsOf<E extends OrderedList>(
  ctx: CheckContext,
  endpoints: readonly E[],
): Promise<(Sample & { endpoint: E })[]> {
  return [...(await sampleCalls(ctx)), ...(await narrowedCalls(ctx))].filter(
    (s): s is Sample & { endpoint: E } =>
      (endpoints as readonly EndpointId[]).includes(s.endpoint) &&
      endpointById(s.endpoint).response === 'list',
  );
}

/** The list of one call of {@link listCallsOf}, walked (cached per run). */
async function listOf<E extends OrderedList>(
  ctx: CheckContext,
  { endpoint, call }: Sample & { endpoint: E },
): Promise<Pick<Walk<RecordOf<E>>, 'records' | 'pages'>> {
  // a list too long to walk whole is read at seeded cursors: its pages in cursor order
  // are a subsequence of the list, which an order holds on as on the whole list
  const w = await ctx.sampledList<EndpointId>(
    endpoint,
    call,
    `${endpoint} records`,
    WALK_MAX_RECORDS,
  );
  return w as unknown as Pick<Walk<RecordOf<E>>, 'records' | 'pages'>;
}

/** The sampled and narrowed lists of `endpoints`, each walked (cached per run). */
async function walksOf<E extends OrderedList>(ctx: CheckContext, endpoints: readonly E[]) {
  const walks: { endpoint: E; w: Pick<Walk<RecordOf<E>>, 'records' | 'pages'> }[] = [];
  for (const call of await listCallsOf(ctx, endpoints))
    walks.push({ endpoint: call.endpoint, w: await listOf(ctx, call) });
  return walks;
}

/** /opens and /clicks (9, 11) walked with and without a window in the middle of the event days. */
async function eventGroupWalks(ctx: CheckContext) {
  const window = await eventWindow(ctx);
  const groups = [];
  // a list too long to walk whole: whole groups of pages at seeded cursors, in order
  for (const endpoint of ['opens.list', 'clicks.list'] as const)
    for (const query of [[], ...(window === undefined ? [] : [window])])
      groups.push(
        await ctx.sampledList(
          endpoint,
          { query },
          endpoint === 'opens.list' ? 'open groups' : 'click groups',
          WALK_MAX_RECORDS,
        ),
      );
  return groups;
}

/**
 * Narrowed lists whose order is checked too (spec §5: the order holds for every query):
 * team tags under each tag filter and under a window in the middle of the send days, the
 * first member's tags under that window, members and per-day team stats of each account
 * type (team and group members), and the per-day stats of that window.
 */
async function narrowedCalls(ctx: CheckContext): Promise<Sample[]> {
  const d = await ctx.discover();
  const window = middleWindow(sendDays(d.tags));
  const windowQ = window === undefined ? [] : windowQuery(window.start, window.end);
  const out: Sample[] = TAG_FILTER_PARAMS.map((f) => ({
    endpoint: 'teams.tags',
    call: { query: [[f, 'true']] },
  }));
  if (window !== undefined) {
    out.push({ endpoint: 'teams.tags', call: { query: windowQ } });
    out.push({ endpoint: 'stats.team', call: { query: windowQ } });
    const member = d.members[0];
    if (member !== undefined)
      out.push({
        endpoint: 'teams.memberTags',
        call: { pathParams: { memberID: member.memberID }, query: windowQ },
      });
  }
  for (const type of new Set(d.members.map((m) => m.accountType))) {
    out.push({ endpoint: 'teams.list', call: { query: [['type', type]] } });
    out.push({ endpoint: 'stats.team', call: { query: [['type', type]] } });
    const group = d.groups[0];
    if (group !== undefined)
      out.push({
        endpoint: 'teams.group',
        call: { pathParams: { group: group.groupID }, query: [['type', type]] },
      });
  }
  return out;
}

/** A window in the middle of the event days, as query pairs (undefined: too few days). */
async function eventWindow(ctx: CheckContext): Promise<[string, string][] | undefined> {
  const window = middleWindow(await walkedEventDays(ctx));
  return window === undefined ? undefined : windowQuery(window.start, window.end);
}
