import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { dayNumber, dayString } from '../src/aggregate/time.ts';
import type { Caller, DayWindow, ReportingIndex } from '../src/aggregate/types.ts';
import type { Dataset } from '../src/dataset/schema.ts';
import type { DailyCounts } from '../src/events.ts';
import {
  CONTACT_LAWS,
  COUNTER_LAWS,
  type ContactView,
  type CountedRecord,
  callerWithinAdmin,
  contactCountsCallerTags,
  contactsByEmail,
  DAILY_LAWS,
  DAILY_SERIES_LAWS,
  EVENT_GROUP_LAWS,
  EVENT_LIST_LAWS,
  groupNameInCallerTeam,
  groupStatsAreMergeOfMemberStats,
  LAWS,
  type Law,
  MEMBER_LIST_LAWS,
  MERGE_LAWS,
  managerGroupStatsAsAdmin,
  plainEvents,
  rangeSplitMerges,
  STATS_LAWS,
  type StatsAnswers,
  TAG_EVENT_LAWS,
  TAG_LIST_LAWS,
  type TagOnDay,
  teamStatsAreMergeOfMemberStats,
  typedStatsMergeToUntyped,
} from '../src/laws.ts';
import type { AccountType } from '../src/member.ts';
import { mergeStats, type StatsSummary } from '../src/stats.ts';
import type { Tag } from '../src/tag.ts';
import {
  arbDatasetWithCaller,
  arbDayFor,
  arbDayWindowFor,
  arbStatsSummary,
  arbTagFilters,
} from '../src/testing.ts';
import { indexOf } from './indexes.ts';

/*
 * The laws of docs/spec.md §10 and §5, as core's LAWS states them, applied to the answers of
 * buildIndex on generated datasets: one property per law, named by the law's id and title.
 * A law's violation message is the assertion's message. The index agreeing with the plain
 * rules is in aggregate.rules.test.ts and aggregate.oracle.test.ts; each law's predicate is
 * shown to catch a violation in laws.test.ts.
 */

const TYPES = [undefined, 'admin', 'manager', 'user'] as const;

/** The ids of the laws a property below states; every law of LAWS must be among them. */
const stated = new Set<string>();

/**
 * One property: `law` holds on every input `inputs` derives from a generated case (the
 * index's answers). The test is named by the law; `on` says which answers when a law has
 * several properties.
 */
function lawProperty<In, X>(
  law: Law<In>,
  arb: fc.Arbitrary<X>,
  inputs: (x: X) => Iterable<In>,
  on = '',
): void {
  stated.add(law.id);
  fcTest.prop([arb])(`${law.id}: ${law.title}${on && ` (${on})`}`, (x) => {
    for (const input of inputs(x)) {
      const violation = law.check(input);
      expect(violation, violation).toBeUndefined();
    }
  });
}

/** A generated case: dataset, caller, and a window cutting through the dataset's days. */
interface Case {
  readonly dataset: Dataset;
  readonly caller: Caller;
  readonly window: DayWindow;
}
const arbCase: fc.Arbitrary<Case> = arbDatasetWithCaller.chain(({ dataset, caller }) =>
  arbDayWindowFor(dataset).map((window) => ({ dataset, caller, window })),
);

/** Aggregated or per-day stats of a subject in a window (the subject is visible). */
function statsOf(
  idx: ReportingIndex,
  caller: Caller,
  subject: Parameters<ReportingIndex['stats']>[1]['subject'],
  window: DayWindow,
  extra: { aggregateData?: boolean; type?: AccountType | undefined } = {},
): StatsSummary[] {
  return idx.stats(caller, { subject, ...window, ...extra })!;
}

function memberStats(idx: ReportingIndex, caller: Caller, memberID: string, window: DayWindow) {
  return statsOf(idx, caller, { kind: 'member', memberID }, window, { aggregateData: true })[0]!;
}

/** The caller's contacts, tags and events (endpoints 15, 2, 11, 9) as the index answers them. */
function contactView({ dataset, caller }: Case): ContactView {
  const idx = indexOf(dataset);
  return {
    contacts: idx.contacts(caller),
    tags: idx.tags(caller, {})!,
    opens: plainEvents(idx.openGroups(caller, {})),
    clicks: plainEvents(idx.clickGroups(caller, {})),
  };
}

describe('records with counters: tags, contacts, stats records (spec §10)', () => {
  for (const law of COUNTER_LAWS) {
    lawProperty(law, arbCase, function* ({ dataset, caller, window }): Iterable<CountedRecord> {
      const idx = indexOf(dataset);
      yield* idx.tags(caller, window)!;
      yield* idx.contacts(caller);
      for (const aggregateData of [false, true]) {
        yield* statsOf(idx, caller, { kind: 'team' }, window, { aggregateData });
        for (const m of idx.members(caller))
          yield* statsOf(idx, caller, { kind: 'member', memberID: m.memberID }, window, {
            aggregateData,
          });
      }
    });
  }
  for (const law of TAG_EVENT_LAWS) {
    lawProperty(law, arbCase, (c) => {
      const { tags, opens, clicks } = contactView(c);
      return tags.map((tag) => ({ tag, opens, clicks }));
    });
  }
});

describe('daily counts (spec §10, endpoint 14)', () => {
  /** Daily counts of each visible tag on the generated day, the day before it was sent and its event days. */
  const arbDaily = arbDatasetWithCaller.chain((x) =>
    arbDayFor(x.dataset).map((day) => ({ ...x, window: {}, day })),
  );
  function* tagDays({ dataset, caller, day }: Case & { day: string }): Iterable<TagOnDay> {
    const { tags, opens, clicks } = contactView({ dataset, caller, window: {} });
    const idx = indexOf(dataset);
    for (const tag of tags) {
      const sendDay = dayNumber(tag.dateSent.slice(0, 10));
      const days = new Set([day, dayString(sendDay - 1)]);
      for (const e of [...opens, ...clicks])
        if (e.tagID === tag.tagID) days.add(e.date.slice(0, 10));
      for (const date of days) {
        yield { tag, date, daily: idx.daily(caller, tag.tagID, date)!, opens, clicks };
      }
    }
  }
  for (const law of DAILY_LAWS) lawProperty(law, arbDaily, tagDays);
  for (const law of DAILY_SERIES_LAWS) {
    lawProperty(law, arbDaily, (x) => {
      const series = new Map<string, { tag: Tag; days: { date: string; daily: DailyCounts }[] }>();
      for (const { tag, date, daily } of tagDays(x)) {
        const s = series.get(tag.tagID) ?? { tag, days: [] };
        s.days.push({ date, daily });
        series.set(tag.tagID, s);
      }
      return series.values();
    });
  }
});

describe('stats (spec §5, §10)', () => {
  /**
   * The answers to one stats query per subject (the team per account type, each visible
   * group, each visible member) and the tags its members sent in the window.
   */
  function* statsAnswers({ dataset, caller, window }: Case): Iterable<StatsAnswers> {
    const idx = indexOf(dataset);
    const answers = (
      subject: Parameters<ReportingIndex['stats']>[1]['subject'],
      memberIDs: readonly string[],
      type?: AccountType,
    ): StatsAnswers => {
      const sent = new Set(
        memberIDs.flatMap((memberID) =>
          idx.tags(caller, { memberID, ...window })!.map((t) => t.tagID),
        ),
      );
      return {
        tags: idx.tags(caller, window)!.filter((t) => sent.has(t.tagID)),
        daily: statsOf(idx, caller, subject, window, { type }),
        aggregated: statsOf(idx, caller, subject, window, { type, aggregateData: true }),
      };
    };
    const ids = (type?: AccountType) => idx.members(caller, { type }).map((m) => m.memberID);
    for (const type of TYPES) yield answers({ kind: 'team' }, ids(type), type);
    for (const group of dataset.teams.flatMap((t) => t.groups)) {
      const members = idx.groupMembers(caller, group.groupID);
      if (members === undefined) continue;
      const memberIDs = members.map((m) => m.memberID);
      yield answers({ kind: 'group', group: group.groupID }, memberIDs);
    }
    for (const memberID of ids()) yield answers({ kind: 'member', memberID }, [memberID]);
  }
  for (const law of STATS_LAWS) lawProperty(law, arbCase, statsAnswers);

  lawProperty(teamStatsAreMergeOfMemberStats, arbCase, ({ dataset, caller, window }) => {
    const idx = indexOf(dataset);
    return TYPES.map((type) => ({
      subject: `team stats${type ? ` of type ${type}` : ''}`,
      whole: statsOf(idx, caller, { kind: 'team' }, window, { type, aggregateData: true })[0]!,
      parts: idx.members(caller, { type }).map((m) => memberStats(idx, caller, m.memberID, window)),
    }));
  });
  lawProperty(groupStatsAreMergeOfMemberStats, arbCase, ({ dataset, caller, window }) => {
    const idx = indexOf(dataset);
    return dataset.teams.flatMap((team) =>
      team.groups.flatMap((g) =>
        TYPES.flatMap((type) => {
          const members = idx.groupMembers(caller, g.groupID, { type });
          if (members === undefined) return [];
          const subject = { kind: 'group' as const, group: g.groupID };
          return [
            {
              subject: `stats of group ${g.groupID}${type ? ` of type ${type}` : ''}`,
              whole: statsOf(idx, caller, subject, window, { type, aggregateData: true })[0]!,
              parts: members.map((m) => memberStats(idx, caller, m.memberID, window)),
            },
          ];
        }),
      ),
    );
  });
  lawProperty(typedStatsMergeToUntyped, arbCase, ({ dataset, caller, window }) => {
    const idx = indexOf(dataset);
    const subjects = [
      { kind: 'team' as const },
      ...dataset.teams.flatMap((t) =>
        t.groups.map((g) => ({ kind: 'group' as const, group: g.groupID })),
      ),
    ];
    // per day and aggregated; a subject the caller cannot see (undefined) has no law to obey
    const answer = (
      subject: (typeof subjects)[number],
      aggregateData: boolean,
      type?: AccountType,
    ) => idx.stats(caller, { subject, ...window, aggregateData, type });
    return subjects.flatMap((subject) =>
      [false, true].flatMap((aggregateData) => {
        const whole = answer(subject, aggregateData);
        const parts = (['admin', 'manager', 'user'] as const).map((t) =>
          answer(subject, aggregateData, t),
        );
        if (whole === undefined || parts.some((p) => p === undefined)) return [];
        const name = subject.kind === 'team' ? 'the team' : `group ${subject.group}`;
        if (aggregateData)
          return [
            {
              subject: `aggregated stats of ${name}`,
              whole: whole[0]!,
              parts: parts.map((p) => p![0]!),
            },
          ];
        // per day: the whole's record of a day against the typed records of that day
        return whole.map((w) => ({
          subject: `stats of ${name} on ${w.date}`,
          whole: w,
          parts: parts.flatMap((p) => p!.filter((r) => r.date === w.date)),
        }));
      }),
    );
  });
  lawProperty(
    rangeSplitMerges,
    arbDatasetWithCaller.chain(({ dataset, caller }) =>
      fc
        .tuple(arbDayWindowFor(dataset), fc.nat())
        .filter(([w]) => w.start !== undefined && w.end !== undefined && w.start < w.end)
        .map(([window, cut]) => ({ dataset, caller, window, cut })),
    ),
    ({ dataset, caller, window, cut }) => {
      const idx = indexOf(dataset);
      const first = dayNumber(window.start!);
      const mid = first + (cut % (dayNumber(window.end!) - first));
      const subjects = [
        { kind: 'team' as const },
        ...idx.members(caller).map((m) => ({ kind: 'member' as const, memberID: m.memberID })),
      ];
      const agg = (subject: (typeof subjects)[number], w: DayWindow) =>
        statsOf(idx, caller, subject, w, { aggregateData: true })[0]!;
      return subjects.map((s) => ({
        subject: `stats of ${s.kind === 'team' ? 'the team' : `member ${s.memberID}`} from ${window.start} to ${window.end}, cut after ${dayString(mid)}`,
        whole: agg(s, window),
        parts: [
          agg(s, { start: window.start, end: dayString(mid) }),
          agg(s, { start: dayString(mid + 1), end: window.end }),
        ],
      }));
    },
  );
  for (const law of MERGE_LAWS) {
    lawProperty(law, fc.tuple(arbStatsSummary, arbStatsSummary, arbStatsSummary), (records) => [
      { merge: mergeStats, records },
    ]);
  }
});

describe('contacts (spec §4, §10, §5)', () => {
  for (const law of CONTACT_LAWS) lawProperty(law, arbCase, (c) => [contactView(c)]);
  lawProperty(
    contactsByEmail,
    arbCase,
    ({ dataset, caller }) => {
      const idx = indexOf(dataset);
      return idx.tags(caller, {})!.map((t) => ({ contacts: idx.tagContacts(caller, t.tagID)! }));
    },
    'the contacts of each tag, endpoint 17',
  );
});

describe('order of lists (spec §5)', () => {
  const arbFiltered = arbCase.chain((c) => arbTagFilters.map((filters) => ({ ...c, filters })));
  for (const law of TAG_LIST_LAWS) {
    lawProperty(law, arbFiltered, ({ dataset, caller, window, filters }) => {
      const idx = indexOf(dataset);
      return [
        idx.tags(caller, { ...window, ...filters })!,
        ...idx
          .members(caller)
          .map((m) => idx.tags(caller, { memberID: m.memberID, ...window, ...filters })!),
      ];
    });
  }
  for (const law of MEMBER_LIST_LAWS) {
    lawProperty(law, arbCase, ({ dataset, caller }) => {
      const idx = indexOf(dataset);
      return TYPES.flatMap((type) => [
        idx.members(caller, { type }),
        ...dataset.teams.flatMap((t) =>
          t.groups.flatMap((g) => [idx.groupMembers(caller, g.groupName, { type }) ?? []]),
        ),
      ]);
    });
  }
  for (const law of EVENT_LIST_LAWS) {
    lawProperty(law, arbCase, ({ dataset, caller, window }) => {
      const idx = indexOf(dataset);
      return [
        ...idx.openGroups(caller, window).map((g) => g.opens.map((e) => e.details)),
        ...idx.clickGroups(caller, window).map((g) => g.clicks.map((e) => e.details)),
        ...idx
          .tags(caller, {})!
          .flatMap((t) => [idx.tagOpens(caller, t.tagID)!, idx.tagClicks(caller, t.tagID)!]),
      ];
    });
  }
  for (const law of EVENT_GROUP_LAWS) {
    lawProperty(law, arbCase, ({ dataset, caller, window }) => {
      const idx = indexOf(dataset);
      const tags = idx.tags(caller, {})!;
      return [
        { tags, groups: idx.openGroups(caller, window) },
        { tags, groups: idx.clickGroups(caller, window) },
      ];
    });
  }
});

describe('two callers of a team (spec §4)', () => {
  /** The admin of the caller's team as a caller, or undefined when the team has none. */
  function adminOf(dataset: Dataset, caller: Caller): Caller | undefined {
    const team = dataset.teams.find((t) => t.teamID === caller.teamID);
    const admin = team?.members.find((m) => m.accountType === 'admin');
    return admin && { memberID: admin.memberID, teamID: caller.teamID, accountType: 'admin' };
  }
  function lists(idx: ReportingIndex, caller: Caller) {
    return {
      members: idx.members(caller),
      tags: idx.tags(caller, {})!,
      contacts: idx.contacts(caller),
    };
  }
  lawProperty(callerWithinAdmin, arbCase, ({ dataset, caller }) => {
    const idx = indexOf(dataset);
    const admin = adminOf(dataset, caller);
    return admin === undefined
      ? []
      : [{ caller: caller.memberID, view: lists(idx, caller), admin: lists(idx, admin) }];
  });
  lawProperty(managerGroupStatsAsAdmin, arbCase, ({ dataset, caller, window }) => {
    const idx = indexOf(dataset);
    const admin = adminOf(dataset, caller);
    const group = idx.members(caller).find((m) => m.memberID === caller.memberID)?.groupID;
    if (admin === undefined || caller.accountType !== 'manager' || group === undefined) return [];
    return TYPES.flatMap((type) => {
      const extra = { aggregateData: true, type };
      const asAdmin = statsOf(idx, admin, { kind: 'group', group }, window, extra)[0]!;
      return [
        statsOf(idx, caller, { kind: 'group', group }, window, extra)[0]!,
        statsOf(idx, caller, { kind: 'team' }, window, extra)[0]!,
      ].map((asCaller) => ({
        subject: `group ${group}`,
        caller: caller.memberID,
        asCaller,
        asAdmin,
      }));
    });
  });
  lawProperty(contactCountsCallerTags, arbCase, (c) => {
    const idx = indexOf(c.dataset);
    const { tags, opens, clicks } = contactView(c);
    return idx
      .contacts(c.caller)
      .map((listed) => idx.contact(c.caller, listed.contactID)!)
      .map((contact) => ({ caller: c.caller.memberID, contact, tags, opens, clicks }));
  });
  lawProperty(groupNameInCallerTeam, arbCase, ({ dataset, caller }) => {
    const idx = indexOf(dataset);
    const visible = idx.members(caller).map((m) => m.memberID);
    // every group name of every team, asked by the caller
    return dataset.teams.flatMap((t) =>
      t.groups.map((g) => ({
        caller: caller.memberID,
        segment: g.groupName,
        visible,
        answered: idx.groupMembers(caller, g.groupName) ?? [],
      })),
    );
  });
});

it('every law of LAWS and every merge property (MERGE_LAWS) is stated by a property above', () => {
  expect([...stated].sort()).toEqual([...LAWS, ...MERGE_LAWS].map((l) => l.id).sort());
});
