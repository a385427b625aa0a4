import type { AccountType } from '@tagtrack/core';
import type { Credential } from '../../http/client.ts';
import type { ProfileInput } from '../../profile/profile.ts';
import type { Inferred, MemberSeen } from './types.ts';

/**
 * The profile credentials with the team and account type their member lists show
 * (docs/spec.md §4: an admin sees the whole team, a manager the own group and self, a user
 * only self; a caller never sees another team):
 * - teams: credentials whose member sets overlap, directly or through another credential,
 *   are one team, labelled `team-1`, `team-2`, … in the order given (the API shows no team
 *   id; two credentials of one team that see no common member stay apart: say so);
 * - one member visible: that member is the caller (its `accountType` and `memberID`);
 * - several visible, of more than one group (or with and without a group): an admin, which
 *   is the one admin listed when there is one;
 * - several of one group: a manager when no admin is listed or another credential of the
 *   team sees more; else ambiguous (an admin of a one-group team, or a manager whose group
 *   holds an admin): `accountType` left out, so the scope checks do not rely on a guess.
 * Pushes each value's evidence to `inferred`, each gap to `unknown`.
 */
export function describeCredentials(
  given: readonly Credential[],
  seen: ReadonlyMap<string, readonly MemberSeen[]>,
  inferred: Inferred[],
  unknown: string[],
): ProfileInput['credentials'] {
  const ids = new Map(
    given.map((c) => [c.label, new Set(seen.get(c.label)!.map((m) => m.memberID))]),
  );
  // union-find over overlapping member sets
  const parent = given.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i]!;
    return i;
  };
  for (let i = 0; i < given.length; i++)
    for (let j = i + 1; j < given.length; j++) {
      const a = ids.get(given[i]!.label)!;
      const b = ids.get(given[j]!.label)!;
      if ([...a].some((id) => b.has(id))) parent[find(j)] = find(i);
    }
  const teamOf = new Map<number, string>();
  const team = given.map((_, i) => {
    const root = find(i);
    if (!teamOf.has(root)) teamOf.set(root, `team-${teamOf.size + 1}`);
    return teamOf.get(root)!;
  });
  if (teamOf.size > 1 && given.length > 1)
    unknown.push(
      `teamID: the API shows no team id; ${teamOf.size} teams are labelled by overlapping member lists (two credentials of one team that see no common member, e.g. two users, get two labels: correct them if so)`,
    );

  return given.map((c, i) => {
    const ms = seen.get(c.label)!;
    const teamMates = given.filter((_, j) => j !== i && team[j] === team[i]);
    const caller = callerOf(
      c,
      ms,
      teamMates.map((o) => ids.get(o.label)!),
    );
    const field = `credentials[${c.label}]`;
    const base = { label: c.label, authId: c.authId, accessKey: c.accessKey };
    if (ms.length === 0) {
      unknown.push(
        `${field}: sees no member at all (not even itself): team and account type unknown`,
      );
      return base;
    }
    if (caller.accountType === undefined) {
      unknown.push(`${field}.accountType: ${caller.evidence}`);
      return { ...base, teamID: team[i]! };
    }
    inferred.push({
      field,
      value: {
        teamID: team[i],
        accountType: caller.accountType,
        ...(caller.memberID === undefined ? {} : { memberID: caller.memberID }),
      },
      evidence: `${caller.evidence}${teamMates.length === 0 ? '' : `; shares members with ${teamMates.map((o) => o.label).join(', ')}`}`,
    });
    return {
      ...base,
      teamID: team[i]!,
      accountType: caller.accountType,
      ...(caller.memberID === undefined ? {} : { memberID: caller.memberID }),
    };
  });
}

/** The account type (and member id) of the caller `c` its member list shows, with the evidence; see {@link describeCredentials}. */
function callerOf(
  c: Credential,
  ms: readonly MemberSeen[],
  mates: readonly ReadonlySet<string>[],
): { accountType?: AccountType; memberID?: string; evidence: string } {
  const types = ms.map((m) => m.accountType);
  const isType = (v: unknown): v is AccountType => v === 'admin' || v === 'manager' || v === 'user';
  if (ms.length === 1) {
    const self = ms[0]!;
    return isType(self.accountType)
      ? {
          accountType: self.accountType,
          memberID: self.memberID,
          evidence: `GET /teams as ${c.label} lists one member, the caller (${self.memberID}), of accountType ${self.accountType}`,
        }
      : { evidence: `the one member listed has accountType ${JSON.stringify(self.accountType)}` };
  }
  const groups = new Set(ms.map((m) => (typeof m.groupID === 'string' ? m.groupID : '')));
  const admins = ms.filter((m) => m.accountType === 'admin');
  const managers = ms.filter((m) => m.accountType === 'manager');
  const mine = new Set(ms.map((m) => m.memberID));
  const someoneSeesMore = mates.some((o) => [...o].some((id) => !mine.has(id)));
  const summary = `GET /teams as ${c.label} lists ${ms.length} members (${[...new Set(types)].join(', ')}) in ${groups.size} group${groups.size === 1 ? '' : 's'}${groups.has('') ? ' (counting no group as one)' : ''}`;
  if (groups.size > 1 && !someoneSeesMore)
    return {
      accountType: 'admin',
      ...(admins.length === 1 ? { memberID: admins[0]!.memberID } : {}),
      evidence: `${summary}: only an admin sees more than one group`,
    };
  if (admins.length === 0 || someoneSeesMore)
    return {
      accountType: 'manager',
      ...(managers.length === 1 ? { memberID: managers[0]!.memberID } : {}),
      evidence: `${summary}: a manager of a group (${admins.length === 0 ? 'no admin listed, and an admin sees itself' : 'another credential of the team sees members it does not'})`,
    };
  return {
    evidence: `${summary} with an admin: an admin of a team in one group or a manager whose group holds an admin (ambiguous: left out)`,
  };
}

// ---- the command ----
