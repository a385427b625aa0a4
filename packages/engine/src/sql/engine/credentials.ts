/**
 * The SQL engine's credentials (spec §3): the credentials table read with each credential's
 * member into the access key and caller kept in memory, and how often they are re-read.
 */
import type { Caller } from '@tagtrack/core';
import type { Queryable } from '../database.ts';

/** A credential as the engine keeps it: the access key and the caller (spec §3). */
export interface KeptCredential {
  readonly accessKey: string;
  readonly caller: Caller;
}

/**
 * The credentials table with each credential's member, by authId. An entry equal to one of
 * `before` is that same object, so a cache holding it can tell it has not changed.
 */
export async function readCredentials(
  db: Queryable,
  before: ReadonlyMap<string, KeptCredential>,
): Promise<Map<string, KeptCredential>> {
  const rows = await db.query<{
    authId: string;
    accessKey: string;
    memberID: string;
    teamID: string;
    accountType: Caller['accountType'];
  }>(
    `SELECT c."authId", c."accessKey", c."memberID", m."teamID", m."accountType"
     FROM credentials AS c JOIN members AS m ON m."memberID" = c."memberID"`,
  );
  const out = new Map<string, KeptCredential>();
  for (const r of rows) {
    const old = before.get(r.authId);
    const same =
      old !== undefined &&
      old.accessKey === r.accessKey &&
      old.caller.memberID === r.memberID &&
      old.caller.teamID === r.teamID &&
      old.caller.accountType === r.accountType;
    out.set(
      r.authId,
      same
        ? old
        : {
            accessKey: r.accessKey,
            caller: { memberID: r.memberID, teamID: r.teamID, accountType: r.accountType },
          },
    );
  }
  return out;
}

/** Credentials are re-read at most this often (ms). */
export const CREDENTIALS_MAX_AGE_MS = 1000;
