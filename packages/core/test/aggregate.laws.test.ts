import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { buildIndex } from '../src/aggregate/build.ts';
import { contactIdOf } from '../src/aggregate/contact-id.ts';
import {
  compareMembers,
  compareTags,
  contactOf,
  dailyCounts,
  dailyStatsOfTags,
  distinctRecipients,
  inDayWindow,
  matchesTagFilters,
  renderMember,
  statsOfTags,
  tagCounters,
  visibleMemberIDs,
} from '../src/aggregate/rules.ts';
import { dayNumber, dayString, parseTimestampMs } from '../src/aggregate/time.ts';
import type { Caller, DayWindow, ReportingIndex, TagFilters } from '../src/aggregate/types.ts';
import { validateDataset } from '../src/aggregate/validate.ts';
import { type Dataset, type DatasetTag, normaliseEmail } from '../src/dataset/schema.ts';
import { pageOf } from '../src/paging.ts';
import { emptyStats, mergeAllStats, mergeStats } from '../src/stats.ts';
import { TAG_COUNTER_FIELDS, type Tag } from '../src/tag.ts';
import {
  arbCaller,
  arbDailyStatsSummary,
  arbDataset,
  arbDatasetWithCaller,
  arbDayFor,
  arbDayWindowFor,
  arbStatsSummary,
  arbTagFilters,
  callerOfMember,
} from '../src/testing.ts';

const RUNS = { numRuns: 100 };

/** Indexes are memoised per generated dataset object, so one dataset is indexed once. */
const indexes = new WeakMap<Dataset, ReportingIndex>();
function indexOf(dataset: Dataset): ReportingIndex {
  let idx = indexes.get(dataset);
  if (!idx) {
    idx = buildIndex(dataset);
    indexes.set(dataset, idx);
  }
  return idx;
}

/** The oracle: the visible tags by the plain rules of decisions §2, in tag order. */
function visibleTags(dataset: Dataset, caller: Caller): DatasetTag[] {
  const visible = visibleMemberIDs(dataset, caller);
  return dataset.tags.filter((t) => visible.has(t.memberID)).sort(compareTags);
}

function oracleTag(dataset: Dataset, tag: DatasetTag): Tag {
  return {
    tagID: tag.tagID,
    subject: tag.subject,
    dateSent: tag.dateSent,
    recipients: distinctRecipients(tag.recipients),
    stats: tagCounters(tag, dataset.opens, dataset.clicks),
  };
}

const arbWithWindow = arbDatasetWithCaller.chain(({ dataset, caller }) =>
  arbDayWindowFor(dataset).map((window) => ({ dataset, caller, window })),
);

function teamOf(dataset: Dataset, caller: Caller) {
  return dataset.teams.find((t) => t.teamID === caller.teamID)!;
}

describe('stats merge (decisions §9)', () => {
  test.prop([arbStatsSummary], RUNS)('mergeStats has emptyStats as identity on both sides', (a) => {
    expect(mergeStats(emptyStats(), a)).toEqual(a);
    expect(mergeStats(a, emptyStats())).toEqual(a);
  });
  test.prop([arbStatsSummary, arbStatsSummary, arbStatsSummary], RUNS)(
    'mergeStats is associative',
    (a, b, c) => {
      expect(mergeStats(mergeStats(a, b), c)).toEqual(mergeStats(a, mergeStats(b, c)));
    },
  );
  test.prop([arbStatsSummary, arbStatsSummary], RUNS)('mergeStats is commutative', (a, b) => {
    expect(mergeStats(a, b)).toEqual(mergeStats(b, a));
  });
  test.prop([fc.array(arbDailyStatsSummary, { maxLength: 6 })], RUNS)(
    'merging daily records drops date and sums counters',
    (records) => {
      const merged = mergeAllStats(records);
      expect(merged).not.toHaveProperty('date');
      expect(merged.totalSent).toBe(records.reduce((s, r) => s + r.totalSent, 0));
    },
  );
});

describe('generated datasets', () => {
  test.prop([arbDataset], RUNS)('arbDataset is consistent: validateDataset finds nothing', (d) => {
    expect(validateDataset(d)).toEqual([]);
  });
});

describe('per-tag counters (decisions §8, §9)', () => {
  test.prop([arbDatasetWithCaller], RUNS)(
    'index counters equal tagCounters; unique <= total, unique = 0 iff total = 0, unique <= recipients, desktop + mobile <= total',
    ({ dataset, caller }) => {
      const tags = indexOf(dataset).tags(caller, {})!;
      const expected = visibleTags(dataset, caller).map((t) => oracleTag(dataset, t));
      expect(tags).toEqual(expected);
      for (const tag of tags) {
        const s = tag.stats;
        const recipients = new Set(tag.recipients.map((r) => normaliseEmail(r.email))).size;
        expect(s.uniqueOpens).toBeLessThanOrEqual(s.totalOpens);
        expect(s.uniqueClicks).toBeLessThanOrEqual(s.totalClicks);
        expect(s.uniqueOpens === 0).toBe(s.totalOpens === 0);
        expect(s.uniqueClicks === 0).toBe(s.totalClicks === 0);
        expect(s.uniqueOpens).toBeLessThanOrEqual(recipients);
        expect(s.uniqueClicks).toBeLessThanOrEqual(recipients);
        expect(s.desktopOpens + s.mobileOpens).toBeLessThanOrEqual(s.totalOpens);
        expect(s.desktopClicks + s.mobileClicks).toBeLessThanOrEqual(s.totalClicks);
      }
    },
  );
});

describe('daily counts (decisions §9, endpoint 14)', () => {
  test.prop(
    [arbDatasetWithCaller.chain((x) => arbDayFor(x.dataset).map((day) => ({ ...x, day })))],
    RUNS,
  )('daily equals dailyCounts and daily <= unique', ({ dataset, caller, day }) => {
    const idx = indexOf(dataset);
    for (const tag of idx.tags(caller, {})!) {
      const daily = idx.daily(caller, tag.tagID, day)!;
      expect(daily).toEqual(dailyCounts(tag, dataset.opens, dataset.clicks, day));
      expect(daily.opens).toBeLessThanOrEqual(tag.stats.uniqueOpens);
      expect(daily.clicks).toBeLessThanOrEqual(tag.stats.uniqueClicks);
    }
  });
  test.prop([arbDatasetWithCaller], RUNS)(
    'sum of daily over all days >= unique, and daily is 0 before the send day',
    ({ dataset, caller }) => {
      const idx = indexOf(dataset);
      for (const tag of idx.tags(caller, {})!) {
        const sendDay = dayNumber(tag.dateSent.slice(0, 10));
        const days = new Set<number>([sendDay - 1]);
        for (const e of [...dataset.opens, ...dataset.clicks]) {
          if (e.tagID === tag.tagID) days.add(Math.floor(parseTimestampMs(e.date) / 86_400_000));
        }
        let opens = 0;
        let clicks = 0;
        for (const d of days) {
          const daily = idx.daily(caller, tag.tagID, dayString(d))!;
          if (d < sendDay) expect(daily).toEqual({ opens: 0, clicks: 0 });
          opens += daily.opens;
          clicks += daily.clicks;
        }
        expect(opens).toBeGreaterThanOrEqual(tag.stats.uniqueOpens);
        expect(clicks).toBeGreaterThanOrEqual(tag.stats.uniqueClicks);
      }
    },
  );
});

describe('stats (decisions §3, §9)', () => {
  test.prop([arbWithWindow], RUNS)(
    'team stats equal dailyStatsOfTags of the visible tags in the window, and aggregated = merge of the daily records',
    ({ dataset, caller, window }) => {
      const idx = indexOf(dataset);
      const tags = visibleTags(dataset, caller)
        .filter((t) => inDayWindow(t.dateSent, window))
        .map((t) => oracleTag(dataset, t));
      const daily = idx.stats(caller, { subject: { kind: 'team' }, ...window })!;
      expect(daily).toEqual(dailyStatsOfTags(tags));
      const aggregated = idx.stats(caller, {
        subject: { kind: 'team' },
        ...window,
        aggregateData: true,
      });
      expect(aggregated).toEqual([mergeAllStats(daily)]);
      expect(aggregated).toEqual([statsOfTags(tags)]);
    },
  );
  test.prop([arbWithWindow], RUNS)(
    "team stats = merge of the visible members' stats (per type too)",
    ({ dataset, caller, window }) => {
      const idx = indexOf(dataset);
      for (const type of [undefined, 'admin', 'manager', 'user'] as const) {
        const team = idx.stats(caller, {
          subject: { kind: 'team' },
          ...window,
          type,
          aggregateData: true,
        });
        const members = idx.members(caller, { type });
        const merged = mergeAllStats(
          members.flatMap(
            (m) =>
              idx.stats(caller, {
                subject: { kind: 'member', memberID: m.memberID },
                ...window,
                aggregateData: true,
              })!,
          ),
        );
        expect(team).toEqual([merged]);
      }
    },
  );
  test.prop([arbWithWindow], RUNS)(
    "group stats = merge of its visible members' stats; unknown group is undefined",
    ({ dataset, caller, window }) => {
      const idx = indexOf(dataset);
      for (const group of teamOf(dataset, caller).groups) {
        const members = idx.groupMembers(caller, group.groupID);
        const stats = idx.stats(caller, {
          subject: { kind: 'group', group: group.groupID },
          ...window,
          aggregateData: true,
        });
        if (members === undefined) {
          expect(stats).toBeUndefined();
          continue;
        }
        const merged = mergeAllStats(
          members.flatMap(
            (m) =>
              idx.stats(caller, {
                subject: { kind: 'member', memberID: m.memberID },
                ...window,
                aggregateData: true,
              })!,
          ),
        );
        expect(stats).toEqual([merged]);
      }
      expect(
        idx.stats(caller, { subject: { kind: 'group', group: 'no such group' } }),
      ).toBeUndefined();
    },
  );
  test.prop(
    [
      arbDatasetWithCaller.chain(({ dataset, caller }) =>
        fc
          .tuple(arbDayWindowFor(dataset), fc.nat())
          .filter(([w]) => w.start !== undefined && w.end !== undefined && w.start < w.end)
          .map(([window, cut]) => ({ dataset, caller, window, cut })),
      ),
    ],
    RUNS,
  )(
    'splitting a date range into two adjacent ranges and merging gives the whole range',
    ({ dataset, caller, window, cut }) => {
      const idx = indexOf(dataset);
      const first = dayNumber(window.start!);
      const last = dayNumber(window.end!);
      const mid = first + (cut % (last - first));
      const agg = (w: DayWindow) =>
        idx.stats(caller, { subject: { kind: 'team' }, ...w, aggregateData: true })![0]!;
      const left = agg({ start: window.start, end: dayString(mid) });
      const right = agg({ start: dayString(mid + 1), end: window.end });
      expect(mergeStats(left, right)).toEqual(agg(window));
    },
  );
});

describe('tag lists (decisions §3, §4)', () => {
  test.prop(
    [arbWithWindow.chain((x) => arbTagFilters.map((filters) => ({ ...x, filters })))],
    RUNS,
  )(
    'tags = visible tags sent in the window passing the filters, newest first then tagID',
    ({ dataset, caller, window, filters }) => {
      const got = indexOf(dataset).tags(caller, { ...window, ...filters })!;
      const expected = visibleTags(dataset, caller)
        .map((t) => oracleTag(dataset, t))
        .filter((t) => inDayWindow(t.dateSent, window) && matchesTagFilters(t.stats, filters));
      expect(got).toEqual(expected);
    },
  );
  test.prop(
    [
      arbWithWindow.chain((x) =>
        fc.tuple(arbTagFilters, arbTagFilters).map(([f, g]) => ({ ...x, f, g })),
      ),
    ],
    RUNS,
  )(
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
  test.prop([arbDatasetWithCaller], RUNS)(
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

describe('pagination (decisions §3)', () => {
  test.prop([fc.array(fc.nat(), { maxLength: 60 }), fc.integer({ min: 1, max: 20 })], RUNS)(
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

describe('members (decisions §2, §3, §8)', () => {
  test.prop([arbDatasetWithCaller], RUNS)(
    'members = visible members rendered, by lastname, firstname, memberID',
    ({ dataset, caller }) => {
      const visible = visibleMemberIDs(dataset, caller);
      const team = teamOf(dataset, caller);
      const expected = team.members
        .filter((m) => visible.has(m.memberID))
        .sort(compareMembers)
        .map((m) => renderMember(m, team));
      expect(indexOf(dataset).members(caller)).toEqual(expected);
    },
  );
});

describe('events (decisions §3, §4, §9)', () => {
  test.prop([arbWithWindow], RUNS)(
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
  test.prop([arbDatasetWithCaller], RUNS)(
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

describe('contacts (decisions §2, §9)', () => {
  test.prop([arbDatasetWithCaller], RUNS)(
    'contacts = contactOf each recipient email over the visible tags, by email',
    ({ dataset, caller }) => {
      const tags = visibleTags(dataset, caller);
      const emails = [
        ...new Set(tags.flatMap((t) => t.recipients.map((r) => normaliseEmail(r.email)))),
      ].sort();
      const expected = emails.map((e) => contactOf(e, tags, dataset.opens, dataset.clicks));
      const idx = indexOf(dataset);
      expect(idx.contacts(caller)).toEqual(expected);
      for (const c of expected) expect(idx.contact(caller, c!.contactID)).toEqual(c);
    },
  );
  test.prop([arbDatasetWithCaller], RUNS)(
    'contact counters agree with tag counters (sums over contacts = sums over visible tags)',
    ({ dataset, caller }) => {
      const idx = indexOf(dataset);
      const tags = idx.tags(caller, {})!;
      const contacts = idx.contacts(caller);
      const sum = <T>(xs: readonly T[], f: (x: T) => number) => xs.reduce((s, x) => s + f(x), 0);
      expect(sum(contacts, (c) => c.stats.totalSent)).toBe(
        sum(tags, (t) => new Set(t.recipients.map((r) => normaliseEmail(r.email))).size),
      );
      for (const k of TAG_COUNTER_FIELDS) {
        expect(sum(contacts, (c) => c.stats[k])).toBe(sum(tags, (t) => t.stats[k]));
      }
      for (const tag of tags) {
        const expected = [...new Set(tag.recipients.map((r) => normaliseEmail(r.email)))].sort();
        expect(idx.tagContacts(caller, tag.tagID)!.map((c) => c.email)).toEqual(expected);
      }
    },
  );
});

describe('scoping (decisions §2)', () => {
  test.prop([arbDatasetWithCaller], RUNS)(
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
  test.prop([arbDatasetWithCaller], RUNS)(
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
  test.prop([arbDataset.chain((d) => arbCaller(d).map((c) => ({ d, c })))], RUNS)(
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
