import {
  charsetOf,
  compareTables,
  ENDPOINT_IDS,
  type EndpointId,
  endpointById,
  mergeAllStats,
  normaliseEmail,
  parseHtml,
  parseText,
  type StatsSummary,
  type Table,
  toTable,
} from '@tagtrack/core';
import fc from 'fast-check';
import type { Exchange } from '../http.ts';
import {
  type Check,
  type CheckContext,
  defineCheck,
  describe,
  type EndpointCall,
  ensure,
  Violation,
} from './api.ts';
import {
  comparable,
  instantOf,
  linksOf,
  listsEvents,
  mediaType,
  normaliseTable,
} from './compare.ts';
import {
  addDays,
  type ContactRecord,
  dayOf,
  type EventGroup,
  firstDifference,
  flattenEvents,
  inWindow,
  type MemberRecord,
  sampleCalls,
  sendDays,
  showStats,
  statsKey,
  statsOfTagRecords,
  type TagRecord,
  windowQuery,
} from './sample.ts';

type Pairs = [string, string][];

async function allTags(ctx: CheckContext, memberID?: string, query: Pairs = []) {
  return memberID === undefined
    ? ((await ctx.walk('teams.tags', { query })).records as TagRecord[])
    : ((await ctx.walk('teams.memberTags', { pathParams: { memberID }, query }))
        .records as TagRecord[]);
}

/**
 * Days to draw window bounds from: the send days, and one day either side of the range.
 * Skips the check when no tag is visible: every window would select nothing, so the
 * relation would only compare empty answers (and a range could not be split).
 */
async function windowDays(ctx: CheckContext): Promise<string[]> {
  const days = sendDays(await allTags(ctx));
  if (days.length === 0) ctx.skip('no tag is visible to the credential: every window is empty');
  return [addDays(days[0]!, -1), ...days, addDays(days[days.length - 1]!, 1)];
}

/** An optional inclusive window drawn from `days` (start <= end). */
/**
 * An optional member id drawn from `ids` (`undefined`: the whole visible team); always
 * `undefined` when no member is visible. `freq` as in `fc.option` (1 in `freq` is undefined).
 */
function arbMemberID(ids: readonly string[], freq?: number): fc.Arbitrary<string | undefined> {
  if (ids.length === 0) return fc.constant(undefined);
  return fc.option(fc.constantFrom(...ids), { nil: undefined, ...(freq ? { freq } : {}) });
}

function arbWindow(days: readonly string[]) {
  return fc
    .tuple(fc.option(fc.constantFrom(...days)), fc.option(fc.constantFrom(...days)))
    .map(([a, b]) => {
      if (a !== null && b !== null && a > b) [a, b] = [b, a];
      return { start: a ?? undefined, end: b ?? undefined };
    });
}

async function aggregated(
  ctx: CheckContext,
  endpoint: EndpointId,
  call: EndpointCall,
): Promise<{ record: StatsSummary; exchange: Exchange }> {
  const query: Pairs = [...((call.query ?? []) as Pairs), ['aggregateData', 'true']];
  const w = await ctx.walk(endpoint, { ...call, query });
  const ex = w.pages[0]!;
  ensure(
    w.records.length === 1,
    `${describe(ex)}: aggregateData=true gave ${w.records.length} records, expected exactly 1`,
    { exchange: ex },
  );
  return { record: w.records[0] as StatsSummary, exchange: ex };
}

function sameStats(
  expected: StatsSummary,
  actual: StatsSummary,
  what: string,
  exchange: Exchange,
): void {
  ensure(
    statsKey(expected) === statsKey(actual),
    () => `${what}: expected ${showStats(expected)}, got ${showStats(actual)}`,
    { exchange, expected, actual },
  );
}

const FILTERS = ['isOpened', 'isUnopened', 'isClicked', 'isUnclicked'] as const;
const TRUE_SPELLINGS = ['true', 'True', '1'] as const;
const FALSE_SPELLINGS = ['false', 'FALSE', '0'] as const;

function filterHolds(filter: (typeof FILTERS)[number], t: TagRecord): boolean {
  switch (filter) {
    case 'isOpened':
      return t.stats.uniqueOpens! > 0;
    case 'isUnopened':
      return t.stats.totalOpens === 0;
    case 'isClicked':
      return t.stats.uniqueClicks! > 0;
    case 'isUnclicked':
      return t.stats.totalClicks === 0;
  }
}

/** An event's identity for set comparisons: tag, recipient by normalised email, instant, details. */
function eventKey(tagID: string, email: string, d: Record<string, string>) {
  return JSON.stringify([
    tagID,
    normaliseEmail(email),
    instantOf(d.openDate ?? d.clickDate),
    d.device,
    d.city,
    d.os,
  ]);
}

/** Visible members of the caller (from /teams). */
async function members(ctx: CheckContext, credential = ctx.primary): Promise<MemberRecord[]> {
  return (await ctx.walk('teams.list', { credential })).records as MemberRecord[];
}

const RTN_PARSERS: Record<'text' | 'html', (body: string) => Table> = {
  text: parseText,
  html: parseHtml,
};

/**
 * Metamorphic and cross-endpoint relations (decisions §3, §4, §7, §9), generated with
 * fast-check and shrunk on failure.
 */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'REL-FILTER-CONJUNCTION',
    area: 'relations',
    title:
      'tag filters return the subset of tags satisfying them, and several filters their conjunction',
    clause: 'decisions §4 (tag filters), §4 (boolean spellings)',
    endpoints: ['teams.tags', 'teams.memberTags'],
    async run(ctx) {
      if ((await allTags(ctx)).length === 0) ctx.skip('no tag is visible to the credential');
      const ids = (await members(ctx)).map((m) => m.memberID);
      const arb = fc.record({
        member: arbMemberID(ids),
        filters: fc.array(
          fc.tuple(
            fc.constantFrom(...FILTERS),
            fc.constantFrom(...TRUE_SPELLINGS, ...FALSE_SPELLINGS),
          ),
          { minLength: 1, maxLength: 4 },
        ),
      });
      await ctx.property(arb, async ({ member: memberID, filters }) => {
        const unique = [...new Map(filters.map(([k, v]) => [k, v])).entries()];
        const all = await allTags(ctx, memberID);
        const active = unique
          .filter(([, v]) => (TRUE_SPELLINGS as readonly string[]).includes(v))
          .map(([k]) => k);
        const expected = all
          .filter((t) => active.every((f) => filterHolds(f, t)))
          .map((t) => t.tagID);
        const w = await ctx.walk(memberID === undefined ? 'teams.tags' : 'teams.memberTags', {
          ...(memberID === undefined ? {} : { pathParams: { memberID } }),
          query: unique,
        });
        const actual = (w.records as TagRecord[]).map((t) => t.tagID);
        const extra = actual.filter((id) => !expected.includes(id));
        const missing = expected.filter((id) => !actual.includes(id));
        ensure(
          extra.length === 0 && missing.length === 0 && actual.join() === expected.join(),
          () =>
            `${describe(w.pages[0]!)}: ${actual.length} tags, expected the ${expected.length} of ${all.length} unfiltered tags with ${active.join(' and ') || 'no filter'}` +
            (extra.length ? `; tag ${extra[0]} does not satisfy the filters` : '') +
            (missing.length ? `; tag ${missing[0]} is missing` : ''),
          { exchange: w.pages[0] },
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-WINDOW-INCLUSIVE',
    area: 'relations',
    title:
      'start/end select exactly the tags sent on the whole UTC days start..end, both inclusive',
    clause: 'decisions §4 (dates)',
    endpoints: ['teams.tags', 'teams.memberTags'],
    async run(ctx) {
      const days = await windowDays(ctx);
      const ids = (await members(ctx)).map((m) => m.memberID);
      const arb = fc.record({
        window: arbWindow(days),
        member: arbMemberID(ids, 3),
      });
      await ctx.property(arb, async ({ window, member: memberID }) => {
        const all = await allTags(ctx, memberID);
        const expected = all
          .filter((t) => inWindow(dayOf(t.dateSent), window.start, window.end))
          .map((t) => t.tagID);
        const query = windowQuery(window.start, window.end);
        const w = await ctx.walk(memberID === undefined ? 'teams.tags' : 'teams.memberTags', {
          ...(memberID === undefined ? {} : { pathParams: { memberID } }),
          query,
        });
        const got = w.records as TagRecord[];
        const outside = got.find((t) => !inWindow(dayOf(t.dateSent), window.start, window.end));
        ensure(
          outside === undefined,
          () =>
            `${describe(w.pages[0]!)}: tag ${outside?.tagID} sent ${outside?.dateSent} is outside the window`,
          { exchange: w.pages[0] },
        );
        const actual = got.map((t) => t.tagID);
        const missing = all.find((t) => expected.includes(t.tagID) && !actual.includes(t.tagID));
        ensure(
          actual.join() === expected.join(),
          () =>
            `${describe(w.pages[0]!)}: ${actual.length} tags, expected ${expected.length}` +
            (missing ? `; tag ${missing.tagID} sent ${missing.dateSent} is missing` : ''),
          { exchange: w.pages[0] },
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-RANGE-SPLIT',
    area: 'relations',
    title: 'stats of two adjacent date ranges merge to the stats of the whole range',
    clause: 'decisions §9 (splitting a date range)',
    endpoints: ['stats.team', 'stats.member'],
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
        sameStats(
          mergeAllStats([left.record, right.record]),
          whole.record,
          `stats of ${a}..${m} merged with ${addDays(m, 1)}..${b} differ from ${a}..${b}`,
          whole.exchange,
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-AGGREGATE-MERGE',
    area: 'relations',
    title:
      'aggregateData=true gives one record equal to the merge of the aggregateData=false records (one per UTC day, oldest first)',
    clause: 'decisions §3 (stats endpoints), §9 (merging)',
    endpoints: ['stats.team', 'stats.group', 'stats.member'],
    async run(ctx) {
      const days = await windowDays(ctx);
      const d = await ctx.discover();
      const ids = (await members(ctx)).map((m) => m.memberID);
      const subjects: [EndpointId, Record<string, string>][] = [
        ['stats.team', {}],
        ...d.groups.map((g): [EndpointId, Record<string, string>] => [
          'stats.group',
          { group: g.groupID },
        ]),
        ...ids.map((id): [EndpointId, Record<string, string>] => [
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
        const records = daily.records as StatsSummary[];
        for (let i = 0; i < records.length; i++) {
          const r = records[i]!;
          ensure(r.date !== undefined, `${describe(daily.pages[0]!)}: record ${i} has no date`, {
            exchange: daily.pages[0],
          });
          ensure(
            i === 0 || records[i - 1]!.date! < r.date,
            () =>
              `${describe(daily.pages[0]!)}: record dates ${records[i - 1]!.date} then ${r.date} are not strictly increasing`,
            { exchange: daily.pages[0] },
          );
        }
        const agg = await aggregated(ctx, endpoint, { pathParams, query });
        sameStats(
          mergeAllStats(records),
          agg.record,
          `the aggregated record differs from the merge of the ${records.length} daily records`,
          agg.exchange,
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-STATS-SUM-TAGS',
    area: 'relations',
    title:
      'stats are the summary of the selected tags: count, summed counters, latest dateSent, one record per send day',
    clause: 'decisions §9 (stats summary of a set of tags), §3 (one record per UTC day)',
    endpoints: ['stats.team', 'stats.member', 'teams.tags', 'teams.memberTags'],
    async run(ctx) {
      const days = await windowDays(ctx);
      const ids = (await members(ctx)).map((m) => m.memberID);
      const arb = fc.record({
        window: arbWindow(days),
        member: arbMemberID(ids),
      });
      await ctx.property(arb, async ({ window, member: memberID }) => {
        const query = windowQuery(window.start, window.end);
        const tags = await allTags(ctx, memberID, query);
        const [endpoint, pathParams] =
          memberID === undefined
            ? (['stats.team', {}] as const)
            : (['stats.member', { memberID }] as const);
        const agg = await aggregated(ctx, endpoint, { pathParams, query });
        sameStats(
          statsOfTagRecords(tags),
          agg.record,
          `aggregated stats differ from the summary of the ${tags.length} tags the same query selects`,
          agg.exchange,
        );
        const perDay = new Map<string, TagRecord[]>();
        for (const t of tags)
          perDay.set(dayOf(t.dateSent), [...(perDay.get(dayOf(t.dateSent)) ?? []), t]);
        const daily = await ctx.walk(endpoint, {
          pathParams,
          query: [...query, ['aggregateData', 'false']],
        });
        const records = daily.records as StatsSummary[];
        const expectedDays = [...perDay.keys()].sort();
        ensure(
          records.map((r) => r.date).join() === expectedDays.join(),
          () =>
            `${describe(daily.pages[0]!)}: daily records for days [${records.map((r) => r.date).join(', ')}], expected the send days [${expectedDays.join(', ')}]`,
          { exchange: daily.pages[0] },
        );
        for (const r of records) {
          sameStats(
            statsOfTagRecords(perDay.get(r.date!)!),
            r,
            `daily record of ${r.date} differs from the summary of the tags sent that day`,
            daily.pages[0]!,
          );
        }
      });
    },
  }),
  defineCheck({
    id: 'REL-TEAM-MERGE-MEMBERS',
    area: 'relations',
    title:
      'team stats (optionally of one account type) are the merge of the visible members’ stats',
    clause: 'decisions §9 (team stats = merge of member stats), §4 (type)',
    endpoints: ['stats.team', 'stats.member', 'teams.list'],
    async run(ctx) {
      const days = await windowDays(ctx);
      const arb = fc.record({
        window: arbWindow(days),
        type: fc.option(fc.constantFrom('admin', 'manager', 'user')),
      });
      await ctx.property(arb, async ({ window, type }) => {
        const query = windowQuery(window.start, window.end);
        const typeQ: Pairs = type === null ? [] : [['type', type]];
        const ms = (await ctx.walk('teams.list', { query: typeQ })).records as MemberRecord[];
        const parts: StatsSummary[] = [];
        for (const m of ms)
          parts.push(
            (await aggregated(ctx, 'stats.member', { pathParams: { memberID: m.memberID }, query }))
              .record,
          );
        const team = await aggregated(ctx, 'stats.team', { query: [...query, ...typeQ] });
        sameStats(
          mergeAllStats(parts),
          team.record,
          `team stats${type === null ? '' : ` of type ${type}`} differ from the merge of the ${ms.length} members’ stats`,
          team.exchange,
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-GROUP-MERGE-MEMBERS',
    area: 'relations',
    title:
      'group stats are the merge of the group members’ stats; a group answers the same by id and by name',
    clause: 'decisions §9 (group stats), §4 (group segment)',
    endpoints: ['stats.group', 'teams.group', 'stats.member'],
    async run(ctx) {
      const d = await ctx.discover();
      if (d.groups.length === 0) ctx.skip('no group is visible to the credential');
      const days = await windowDays(ctx);
      const arb = fc.record({
        group: fc.constantFrom(...d.groups),
        window: arbWindow(days),
        type: fc.option(fc.constantFrom('admin', 'manager', 'user'), { freq: 3 }),
      });
      await ctx.property(arb, async ({ group, window, type }) => {
        const query = windowQuery(window.start, window.end);
        const typeQ: Pairs = type === null ? [] : [['type', type]];
        const byId = await ctx.walk('teams.group', {
          pathParams: { group: group.groupID },
          query: typeQ,
        });
        const byName = await ctx.walk('teams.group', {
          pathParams: { group: group.groupName },
          query: typeQ,
        });
        const diff = firstDifference(byId.records, byName.records);
        ensure(
          diff === undefined,
          () => `group ${group.groupID} by name "${group.groupName}" differs from by id: ${diff}`,
          {
            exchange: byName.pages[0],
          },
        );
        const parts: StatsSummary[] = [];
        for (const m of byId.records as MemberRecord[])
          parts.push(
            (await aggregated(ctx, 'stats.member', { pathParams: { memberID: m.memberID }, query }))
              .record,
          );
        const stats = await aggregated(ctx, 'stats.group', {
          pathParams: { group: group.groupID },
          query: [...query, ...typeQ],
        });
        sameStats(
          mergeAllStats(parts),
          stats.record,
          `stats of group ${group.groupName}${type === null ? '' : ` of type ${type}`} differ from the merge of its ${byId.records.length} members’ stats`,
          stats.exchange,
        );
        const statsByName = await aggregated(ctx, 'stats.group', {
          pathParams: { group: group.groupName },
          query: [...query, ...typeQ],
        });
        sameStats(
          stats.record,
          statsByName.record,
          `group stats by name "${group.groupName}" differ from by id`,
          statsByName.exchange,
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-STATS-ALIAS',
    area: 'relations',
    title: '/stats and /teams/stats give the same answer for the same parameters (type included)',
    clause: 'decisions §4 (both /stats and /teams/stats; type works on both)',
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
            exchange: b.pages[0],
          },
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-MEMBER-TAGS-IN-TEAM',
    area: 'relations',
    title:
      'every member’s tags are team tags, in team order, and together they are all the team tags',
    clause: 'decisions §2 (scoping), §3 (order)',
    endpoints: ['teams.tags', 'teams.memberTags', 'teams.list'],
    async run(ctx) {
      const team = await allTags(ctx);
      if (team.length === 0) ctx.skip('no tag is visible to the credential');
      const order = new Map(team.map((t, i) => [t.tagID, i]));
      const seen = new Set<string>();
      for (const m of await members(ctx)) {
        const w = await ctx.walk('teams.memberTags', { pathParams: { memberID: m.memberID } });
        let last = -1;
        for (const t of w.records as TagRecord[]) {
          const i = order.get(t.tagID);
          if (i === undefined) {
            ctx.fail(`tag ${t.tagID} of member ${m.memberID} is not among the team tags`, {
              exchange: w.pages[0],
            });
            break;
          }
          const diff = firstDifference(
            comparable('teams.tags', [team[i]])[0],
            comparable('teams.memberTags', [t])[0],
          );
          if (diff !== undefined) {
            ctx.fail(`tag ${t.tagID} differs between the member's and the team's tags: ${diff}`, {
              exchange: w.pages[0],
            });
            break;
          }
          if (i < last) {
            ctx.fail(`tags of member ${m.memberID} are not in the team order at tag ${t.tagID}`, {
              exchange: w.pages[0],
            });
            break;
          }
          last = i;
          seen.add(t.tagID);
        }
      }
      const orphan = team.find((t) => !seen.has(t.tagID));
      if (orphan !== undefined)
        ctx.fail(`team tag ${orphan.tagID} belongs to no visible member's tags`);
    },
  }),
  defineCheck({
    id: 'REL-TAG-COUNTERS-EVENTS',
    area: 'relations',
    title:
      'per-tag counters agree with /opens/tag, /clicks/tag (totals, desktop, mobile incl. tablet) and /opens, /clicks (distinct recipients)',
    clause: 'decisions §9 (per tag), §8 (device classes)',
    endpoints: ['teams.tags', 'opens.tag', 'clicks.tag', 'opens.list', 'clicks.list'],
    async run(ctx) {
      const tags = await allTags(ctx);
      if (tags.length === 0) ctx.skip('no tag is visible to the credential');
      const openGroups = (await ctx.walk('opens.list')).records as EventGroup[];
      const clickGroups = (await ctx.walk('clicks.list')).records as EventGroup[];
      // every tag's counters against the events /opens and /clicks list for it
      for (const tag of tags) {
        for (const kind of ['opens', 'clicks'] as const) {
          const Kind = kind === 'opens' ? 'Opens' : 'Clicks';
          const groups = kind === 'opens' ? openGroups : clickGroups;
          const events = groups.find((g) => g.tagID === tag.tagID)?.[kind] ?? [];
          const expected: Record<string, number> = {
            [`total${Kind}`]: events.length,
            // a recipient is its normalised email (decisions §9; ids are checked elsewhere)
            [`unique${Kind}`]: new Set(events.map((e) => normaliseEmail(e.recipient.email))).size,
            [`desktop${Kind}`]: events.filter((e) => e.details.device === 'desktop').length,
            [`mobile${Kind}`]: events.filter((e) =>
              ['mobile', 'tablet'].includes(e.details.device!),
            ).length,
          };
          const wrong = Object.entries(expected).find(([f, v]) => tag.stats[f] !== v);
          if (wrong !== undefined && ctx.failures.length < 5) {
            const [field, value] = wrong;
            const what = field.startsWith('unique')
              ? `${value} distinct recipients`
              : field.startsWith('total')
                ? `${value} events`
                : field.startsWith('desktop')
                  ? `${value} desktop events`
                  : `${value} mobile or tablet events`;
            ctx.fail(
              `tag ${tag.tagID}: stats.${field} is ${tag.stats[field]}, but /${kind} lists ${what} for it`,
              {
                exchange: (await ctx.walk(kind === 'opens' ? 'opens.list' : 'clicks.list'))
                  .pages[0],
                expected: value,
                actual: tag.stats[field],
              },
            );
          }
        }
      }
      // and the per-tag endpoints list the same events as the groups
      await ctx.property(fc.constantFrom(...tags), async (tag) => {
        for (const kind of ['opens', 'clicks'] as const) {
          const endpoint = kind === 'opens' ? 'opens.tag' : 'clicks.tag';
          const ex = await ctx.call(endpoint, { pathParams: { tagID: tag.tagID } });
          const events = await ctx.records<Record<string, string>>(endpoint, {
            pathParams: { tagID: tag.tagID },
          });
          const grouped =
            (kind === 'opens' ? openGroups : clickGroups).find((g) => g.tagID === tag.tagID)?.[
              kind
            ] ?? [];
          const want = grouped.map((e) => ({ ...e.details, tagID: tag.tagID }));
          // events of the same instant may come in any order (decisions §3 Revision 2)
          const diff = firstDifference(comparable(endpoint, want), comparable(endpoint, events));
          ensure(
            diff === undefined,
            () =>
              `tag ${tag.tagID}: /${kind}/tag differs from the events /${kind} groups for it: ${diff}`,
            {
              exchange: ex,
            },
          );
        }
      });
    },
  }),
  defineCheck({
    id: 'REL-DAILY-DISTINCT-RECIPIENTS',
    area: 'relations',
    title:
      'daily counts of a tag on a day are the distinct recipients with an open (click) that UTC day',
    clause: 'decisions §9 (daily counts)',
    endpoints: ['tags.daily', 'opens.list', 'clicks.list'],
    async run(ctx) {
      const openGroups = (await ctx.walk('opens.list')).records as EventGroup[];
      const clickGroups = (await ctx.walk('clicks.list')).records as EventGroup[];
      const pairs: [string, string][] = [];
      for (const g of [...openGroups, ...clickGroups])
        for (const e of [...(g.opens ?? []), ...(g.clicks ?? [])])
          pairs.push([g.tagID, dayOf(e.details.openDate ?? e.details.clickDate!)]);
      if (pairs.length === 0) ctx.skip('no open or click event is visible to the credential');
      await ctx.property(fc.constantFrom(...pairs), async ([tagID, day]) => {
        const ex = await ctx.call('tags.daily', { pathParams: { tagID }, query: [['date', day]] });
        const { data } = ctx.envelope('tags.daily', ex) as {
          data: { opens: number; clicks: number };
        };
        const distinct = (groups: EventGroup[], kind: 'opens' | 'clicks') =>
          new Set(
            (groups.find((g) => g.tagID === tagID)?.[kind] ?? [])
              .filter((e) => dayOf(e.details.openDate ?? e.details.clickDate!) === day)
              .map((e) => normaliseEmail(e.recipient.email)),
          ).size;
        const opens = distinct(openGroups, 'opens');
        const clicks = distinct(clickGroups, 'clicks');
        ensure(
          data.opens === opens,
          `daily opens ${data.opens} for tag ${tagID} on ${day}, but ${opens} distinct recipients opened it that day`,
          { exchange: ex, expected: opens, actual: data.opens },
        );
        ensure(
          data.clicks === clicks,
          `daily clicks ${data.clicks} for tag ${tagID} on ${day}, but ${clicks} distinct recipients clicked it that day`,
          { exchange: ex, expected: clicks, actual: data.clicks },
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-EVENTS-WINDOW',
    area: 'relations',
    title:
      'start/end on /opens and /clicks select events by their own date (openDate, clickDate), inclusive',
    clause: 'decisions §4 (start/end select events by their own date on endpoints 9 and 11)',
    endpoints: ['opens.list', 'clicks.list'],
    async run(ctx) {
      const all = {
        opens: flattenEvents((await ctx.walk('opens.list')).records as EventGroup[], 'opens'),
        clicks: flattenEvents((await ctx.walk('clicks.list')).records as EventGroup[], 'clicks'),
      };
      const days = [
        ...new Set(
          [...all.opens, ...all.clicks].map((e) =>
            dayOf(e.details.openDate ?? e.details.clickDate!),
          ),
        ),
      ].sort();
      if (days.length === 0) ctx.skip('no open or click event is visible to the credential');
      const arb = fc.record({
        kind: fc.constantFrom('opens' as const, 'clicks' as const),
        window: arbWindow(days),
      });
      await ctx.property(arb, async ({ kind, window }) => {
        const endpoint = kind === 'opens' ? 'opens.list' : 'clicks.list';
        const w = await ctx.walk(endpoint, { query: windowQuery(window.start, window.end) });
        const got = flattenEvents(w.records as EventGroup[], kind).map((e) =>
          eventKey(e.tagID, e.recipient.email, e.details),
        );
        const expected = all[kind]
          .filter((e) =>
            inWindow(dayOf(e.details.openDate ?? e.details.clickDate!), window.start, window.end),
          )
          .map((e) => eventKey(e.tagID, e.recipient.email, e.details));
        const gotSet = new Set(got);
        const missing = expected.find((k) => !gotSet.has(k));
        const expSet = new Set(expected);
        const extra = got.find((k) => !expSet.has(k));
        ensure(
          got.length === expected.length && missing === undefined && extra === undefined,
          () =>
            `${describe(w.pages[0]!)}: ${got.length} ${kind}, expected the ${expected.length} of ${all[kind].length} whose own date is in the window` +
            (extra ? `; unexpected event ${extra}` : '') +
            (missing ? `; missing event ${missing}` : ''),
          { exchange: w.pages[0] },
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-SINGLE-MATCHES-LIST',
    area: 'relations',
    title: '/teams/member/{id} and /contacts/{id} answer the record the lists carry',
    clause: 'source: endpoints 3 and 16',
    endpoints: ['teams.member', 'teams.list', 'contacts.get', 'contacts.list'],
    async run(ctx) {
      const ms = await members(ctx);
      const contacts = (await ctx.walk('contacts.list')).records as ContactRecord[];
      const arb = fc.oneof(
        ...(ms.length ? [fc.constantFrom(...ms).map((m) => ['teams.member', m] as const)] : []),
        ...(contacts.length
          ? [fc.constantFrom(...contacts).map((c) => ['contacts.get', c] as const)]
          : []),
      );
      await ctx.property(arb, async ([endpoint, record]) => {
        const pathParams =
          endpoint === 'teams.member'
            ? { memberID: (record as MemberRecord).memberID }
            : { contactID: (record as ContactRecord).contactID };
        const ex = await ctx.call(endpoint, { pathParams });
        const { data } = ctx.envelope(endpoint, ex);
        const diff = firstDifference(record, data);
        ensure(
          diff === undefined,
          () => `${describe(ex)} differs from the list's record: ${diff}`,
          { exchange: ex },
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-FORMATS-AGREE',
    area: 'relations',
    title: 'rtn=json, text and html carry the same records',
    clause: 'decisions §7 (the three formats carry the same records)',
    endpoints: [...ENDPOINT_IDS],
    skipIf: (env) =>
      env.profile.rtn.length < 2 ? 'the profile supports only one response format' : undefined,
    async run(ctx) {
      let compared = 0;
      for (const { endpoint, call } of await sampleCalls(ctx)) {
        const jsonEx = await ctx.call(endpoint, {
          ...call,
          query: [...(call.query ?? []), ['rtn', 'json']],
        });
        const e = endpointById(endpoint);
        const data =
          e.response === 'list'
            ? ctx.page(endpoint, jsonEx).data
            : [ctx.envelope(endpoint, jsonEx).data];
        // timestamps as instants, columns by name, extra columns ignored, event ties free
        const expected = normaliseTable(toTable(e, data));
        for (const rtn of ['text', 'html'] as const) {
          if (!ctx.profile.rtn.includes(rtn)) continue;
          const ex = await ctx.call(endpoint, {
            ...call,
            query: [...(call.query ?? []), ['rtn', rtn]],
          });
          let table: Table;
          if (ex.status === 204 && e.response === 'list') {
            // no records (the paging end's form is PAGE-END-*'s to judge)
            table = { columns: expected.columns, rows: [] };
          } else {
            try {
              ensure(ex.status === 200, `${describe(ex)} answered ${ex.status}, expected 200`, {
                exchange: ex,
              });
              table = RTN_PARSERS[rtn](ex.body);
            } catch (err) {
              ctx.fail(`${describe(ex)}: ${(err as Error).message}`, { exchange: ex });
              continue;
            }
          }
          compared++;
          const diff = compareTables(expected, normaliseTable(table), {
            unordered: listsEvents(endpoint),
          });
          if (diff !== undefined)
            ctx.fail(`${describe(ex)} does not carry the rtn=json records: ${diff}`, {
              exchange: ex,
            });
        }
      }
      if (compared === 0) ctx.skip('no sampled endpoint could be fetched in two formats');
    },
  }),
  defineCheck({
    id: 'REL-HEAD-MATCHES-GET',
    area: 'relations',
    title:
      'HEAD answers like GET without a body: same status, Content-Type, X-Total-Count and Link',
    clause: 'decisions §4 (HEAD works like GET without a body), §3 (X-Total-Count)',
    endpoints: [...ENDPOINT_IDS],
    async run(ctx) {
      let compared = 0;
      for (const { endpoint, call } of await sampleCalls(ctx)) {
        for (const rtn of ctx.profile.rtn) {
          const c = { ...call, query: [...(call.query ?? []), ['rtn', rtn] as const] };
          const get = await ctx.call(endpoint, c);
          const head = await ctx.call(endpoint, { ...c, method: 'HEAD' });
          const problems: string[] = [];
          if (head.status !== get.status) problems.push(`status ${head.status}, GET ${get.status}`);
          // compared by meaning: media type and charset, the count, the linked pages
          const same: Record<string, (h: string | undefined) => string> = {
            'content-type': (h) => `${mediaType(h)}; charset=${charsetOf(h) ?? ''}`,
            'x-total-count': (h) => (h ?? '').trim(),
            link: (h) => JSON.stringify(linksOf(h)),
          };
          for (const [h, norm] of Object.entries(same)) {
            if (norm(head.responseHeaders[h]) !== norm(get.responseHeaders[h]))
              problems.push(
                `${h} ${JSON.stringify(head.responseHeaders[h])}, GET ${JSON.stringify(get.responseHeaders[h])}`,
              );
          }
          compared++;
          if (head.body !== '') problems.push(`a ${head.body.length}-character body`);
          if (problems.length > 0)
            ctx.fail(`${describe(head)}: ${problems.join('; ')}`, { exchange: head });
        }
      }
      if (compared === 0) ctx.skip('no endpoint could be sampled');
    },
  }),
  defineCheck({
    id: 'REL-PARAM-ORDER',
    area: 'relations',
    title: 'the order of query parameters does not change the answer',
    clause: 'decisions §1 (parameters signed in request order), §4',
    endpoints: ['teams.tags', 'stats.team'],
    async run(ctx) {
      const days = await windowDays(ctx);
      const arb = fc
        .record({
          endpoint: fc.constantFrom<EndpointId>('teams.tags', 'stats.team'),
          window: arbWindow(days),
          flag: fc.constantFrom('isOpened', 'isUnclicked', 'aggregateData', 'type'),
        })
        .chain(({ endpoint, window, flag }) => {
          const pairs: Pairs = [...windowQuery(window.start, window.end), ['rtn', 'json']];
          if (endpoint === 'teams.tags' && (flag === 'isOpened' || flag === 'isUnclicked'))
            pairs.push([flag, 'true']);
          if (endpoint === 'stats.team' && flag === 'aggregateData')
            pairs.push(['aggregateData', 'true']);
          if (endpoint === 'stats.team' && flag === 'type') pairs.push(['type', 'user']);
          return fc.tuple(
            fc.constant(endpoint),
            fc.constant(pairs),
            fc.shuffledSubarray(pairs, { minLength: pairs.length, maxLength: pairs.length }),
          );
        });
      await ctx.property(arb, async ([endpoint, pairs, shuffled]) => {
        const a = await ctx.call(endpoint, { query: pairs });
        const b = await ctx.call(endpoint, { query: shuffled });
        ensure(
          a.status === b.status,
          `${describe(b)} answered ${b.status}, ${describe(a)} ${a.status}`,
          { exchange: b },
        );
        if (a.status !== 200 && a.status !== 204)
          throw new Violation(`${describe(a)} answered ${a.status}`, { exchange: a });
        const diff = firstDifference(
          comparable(endpoint, ctx.page(endpoint, a).data),
          comparable(endpoint, ctx.page(endpoint, b).data),
        );
        ensure(diff === undefined, () => `${describe(b)} differs from ${describe(a)}: ${diff}`, {
          exchange: b,
        });
      });
    },
  }),
];
