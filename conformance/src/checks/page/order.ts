import {
  compareMembers,
  compareStrings,
  compareTags,
  type EndpointId,
  endpointById,
  normaliseEmail,
  parseTimestampMs,
  TAG_FILTER_PARAMS,
} from '@tagtrack/core';
import type { CheckContext } from '../context.ts';
import { type Check, defineCheck } from '../define.ts';
import { describe, ensure } from '../failure.ts';
import {
  dayOf,
  flattenEvents,
  middleWindow,
  type Sample,
  sampleCalls,
  sendDays,
  windowQuery,
} from '../sample.ts';
import { PAGED } from './shared.ts';

/** The stable order of every list (decisions §3 and its Revision 2). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'PAGE-STABLE-ORDER',
    title:
      'lists come in the stable order, filtered, windowed and typed ones too: tags newest dateSent first then tagID; members by lastname, firstname, memberID; contacts by email; events and days oldest first (strings by UTF-16 code units)',
    clause:
      'decisions §3 (order) and its Revision 2 (ordinal string order, ties among events free)',
    endpoints: [...PAGED, 'stats.team', 'opens.list', 'clicks.list'],
    async run(ctx) {
      // every list as sampled, then filtered, windowed and typed lists (picked from the data)
      const lists = [...(await sampleCalls(ctx)), ...(await narrowedCalls(ctx))].filter(
        ({ endpoint }) =>
          orderOf(endpoint) !== undefined && endpointById(endpoint).response === 'list',
      );
      const walks = [];
      for (const { endpoint, call } of lists)
        walks.push({ endpoint, w: await ctx.walk(endpoint, call) });
      // event groups follow the tag order, and their events are oldest first, with and
      // without a window
      const tagOrder = new Map((await ctx.walk('teams.tags')).records.map((t, i) => [t.tagID, i]));
      const window = await eventWindow(ctx);
      const groups = [];
      for (const endpoint of ['opens.list', 'clicks.list'] as const)
        for (const query of [[], ...(window === undefined ? [] : [window])])
          groups.push(await ctx.walk(endpoint, { query }));
      if ([...walks.map((l) => l.w), ...groups].every((w) => w.records.length === 0))
        ctx.skip('every sampled list is empty: no order to check');
      await ctx.each(walks, ({ endpoint, w }) => {
        const order = orderOf(endpoint)!;
        const recs: readonly Rec[] = w.records;
        const bad = recs.findIndex((r, i) => i > 0 && order(recs[i - 1]!, r) > 0);
        ensure(
          bad < 0,
          () =>
            `${describe(w.pages[0]!)}: record ${bad} comes after record ${bad - 1} out of order (${JSON.stringify(recs[bad - 1]).slice(0, 100)} then ${JSON.stringify(recs[bad]).slice(0, 100)})`,
          { kind: 'order', exchange: w.pages[0] },
        );
      });
      await ctx.each(groups, (w) => {
        const idx = w.records.map((g) => tagOrder.get(g.tagID) ?? -1);
        const bad = idx.findIndex((v, i) => i > 0 && v < idx[i - 1]!);
        ensure(
          bad < 0,
          () => `${describe(w.pages[0]!)}: event groups are not in the tag order at group ${bad}`,
          { kind: 'order', exchange: w.pages[0] },
        );
        const late = w.records.find((g) => {
          const ms = flattenEvents([g]).map((e) => parseTimestampMs(e.date));
          return ms.some((m, i) => i > 0 && m < ms[i - 1]!);
        });
        ensure(
          late === undefined,
          () => `${describe(w.pages[0]!)}: the events of tag ${late?.tagID} are not oldest first`,
          { kind: 'order', exchange: w.pages[0] },
        );
      });
    },
  }),
];

/**
 * Narrowed lists whose order is checked too (decisions §3: the order holds for every query):
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
  const events = [
    ...flattenEvents((await ctx.walk('opens.list')).records),
    ...flattenEvents((await ctx.walk('clicks.list')).records),
  ];
  const window = middleWindow([...new Set(events.map((e) => dayOf(e.date)))].sort());
  return window === undefined ? undefined : windowQuery(window.start, window.end);
}

type Rec = Record<string, unknown>;

/** A field of a record as a string ('' when absent; the envelope schemas checked the types). */
const str = (r: Rec, f: string) => String(r[f] ?? '');
/** Core's order of instants: epoch milliseconds of any RFC 3339 form. */
const byInstant = (f: string) => (a: Rec, b: Rec) =>
  parseTimestampMs(str(a, f)) - parseTimestampMs(str(b, f));
const member = (r: Rec) => ({
  lastname: str(r, 'lastname'),
  firstname: str(r, 'firstname'),
  memberID: str(r, 'memberID'),
});
const tag = (r: Rec) => ({ dateSent: str(r, 'dateSent'), tagID: str(r, 'tagID') });

/** The stable order of decisions §3 per endpoint, core's comparators (undefined: nothing to check). */
function orderOf(endpoint: EndpointId): ((a: Rec, b: Rec) => number) | undefined {
  switch (endpoint) {
    case 'teams.list':
    case 'teams.group':
      return (a, b) => compareMembers(member(a), member(b));
    case 'teams.tags':
    case 'teams.memberTags':
      return (a, b) => compareTags(tag(a), tag(b));
    case 'contacts.list':
    case 'contacts.tag':
      return (a, b) =>
        compareStrings(normaliseEmail(str(a, 'email')), normaliseEmail(str(b, 'email')));
    case 'opens.tag':
      return byInstant('openDate');
    case 'clicks.tag':
      return byInstant('clickDate');
    case 'stats.team':
    case 'stats.teamAlias':
    case 'stats.group':
    case 'stats.member':
      return (a, b) => compareStrings(str(a, 'date'), str(b, 'date'));
    default:
      return undefined;
  }
}
