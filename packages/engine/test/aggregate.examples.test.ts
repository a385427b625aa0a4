import type {
  Caller,
  Dataset,
  DatasetEvent,
  Device,
  EndpointId,
  EndpointRequest,
} from '@tagtrack/core';
import {
  contactIdOf,
  DatasetError,
  defaultQueryParams,
  QueryParamError,
  type QueryParams,
  validateDataset,
} from '@tagtrack/core';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../src/memory/build.ts';

/*
 * A tiny dataset whose every expected number below was computed by hand from the rules of
 * spec §4, §5, §9, §10 (not copied from the code's output).
 *
 * Team T1: groups G1 "Sales" (A admin, MGR manager, U1 user), G2 "Ops" (M2 manager),
 * U2 user without group. Team T2: X admin.
 *   t1 by U1 2024-03-01T10:00:00Z to alice, Bob@Example.com, carol
 *   t2 by MGR 2024-03-01T23:59:59Z to " ALICE@example.com " (same contact as alice)
 *   t4 by M2 2024-03-02T12:00:00Z to alice
 *   t3 by U2 2024-03-03T00:00:00Z (exactly midnight) to dave
 *   x1 by X (team T2) 2024-03-01T12:00:00Z to alice
 */
function ev(tagID: string, email: string, date: string, device: Device): DatasetEvent {
  return {
    tagID,
    email,
    date,
    device,
    counry: 'Nowhere',
    region: 'R',
    city: 'C\tity',
    latitude: '1.5',
    longitude: '-2.25',
    os: 'os',
    browser: '<b>',
  };
}

const dataset: Dataset = {
  teams: [
    {
      teamID: 'T1',
      name: 'Acme',
      groups: [
        { groupID: 'G1', groupName: 'Sales' },
        { groupID: 'G2', groupName: 'Ops' },
      ],
      members: [
        {
          memberID: 'U1',
          firstname: 'Uma',
          lastname: 'User',
          email: 'uma@acme.test',
          accountType: 'user',
          groupID: 'G1',
        },
        {
          memberID: 'A',
          firstname: 'Ada',
          lastname: 'Admin',
          email: 'ada@acme.test',
          accountType: 'admin',
          groupID: 'G1',
        },
        {
          memberID: 'MGR',
          firstname: 'Max',
          lastname: 'Manager',
          email: 'max@acme.test',
          accountType: 'manager',
          groupID: 'G1',
        },
        {
          memberID: 'U2',
          firstname: 'Ned',
          lastname: 'Nogroup',
          email: 'ned@acme.test',
          accountType: 'user',
        },
        {
          memberID: 'M2',
          firstname: 'Olga',
          lastname: 'Ops',
          email: 'olga@acme.test',
          accountType: 'manager',
          groupID: 'G2',
        },
      ],
    },
    {
      teamID: 'T2',
      name: 'Other',
      groups: [],
      members: [
        {
          memberID: 'X',
          firstname: 'Xe',
          lastname: 'Other',
          email: 'xe@other.test',
          accountType: 'admin',
        },
      ],
    },
  ],
  tags: [
    {
      tagID: 't1',
      memberID: 'U1',
      subject: 'Hello',
      dateSent: '2024-03-01T10:00:00Z',
      recipients: [
        { name: 'Alice', email: 'alice@example.com' },
        { name: 'Bob', email: 'Bob@Example.com' },
        { name: 'Carol', email: 'carol@example.com' },
      ],
    },
    {
      tagID: 't2',
      memberID: 'MGR',
      subject: 'Late',
      dateSent: '2024-03-01T23:59:59Z',
      recipients: [{ name: 'Alice Again', email: ' ALICE@example.com ' }],
    },
    {
      tagID: 't3',
      memberID: 'U2',
      subject: 'Midnight',
      dateSent: '2024-03-03T00:00:00Z',
      recipients: [{ name: 'Dave', email: 'dave@example.com' }],
    },
    {
      tagID: 't4',
      memberID: 'M2',
      subject: 'Ops',
      dateSent: '2024-03-02T12:00:00Z',
      recipients: [{ name: 'Alice2', email: 'alice@example.com' }],
    },
    {
      tagID: 'x1',
      memberID: 'X',
      subject: 'Other team',
      dateSent: '2024-03-01T12:00:00Z',
      recipients: [{ name: 'Alice X', email: 'alice@example.com' }],
    },
  ],
  opens: [
    ev('t1', 'alice@example.com', '2024-03-01T11:00:00Z', 'desktop'),
    ev('t1', 'alice@example.com', '2024-03-02T09:00:00Z', 'mobile'),
    ev('t1', 'bob@example.com', '2024-03-01T12:00:00Z', 'tablet'),
    ev('t2', 'alice@example.com', '2024-03-02T00:00:00Z', 'unknown'),
    ev('t4', 'alice@example.com', '2024-03-03T23:59:59Z', 'desktop'),
    ev('x1', 'alice@example.com', '2024-03-01T13:00:00Z', 'desktop'),
  ],
  clicks: [
    ev('t1', 'carol@example.com', '2024-03-01T16:00:00Z', 'desktop'),
    ev('t1', 'carol@example.com', '2024-03-01T15:00:00Z', 'desktop'),
    ev('t1', 'alice@example.com', '2024-03-02T09:01:00Z', 'mobile'),
    ev('t3', 'dave@example.com', '2024-03-03T08:00:00Z', 'unknown'),
  ],
  credentials: [
    { authId: 'auth-a', accessKey: 'key-a', memberID: 'A' },
    { authId: 'auth-x', accessKey: 'key-x', memberID: 'X' },
  ],
};

const index = buildIndex(dataset);
const caller = (memberID: string): Caller => index.callerOf(memberID)!;
const admin = caller('A');
const ids = (records: readonly { tagID: string }[] | undefined) => records?.map((r) => r.tagID);

describe('tiny dataset: per-tag counters (spec §9, §10)', () => {
  const byId = new Map(index.tags(admin, {})!.map((t) => [t.tagID, t.stats]));
  it('t1: repeat opens count once in unique, tablet is mobile, click without open counts', () => {
    expect(byId.get('t1')).toEqual({
      totalOpens: 3,
      uniqueOpens: 2,
      totalClicks: 3,
      uniqueClicks: 2,
      desktopOpens: 1,
      mobileOpens: 2,
      desktopClicks: 2,
      mobileClicks: 1,
    });
  });
  it('t2: an unknown device counts in total but in neither desktop nor mobile', () => {
    expect(byId.get('t2')).toMatchObject({
      totalOpens: 1,
      uniqueOpens: 1,
      desktopOpens: 0,
      mobileOpens: 0,
    });
  });
  it('t3: clicks without any open', () => {
    expect(byId.get('t3')).toMatchObject({
      totalOpens: 0,
      uniqueOpens: 0,
      totalClicks: 1,
      uniqueClicks: 1,
      desktopClicks: 0,
      mobileClicks: 0,
    });
  });
});

describe('tiny dataset: tag lists (spec §5, §6)', () => {
  it('newest dateSent first, other team never shown', () => {
    expect(ids(index.tags(admin, {}))).toEqual(['t3', 't4', 't2', 't1']);
    expect(ids(index.tags(caller('X'), {}))).toEqual(['x1']);
  });
  it('filters are a conjunction', () => {
    expect(ids(index.tags(admin, { isOpened: true }))).toEqual(['t4', 't2', 't1']);
    expect(ids(index.tags(admin, { isUnopened: true }))).toEqual(['t3']);
    expect(ids(index.tags(admin, { isClicked: true }))).toEqual(['t3', 't1']);
    expect(ids(index.tags(admin, { isUnclicked: true }))).toEqual(['t4', 't2']);
    expect(ids(index.tags(admin, { isOpened: true, isUnclicked: true }))).toEqual(['t4', 't2']);
    expect(ids(index.tags(admin, { isOpened: true, isUnopened: true }))).toEqual([]);
  });
  it('day windows are whole UTC days, both bounds inclusive', () => {
    expect(ids(index.tags(admin, { start: '2024-03-01', end: '2024-03-01' }))).toEqual([
      't2',
      't1',
    ]);
    expect(ids(index.tags(admin, { end: '2024-03-02' }))).toEqual(['t4', 't2', 't1']);
    expect(ids(index.tags(admin, { start: '2024-03-03' }))).toEqual(['t3']);
    expect(ids(index.tags(admin, { start: '2024-03-04' }))).toEqual([]);
  });
  it('member tags: visible member only', () => {
    expect(ids(index.tags(admin, { memberID: 'U1' }))).toEqual(['t1']);
    expect(index.tags(caller('U1'), { memberID: 'MGR' })).toBeUndefined();
    expect(index.tags(admin, { memberID: 'X' })).toBeUndefined();
    expect(index.tags(admin, { memberID: 'nobody' })).toBeUndefined();
  });
  it('scoping: manager sees own group and self, user self, manager without peers only group', () => {
    expect(ids(index.tags(caller('MGR'), {}))).toEqual(['t2', 't1']);
    expect(ids(index.tags(caller('U1'), {}))).toEqual(['t1']);
    expect(ids(index.tags(caller('U2'), {}))).toEqual(['t3']);
    expect(ids(index.tags(caller('M2'), {}))).toEqual(['t4']);
  });
});

describe('tiny dataset: members (spec §4, §5, §9)', () => {
  it('sorted by lastname, firstname, memberID; groupName from the group; no group omitted', () => {
    const members = index.members(admin);
    expect(members.map((m) => m.lastname)).toEqual(['Admin', 'Manager', 'Nogroup', 'Ops', 'User']);
    expect(members[0]).toEqual({
      memberID: 'A',
      firstname: 'Ada',
      lastname: 'Admin',
      email: 'ada@acme.test',
      accountType: 'admin',
      groupID: 'G1',
      groupName: 'Sales',
    });
    expect(members[2]).not.toHaveProperty('groupID');
    expect(members[2]).not.toHaveProperty('groupName');
  });
  it("option 'empty' renders empty strings for a member without group", () => {
    const other = buildIndex(dataset, { memberWithoutGroup: 'empty' });
    expect(other.member(admin, 'U2')).toMatchObject({ groupID: '', groupName: '' });
  });
  it('type filter and scope', () => {
    expect(index.members(admin, { type: 'user' }).map((m) => m.memberID)).toEqual(['U2', 'U1']);
    expect(index.members(caller('MGR')).map((m) => m.memberID)).toEqual(['A', 'MGR', 'U1']);
    expect(index.members(caller('U2')).map((m) => m.memberID)).toEqual(['U2']);
    expect(index.member(caller('U1'), 'A')).toBeUndefined();
    expect(index.member(admin, 'X')).toBeUndefined();
  });
  it('group by exact id, else exact name; invisible group is undefined', () => {
    expect(index.groupMembers(admin, 'G1')?.map((m) => m.memberID)).toEqual(['A', 'MGR', 'U1']);
    expect(index.groupMembers(admin, 'Sales')?.map((m) => m.memberID)).toEqual(['A', 'MGR', 'U1']);
    expect(index.groupMembers(admin, 'sales')).toBeUndefined();
    expect(index.groupMembers(caller('MGR'), 'Ops')).toBeUndefined();
    expect(index.groupMembers(caller('U1'), 'G1')?.map((m) => m.memberID)).toEqual(['U1']);
    expect(index.groupMembers(caller('X'), 'G1')).toBeUndefined();
    expect(index.groupMembers(admin, 'G1', { type: 'manager' })?.map((m) => m.memberID)).toEqual([
      'MGR',
    ]);
  });
  it('group names resolve among visible groups, duplicates to the lowest groupID (Revision 2)', () => {
    // G9 and G3 are both named "Sales" like G1; G9 holds U2, G3 is empty; a group named "G1"
    // loses to the group whose id is G1.
    const team = dataset.teams[0]!;
    const dup: Dataset = {
      ...dataset,
      teams: [
        {
          ...team,
          groups: [
            ...team.groups,
            { groupID: 'G9', groupName: 'Sales' },
            { groupID: 'G3', groupName: 'Sales' },
            { groupID: 'G4', groupName: 'G1' },
          ],
          members: team.members.map((m) => (m.memberID === 'U2' ? { ...m, groupID: 'G9' } : m)),
        },
        ...dataset.teams.slice(1),
      ],
    };
    const ix = buildIndex(dup);
    const ids = (c: Caller, g: string) => ix.groupMembers(c, g)?.map((m) => m.memberID);
    const who = (m: string) => ix.callerOf(m)!;
    // admin sees every group: "Sales" is the lowest groupID of G1, G3, G9
    expect(ids(who('A'), 'Sales')).toEqual(['A', 'MGR', 'U1']);
    expect(ids(who('A'), 'G1')).toEqual(['A', 'MGR', 'U1']);
    expect(ids(who('A'), 'G3')).toEqual([]);
    // U2 sees only G9 among the "Sales" groups, so the name resolves to G9 for U2
    expect(ids(who('U2'), 'Sales')).toEqual(['U2']);
    expect(ids(who('U2'), 'G1')).toBeUndefined();
  });
});

describe('tiny dataset: stats (spec §5, §10)', () => {
  it('one record per UTC day of dateSent, oldest first, with date', () => {
    expect(index.stats(admin, { subject: { kind: 'team' } })).toEqual([
      {
        totalSent: 2,
        totalOpens: 4,
        totalClicks: 3,
        uniqueOpens: 3,
        uniqueClicks: 2,
        dateLastSent: '2024-03-01T23:59:59Z',
        date: '2024-03-01',
      },
      {
        totalSent: 1,
        totalOpens: 1,
        totalClicks: 0,
        uniqueOpens: 1,
        uniqueClicks: 0,
        dateLastSent: '2024-03-02T12:00:00Z',
        date: '2024-03-02',
      },
      {
        totalSent: 1,
        totalOpens: 0,
        totalClicks: 1,
        uniqueOpens: 0,
        uniqueClicks: 1,
        dateLastSent: '2024-03-03T00:00:00Z',
        date: '2024-03-03',
      },
    ]);
  });
  it('aggregateData gives exactly one record; empty window gives the empty record', () => {
    expect(index.stats(admin, { subject: { kind: 'team' }, aggregateData: true })).toEqual([
      {
        totalSent: 4,
        totalOpens: 5,
        totalClicks: 4,
        uniqueOpens: 4,
        uniqueClicks: 3,
        dateLastSent: '2024-03-03T00:00:00Z',
      },
    ]);
    expect(
      index.stats(admin, { subject: { kind: 'team' }, aggregateData: true, start: '2025-01-01' }),
    ).toEqual([
      {
        totalSent: 0,
        totalOpens: 0,
        totalClicks: 0,
        uniqueOpens: 0,
        uniqueClicks: 0,
        dateLastSent: null,
      },
    ]);
    expect(index.stats(admin, { subject: { kind: 'team' }, start: '2025-01-01' })).toEqual([]);
  });
  it('type filters the members whose tags count', () => {
    expect(
      index.stats(admin, { subject: { kind: 'team' }, aggregateData: true, type: 'user' }),
    ).toEqual([
      {
        totalSent: 2,
        totalOpens: 3,
        totalClicks: 4,
        uniqueOpens: 2,
        uniqueClicks: 3,
        dateLastSent: '2024-03-03T00:00:00Z',
      },
    ]);
  });
  it('group by id or name; member stats; out of scope undefined', () => {
    const sales = [
      {
        totalSent: 2,
        totalOpens: 4,
        totalClicks: 3,
        uniqueOpens: 3,
        uniqueClicks: 2,
        dateLastSent: '2024-03-01T23:59:59Z',
      },
    ];
    expect(
      index.stats(admin, { subject: { kind: 'group', group: 'G1' }, aggregateData: true }),
    ).toEqual(sales);
    expect(
      index.stats(admin, { subject: { kind: 'group', group: 'Sales' }, aggregateData: true }),
    ).toEqual(sales);
    expect(index.stats(caller('MGR'), { subject: { kind: 'team' }, aggregateData: true })).toEqual(
      sales,
    );
    expect(index.stats(caller('MGR'), { subject: { kind: 'group', group: 'G2' } })).toBeUndefined();
    expect(
      index.stats(admin, { subject: { kind: 'member', memberID: 'U2' }, aggregateData: true }),
    ).toEqual([
      {
        totalSent: 1,
        totalOpens: 0,
        totalClicks: 1,
        uniqueOpens: 0,
        uniqueClicks: 1,
        dateLastSent: '2024-03-03T00:00:00Z',
      },
    ]);
    expect(
      index.stats(caller('U1'), { subject: { kind: 'member', memberID: 'U2' } }),
    ).toBeUndefined();
  });
});

describe('tiny dataset: events (spec §5, §6, §10)', () => {
  it('open groups by tag order, events oldest first, window by the event date', () => {
    const all = index.openGroups(admin, {});
    expect(all.map((g) => [g.tagID, g.opens.map((o) => o.details.openDate)])).toEqual([
      ['t4', ['2024-03-03T23:59:59Z']],
      ['t2', ['2024-03-02T00:00:00Z']],
      ['t1', ['2024-03-01T11:00:00Z', '2024-03-01T12:00:00Z', '2024-03-02T09:00:00Z']],
    ]);
    const day2 = index.openGroups(admin, { start: '2024-03-02', end: '2024-03-02' });
    expect(day2.map((g) => [g.tagID, g.opens.length])).toEqual([
      ['t2', 1],
      ['t1', 1],
    ]);
    expect(
      index.openGroups(admin, { start: '2024-03-03', end: '2024-03-03' }).map((g) => g.tagID),
    ).toEqual(['t4']);
  });
  it('an event carries its recipient (normalised email, contact id, name on that tag) and details', () => {
    const t2 = index.openGroups(admin, {})[1]!;
    expect(t2.opens[0]).toEqual({
      recipient: {
        recipientID: contactIdOf('alice@example.com'),
        name: 'Alice Again',
        email: 'alice@example.com',
      },
      details: {
        openDate: '2024-03-02T00:00:00Z',
        counry: 'Nowhere',
        region: 'R',
        city: 'C\tity',
        latitude: '1.5',
        longitude: '-2.25',
        device: 'unknown',
        os: 'os',
        browser: '<b>',
      },
    });
  });
  it('click groups and per-tag clicks oldest first, out of order input sorted', () => {
    expect(
      index.clickGroups(admin, {}).map((g) => [g.tagID, g.clicks.map((c) => c.recipient.email)]),
    ).toEqual([
      ['t3', ['dave@example.com']],
      ['t1', ['carol@example.com', 'carol@example.com', 'alice@example.com']],
    ]);
    expect(index.tagClicks(admin, 't1')?.map((c) => [c.clickDate, c.tagID])).toEqual([
      ['2024-03-01T15:00:00Z', 't1'],
      ['2024-03-01T16:00:00Z', 't1'],
      ['2024-03-02T09:01:00Z', 't1'],
    ]);
    expect(index.tagOpens(caller('U2'), 't1')).toBeUndefined();
    expect(index.clickGroups(caller('X'), {})).toEqual([]);
  });
  it('daily counts: distinct recipients per UTC day, midnight belongs to the new day', () => {
    expect(index.daily(admin, 't1', '2024-03-01')).toEqual({ opens: 2, clicks: 1 });
    expect(index.daily(admin, 't1', '2024-03-02')).toEqual({ opens: 1, clicks: 1 });
    expect(index.daily(admin, 't1', '2024-02-29')).toEqual({ opens: 0, clicks: 0 });
    expect(index.daily(admin, 't2', '2024-03-01')).toEqual({ opens: 0, clicks: 0 });
    expect(index.daily(admin, 't2', '2024-03-02')).toEqual({ opens: 1, clicks: 0 });
    expect(index.daily(caller('X'), 't1', '2024-03-01')).toBeUndefined();
  });
});

describe('tiny dataset: contacts (spec §4, §10)', () => {
  it('admin: by email, counters over the visible tags sent to the contact', () => {
    const contacts = index.contacts(admin);
    expect(contacts.map((c) => c.email)).toEqual([
      'alice@example.com',
      'bob@example.com',
      'carol@example.com',
      'dave@example.com',
    ]);
    expect(contacts[0]).toEqual({
      contactID: contactIdOf('alice@example.com'),
      name: 'Alice2',
      email: 'alice@example.com',
      dateLastSent: '2024-03-02T12:00:00Z',
      stats: {
        totalSent: 3,
        totalOpens: 4,
        uniqueOpens: 3,
        desktopOpens: 2,
        mobileOpens: 1,
        totalClicks: 1,
        uniqueClicks: 1,
        desktopClicks: 0,
        mobileClicks: 1,
      },
    });
    expect(contacts[2]!.stats).toMatchObject({
      totalSent: 1,
      totalClicks: 2,
      uniqueClicks: 1,
      desktopClicks: 2,
      totalOpens: 0,
    });
    expect(contacts[3]!.stats).toMatchObject({
      totalClicks: 1,
      uniqueClicks: 1,
      desktopClicks: 0,
      mobileClicks: 0,
    });
  });
  it('manager: only contacts of visible tags, counters over visible tags only', () => {
    const contacts = index.contacts(caller('MGR'));
    expect(contacts.map((c) => c.email)).toEqual([
      'alice@example.com',
      'bob@example.com',
      'carol@example.com',
    ]);
    expect(contacts[0]).toMatchObject({
      name: 'Alice Again',
      dateLastSent: '2024-03-01T23:59:59Z',
      stats: {
        totalSent: 2,
        totalOpens: 3,
        uniqueOpens: 2,
        desktopOpens: 1,
        mobileOpens: 1,
        totalClicks: 1,
      },
    });
    expect(index.contact(caller('MGR'), contactIdOf('dave@example.com'))).toBeUndefined();
  });
  it('other team sees its own counters for the same email', () => {
    expect(index.contacts(caller('X'))).toEqual([
      expect.objectContaining({
        name: 'Alice X',
        stats: expect.objectContaining({ totalSent: 1, totalOpens: 1, desktopOpens: 1 }),
      }),
    ]);
  });
  it('contact by id and contacts of a tag', () => {
    expect(index.contact(admin, contactIdOf('Bob@Example.com'))?.name).toBe('Bob');
    expect(index.contact(admin, 'nope')).toBeUndefined();
    expect(index.tagContacts(admin, 't1')?.map((c) => c.email)).toEqual([
      'alice@example.com',
      'bob@example.com',
      'carol@example.com',
    ]);
    expect(index.tagContacts(caller('U2'), 't1')).toBeUndefined();
  });
});

describe('tiny dataset: answer() dispatch', () => {
  const query = (q: Partial<QueryParams> = {}): QueryParams => defaultQueryParams(q);
  const req = (
    endpoint: EndpointId,
    pathParams: EndpointRequest['pathParams'] = {},
    q: Partial<QueryParams> = {},
  ): EndpointRequest => ({ endpoint, pathParams, query: query(q) });

  it('lists, singles and not found', () => {
    expect(index.answer(admin, req('teams.tags', {}, { isUnopened: true }))).toEqual({
      kind: 'list',
      records: index.tags(admin, { isUnopened: true }),
    });
    expect(index.answer(admin, req('teams.member', { memberID: 'U1' }))).toEqual({
      kind: 'single',
      record: index.member(admin, 'U1'),
    });
    expect(index.answer(caller('U1'), req('teams.member', { memberID: 'A' }))).toEqual({
      kind: 'not_found',
      message: 'member "A" not found',
    });
    expect(index.answer(admin, req('teams.member', { memberID: 'nobody' }))).toEqual({
      kind: 'not_found',
      message: 'member "nobody" not found',
    });
    expect(index.answer(admin, req('tags.daily', { tagID: 't1' }, { date: '2024-03-01' }))).toEqual(
      {
        kind: 'single',
        record: { opens: 2, clicks: 1 },
      },
    );
  });
  it('/stats and /teams/stats answer the same, type included', () => {
    const q = { type: 'user' as const, aggregateData: true };
    expect(index.answer(admin, req('stats.team', {}, q))).toEqual(
      index.answer(admin, req('stats.teamAlias', {}, q)),
    );
    expect(index.answer(admin, req('stats.team', {}, q))).toEqual({
      kind: 'list',
      records: [
        {
          totalSent: 2,
          totalOpens: 3,
          totalClicks: 4,
          uniqueOpens: 2,
          uniqueClicks: 3,
          dateLastSent: '2024-03-03T00:00:00Z',
        },
      ],
    });
  });
  it('tags.daily without date is a 400 naming the parameter', () => {
    expect(() => index.answer(admin, req('tags.daily', { tagID: 't1' }))).toThrow(QueryParamError);
    expect(() => index.answer(admin, req('tags.daily', { tagID: 't1' }))).toThrow(
      expect.objectContaining({ code: 'missing_parameter', parameter: 'date' }),
    );
  });
});

describe('validateDataset and buildIndex on bad datasets', () => {
  it('a consistent dataset has no problems', () => {
    expect(validateDataset(dataset)).toEqual([]);
  });
  it('each referential problem is named', () => {
    const bad: Dataset = {
      ...dataset,
      teams: [
        {
          ...dataset.teams[0]!,
          members: [
            ...dataset.teams[0]!.members,
            {
              memberID: 'Z',
              firstname: 'z',
              lastname: 'z',
              email: 'z',
              accountType: 'user',
              groupID: 'G9',
            },
          ],
        },
        dataset.teams[1]!,
      ],
      tags: [...dataset.tags, { ...dataset.tags[0]!, memberID: 'ghost' }],
      opens: [
        ...dataset.opens,
        ev('nope', 'alice@example.com', '2024-03-05T00:00:00Z', 'desktop'),
        ev('t3', 'alice@example.com', '2024-03-05T00:00:00Z', 'desktop'),
        ev('t3', 'dave@example.com', '2024-03-02T00:00:00Z', 'desktop'),
      ],
      credentials: [
        ...dataset.credentials,
        { authId: 'auth-ghost', accessKey: 'k', memberID: 'ghost' },
      ],
    };
    const problems = validateDataset(bad);
    expect(problems).toEqual([
      "member 'Z' has groupID 'G9', not a group of team 'T1'",
      "duplicate tagID 't1'",
      "tag 't1' has unknown memberID 'ghost'",
      "open #6 refers to unknown tagID 'nope'",
      "open #7 of tag 't3': email 'alice@example.com' is not a recipient",
      "open #8 of tag 't3' is dated before the tag was sent",
      "credential 'auth-ghost' has unknown memberID 'ghost'",
    ]);
    expect(() => buildIndex(bad)).toThrow(DatasetError);
  });
});

describe('a tag with a long recipient list repeating an email', () => {
  const recipients = Array.from({ length: 39 }, (_, i) => ({
    name: `n${i}`,
    email: `r${i}@x.test`,
  }));
  recipients.push({ name: 'second spelling', email: ' R0@X.test' });
  const big: Dataset = {
    ...dataset,
    tags: [
      ...dataset.tags,
      {
        tagID: 'big',
        memberID: 'A',
        subject: 'Many',
        dateSent: '2024-04-01T00:00:00Z',
        recipients,
      },
    ],
    opens: [
      ...dataset.opens,
      ev('big', 'r0@x.test', '2024-04-01T01:00:00Z', 'desktop'),
      ev('big', 'R0@x.test ', '2024-04-02T01:00:00Z', 'tablet'),
    ],
  };
  const idx = buildIndex(big);
  it('counts the repeated email as one recipient and one contact (named by its first entry)', () => {
    expect(idx.tags(admin, { memberID: 'A' })![0]!.stats).toMatchObject({
      totalOpens: 2,
      uniqueOpens: 1,
      desktopOpens: 1,
      mobileOpens: 1,
    });
    const contacts = idx.tagContacts(admin, 'big')!;
    expect(contacts).toHaveLength(39);
    expect(contacts.find((c) => c.email === 'r0@x.test')).toMatchObject({
      name: 'n0',
      stats: { totalSent: 1, totalOpens: 2, uniqueOpens: 1 },
    });
  });
});
