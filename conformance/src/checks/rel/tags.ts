import { inDayWindow, matchesTagFilters } from '@tagtrack/core';
import fc from 'fast-check';
import { comparable } from '../../check/compare.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, ensure, listDifferenceKind } from '../../check/failure.ts';
import { boundaryWindows, firstDifference, windowQuery, withPicks } from '../../check/sample.ts';
import { allTags, arbMemberID, arbWindow, members, windowDays } from './reads.ts';

const FILTERS = ['isOpened', 'isUnopened', 'isClicked', 'isUnclicked'] as const;
const TRUE_SPELLINGS = ['true', 'True', '1'] as const;
const FALSE_SPELLINGS = ['false', 'FALSE', '0'] as const;
type Filter = (typeof FILTERS)[number];
type Spelling = (typeof TRUE_SPELLINGS)[number] | (typeof FALSE_SPELLINGS)[number];

/** Tag filters, windows and member tags against the team tags (spec §4, §5, §6). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'REL-FILTER-CONJUNCTION',
    title:
      'tag filters return the subset of tags satisfying them, and several filters their conjunction',
    clause: 'spec §6 (tag filters), §6 (boolean spellings)',
    endpoints: ['teams.tags', 'teams.memberTags'],
    async run(ctx) {
      const team = await allTags(ctx);
      if (team.length === 0) ctx.skip('no tag is visible to the credential');
      const ids = (await members(ctx)).map((m) => m.memberID);
      // picked from the data, always tried: each filter alone on the team tags wherever it
      // drops a tag, so a filter read as false (or ignored) fails every run
      const examples = FILTERS.filter((f) =>
        team.some((t) => !matchesTagFilters(t.stats, { [f]: true })),
      ).map((f) => ({ member: undefined, filters: [[f, 'true']] as [Filter, Spelling][] }));
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
      await ctx.property(
        arb,
        async ({ member: memberID, filters }) => {
          const unique = [...new Map(filters.map(([k, v]) => [k, v])).entries()];
          const all = await allTags(ctx, memberID);
          const active = unique
            .filter(([, v]) => (TRUE_SPELLINGS as readonly string[]).includes(v))
            .map(([k]) => k);
          const expected = all
            .filter((t) =>
              matchesTagFilters(t.stats, Object.fromEntries(active.map((f) => [f, true]))),
            )
            .map((t) => t.tagID);
          // a long filtered list: its total and the pages at seeded cursors against the
          // expected list at the same places (coverage.ts)
          const w = await ctx.sampledList(
            memberID === undefined ? 'teams.tags' : 'teams.memberTags',
            { ...(memberID === undefined ? {} : { pathParams: { memberID } }), query: unique },
            'filtered tags',
          );
          if (w.sampled) {
            ensure(
              w.total === expected.length,
              () =>
                `${describe(w.pages[0]!)}: paging.cursors.total ${w.total}, expected the ${expected.length} of ${all.length} unfiltered tags with ${active.join(' and ') || 'no filter'}`,
              { kind: w.total < expected.length ? 'missing' : 'extra', exchange: w.pages[0] },
            );
            for (const [i, slice] of w.slices.entries()) {
              const got = slice.records.map((t) => t.tagID);
              const want = expected.slice(slice.cursor, slice.cursor + got.length);
              const at = got.findIndex((id, j) => id !== want[j]);
              ensure(
                at < 0,
                () =>
                  `${describe(w.pages[i]!)}: tag ${slice.cursor + at} of the list is ${got[at]}, expected ${want[at] ?? 'none'} (the ${expected.length} of ${all.length} unfiltered tags with ${active.join(' and ') || 'no filter'}, in order)`,
                { kind: listDifferenceKind(want, got), exchange: w.pages[i] },
              );
            }
            return;
          }
          const actual = w.records.map((t) => t.tagID);
          const expectedSet = new Set(expected);
          const actualSet = new Set(actual);
          const extra = actual.filter((id) => !expectedSet.has(id));
          const missing = expected.filter((id) => !actualSet.has(id));
          ensure(
            extra.length === 0 && missing.length === 0 && actual.join() === expected.join(),
            () =>
              `${describe(w.pages[0]!)}: ${actual.length} tags, expected the ${expected.length} of ${all.length} unfiltered tags with ${active.join(' and ') || 'no filter'}` +
              (extra.length ? `; tag ${extra[0]} does not satisfy the filters` : '') +
              (missing.length ? `; tag ${missing[0]} is missing` : ''),
            { kind: listDifferenceKind(expected, actual), exchange: w.pages[0] },
          );
        },
        withPicks(ctx, examples),
      );
    },
  }),
  defineCheck({
    id: 'REL-WINDOW-INCLUSIVE',
    title:
      'start/end select exactly the tags sent on the whole UTC days start..end, both inclusive',
    clause: 'spec §6 (dates)',
    endpoints: ['teams.tags', 'teams.memberTags'],
    async run(ctx) {
      const days = await windowDays(ctx);
      const ids = (await members(ctx)).map((m) => m.memberID);
      const arb = fc.record({
        window: arbWindow(days),
        member: arbMemberID(ids, 3),
      });
      // picked from the data, always tried: the days of the tags sent nearest a UTC midnight,
      // as one-day windows (a shifted day boundary or an exclusive bound drops or adds them)
      const examples = boundaryWindows(
        (await allTags(ctx)).map((t) => t.dateSent),
        2,
      ).map((window) => ({ window, member: undefined }));
      await ctx.property(
        arb,
        async ({ window, member: memberID }) => {
          const all = await allTags(ctx, memberID);
          const expected = all.filter((t) => inDayWindow(t.dateSent, window)).map((t) => t.tagID);
          const query = windowQuery(window.start, window.end);
          const w = await ctx.walk(memberID === undefined ? 'teams.tags' : 'teams.memberTags', {
            ...(memberID === undefined ? {} : { pathParams: { memberID } }),
            query,
          });
          const got = w.records;
          const outside = got.find((t) => !inDayWindow(t.dateSent, window));
          ensure(
            outside === undefined,
            () =>
              `${describe(w.pages[0]!)}: tag ${outside?.tagID} sent ${outside?.dateSent} is outside the window`,
            { kind: 'extra', exchange: w.pages[0] },
          );
          const actual = got.map((t) => t.tagID);
          const actualSet = new Set(actual);
          const missing = all.find(
            (t) => inDayWindow(t.dateSent, window) && !actualSet.has(t.tagID),
          );
          ensure(
            actual.join() === expected.join(),
            () =>
              `${describe(w.pages[0]!)}: ${actual.length} tags, expected ${expected.length}` +
              (missing ? `; tag ${missing.tagID} sent ${missing.dateSent} is missing` : ''),
            { kind: listDifferenceKind(expected, actual), exchange: w.pages[0] },
          );
        },
        withPicks(ctx, examples),
      );
    },
  }),
  defineCheck({
    id: 'REL-MEMBER-TAGS-IN-TEAM',
    title:
      'every member’s tags are team tags, in team order, and together they are all the team tags',
    clause: 'spec §4 (scoping), §5 (order)',
    endpoints: ['teams.tags', 'teams.memberTags', 'teams.list'],
    async run(ctx) {
      const team = await allTags(ctx);
      if (team.length === 0) ctx.skip('no tag is visible to the credential');
      const order = new Map(team.map((t, i) => [t.tagID, i]));
      const seen = new Set<string>();
      await ctx.each(await members(ctx), async (m) => {
        const w = await ctx.walk('teams.memberTags', { pathParams: { memberID: m.memberID } });
        let last = -1;
        for (const t of w.records) {
          const i = order.get(t.tagID);
          ensure(
            i !== undefined,
            `tag ${t.tagID} of member ${m.memberID} is not among the team tags`,
            { kind: 'extra', exchange: w.pages[0] },
          );
          const diff = firstDifference(
            comparable('teams.tags', [team[i]])[0],
            comparable('teams.memberTags', [t])[0],
          );
          ensure(
            diff === undefined,
            () => `tag ${t.tagID} differs between the member's and the team's tags: ${diff}`,
            { kind: 'value', exchange: w.pages[0] },
          );
          ensure(
            i >= last,
            `tags of member ${m.memberID} are not in the team order at tag ${t.tagID}`,
            { kind: 'order', exchange: w.pages[0] },
          );
          last = i;
          seen.add(t.tagID);
        }
      });
      const orphan = team.find((t) => !seen.has(t.tagID));
      ensure(
        orphan === undefined,
        () => `team tag ${orphan?.tagID} belongs to no visible member's tags`,
        {
          kind: 'missing',
        },
      );
    },
  }),
];
