import { describe, expect, it } from 'vitest';
import { zeroCounters } from '../src/aggregate/rules.ts';
import type { Contact } from '../src/contact.ts';
import {
  CALLER_LAWS,
  CONTACT_LAWS,
  COUNTER_LAWS,
  DAILY_LAWS,
  DAILY_SERIES_LAWS,
  EVENT_GROUP_LAWS,
  EVENT_LIST_LAWS,
  LAWS,
  type Law,
  type LawEvent,
  lawById,
  MEMBER_LIST_LAWS,
  MERGE_LAWS,
  plainEvents,
  STATS_LAWS,
  STATS_MERGE_LAWS,
  TAG_EVENT_LAWS,
  TAG_LIST_LAWS,
} from '../src/laws.ts';
import type { TeamMember } from '../src/member.ts';
import { mergeStats, type StatsSummary } from '../src/stats.ts';
import type { Tag } from '../src/tag.ts';

/*
 * Each law on a hand-made example that obeys it and one that breaks it, so no predicate is
 * vacuous and every violation speaks in domain words. The property tests that apply the laws
 * to the index's answers are in aggregate.laws.test.ts.
 */

function ev(tagID: string, email: string, date: string, device: string): LawEvent {
  return { tagID, email, date, device };
}

/** Tag t1, sent 2024-03-01 to a and b: a opened twice (desktop, mobile), b once (unknown), b clicked. */
const tag: Tag = {
  tagID: 't1',
  subject: 'Hello',
  dateSent: '2024-03-01T10:00:00Z',
  recipients: [
    { name: 'Ann', email: 'a@x.test' },
    { name: 'Bob', email: 'b@x.test' },
    { name: 'Ann again', email: ' A@X.test' },
  ],
  stats: {
    totalOpens: 3,
    uniqueOpens: 2,
    totalClicks: 1,
    uniqueClicks: 1,
    desktopOpens: 1,
    mobileOpens: 1,
    desktopClicks: 0,
    mobileClicks: 1,
  },
};
const opens = [
  ev('t1', 'a@x.test', '2024-03-01T11:00:00Z', 'desktop'),
  ev('t1', 'A@x.test', '2024-03-02T11:00:00Z', 'mobile'),
  ev('t1', ' b@x.test', '2024-03-02T12:00:00Z', 'unknown'),
];
const clicks = [ev('t1', 'b@x.test', '2024-03-02T13:00:00Z', 'tablet')];
/** Tag t2, sent 2024-03-02 to b only, never opened. */
const tag2: Tag = {
  tagID: 't2',
  subject: 'Again',
  dateSent: '2024-03-02T09:00:00Z',
  recipients: [{ name: 'Bob', email: 'b@x.test' }],
  stats: { ...tag.stats, totalOpens: 0, uniqueOpens: 0, desktopOpens: 0, mobileOpens: 0 },
};
const clicks2 = [...clicks, ev('t2', 'b@x.test', '2024-03-02T10:00:00Z', 'tablet')];

const stats = (over: Partial<StatsSummary> = {}): StatsSummary => ({
  totalSent: 1,
  totalOpens: 3,
  totalClicks: 1,
  uniqueOpens: 2,
  uniqueClicks: 1,
  dateLastSent: '2024-03-01T10:00:00Z',
  ...over,
});
const day1 = stats({ date: '2024-03-01' });
const day2 = stats({ date: '2024-03-02', totalOpens: 0, uniqueOpens: 0 });
day2.dateLastSent = tag2.dateSent;
const both = stats({
  totalSent: 2,
  totalOpens: 3,
  uniqueOpens: 2,
  totalClicks: 2,
  uniqueClicks: 2,
  dateLastSent: tag2.dateSent,
});

const contact = (email: string, over: Partial<Contact['stats']>, last: string): Contact => ({
  contactID: `id-${email}`,
  name: email,
  email,
  dateLastSent: last,
  stats: { totalSent: 1, ...zeroCounters(), ...over },
});
const ann = contact(
  'a@x.test',
  { totalOpens: 2, uniqueOpens: 1, desktopOpens: 1, mobileOpens: 1 },
  tag.dateSent,
);
const bob = contact(
  'b@x.test',
  { totalSent: 2, totalOpens: 1, uniqueOpens: 1, totalClicks: 2, uniqueClicks: 2, mobileClicks: 2 },
  tag2.dateSent,
);
const tag2WithClick: Tag = {
  ...tag2,
  stats: { ...tag2.stats, totalClicks: 1, uniqueClicks: 1, desktopClicks: 0, mobileClicks: 1 },
};
const view = { contacts: [ann, bob], tags: [tag2WithClick, tag], opens, clicks: clicks2 };
const bobOneClick = {
  ...bob,
  stats: { ...bob.stats, totalClicks: 1, uniqueClicks: 1, mobileClicks: 1 },
};

const member = (memberID: string, lastname: string, firstname: string): TeamMember => ({
  memberID,
  lastname,
  firstname,
  email: `${memberID}@team.test`,
  accountType: 'user',
});

/** Per law: an input that obeys it, one that breaks it, and words the violation must say. */
const EXAMPLES: Record<string, { ok: unknown; bad: unknown; says: RegExp }> = {
  'AGG-UNIQUE-LE-TOTAL': {
    ok: tag,
    bad: { ...tag, stats: { ...tag.stats, uniqueOpens: 7, totalOpens: 5 } },
    says: /^uniqueOpens 7 > totalOpens 5 for tag t1$/,
  },
  'AGG-UNIQUE-ZERO-IFF-TOTAL-ZERO': {
    ok: stats(),
    bad: stats({ uniqueClicks: 0, date: '2024-03-01' }),
    says: /uniqueClicks 0 but totalClicks 1 for the stats record of 2024-03-01/,
  },
  'AGG-DEVICE-LE-TOTAL': {
    ok: ann,
    bad: { ...ann, stats: { ...ann.stats, desktopOpens: 2 } },
    says: /desktopOpens 2 \+ mobileOpens 1 > totalOpens 2 for contact id-a@x.test/,
  },
  'AGG-UNIQUE-LE-RECIPIENTS': {
    ok: tag,
    bad: { ...tag, stats: { ...tag.stats, uniqueOpens: 3, totalOpens: 3 } },
    says: /uniqueOpens 3 > 2 recipients for tag t1/,
  },
  'REL-TAG-COUNTERS-EVENTS': {
    ok: { tag, opens, clicks },
    bad: { tag, opens: opens.slice(0, 2), clicks },
    says: /tag t1: uniqueOpens 2, but 1 distinct recipients opened it/,
  },
  'AGG-DAILY-LE-UNIQUE': {
    ok: { tag, date: '2024-03-02', daily: { opens: 2, clicks: 1 }, opens, clicks },
    bad: { tag, date: '2024-03-02', daily: { opens: 2, clicks: 2 }, opens, clicks },
    says: /daily clicks 2 > uniqueClicks 1 for tag t1 on 2024-03-02/,
  },
  'AGG-DAILY-ZERO-BEFORE-SEND': {
    ok: { tag, date: '2024-02-29', daily: { opens: 0, clicks: 0 }, opens, clicks },
    bad: { tag, date: '2024-02-29', daily: { opens: 1, clicks: 0 }, opens, clicks },
    says: /daily opens 1, clicks 0 on 2024-02-29, before tag t1 was sent/,
  },
  'REL-DAILY-DISTINCT-RECIPIENTS': {
    ok: { tag, date: '2024-03-02', daily: { opens: 2, clicks: 1 }, opens, clicks },
    bad: { tag, date: '2024-03-02', daily: { opens: 3, clicks: 1 }, opens, clicks },
    says: /daily opens 3 for tag t1 on 2024-03-02, but 2 distinct recipients opened it that day/,
  },
  'AGG-DAILY-SUM-GE-UNIQUE': {
    ok: {
      tag,
      days: [
        { date: '2024-03-01', daily: { opens: 1, clicks: 0 } },
        { date: '2024-03-02', daily: { opens: 2, clicks: 1 } },
      ],
    },
    bad: { tag, days: [{ date: '2024-03-01', daily: { opens: 1, clicks: 1 } }] },
    says: /daily opens summed over 1 days = 1 < uniqueOpens 2 for tag t1/,
  },
  'REL-STATS-SUM-TAGS': {
    ok: {
      tags: [tag2WithClick, tag],
      daily: [day1, { ...day2, totalClicks: 1, uniqueClicks: 1 }],
      aggregated: [both],
    },
    bad: { tags: [tag2WithClick, tag], daily: [day1], aggregated: [both] },
    says: /daily records for days \[2024-03-01\], expected the send days \[2024-03-01, 2024-03-02\]/,
  },
  'REL-AGGREGATE-MERGE': {
    ok: {
      daily: [day1, day2],
      aggregated: [
        stats({ totalSent: 2, dateLastSent: tag2.dateSent, totalClicks: 2, uniqueClicks: 2 }),
      ],
    },
    bad: {
      daily: [day1, day2],
      aggregated: [
        stats({ totalSent: 2, dateLastSent: tag.dateSent, totalClicks: 2, uniqueClicks: 2 }),
      ],
    },
    says: /aggregated record: dateLastSent 2024-03-01T10:00:00Z, expected 2024-03-02T09:00:00Z from the merge of 2 daily records/,
  },
  'PAGE-ORDER-STATS-DAYS': {
    ok: { daily: [day1, day2] },
    bad: { daily: [day2, day1] },
    says: /daily records of 2024-03-02 then 2024-03-01/,
  },
  'REL-TEAM-MERGE-MEMBERS': {
    ok: {
      subject: 'team stats',
      whole: both,
      parts: [
        stats(),
        { ...stats(), totalSent: 1, totalOpens: 0, uniqueOpens: 0, dateLastSent: tag2.dateSent },
      ],
    },
    bad: { subject: 'team stats', whole: both, parts: [stats()] },
    says: /^team stats: totalSent 2, expected 1 from the merge of its 1 members’ stats$/,
  },
  'REL-GROUP-MERGE-MEMBERS': {
    ok: { subject: 'group Sales', whole: stats(), parts: [stats()] },
    bad: { subject: 'group Sales', whole: stats(), parts: [] },
    says: /group Sales: totalSent 1, expected 0/,
  },
  'REL-RANGE-SPLIT': {
    ok: {
      subject: '2024-03-01..2024-03-02',
      whole: stats(),
      parts: [
        stats(),
        stats({
          totalSent: 0,
          totalOpens: 0,
          uniqueOpens: 0,
          totalClicks: 0,
          uniqueClicks: 0,
          dateLastSent: null,
        }),
      ],
    },
    bad: { subject: '2024-03-01..2024-03-02', whole: stats(), parts: [stats(), stats()] },
    says: /2024-03-01\.\.2024-03-02: totalSent 1, expected 2 from the merge of its 2 adjacent ranges’ stats/,
  },
  'REL-STATS-TYPES-MERGE': {
    ok: {
      subject: 'team stats of 2024-03-01',
      whole: both,
      parts: [
        stats(),
        day2,
        stats({
          totalSent: 0,
          totalOpens: 0,
          uniqueOpens: 0,
          totalClicks: 0,
          uniqueClicks: 0,
          dateLastSent: null,
        }),
      ],
    },
    bad: { subject: 'team stats of 2024-03-01', whole: both, parts: [both, day2] },
    says: /^team stats of 2024-03-01: totalSent \d+, expected \d+ from the merge of its 2 account types’ stats$/,
  },
  'AGG-MERGE-MONOID': {
    ok: { merge: mergeStats, records: [stats(), day2, both] },
    // keeps the first record's dateLastSent: not the latest, and not commutative
    bad: {
      merge: (a: StatsSummary, b: StatsSummary) => ({
        ...mergeStats(a, b),
        dateLastSent: a.dateLastSent ?? b.dateLastSent,
      }),
      records: [stats(), day2, both],
    },
    says: /^merge\(a, b\) differs from merge\(b, a\): dateLastSent 2024-03-01T10:00:00Z, expected 2024-03-02T09:00:00Z$/,
  },
  'REL-CONTACTS-TAGS': {
    ok: view,
    bad: { ...view, contacts: [ann, bobOneClick] },
    says: /contact id-b@x.test \(b@x.test\): stats.totalClicks 1, expected 2 over the 2 visible tags sent to it/,
  },
  'AGG-CONTACTS-SUM-TAGS': {
    ok: view,
    bad: { ...view, contacts: [ann, bobOneClick] },
    says: /contacts' totalClicks sums to 1, the visible tags' to 2/,
  },
  'REL-CALLER-WITHIN-ADMIN': {
    ok: {
      caller: 'u1',
      view: { members: [member('m1', 'Smith', 'Ann')], tags: [tag], contacts: [ann] },
      admin: {
        members: [member('m2', 'Ng', 'Zed'), { ...member('m1', 'Smith', 'Ann'), groupID: '' }],
        tags: [tag2WithClick, tag],
        contacts: [ann, bob],
      },
    },
    bad: {
      caller: 'u1',
      view: { members: [], tags: [tag], contacts: [bob] },
      admin: {
        members: [],
        tags: [tag],
        contacts: [{ ...bob, stats: { ...bob.stats, totalSent: 1 } }],
      },
    },
    says: /contact b@x.test as u1: stats.totalSent 2 > 1 as the admin/,
  },
  'REL-MANAGER-GROUP-STATS': {
    ok: { subject: 'stats of group g1', caller: 'm1', asCaller: stats(), asAdmin: stats() },
    bad: {
      subject: 'stats of group g1',
      caller: 'm1',
      asCaller: stats({ totalSent: 2 }),
      asAdmin: stats(),
    },
    says: /stats of group g1 as m1: totalSent 2, expected 1 as the admin/,
  },
  'REL-CONTACT-CALLER-TAGS': {
    ok: { caller: 'u1', contact: bob, tags: [tag2WithClick, tag], opens, clicks: clicks2 },
    bad: { caller: 'u1', contact: bob, tags: [tag], opens, clicks: clicks2 },
    says: /contact id-b@x.test \(b@x.test\) as u1: stats.totalSent 2, expected 1 over the 1 tags u1 sees/,
  },
  'REL-GROUP-NAME-OWN-TEAM': {
    ok: {
      caller: 'u1',
      segment: 'Sales',
      visible: ['m1', 'm2'],
      answered: [member('m1', 'Smith', 'Ann')],
    },
    bad: {
      caller: 'u1',
      segment: 'Sales',
      visible: ['m1'],
      answered: [{ ...member('m9', 'Other', 'Team'), groupID: 'g9' }],
    },
    says: /group name "Sales" asked by u1 resolved to group g9 of member m9, whom u1 does not see/,
  },
  'PAGE-ORDER-CONTACTS': {
    ok: { contacts: [ann, bob] },
    bad: { contacts: [bob, ann] },
    says: /contact 1 \(a@x.test\) comes after b@x.test/,
  },
  'PAGE-ORDER-TAGS': {
    ok: [tag2, tag],
    bad: [tag, tag2],
    says: /tag t2 \(sent 2024-03-02T09:00:00Z\) comes after tag t1/,
  },
  'PAGE-ORDER-MEMBERS': {
    ok: [member('m2', 'Ng', 'Zed'), member('m1', 'Smith', 'Ann'), member('m3', 'Smith', 'Ann')],
    bad: [member('m1', 'Smith', 'Ann'), member('m2', 'Ng', 'Zed')],
    says: /member m2 \(Ng, Zed\) comes after m1 \(Smith, Ann\)/,
  },
  'PAGE-ORDER-EVENTS': {
    ok: [
      { openDate: '2024-03-01T11:00:00Z' },
      { openDate: '2024-03-01T11:00:00.000Z' },
      { openDate: '2024-03-02T00:00:00Z' },
    ],
    bad: [{ clickDate: '2024-03-02T00:00:00Z' }, { clickDate: '2024-03-01T11:00:00Z' }],
    says: /event 1 \(2024-03-01T11:00:00Z\) comes after an event of 2024-03-02T00:00:00Z/,
  },
  'PAGE-ORDER-EVENT-GROUPS': {
    ok: {
      tags: [tag2, tag],
      groups: [
        { tagID: 't2', clicks: [] },
        { tagID: 't1', clicks: [] },
      ],
    },
    bad: {
      tags: [tag2, tag],
      groups: [
        { tagID: 't1', clicks: [] },
        { tagID: 't2', clicks: [] },
      ],
    },
    says: /event group of tag t2 comes after the group of tag t1/,
  },
};

describe('LAWS (docs/spec.md §5, §10)', () => {
  it('ids are unique, in the suite’s style, and every law is in exactly one group (the merge properties in none)', () => {
    const ids = LAWS.map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^(AGG|REL|PAGE)(-[A-Z0-9]+)+$/);
    const grouped = [
      COUNTER_LAWS,
      TAG_EVENT_LAWS,
      DAILY_LAWS,
      DAILY_SERIES_LAWS,
      STATS_LAWS,
      STATS_MERGE_LAWS,
      CONTACT_LAWS,
      TAG_LIST_LAWS,
      MEMBER_LIST_LAWS,
      EVENT_LIST_LAWS,
      EVENT_GROUP_LAWS,
      CALLER_LAWS,
    ].flat() as readonly Law<never>[];
    expect(grouped.map((l) => l.id).sort()).toEqual([...ids].sort());
    for (const law of LAWS) {
      expect(law.title.length, law.id).toBeGreaterThan(20);
      expect(law.clause, law.id).toMatch(/^spec §\d/);
      expect(law.endpoints.length, law.id).toBeGreaterThan(0);
      expect(lawById(law.id)).toBe(law);
    }
  });

  it('a newcomer finds the laws by name', () => {
    const titled = (words: string) => LAWS.filter((l) => l.title.includes(words)).map((l) => l.id);
    expect(titled('unique opens are distinct recipients')).toEqual(['REL-TAG-COUNTERS-EVENTS']);
    expect(titled('team stats are the merge of member stats')).toEqual(['REL-TEAM-MERGE-MEMBERS']);
  });

  it('the merge properties are of core’s merge, not of any response: outside LAWS, no endpoint', () => {
    for (const law of MERGE_LAWS) {
      expect(lawById(law.id), law.id).toBeUndefined();
      expect(law.endpoints, law.id).toEqual([]);
    }
  });

  it('endpoints are data of each law: laws of the same shape name different endpoints', () => {
    const endpointsOf = (id: string) => lawById(id)!.endpoints;
    expect(endpointsOf('REL-RANGE-SPLIT')).toEqual(['stats.team', 'stats.member']);
    expect(endpointsOf('REL-STATS-TYPES-MERGE')).toEqual([
      'stats.team',
      'stats.teamAlias',
      'stats.group',
    ]);
    expect(endpointsOf('REL-GROUP-MERGE-MEMBERS')).toContain('teams.group');
    expect(endpointsOf('REL-TEAM-MERGE-MEMBERS')).toContain('teams.list');
  });

  it('every law and merge property has an example below', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...LAWS, ...MERGE_LAWS].map((l) => l.id).sort());
  });

  for (const law of [...LAWS, ...MERGE_LAWS] as readonly Law<never>[]) {
    it(`${law.id}: holds on an example and names the violation of another`, () => {
      const example = EXAMPLES[law.id]!;
      const check = law.check as (input: unknown) => string | undefined;
      expect(check(example.ok)).toBeUndefined();
      expect(check(example.bad)).toMatch(example.says);
    });
  }

  it('plainEvents maps event groups to the events the laws read', () => {
    const details = {
      counry: 'c',
      region: 'r',
      city: 'c',
      latitude: '0',
      longitude: '0',
      device: 'tablet',
      os: 'o',
      browser: 'b',
    };
    const recipient = { recipientID: 'r1', name: 'Bob', email: 'b@x.test' };
    expect(
      plainEvents([
        {
          tagID: 't1',
          clicks: [{ recipient, details: { clickDate: '2024-03-02T13:00:00Z', ...details } }],
        },
        {
          tagID: 't2',
          opens: [{ recipient, details: { openDate: '2024-03-03T13:00:00Z', ...details } }],
        },
      ]),
    ).toEqual([
      ev('t1', 'b@x.test', '2024-03-02T13:00:00Z', 'tablet'),
      ev('t2', 'b@x.test', '2024-03-03T13:00:00Z', 'tablet'),
    ]);
  });
});
