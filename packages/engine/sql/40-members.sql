-- tagtrack SQL engine, file 40: members (endpoints 1, 3, 5; spec §4, §5, §9).
--
-- Members the caller sees, optionally of one account type and one group, in member order
-- (spec §5): lastname, firstname (code units), then memberID. groupName comes from the
-- member's group; a member without a group has NULL groupID and groupName here, which the
-- response omits or sends as '' (profile option memberWithoutGroup, spec §9).
-- lim NULL means all; off skips that many records (the page's cursor).
CREATE OR REPLACE FUNCTION tagtrack_members(team text, caller text, account_type text,
                                            group_id text, member_id text,
                                            lim bigint, off bigint)
RETURNS TABLE ("memberID" text, firstname text, lastname text, email text,
               "accountType" text, "groupID" text, "groupName" text)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  visible text[] := tagtrack_visible_members(team, caller);
BEGIN
  RETURN QUERY
  SELECT m."memberID", m.firstname, m.lastname, m.email, m."accountType", m."groupID",
         g."groupName"
  FROM members AS m
  LEFT JOIN groups AS g ON g."teamID" = m."teamID" AND g."groupID" = m."groupID"
  WHERE m."teamID" = team AND m."memberID" = ANY (visible)
    AND (account_type IS NULL OR m."accountType" = account_type)
    AND (group_id IS NULL OR m."groupID" = group_id)
    AND (member_id IS NULL OR m."memberID" = member_id)
  ORDER BY tagtrack_utf16_key(m.lastname), tagtrack_utf16_key(m.firstname),
           m."memberID" COLLATE "C"
  LIMIT lim OFFSET off;
END
$$;

CREATE OR REPLACE FUNCTION tagtrack_members_count(team text, caller text, account_type text,
                                                  group_id text)
RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  visible text[] := tagtrack_visible_members(team, caller);
BEGIN
  RETURN (SELECT count(*)
          FROM members AS m
          WHERE m."teamID" = team AND m."memberID" = ANY (visible)
            AND (account_type IS NULL OR m."accountType" = account_type)
            AND (group_id IS NULL OR m."groupID" = group_id));
END
$$;
