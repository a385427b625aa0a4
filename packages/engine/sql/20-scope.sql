-- tagtrack SQL engine, file 20: who sees what (decisions §2; docs/spec.md §5).
--
-- A caller is the member of a credential. Nothing of another team is visible. An admin sees
-- the whole team; a manager the members of the manager's group and self (self only without
-- a group); a user self. Tags, events, stats and contacts are visible through the member who
-- sent the tag. An id outside the scope answers 404 like an unknown one.

-- The memberIDs the caller sees.
CREATE OR REPLACE FUNCTION tagtrack_visible_members(caller text)
RETURNS TABLE ("memberID" text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT m."memberID"
  FROM members AS c
  JOIN members AS m ON m."teamID" = c."teamID"
  WHERE c."memberID" = caller
    AND (c."accountType" = 'admin'
         OR m."memberID" = c."memberID"
         OR (c."accountType" = 'manager' AND m."groupID" = c."groupID"))
$$;

-- The groups the caller sees (decisions §2 Revision 2): an admin every group of the team,
-- others the groups with at least one member visible to them.
CREATE OR REPLACE FUNCTION tagtrack_visible_groups(caller text)
RETURNS TABLE ("groupID" text, "groupName" text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT g."groupID", g."groupName"
  FROM members AS c
  JOIN groups AS g ON g."teamID" = c."teamID"
  WHERE c."memberID" = caller
    AND (c."accountType" = 'admin'
         OR EXISTS (SELECT 1
                    FROM tagtrack_visible_members(caller) AS v
                    JOIN members AS m ON m."memberID" = v."memberID"
                    WHERE m."teamID" = g."teamID" AND m."groupID" = g."groupID"))
$$;

-- The groupID a path segment names for the caller (decisions §4 Revision 2): an exact
-- groupID first, else an exact, case-sensitive groupName, the lowest groupID (code units)
-- when several groups share it. NULL when none is visible.
CREATE OR REPLACE FUNCTION tagtrack_resolve_group(caller text, segment text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT g."groupID"
  FROM tagtrack_visible_groups(caller) AS g
  WHERE g."groupID" = segment OR g."groupName" = segment
  ORDER BY (g."groupID" = segment) DESC, g."groupID" COLLATE "C"
  LIMIT 1
$$;

-- Whether the caller sees member member_id.
CREATE OR REPLACE FUNCTION tagtrack_member_visible(caller text, member_id text)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT EXISTS (SELECT 1 FROM tagtrack_visible_members(caller) AS v WHERE v."memberID" = member_id)
$$;

-- Whether the caller sees tag tag_id (sent by a visible member).
CREATE OR REPLACE FUNCTION tagtrack_tag_visible(caller text, tag_id text)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT EXISTS (SELECT 1
                 FROM tags AS t
                 JOIN tagtrack_visible_members(caller) AS v ON v."memberID" = t."memberID"
                 WHERE t."tagID" = tag_id)
$$;

-- The caller's visible scope, the key of the materialised rows (file 30) that hold exactly
-- what the caller sees: 'team:T' for an admin (the whole team), 'group:T:G' for a manager
-- with a group (the group's members, self included), 'member:M' otherwise (self only).
-- Lists of tags, events, stats and contacts read one scope's rows, in index order.
CREATE OR REPLACE FUNCTION tagtrack_scope(caller text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE
           WHEN c."accountType" = 'admin' THEN 'team:' || c."teamID"
           WHEN c."accountType" = 'manager' AND c."groupID" IS NOT NULL
             THEN 'group:' || c."teamID" || ':' || c."groupID"
           ELSE 'member:' || c."memberID"
         END
  FROM members AS c
  WHERE c."memberID" = caller
$$;

-- The scope of the members of group group_id the caller sees (endpoint 7, the group found
-- by tagtrack_resolve_group): the whole group for an admin, and for a manager (whose only
-- visible group is their own); the caller alone for a user (their own group).
CREATE OR REPLACE FUNCTION tagtrack_group_scope(caller text, group_id text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE
           WHEN c."accountType" IN ('admin', 'manager')
             THEN 'group:' || c."teamID" || ':' || group_id
           ELSE 'member:' || c."memberID"
         END
  FROM members AS c
  WHERE c."memberID" = caller
$$;
