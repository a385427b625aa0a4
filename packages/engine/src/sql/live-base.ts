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
  // one query per team, every table read through the team views and filtered by the team
  // (on Citus each is routed to the team's shard)
  const tags: DatasetTag[] = [];
  for (const { teamID } of teams) {
    const rows = await db.query<DatasetTag>(
      `SELECT g."tagID", g."memberID", g.subject,
              to_char(g."dateSent" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "dateSent",
              coalesce((SELECT json_agg(json_build_object('name', r.name, 'email', r.email)
                                        ORDER BY r.position)
                        FROM tagtrack_team_recipients AS r
                        WHERE r."teamID" = $1 AND r."tagID" = g."tagID"), '[]'::json) AS recipients
       FROM (SELECT s."tagID", s.shown FROM tagtrack_tag_scopes AS s
             WHERE s."teamID" = $1 AND s.scope = 'team:' || $1
             ORDER BY s.shown DESC, s."tagID" COLLATE "C"
             LIMIT $2) AS latest
       JOIN tagtrack_team_tags AS g ON g."teamID" = $1 AND g."tagID" = latest."tagID"
       ORDER BY latest.shown DESC, latest."tagID" COLLATE "C"`,
      [teamID, tagsPerTeam],
    );
    tags.push(...rows);
  }
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
