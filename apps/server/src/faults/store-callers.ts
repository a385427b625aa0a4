import {
  type Answer,
  type Caller,
  type Contact,
  type Dataset,
  type TeamMember,
  visibleGroups,
} from '@tagtrack/core';

import type { FaultInfo } from './info.ts';
import { answerOf, mapList } from './store-helpers.ts';

/**
 * Faults of the store that only a caller other than the team's admin sees, each caught by
 * comparing two declared callers' answers (spec §4): what a manager or user lists is the
 * admin's view cut to its scope; a manager's group is the admin's group; a contact's record
 * counts the caller's tags; a group name resolves within the caller's team. Blind mode with
 * one admin credential cannot observe them; blind mode with the canonical profile's twelve
 * credentials declared does.
 */

/** The admin of team `teamID` as a caller, or undefined when it has none. */
function adminOf(dataset: Dataset, teamID: string): Caller | undefined {
  const admin = dataset.teams
    .find((t) => t.teamID === teamID)
    ?.members.find((m) => m.accountType === 'admin');
  return admin && { memberID: admin.memberID, teamID, accountType: 'admin' };
}

/** The endpoints answering member records (1, 3, 5). */
const MEMBER_ENDPOINTS = new Set(['teams.list', 'teams.member', 'teams.group']);

export const STORE_CALLER_FAULTS = [
  {
    name: 'scoped-group-name-as-id',
    area: 'store',
    description:
      "a manager's or user's member records carry the groupID as groupName (spec §4: a caller sees the admin's records of its scope)",
    detectedBy: ['REL-CALLER-WITHIN-ADMIN'],
    blind: {
      unobservable:
        "one admin credential sees every member's true group name; only a manager's or user's records are wrong, and nothing in them alone tells",
    },
    wrap: {
      store: answerOf((caller, request, answer): Answer => {
        if (caller.accountType === 'admin' || !MEMBER_ENDPOINTS.has(request.endpoint))
          return answer;
        // bug: the scoped member query joins the group's id where its name belongs
        const named = (m: TeamMember): TeamMember =>
          m.groupID === undefined || m.groupID === '' ? m : { ...m, groupName: m.groupID };
        if (answer.kind === 'single')
          return { kind: 'single', record: named(answer.record as TeamMember) };
        return answer.kind === 'list' ? mapList(answer, named) : answer;
      }),
    },
  },
  {
    name: 'manager-group-self-only',
    area: 'store',
    description:
      "a manager's /teams/group/{group} and /stats/group/{group} answer the manager alone, not the group (spec §4: a manager sees its group)",
    detectedBy: ['REL-MANAGER-GROUP-STATS', 'ORACLE-MEMBERS', 'ORACLE-STATS'],
    blind: {
      unobservable:
        "one admin credential's group answers are right; only a manager's are cut to itself, and they stay consistent with each other",
    },
    wrap: {
      store: (s) =>
        answerOf((caller, request, answer): Answer => {
          if (caller.accountType !== 'manager' || answer.kind !== 'list') return answer;
          if (request.endpoint === 'teams.group')
            // bug: the group query keeps the caller's own row only
            return {
              kind: 'list',
              records: (answer.records as TeamMember[]).filter(
                (m) => m.memberID === caller.memberID,
              ),
            };
          if (request.endpoint !== 'stats.group') return answer;
          const q = request.query;
          // the manager's own stats (of the type asked, when it is the manager's)
          const records = s.index.stats(caller, {
            subject: { kind: 'member', memberID: caller.memberID },
            start: q.start,
            end: q.end,
            aggregateData: q.aggregateData,
            type: q.type,
          });
          return records === undefined ? answer : { kind: 'list', records };
        })(s),
    },
  },
  {
    name: 'contact-single-team-counters',
    area: 'store',
    description:
      "/contacts/{contactID} of a manager or user counts over every tag of the team, while /contacts counts the caller's (spec §4 Revision 2)",
    detectedBy: ['REL-CONTACT-CALLER-TAGS', 'ORACLE-CONTACTS'],
    blind: {
      unobservable:
        "an admin's contact counters are over all team tags anyway; only a manager or user credential sees the difference",
    },
    wrap: {
      store: (s) =>
        answerOf((caller, request, answer): Answer => {
          if (request.endpoint !== 'contacts.get' || answer.kind !== 'single') return answer;
          if (caller.accountType === 'admin') return answer;
          // bug: the single contact is looked up with the team's view, not the caller's
          const admin = adminOf(s.index.dataset, caller.teamID);
          if (admin === undefined) return answer;
          const overTeam = s.answer(admin, request);
          return overTeam.kind === 'single' &&
            (overTeam.record as Contact).contactID === (answer.record as Contact).contactID
            ? overTeam
            : answer;
        })(s),
    },
  },
  {
    name: 'group-name-any-team',
    area: 'store',
    description:
      "a group name (5, 7) is resolved among the groups of every team, so a name shared with another team's group with a lower groupID answers that group (spec §4 Revision 2)",
    detectedBy: ['REL-GROUP-NAME-OWN-TEAM', 'REL-GROUP-MERGE-MEMBERS', 'ORACLE-MEMBERS'],
    blind: ['REL-GROUP-MERGE-MEMBERS'],
    wrap: {
      store: (s) => {
        const groups = s.index.dataset.teams.flatMap((t) =>
          t.groups.map((g) => ({ ...g, teamID: t.teamID })),
        );
        return answerOf((caller, request, answer): Answer => {
          const segment = request.pathParams.group;
          if (segment === undefined) return answer;
          if (visibleGroups(s.index.dataset, caller).some((g) => g.groupID === segment))
            return answer;
          // bug: the name is looked up in every team's groups, the lowest groupID first
          const named = groups
            .filter((g) => g.groupName === segment)
            .sort((a, b) => (a.groupID < b.groupID ? -1 : a.groupID > b.groupID ? 1 : 0))[0];
          if (named === undefined || named.teamID === caller.teamID) return answer;
          const admin = adminOf(s.index.dataset, named.teamID);
          if (admin === undefined) return answer;
          return s.answer(admin, {
            ...request,
            pathParams: { ...request.pathParams, group: named.groupID },
          });
        })(s);
      },
    },
  },
] as const satisfies readonly FaultInfo[];
