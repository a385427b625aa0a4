import type { AccountType, Caller, TeamMember } from '@tagtrack/core';
import type { Records } from './records.ts';
import type { Scopes } from './scope.ts';
import { ACCOUNT_CODES, type Tables } from './tables.ts';

/** Endpoints 1, 3 and 5: visible members in member order (spec §4, §5). */
export class Members {
  constructor(
    private readonly tables: Tables,
    private readonly scopes: Scopes,
    private readonly records: Records,
  ) {}

  /** Endpoint 1: the caller's visible members, optionally of one account type. */
  members(caller: Caller, query: { type?: AccountType | undefined } = {}): TeamMember[] {
    return this.render(this.scopes.of(caller).members, query.type);
  }

  /** Endpoint 3: one visible member. */
  member(caller: Caller, memberID: string): TeamMember | undefined {
    const m = this.scopes.visibleMember(this.scopes.of(caller), memberID);
    return m === undefined ? undefined : this.records.member(m);
  }

  /** Endpoint 5: the visible members of the group a segment names (`Scopes.visibleGroup`). */
  groupMembers(
    caller: Caller,
    group: string,
    query: { type?: AccountType | undefined } = {},
  ): TeamMember[] | undefined {
    const found = this.scopes.visibleGroup(this.scopes.of(caller), group);
    return found && this.render(found.members, query.type);
  }

  private render(list: Int32Array, type: AccountType | undefined): TeamMember[] {
    const out: TeamMember[] = [];
    const code = type === undefined ? -1 : ACCOUNT_CODES[type];
    const { memberType } = this.tables;
    for (const m of list) if (code < 0 || memberType[m] === code) out.push(this.records.member(m));
    return out;
  }
}
