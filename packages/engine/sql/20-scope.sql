-- tagtrack SQL engine, file 20: who sees what (spec §4; docs/spec.md §5).
--
-- A caller is the member of a credential. Nothing of another team is visible. An admin sees
-- the whole team; a manager the members of the manager's group and self (self only without
-- a group); a user self. Tags, events, stats and contacts are visible through the member who
-- sent the tag. An id outside the scope answers 404 like an unknown one.
--
-- Every function takes the caller's team (team) beside the caller: the server knows both
-- from the credential, and every query names the team, the key a sharded database routes by
-- (docs/sql.md §5). They read members and groups only, and are plpgsql: a database sharded
-- by Citus refuses SQL-language functions that read its tables with parameters. The request
-- functions (files 40 to 80) call them in statements of their own, before the query that
-- reads the team's rows, never inside it (a query routed to a shard cannot call one).

-- The memberIDs the caller sees.
CREATE OR REPLACE FUNCTION tagtrack_visible_members(team text, caller text)
RETURNS text[]
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN ARRAY(
    SELECT m."memberID"
    FROM members AS c
    JOIN members AS m ON m."teamID" = c."teamID"
    WHERE c."teamID" = team AND c."memberID" = caller
      AND (c."accountType" = 'admin'
           OR m."memberID" = c."memberID"
           OR (c."accountType" = 'manager' AND m."groupID" = c."groupID")));
END
$$;

-- The groupID a path segment names for the caller (spec §6 Revision 2): an exact
-- groupID first, else an exact, case-sensitive groupName, the lowest groupID (code units)
-- when several groups share it. NULL when none is visible. The groups the caller sees
-- (spec §4 Revision 2): an admin every group of the team, others the groups with at
-- least one member visible to them.
CREATE OR REPLACE FUNCTION tagtrack_resolve_group(team text, caller text, segment text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  visible text[] := tagtrack_visible_members(team, caller);
  found text;
BEGIN
  SELECT g."groupID" INTO found
  FROM members AS c
  JOIN groups AS g ON g."teamID" = c."teamID"
  WHERE c."teamID" = team AND c."memberID" = caller
    AND (g."groupID" = segment OR g."groupName" = segment)
    AND (c."accountType" = 'admin'
         OR EXISTS (SELECT 1 FROM members AS m
                    WHERE m."teamID" = g."teamID" AND m."groupID" = g."groupID"
                      AND m."memberID" = ANY (visible)))
  ORDER BY (g."groupID" = segment) DESC, g."groupID" COLLATE "C"
  LIMIT 1;
  RETURN found;
END
$$;

-- Whether the caller sees member member_id.
CREATE OR REPLACE FUNCTION tagtrack_member_visible(team text, caller text, member_id text)
RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN member_id = ANY (tagtrack_visible_members(team, caller));
END
$$;

-- Whether the caller sees tag tag_id (sent by a visible member).
CREATE OR REPLACE FUNCTION tagtrack_tag_visible(team text, caller text, tag_id text)
RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  visible text[] := tagtrack_visible_members(team, caller);
BEGIN
  RETURN EXISTS (SELECT 1 FROM tagtrack_team_tags AS t
                 WHERE t."teamID" = team AND t."tagID" = tag_id
                   AND t."memberID" = ANY (visible));
END
$$;

-- The caller's visible scope, the key of the materialised rows (file 30) that hold exactly
-- what the caller sees: 'team:T' for an admin (the whole team), 'group:T:G' for a manager
-- with a group (the group's members, self included), 'member:M' otherwise (self only).
-- Lists of tags, events, stats and contacts read one scope's rows of the team, in index
-- order. NULL for a caller who is not a member of the team.
CREATE OR REPLACE FUNCTION tagtrack_scope(team text, caller text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  found text;
BEGIN
  SELECT CASE
           WHEN c."accountType" = 'admin' THEN 'team:' || c."teamID"
           WHEN c."accountType" = 'manager' AND c."groupID" IS NOT NULL
             THEN 'group:' || c."teamID" || ':' || c."groupID"
           ELSE 'member:' || c."memberID"
         END INTO found
  FROM members AS c
  WHERE c."teamID" = team AND c."memberID" = caller;
  RETURN found;
END
$$;

-- The scope of the members of group group_id the caller sees (endpoint 7, the group found
-- by tagtrack_resolve_group): the whole group for an admin, and for a manager (whose only
-- visible group is their own); the caller alone for a user (their own group).
CREATE OR REPLACE FUNCTION tagtrack_group_scope(team text, caller text, group_id text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  found text;
BEGIN
  SELECT CASE
           WHEN c."accountType" IN ('admin', 'manager')
             THEN 'group:' || c."teamID" || ':' || group_id
           ELSE 'member:' || c."memberID"
         END INTO found
  FROM members AS c
  WHERE c."teamID" = team AND c."memberID" = caller;
  RETURN found;
END
$$;
