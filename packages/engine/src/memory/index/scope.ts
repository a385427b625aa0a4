import type { Caller } from '@tagtrack/core';
import { resolveGroup } from '@tagtrack/core';
import { sortByKey } from '../sort.ts';
import type { EventKind } from './event-index.ts';
import type { ScopeContacts, StatsSeries } from './scope-parts.ts';
import type { Tables } from './tables.ts';

/**
 * What a caller sees (spec §4): an admin the whole team, a manager with a group that
 * group, anyone else only themselves; an unknown team or a member outside it nothing. Holds
 * the per-scope indexes, each built on first use by the module that owns it.
 */
export interface Scope {
  /** `t<team>`, `g<group>`, `m<member>` or `none`. */
  readonly key: string;
  /** The team, -1 for `none`. */
  readonly team: number;
  readonly admin: boolean;
  /** Visible members in member order. */
  readonly members: Int32Array;
  /** The one visible member, or -1 when several (then `flag` marks them). */
  readonly single: number;
  readonly flag: Uint8Array | null;
  /** Tag ranks of the visible members, ascending; their events of each kind in date order. */
  tagRanks?: Int32Array;
  openEvents?: Int32Array;
  clickEvents?: Int32Array;
  /** Built by `contacts.ts` on the scope's first contacts request. */
  contacts?: ScopeContacts;
  /** Day series by subject key, built by `series.ts`. */
  readonly series: Map<string, StatsSeries>;
}

/** A group the caller may see and its visible members. */
export interface VisibleGroup {
  /** Global group index. */
  readonly group: number;
  readonly members: Int32Array;
}

/** The scopes of callers (spec §4), one per distinct scope, created on first use. */
export class Scopes {
  private readonly scopes = new Map<string, Scope>();

  constructor(private readonly tables: Tables) {}

  /** The scope of `caller`. */
  of(caller: Caller): Scope {
    const { res } = this.tables;
    const team = res.teamIndex.get(caller.teamID);
    const self = res.memberIndex.get(caller.memberID);
    let key: string;
    if (team === undefined) key = 'none';
    else if (caller.accountType === 'admin') key = `t${team}`;
    else if (self === undefined || res.memberTeam[self] !== team) key = 'none';
    else if (caller.accountType === 'manager' && res.memberGroup[self]! >= 0) {
      key = `g${res.memberGroup[self]}`;
    } else key = `m${self}`;
    let scope = this.scopes.get(key);
    if (scope) return scope;
    let members: Int32Array;
    if (key === 'none') members = new Int32Array(0);
    else if (key[0] === 't') members = this.tables.teamMembers[team!]!;
    else if (key[0] === 'g') members = this.tables.groupMembers[res.memberGroup[self!]!]!;
    else members = Int32Array.of(self!);
    let flag: Uint8Array | null = null;
    if (members.length !== 1) {
      flag = new Uint8Array(this.tables.memberCount);
      for (const m of members) flag[m] = 1;
    }
    scope = {
      key,
      team: team ?? -1,
      admin: key[0] === 't',
      members,
      single: members.length === 1 ? members[0]! : -1,
      flag,
      series: new Map(),
    };
    this.scopes.set(key, scope);
    return scope;
  }

  /** Whether member `m` is visible in `scope`. */
  sees(scope: Scope, m: number): boolean {
    return scope.flag === null ? m === scope.single : scope.flag[m] === 1;
  }

  /** The member a memberID names, when visible. */
  visibleMember(scope: Scope, memberID: string): number | undefined {
    const m = this.tables.res.memberIndex.get(memberID);
    return m !== undefined && this.sees(scope, m) ? m : undefined;
  }

  /** The tag a tagID names, when its member is visible. */
  visibleTag(scope: Scope, tagID: string): number | undefined {
    const { res } = this.tables;
    const t = res.tagIndex.get(tagID);
    return t !== undefined && this.sees(scope, res.tagMember[t]!) ? t : undefined;
  }

  /**
   * The group a segment names among the groups the caller may see, and its visible members,
   * or `undefined` (spec §4, §6 Revision 2): an admin sees every group of the team,
   * others a group only when they see at least one of its members; an exact groupID first,
   * else the exact groupName, the lowest groupID among groups sharing it.
   */
  visibleGroup(scope: Scope, segment: string): VisibleGroup | undefined {
    if (scope.team < 0) return undefined;
    const { res, groupMembers } = this.tables;
    const candidates: VisibleGroup[] = [];
    for (const g of res.teamGroups[scope.team]!) {
      const all = groupMembers[g]!;
      const members = scope.admin ? all : all.filter((m) => this.sees(scope, m));
      if (scope.admin || members.length > 0) candidates.push({ group: g, members });
    }
    const chosen = resolveGroup(
      candidates.map((c) => res.groups[c.group]!.group),
      segment,
    );
    return chosen && candidates.find((c) => res.groups[c.group]!.group === chosen);
  }

  /** Tag ranks of a scope, ascending (tag order). */
  tagRanks(scope: Scope): Int32Array {
    const { memberTagStart, memberTagRanks } = this.tables;
    scope.tagRanks ??= mergeRanks(scope.members, memberTagStart, memberTagRanks);
    return scope.tagRanks;
  }

  /**
   * A scope's events of one kind in date order, ties in input order (spec §5), built on
   * first use in time about proportional to them: the events of the scope's tags in input
   * order (read off as ranges when events come grouped by tag in tag order; else sorted so),
   * then a stable radix sort by epoch ms.
   */
  eventsByDate(scope: Scope, kind: EventKind): Int32Array {
    if (kind === 'opens') {
      scope.openEvents ??= this.dateOrder(scope, kind);
      return scope.openEvents;
    }
    scope.clickEvents ??= this.dateOrder(scope, kind);
    return scope.clickEvents;
  }

  private dateOrder(scope: Scope, kind: EventKind): Int32Array {
    const { tagOrder } = this.tables;
    const idx = this.tables[kind];
    const { tagStart } = idx;
    const ranks = this.tagRanks(scope);
    // The scope's tags in ascending index, then their events.
    const tags = new Int32Array(ranks.length);
    let n = 0;
    for (let i = 0; i < ranks.length; i++) {
      const t = tagOrder[ranks[i]!]!;
      tags[i] = t;
      n += tagStart[t + 1]! - tagStart[t]!;
    }
    tags.sort();
    const events = new Int32Array(n);
    let at = 0;
    if (idx.grouped) {
      // Each tag's events are the range tagStart[t] .. tagStart[t+1]: ascending.
      for (let i = 0; i < tags.length; i++) {
        const t = tags[i]!;
        for (let e = tagStart[t]!; e < tagStart[t + 1]!; e++) events[at++] = e;
      }
    } else {
      const tagEvents = idx.tagEvents;
      for (let i = 0; i < tags.length; i++) {
        const t = tags[i]!;
        for (let k = tagStart[t]!; k < tagStart[t + 1]!; k++) events[at++] = tagEvents[k]!;
      }
      events.sort();
    }
    const ms = new Float64Array(n);
    for (let i = 0; i < n; i++) ms[i] = idx.cols.ms[events[i]!]!;
    return sortByKey(ms, events).carried!;
  }
}

/** The ranks of several members' lists merged ascending (a view for one member). */
function mergeRanks(members: Int32Array, start: Int32Array, ranks: Int32Array): Int32Array {
  if (members.length === 1) {
    const m = members[0]!;
    return ranks.subarray(start[m]!, start[m + 1]!);
  }
  let n = 0;
  for (const m of members) n += start[m + 1]! - start[m]!;
  const out = new Int32Array(n);
  let k = 0;
  for (const m of members) {
    out.set(ranks.subarray(start[m]!, start[m + 1]!), k);
    k += start[m + 1]! - start[m]!;
  }
  return out.sort();
}
