import {
  type Caller,
  type Click,
  type ClickGroup,
  type Contact,
  contactIdOf,
  type DailyCounts,
  type EventRecipient,
  mergeAllStats,
  normaliseEmail,
  type Open,
  type OpenGroup,
  resolveGroup,
  type StatsSummary,
  type Tag,
  type TeamMember,
  utcDay,
  visibleGroups,
} from '@tagtrack/core';
import type { FaultInfo } from './info.ts';
import {
  answerOf,
  countEvents,
  existsIn,
  isEventEndpoint,
  isTagEndpoint,
  mapList,
  teamsOfMembers,
} from './store-helpers.ts';
import type { StoreLayer } from './store-layer.ts';

/** The message of `out-of-scope-403`'s refusal (no clean not-found message reads so). */
const FORBIDDEN_MESSAGE = 'you are not allowed to see this resource';

/**
 * Faults of the store over the index: counters, scoping, event records (the windows, days and
 * orders are in `store-windows.ts`). Each wraps the `StoreLayer` (store.ts): it asks the
 * layer it wraps, then changes the answer as the real bug would.
 */
export const STORE_FAULTS = [
  {
    name: 'unique-opens-as-total',
    area: 'store',
    description: 'tag uniqueOpens reported equal to totalOpens (spec §10)',
    detectedBy: [
      'AGG-UNIQUE-LE-RECIPIENTS',
      'AGG-DAILY-SUM-GE-UNIQUE',
      'REL-STATS-SUM-TAGS',
      'REL-TAG-COUNTERS-EVENTS',
    ],
    wrap: {
      store: answerOf((_caller, request, answer) =>
        answer.kind === 'list' && isTagEndpoint(request)
          ? mapList(answer, (t: Tag) => ({
              ...t,
              stats: { ...t.stats, uniqueOpens: t.stats.totalOpens },
            }))
          : answer,
      ),
    },
  },
  {
    name: 'aggregate-drops-record',
    area: 'store',
    description: 'aggregateData=true merges the daily records but skips the first (spec §10)',
    detectedBy: [
      'REL-RANGE-SPLIT',
      'REL-AGGREGATE-MERGE',
      'REL-STATS-SUM-TAGS',
      'REL-TEAM-MERGE-MEMBERS',
      'REL-GROUP-MERGE-MEMBERS',
    ],
    wrap: {
      store: (s) =>
        answerOf((caller, request, answer) => {
          const q = request.query;
          if (!q.aggregateData || !request.endpoint.startsWith('stats.')) return answer;
          // bug: the merge loop starts at index 1
          const daily = s.answer(caller, { ...request, query: { ...q, aggregateData: false } });
          if (daily.kind !== 'list') return answer;
          return {
            kind: 'list',
            records: [mergeAllStats((daily.records as StatsSummary[]).slice(1))],
          };
        })(s),
    },
  },
  {
    name: 'scope-leak-team',
    area: 'store',
    description: "an admin's /teams also lists the other teams' members (spec §4)",
    detectedBy: ['SCOPE-TEAM-ISOLATION'],
    blind: {
      unobservable:
        "one admin credential sees only its own team's members, so another team's members in its answer look like its own",
    },
    wrap: {
      store: (s) => {
        const teamOfMember = teamsOfMembers(s.index.dataset);
        return answerOf((caller, request, answer) => {
          if (request.endpoint !== 'teams.list') return answer;
          if (caller.accountType !== 'admin' || answer.kind !== 'list') return answer;
          // bug: the admin's member list is not restricted to the admin's team
          const others: TeamMember[] = [];
          for (const team of s.index.dataset.teams) {
            if (team.teamID === caller.teamID) continue;
            const someone = team.members[0];
            if (!someone || teamOfMember.get(someone.memberID) !== team.teamID) continue;
            const admin: Caller = {
              memberID: someone.memberID,
              teamID: team.teamID,
              accountType: 'admin',
            };
            const type = request.query.type;
            others.push(...s.index.members(admin, type === undefined ? {} : { type }));
          }
          return { kind: 'list', records: [...answer.records, ...others] };
        })(s);
      },
    },
  },
  {
    name: 'tablet-not-mobile',
    area: 'store',
    description: 'tablet events are not counted in mobileOpens/mobileClicks (spec §9)',
    detectedBy: ['REL-TAG-COUNTERS-EVENTS'],
    wrap: {
      store: (s) => {
        const tabletsByTag = countEvents(s.index.dataset, (e) =>
          e.device === 'tablet' ? e.tagID : undefined,
        );
        return answerOf((_caller, request, answer) =>
          answer.kind === 'list' && isTagEndpoint(request)
            ? mapList(answer, (t: Tag) => {
                const tablets = tabletsByTag.get(t.tagID);
                if (!tablets) return t;
                return {
                  ...t,
                  stats: {
                    ...t.stats,
                    mobileOpens: t.stats.mobileOpens - tablets.opens,
                    mobileClicks: t.stats.mobileClicks - tablets.clicks,
                  },
                };
              })
            : answer,
        )(s);
      },
    },
  },
  {
    name: 'daily-counts-total',
    area: 'store',
    description: 'daily counts count events, not distinct recipients (spec §10)',
    detectedBy: ['AGG-DAILY-LE-UNIQUE', 'REL-DAILY-DISTINCT-RECIPIENTS'],
    wrap: {
      store: (s) => {
        const eventsByTagDay = countEvents(
          s.index.dataset,
          (e) => `${e.tagID}|${e.date.slice(0, 10)}`,
        );
        return answerOf((_caller, request, answer) => {
          const q = request.query;
          if (request.endpoint !== 'tags.daily' || answer.kind !== 'single' || q.date === undefined)
            return answer;
          // bug: counts events of the day instead of distinct recipients
          const c = eventsByTagDay.get(`${request.pathParams.tagID}|${q.date}`);
          const record: DailyCounts = { opens: c?.opens ?? 0, clicks: c?.clicks ?? 0 };
          return { kind: 'single', record };
        })(s);
      },
    },
  },
  {
    name: 'out-of-scope-403',
    area: 'store',
    description: "ids outside the caller's scope answer 403 instead of 404 (spec §4)",
    detectedBy: ['SCOPE-404-OUT-OF-SCOPE'],
    blind: { unobservable: 'one admin credential knows no id outside its scope to ask for' },
    // bug: the store answers an existing id outside the scope with its own refusal, which
    // the renderer sends as 403 (the store marks it by its message, the renderer reads it)
    wrap: {
      store: (s) => {
        const exists = existsIn(s.index.dataset);
        return answerOf((_caller, request, answer) =>
          answer.kind === 'not_found' && exists(request)
            ? { kind: 'not_found', message: FORBIDDEN_MESSAGE }
            : answer,
        )(s);
      },
      render: (r) => ({
        ...r,
        error: (status, message, headers) =>
          r.error(status === 404 && message === FORBIDDEN_MESSAGE ? 403 : status, message, headers),
      }),
    },
  },
  {
    name: 'contacts-all-team-tags',
    area: 'store',
    description:
      'contact counters are computed over all team tags, even for a manager or user (spec §4)',
    detectedBy: ['REL-CONTACTS-TAGS', 'ORACLE-CONTACTS'],
    blind: {
      unobservable:
        "an admin's contact counters are over all team tags anyway; only a manager or user credential sees the difference",
    },
    wrap: {
      store: (s) =>
        answerOf((caller, request, answer) => {
          if (!request.endpoint.startsWith('contacts.')) return answer;
          if (caller.accountType === 'admin' || answer.kind === 'not_found') return answer;
          // bug: the contact's counters are looked up with the team's view, not the caller's
          const overTeam = s.answer({ ...caller, accountType: 'admin' }, request);
          if (answer.kind === 'single') return overTeam.kind === 'single' ? overTeam : answer;
          if (answer.kind !== 'list' || overTeam.kind !== 'list') return answer;
          const byId = new Map((overTeam.records as Contact[]).map((c) => [c.contactID, c]));
          return mapList(answer, (c: Contact) => byId.get(c.contactID) ?? c);
        })(s),
    },
  },
  {
    name: 'clicks-window-by-send-date',
    area: 'store',
    description: "/clicks filters by the tag's dateSent instead of clickDate (spec §6)",
    detectedBy: ['REL-EVENTS-WINDOW'],
    wrap: {
      store: (s) => {
        const daySentByTag = new Map(
          s.index.dataset.tags.map((t) => [t.tagID, utcDay(Date.parse(t.dateSent))]),
        );
        return answerOf((caller, request, answer) => {
          const q = request.query;
          if (request.endpoint !== 'clicks.list' || (q.start === undefined && q.end === undefined))
            return answer;
          // bug: the window is applied to the tag's send day, not to each click's date
          const all = s.index.clickGroups(caller, {}) as ClickGroup[];
          const inWindow = (day: string | undefined) =>
            day !== undefined &&
            (q.start === undefined || day >= q.start) &&
            (q.end === undefined || day <= q.end);
          return { kind: 'list', records: all.filter((g) => inWindow(daySentByTag.get(g.tagID))) };
        })(s);
      },
    },
  },
  {
    name: 'group-name-case-insensitive',
    area: 'store',
    description: 'the group segment (5, 7) matches a group name in any case (spec §4 Revision 2)',
    detectedBy: ['INPUT-404-GROUP-NAME-EXACT'],
    wrap: {
      store: looseGroup((name, segment) => name.toLowerCase() === segment.toLowerCase()),
    },
  },
  {
    name: 'group-name-prefix',
    area: 'store',
    description:
      'the group segment (5, 7) matches a group whose name starts with it (spec §4 Revision 2)',
    detectedBy: ['INPUT-404-GROUP-NAME-EXACT'],
    wrap: {
      store: looseGroup((name, segment) => segment !== '' && name.startsWith(segment)),
    },
  },
  {
    name: 'aggregate-record-has-date',
    area: 'store',
    description:
      'the aggregateData=true record keeps the `date` of the first daily record (spec §5 Revision 2)',
    detectedBy: ['SCHEMA-STATS-DATE'],
    wrap: {
      store: (s) =>
        answerOf((caller, request, answer) => {
          const q = request.query;
          if (!q.aggregateData || !request.endpoint.startsWith('stats.') || answer.kind !== 'list')
            return answer;
          // bug: the merge starts from a copy of the first daily record, so its date survives
          const daily = s.answer(caller, { ...request, query: { ...q, aggregateData: false } });
          const first =
            daily.kind === 'list' ? (daily.records[0] as StatsSummary | undefined) : undefined;
          return first?.date === undefined
            ? answer
            : mapList(answer, (r: StatsSummary) => ({ ...r, date: first.date }));
        })(s),
    },
  },
  {
    name: 'latitude-out-of-range',
    area: 'store',
    description:
      'event details carry latitude and longitude swapped, so latitudes like 151.2093 leave [-90, 90] (spec §9 Revision 2)',
    detectedBy: ['SCHEMA-JSON-ENVELOPE'],
    wrap: {
      store: answerOf((_caller, request, answer) => {
        if (answer.kind !== 'list' || !isEventEndpoint(request)) return answer;
        // bug: the location columns are read in the wrong order
        const swap = <T extends { latitude: string; longitude: string }>(d: T): T => ({
          ...d,
          latitude: d.longitude,
          longitude: d.latitude,
        });
        const swapEvent = (e: Click | Open) => swap(e);
        return request.endpoint === 'clicks.list'
          ? mapList(answer, (g: ClickGroup) => ({
              ...g,
              clicks: g.clicks.map((c) => ({ ...c, details: swap(c.details) })),
            }))
          : request.endpoint === 'opens.list'
            ? mapList(answer, (g: OpenGroup) => ({
                ...g,
                opens: g.opens.map((o) => ({ ...o, details: swap(o.details) })),
              }))
            : mapList(answer, swapEvent);
      }),
    },
  },
  {
    name: 'contact-id-inconsistent',
    area: 'store',
    description:
      "events' recipient.recipientID (9, 11) is an id of the tag's recipient entry, not the contact's id of 15-17 (spec §9 Revision 2)",
    detectedBy: ['REL-CONTACT-IDS-CONSISTENT'],
    wrap: {
      store: answerOf((_caller, request, answer) => {
        if (answer.kind !== 'list') return answer;
        if (request.endpoint !== 'clicks.list' && request.endpoint !== 'opens.list') return answer;
        // bug: the events carry the id of the tag's recipient entry, not the contact's id
        const entryId = <E extends { recipient: EventRecipient }>(tagID: string, e: E): E => ({
          ...e,
          recipient: { ...e.recipient, recipientID: contactIdOf(`${tagID}/${e.recipient.email}`) },
        });
        return request.endpoint === 'clicks.list'
          ? mapList(answer, (g: ClickGroup) => ({
              ...g,
              clicks: g.clicks.map((c) => entryId(g.tagID, c)),
            }))
          : mapList(answer, (g: OpenGroup) => ({
              ...g,
              opens: g.opens.map((o) => entryId(g.tagID, o)),
            }));
      }),
    },
  },
  {
    name: 'out-of-scope-message',
    area: 'store',
    description:
      'the 404 of an out-of-scope id says the id exists but is not visible, unlike the 404 of an unknown id (spec §4 Revision 2)',
    detectedBy: ['SCOPE-404-SAME-AS-UNKNOWN'],
    blind: {
      unobservable:
        'one admin credential knows no id outside its scope to compare with an unknown id',
    },
    wrap: {
      store: (s) => {
        const exists = existsIn(s.index.dataset);
        return answerOf((_caller, request, answer) =>
          answer.kind === 'not_found' && exists(request)
            ? // bug: the 404 tells an out-of-scope id from an unknown one (an existence oracle)
              { ...answer, message: `${answer.message} (it exists but is not visible to you)` }
            : answer,
        )(s);
      },
    },
  },
  {
    name: 'event-recipient-name-last',
    area: 'store',
    description:
      "an event's recipient.name (9, 11) is the name of the tag's last recipient entry with the event's normalised email, not the first (spec §9 Revision 3); the fault matrix serves it a dataset where such an entry has events (conformance/test/revision3-dataset.ts)",
    detectedBy: ['REL-EVENT-RECIPIENT', 'ORACLE-EVENTS'],
    blind: ['REL-EVENT-RECIPIENT'],
    // bug: the entries are read into a map by email, so the last entry's name wins
    wrap: {
      store: recipientName((entries, email) =>
        entries.filter((r) => normaliseEmail(r.email) === email).at(-1),
      ),
    },
  },
  {
    name: 'event-recipient-name-first-entry',
    area: 'store',
    description:
      "an event's recipient.name (9, 11) is the name of the tag's first recipient entry, whoever the event's recipient is (spec §9 Revision 3)",
    detectedBy: ['REL-EVENT-RECIPIENT', 'ORACLE-EVENTS'],
    blind: ['REL-EVENT-RECIPIENT'],
    // bug: the name is read from the tag's first recipient entry, not the event's
    wrap: { store: recipientName((entries) => entries[0]) },
  },
  {
    name: 'contact-unique-opens-as-total',
    area: 'store',
    description:
      "a contact's uniqueOpens (15, 16, 17) counts its opens instead of the tags it opened (spec §10 contact counters)",
    detectedBy: ['AGG-CONTACTS-SUM-TAGS'],
    wrap: {
      store: answerOf((_caller, request, answer) =>
        answer.kind === 'list' && request.endpoint.startsWith('contacts.')
          ? // bug: a contact's uniqueOpens counts its opens, not the tags it opened
            mapList(answer, (c: Contact) => ({
              ...c,
              stats: { ...c.stats, uniqueOpens: c.stats.totalOpens },
            }))
          : answer,
      ),
    },
  },
] as const satisfies readonly FaultInfo[];

/**
 * Faults `group-name-case-insensitive` and `group-name-prefix`: a group segment that core does
 * not resolve is retried as the first visible group whose name `matches` it loosely.
 */
function looseGroup(
  matches: (groupName: string, segment: string) => boolean,
): (s: StoreLayer) => StoreLayer {
  return (s) =>
    answerOf((caller, request, answer) => {
      const segment = request.pathParams.group;
      if (answer.kind !== 'not_found' || segment === undefined) return answer;
      const groups = visibleGroups(s.index.dataset, caller);
      const loose = groups.find((g) => matches(g.groupName, segment));
      if (loose === undefined || resolveGroup(groups, segment) !== undefined) return answer;
      return s.answer(caller, {
        ...request,
        pathParams: { ...request.pathParams, group: loose.groupID },
      });
    })(s);
}

/** One recipient entry of a tag, as stored. */
interface Entry {
  readonly name: string;
  readonly email: string;
}

/** The events array of an event group of 9 or 11 (spec §9 Revision 3). */
const GROUP_EVENTS = { 'opens.list': 'opens', 'clicks.list': 'clicks' } as const;

/**
 * The faults of the event recipient's `name` on 9 and 11 (spec §9 Revision 3): the name
 * of the entry `pick` picks among the tag's recipient entries (`email` normalised), when any.
 */
function recipientName(
  pick: (entries: readonly Entry[], email: string) => Entry | undefined,
): (s: StoreLayer) => StoreLayer {
  return (s) => {
    const entriesByTag = new Map(s.index.dataset.tags.map((t) => [t.tagID, t.recipients]));
    return answerOf((_caller, request, answer) => {
      const events =
        request.endpoint === 'opens.list' || request.endpoint === 'clicks.list'
          ? GROUP_EVENTS[request.endpoint]
          : undefined;
      if (events === undefined || answer.kind !== 'list') return answer;
      type Group = { tagID: string } & Record<string, unknown>;
      const records = (answer.records as Group[]).map((g) => {
        const entries = entriesByTag.get(g.tagID) ?? [];
        return {
          ...g,
          [events]: (g[events] as { recipient: EventRecipient }[]).map((e) => {
            const entry = pick(entries, normaliseEmail(e.recipient.email));
            return entry === undefined
              ? e
              : { ...e, recipient: { ...e.recipient, name: entry.name } };
          }),
        };
      });
      return { kind: 'list', records };
    })(s);
  };
}
