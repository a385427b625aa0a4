import type { Dataset, DatasetMember, DatasetTag } from '../dataset/schema.ts';
import type { Group } from '../member.ts';
import { compareMembers, compareStrings, compareTagsAsShown } from './rules.ts';
import type { Caller } from './types.ts';

/**
 * Who sees what (spec §4): the members, groups and tags visible to a caller, and the
 * group a path segment names. Plain rules, as in `rules.ts`.
 */

/**
 * The memberIDs a caller sees (spec §4): nothing of another team; `admin` the whole
 * team; `manager` the members of the manager's group and self (self only without a group);
 * `user` self. A caller whose member is not in that team sees nothing (admins excepted,
 * who see their team by `teamID`).
 */
export function visibleMemberIDs(dataset: Dataset, caller: Caller): Set<string> {
  const team = dataset.teams.find((t) => t.teamID === caller.teamID);
  const out = new Set<string>();
  if (!team) return out;
  if (caller.accountType === 'admin') {
    for (const m of team.members) out.add(m.memberID);
    return out;
  }
  const self = team.members.find((m) => m.memberID === caller.memberID);
  if (!self) return out;
  out.add(self.memberID);
  if (caller.accountType === 'manager' && self.groupID !== undefined) {
    for (const m of team.members) if (m.groupID === self.groupID) out.add(m.memberID);
  }
  return out;
}

/**
 * The group a (percent-decoded) path segment names among `groups`, the groups the caller may
 * see (spec §4, §6 Revision 2): an exact groupID first, else an exact, case-sensitive
 * groupName; when several share the name, the one with the lowest groupID in code-unit
 * order. `undefined` when none matches.
 */
export function resolveGroup(groups: readonly Group[], segment: string): Group | undefined {
  const byId = groups.find((g) => g.groupID === segment);
  if (byId !== undefined) return byId;
  let best: Group | undefined;
  for (const g of groups) {
    if (
      g.groupName === segment &&
      (best === undefined || compareStrings(g.groupID, best.groupID) < 0)
    )
      best = g;
  }
  return best;
}

/**
 * The groups of the caller's team the caller may see (spec §4 Revision 2): an admin
 * every group of the team, a manager or user the groups with at least one member visible
 * to them.
 */
export function visibleGroups(dataset: Dataset, caller: Caller): Group[] {
  const team = dataset.teams.find((t) => t.teamID === caller.teamID);
  if (!team) return [];
  if (caller.accountType === 'admin') return [...team.groups];
  const visible = visibleMemberIDs(dataset, caller);
  return team.groups.filter((g) =>
    team.members.some((m) => m.groupID === g.groupID && visible.has(m.memberID)),
  );
}

/** The visible members of the caller's team (spec §4), in member order (spec §5). */
export function visibleMembers(dataset: Dataset, caller: Caller): DatasetMember[] {
  const team = dataset.teams.find((t) => t.teamID === caller.teamID);
  if (!team) return [];
  const visible = visibleMemberIDs(dataset, caller);
  return team.members.filter((m) => visible.has(m.memberID)).sort(compareMembers);
}

/** The tags the caller sees: those a visible member sent (spec §4), in tag order (§3). */
export function visibleTags(dataset: Dataset, caller: Caller): DatasetTag[] {
  const visible = visibleMemberIDs(dataset, caller);
  return dataset.tags.filter((t) => visible.has(t.memberID)).sort(compareTagsAsShown);
}
