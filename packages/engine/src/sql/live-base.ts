import type { Dataset, DatasetTag } from '@tagtrack/core';
import type { Queryable } from './database.ts';

/**
 * What a live generator draws its appended records from, read from the database: every team
 * with its groups and members, the credentials, and each team's latest `tagsPerTeam` tags in
 * tag order (newest `dateSent` first: the team scope's index) with their recipients in list
 * order; no events. Timestamps as ISO strings with their microseconds.
 */
export async function liveBase(db: Queryable, tagsPerTeam: number): Promise<Dataset> {
  const teams = await db.query<{ teamID: string; name: string }>(
    'SELECT "teamID", name FROM teams ORDER BY "teamID" COLLATE "C"',
  );
  const groups = await db.query<{ teamID: string; groupID: string; groupName: string }>(
    'SELECT "teamID", "groupID", "groupName" FROM groups ORDER BY "groupID" COLLATE "C"',
  );
  const members = await db.query<{
    teamID: string;
    memberID: string;
    firstname: string;
    lastname: string;
    email: string;
    accountType: 'admin' | 'manager' | 'user';
    groupID: string | null;
  }>(
    `SELECT "teamID", "memberID", firstname, lastname, email, "accountType", "groupID"
     FROM members ORDER BY "memberID" COLLATE "C"`,
  );
  const credentials = await db.query<{ authId: string; accessKey: string; memberID: string }>(
    'SELECT "authId", "accessKey", "memberID" FROM credentials ORDER BY "authId" COLLATE "C"',
  );
  const tags = await db.query<DatasetTag>(
    `SELECT g."tagID", g."memberID", g.subject,
            to_char(g."dateSent" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "dateSent",
            coalesce((SELECT json_agg(json_build_object('name', r.name, 'email', r.email)
                                      ORDER BY r.position)
                      FROM recipients AS r WHERE r."tagID" = g."tagID"), '[]'::json) AS recipients
     FROM teams AS tm
     CROSS JOIN LATERAL (SELECT s."tagID" FROM tagtrack_tag_scopes AS s
                         WHERE s."teamID" = tm."teamID" AND s.scope = 'team:' || tm."teamID"
                         ORDER BY s.shown DESC, s."tagID" COLLATE "C"
                         LIMIT $1) AS latest
     JOIN tags AS g ON g."tagID" = latest."tagID"`,
    [tagsPerTeam],
  );
  return {
    teams: teams.map((t) => ({
      teamID: t.teamID,
      name: t.name,
      groups: groups
        .filter((g) => g.teamID === t.teamID)
        .map((g) => ({ groupID: g.groupID, groupName: g.groupName })),
      members: members
        .filter((m) => m.teamID === t.teamID)
        .map((m) => ({
          memberID: m.memberID,
          firstname: m.firstname,
          lastname: m.lastname,
          email: m.email,
          accountType: m.accountType,
          ...(m.groupID === null ? {} : { groupID: m.groupID }),
        })),
    })),
    tags,
    opens: [],
    clicks: [],
    credentials,
  };
}
