import type { Caller } from '@tagtrack/core';
import type { Tables } from './tables.ts';

/** A credential's access key and the caller it authenticates (spec §3). */
export interface Credential {
  readonly accessKey: string;
  readonly caller: Caller;
}

/**
 * Who calls: the caller of a member id, and the credential of an auth id (the first
 * credential of the dataset with that auth id whose member exists).
 */
export class Callers {
  private readonly credentials = new Map<string, Credential>();

  constructor(private readonly tables: Tables) {
    for (const cred of tables.dataset.credentials) {
      const caller = this.callerOf(cred.memberID);
      if (caller && !this.credentials.has(cred.authId)) {
        this.credentials.set(cred.authId, { accessKey: cred.accessKey, caller });
      }
    }
  }

  /** The access key and member of an auth id, or `undefined` when unknown. */
  credential(authId: string): Credential | undefined {
    return this.credentials.get(authId);
  }

  /** The caller for a member id, or `undefined` when no such member. */
  callerOf(memberID: string): Caller | undefined {
    const { res, dataset } = this.tables;
    const m = res.memberIndex.get(memberID);
    if (m === undefined) return undefined;
    return {
      memberID,
      teamID: dataset.teams[res.memberTeam[m]!]!.teamID,
      accountType: res.members[m]!.accountType,
    };
  }
}
