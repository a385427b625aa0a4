import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { contactIdOf } from '../src/aggregate/contact-id.ts';
import {
  contactOf,
  dailyCounts,
  dailyStatsOfTags,
  inDayWindow,
  matchesTagFilters,
  recipientEmails,
  renderMember,
  renderTag,
  statsOfTags,
} from '../src/aggregate/rules.ts';
import { parseTimestampMs } from '../src/aggregate/time.ts';
import type { Caller, TagFilters } from '../src/aggregate/types.ts';
import { validateDataset } from '../src/aggregate/validate.ts';
import { visibleMemberIDs, visibleMembers, visibleTags } from '../src/aggregate/visibility.ts';
import { type Dataset, normaliseEmail } from '../src/dataset/schema.ts';
import { pageOf } from '../src/paging.ts';
import { mergeAllStats } from '../src/stats.ts';
import {
  arbCaller,
  arbDailyStatsSummary,
  arbDataset,
  arbDatasetWithCaller,
  arbDayFor,
  arbDayWindowFor,
  arbTagFilters,
  callerOfMember,
} from '../src/testing.ts';
import { indexOf } from './indexes.ts';

/*
 * The index's answers against the plain rules of rules.ts, method by method, on generated
 * datasets (spec §4, §5, §6, §9, §10), and the properties of merging, paging and scoping
 * that are no law of LAWS. The laws themselves are stated in aggregate.laws.test.ts; every
 * endpoint's whole answer against plainAnswer in aggregate.oracle.test.ts.
 */

/** The plain rules' tag records of the caller's visible tags, in tag order. */
function plainTags(dataset: Dataset, caller: Caller) {
  return visibleTags(dataset, caller).map((t) => renderTag(t, dataset.opens, dataset.clicks));
}

const arbWithWindow = arbDatasetWithCaller.chain(({ dataset, caller }) =>
  arbDayWindowFor(dataset).map((window) => ({ dataset, caller, window })),
);

function teamOf(dataset: Dataset, caller: Caller) {
  return dataset.teams.find((t) => t.teamID === caller.teamID)!;
}

describe('stats merge (spec §10)', () => {
  fcTest.prop([fc.array(arbDailyStatsSummary, { maxLength: 6 })])(
    'merging daily records drops date and sums counters',
    (records) => {
      const merged = mergeAllStats(records);
      expect(merged).not.toHaveProperty('date');
      expect(merged.totalSent).toBe(records.reduce((s, r) => s + r.totalSent, 0));
    },
  );
});

describe('generated datasets', () => {
  fcTest.prop([arbDataset])('arbDataset is consistent: validateDataset finds nothing', (d) => {
    expect(validateDataset(d)).toEqual([]);
  });
});

describe('per-tag counters (spec §9, §10)', () => {
  fcTest.prop([arbDatasetWithCaller])(
    'index tags equal renderTag (tagCounters, distinct recipients) of the visible tags',
    ({ dataset, caller }) => {
      expect(indexOf(dataset).tags(caller, {})).toEqual(plainTags(dataset, caller));
    },
  );
});

describe('daily counts (spec §10, endpoint 14)', () => {
  fcTest.prop([
    arbDatasetWithCaller.chain((x) => arbDayFor(x.dataset).map((day) => ({ ...x, day }))),
  ])('daily equals dailyCounts', ({ dataset, caller, day }) => {
    const idx = indexOf(dataset);
    for (const tag of idx.tags(caller, {})!) {
      expect(idx.daily(caller, tag.tagID, day)).toEqual(
        dailyCounts(tag, dataset.opens, dataset.clicks, day),
      );
    }
  });
});

describe('stats (spec §5, §10)', () => {
  fcTest.prop([arbWithWindow])(
    'team stats equal dailyStatsOfTags of the visible tags in the window, aggregated statsOfTags',
    ({ dataset, caller, window }) => {
      const idx = indexOf(dataset);
      const tags = plainTags(dataset, caller).filter((t) => inDayWindow(t.dateSent, window));
      expect(idx.stats(caller, { subject: { kind: 'team' }, ...window })).toEqual(
        dailyStatsOfTags(tags),
      );
      expect(
        idx.stats(caller, { subject: { kind: 'team' }, ...window, aggregateData: true }),
      ).toEqual([statsOfTags(tags)]);
    },
  );
  fcTest.prop([arbWithWindow])(
    'a group answers stats exactly when it answers members; an unknown group answers neither',
    ({ dataset, caller, window }) => {
      const idx = indexOf(dataset);
      for (const group of teamOf(dataset, caller).groups) {
        const members = idx.groupMembers(caller, group.groupID);
        const stats = idx.stats(caller, {
          subject: { kind: 'group', group: group.groupID },
          ...window,
          aggregateData: true,
        });
        expect(stats === undefined).toBe(members === undefined);
      }
      expect(idx.groupMembers(caller, 'no such group')).toBeUndefined();
      expect(
        idx.stats(caller, { subject: { kind: 'group', group: 'no such group' } }),
      ).toBeUndefined();
    },
  );
});

describe('tag lists (spec §5, §6)', () => {
  fcTest.prop([arbWithWindow.chain((x) => arbTagFilters.map((filters) => ({ ...x, filters })))])(
    'tags = visible tags sent in the window passing the filters, newest first then tagID',
    ({ dataset, caller, window, filters }) => {
      const got = indexOf(dataset).tags(caller, { ...window, ...filters })!;
      const expected = plainTags(dataset, caller).filter(
        (t) => inDayWindow(t.dateSent, window) && matchesTagFilters(t.stats, filters),
      );
      expect(got).toEqual(expected);
    },
  );
  fcTest.prop([
    arbWithWindow.chain((x) =>
      fc.tuple(arbTagFilters, arbTagFilters).map(([f, g]) => ({ ...x, f, g })),
    ),
  ])(
    'filters give subsets, and a conjunction of filters is the intersection',
    ({ dataset, caller, window, f, g }) => {
      const idx = indexOf(dataset);
      const ids = (filters: TagFilters) =>
        idx.tags(caller, { ...window, ...filters })!.map((t) => t.tagID);
      const all = ids({});
      const a = ids(f);
      const b = ids(g);
      const both = ids({
        isOpened: f.isOpened || g.isOpened,
        isUnopened: f.isUnopened || g.isUnopened,
        isClicked: f.isClicked || g.isClicked,
        isUnclicked: f.isUnclicked || g.isUnclicked,
      });
      expect(all).toEqual(expect.arrayContaining(a));
      expect(both).toEqual(a.filter((id) => b.includes(id)));
    },
  );
  fcTest.prop([arbDatasetWithCaller])(
    "a member's tags are the visible tags that member sent",
    ({ dataset, caller }) => {
      const idx = indexOf(dataset);
      const all = idx.tags(caller, {})!;
      for (const m of idx.members(caller)) {
        const own = idx.tags(caller, { memberID: m.memberID })!;
        const sent = new Set(
          dataset.tags.filter((t) => t.memberID === m.memberID).map((t) => t.tagID),
        );
        expect(own).toEqual(all.filter((t) => sent.has(t.tagID)));
      }
    },
  );
});

describe('pagination (spec §5)', () => {
  fcTest.prop([fc.array(fc.nat(), { maxLength: 60 }), fc.integer({ min: 1, max: 20 })])(
    'pages of pageOf concatenate to the whole list with no overlap',
    (records, pageSize) => {
      const out: number[] = [];
      let cursor = 0;
      for (;;) {
        const page = pageOf(records, cursor, pageSize);
        if (page.records.length === 0) break;
        out.push(...page.records);
        expect(page.next).toBe(Math.min(cursor + pageSize, records.length));
        cursor = page.next;
      }
      expect(out).toEqual(records);
    },
  );
});

describe('members (spec §4, §5, §9)', () => {
  fcTest.prop([arbDatasetWithCaller])(
    'members = visible members rendered, by lastname, firstname, memberID',
    ({ dataset, caller }) => {
      const team = teamOf(dataset, caller);
      const expected = visibleMembers(dataset, caller).map((m) => renderMember(m, team));
      expect(indexOf(dataset).members(caller)).toEqual(expected);
    },
  );
});

describe('events (spec §5, §6, §10)', () => {
  fcTest.prop([arbWithWindow])(
    'open and click groups: visible tags in tag order with >= 1 event in the window (by event date), events oldest first',
    ({ dataset, caller, window }) => {
      const idx = indexOf(dataset);
      const tags = visibleTags(dataset, caller);
      for (const kind of ['opens', 'clicks'] as const) {
        const groups =
          kind === 'opens' ? idx.openGroups(caller, window) : idx.clickGroups(caller, window);
        const expected = tags
          .map((t) => ({
            tagID: t.tagID,
            dates: dataset[kind]
              .filter((e) => e.tagID === t.tagID && inDayWindow(e.date, window))
              .map((e) => parseTimestampMs(e.date))
              .sort((a, b) => a - b),
          }))
          .filter((g) => g.dates.length > 0);
        const got = groups.map((g) => ({
          tagID: g.tagID,
          dates: ('opens' in g
            ? g.opens.map((o) => o.details.openDate)
            : g.clicks.map((c) => c.details.clickDate)
          ).map(parseTimestampMs),
        }));
        expect(got).toEqual(expected);
      }
    },
  );
  fcTest.prop([arbDatasetWithCaller])(
    'per-tag events are the whole group of that tag, with tagID; recipient ids are contact ids',
    ({ dataset, caller }) => {
      const idx = indexOf(dataset);
      const groups = new Map(idx.openGroups(caller, {}).map((g) => [g.tagID, g.opens]));
      for (const tag of idx.tags(caller, {})!) {
        const opens = idx.tagOpens(caller, tag.tagID)!;
        expect(opens.length).toBe(tag.stats.totalOpens);
        expect(idx.tagClicks(caller, tag.tagID)!.length).toBe(tag.stats.totalClicks);
        const group = groups.get(tag.tagID) ?? [];
        expect(opens.map(({ tagID, ...details }) => ({ tagID, details }))).toEqual(
          group.map((o) => ({ tagID: tag.tagID, details: o.details })),
        );
        for (const o of group) expect(o.recipient.recipientID).toBe(contactIdOf(o.recipient.email));
      }
    },
  );
});

describe('contacts (spec §4, §10)', () => {
  fcTest.prop([arbDatasetWithCaller])(
    'contacts = contactOf each recipient email over the visible tags, by email',
    ({ dataset, caller }) => {
      const tags = visibleTags(dataset, caller);
      const expected = recipientEmails(tags).map((e) =>
        contactOf(e, tags, dataset.opens, dataset.clicks),
      );
      const idx = indexOf(dataset);
      expect(idx.contacts(caller)).toEqual(expected);
      for (const c of expected) expect(idx.contact(caller, c!.contactID)).toEqual(c);
    },
  );
  fcTest.prop([arbDatasetWithCaller])(
    'the contacts of a tag are its recipients, by email (sums: AGG-CONTACTS-SUM-TAGS)',
    ({ dataset, caller }) => {
      const idx = indexOf(dataset);
      const tags = idx.tags(caller, {})!;
      for (const tag of tags) {
        const expected = [...new Set(tag.recipients.map((r) => normaliseEmail(r.email)))].sort();
        expect(idx.tagContacts(caller, tag.tagID)!.map((c) => c.email)).toEqual(expected);
      }
    },
  );
});

describe('scoping (spec §4)', () => {
  fcTest.prop([arbDatasetWithCaller])(
    'no method ever shows anything of another team',
    ({ dataset, caller }) => {
      const idx = indexOf(dataset);
      const team = teamOf(dataset, caller);
      const memberIDs = new Set(team.members.map((m) => m.memberID));
      const tagIDs = new Set(
        dataset.tags.filter((t) => memberIDs.has(t.memberID)).map((t) => t.tagID),
      );
      const ownEmails = new Set(
        dataset.tags
          .filter((t) => tagIDs.has(t.tagID))
          .flatMap((t) => t.recipients.map((r) => normaliseEmail(r.email))),
      );
      for (const m of idx.members(caller)) expect(memberIDs.has(m.memberID)).toBe(true);
      for (const t of idx.tags(caller, {})!) expect(tagIDs.has(t.tagID)).toBe(true);
      for (const g of idx.openGroups(caller, {})) expect(tagIDs.has(g.tagID)).toBe(true);
      for (const g of idx.clickGroups(caller, {})) expect(tagIDs.has(g.tagID)).toBe(true);
      for (const c of idx.contacts(caller)) expect(ownEmails.has(c.email)).toBe(true);
      for (const g of team.groups) {
        for (const m of idx.groupMembers(caller, g.groupName) ?? [])
          expect(memberIDs.has(m.memberID)).toBe(true);
      }
    },
  );
  fcTest.prop([arbDatasetWithCaller])(
    'ids outside the scope answer undefined, exactly like unknown ids',
    ({ dataset, caller }) => {
      const idx = indexOf(dataset);
      const visible = visibleMemberIDs(dataset, caller);
      for (const team of dataset.teams) {
        for (const m of team.members) {
          if (visible.has(m.memberID)) continue;
          expect(idx.member(caller, m.memberID)).toBeUndefined();
          expect(idx.tags(caller, { memberID: m.memberID })).toBeUndefined();
          expect(
            idx.stats(caller, { subject: { kind: 'member', memberID: m.memberID } }),
          ).toBeUndefined();
        }
      }
      const shownEmails = new Set(idx.contacts(caller).map((c) => c.email));
      for (const tag of dataset.tags) {
        if (visible.has(tag.memberID)) continue;
        expect(idx.tagOpens(caller, tag.tagID)).toBeUndefined();
        expect(idx.tagClicks(caller, tag.tagID)).toBeUndefined();
        expect(idx.daily(caller, tag.tagID, tag.dateSent.slice(0, 10))).toBeUndefined();
        expect(idx.tagContacts(caller, tag.tagID)).toBeUndefined();
        for (const r of tag.recipients) {
          if (!shownEmails.has(normaliseEmail(r.email))) {
            expect(idx.contact(caller, contactIdOf(r.email))).toBeUndefined();
          }
        }
      }
      for (const team of dataset.teams) {
        if (team.teamID === caller.teamID) continue;
        for (const g of team.groups) {
          if (
            teamOf(dataset, caller).groups.some(
              (x) => x.groupID === g.groupID || x.groupName === g.groupID,
            )
          )
            continue;
          expect(idx.groupMembers(caller, g.groupID)).toBeUndefined();
          expect(
            idx.stats(caller, { subject: { kind: 'group', group: g.groupID } }),
          ).toBeUndefined();
        }
      }
    },
  );
  fcTest.prop([arbDataset.chain((d) => arbCaller(d).map((c) => ({ d, c })))])(
    'admins see their whole team; users exactly themselves',
    ({ d, c }) => {
      const idx = indexOf(d);
      const ids = idx.members(c).map((m) => m.memberID);
      if (c.accountType === 'admin') expect(ids.length).toBe(teamOf(d, c).members.length);
      if (c.accountType === 'user') expect(ids).toEqual([c.memberID]);
      expect(callerOfMember(d, c.memberID)).toEqual(idx.callerOf(c.memberID));
    },
  );
});
