-- tagtrack SQL engine, file 50: tags (endpoints 2 and 4; spec §5, §6, §10).
--
-- The tags of visible members (or of one member, endpoint 4), sent in the day window
-- (the dateSent shown lies in it: the day of an instant and of its second are the same)
-- [start_day, end_day] (either bound NULL: open), kept by the filters of spec §6 (a
-- conjunction: isOpened uniqueOpens > 0, isUnopened totalOpens = 0, isClicked
-- uniqueClicks > 0, isUnclicked totalClicks = 0), newest first by the dateSent shown, then
-- tagID (spec §5 Revision 3). recipients: each contact once, the first entry's name and
-- email as written, in list order (spec §5 Revision 2). Counters: file 30.
-- Every function takes the caller's team first and reads that team's rows only (docs/sql.md
-- §5); the scope is found first (file 20), in a statement of its own.
-- The scope a list of tags reads: the caller's (endpoint 2) or one member's (endpoint 4, once
-- the member is known to be visible: tagtrack_member_visible).
CREATE OR REPLACE FUNCTION tagtrack_tag_list_scope(team text, caller text, member_id text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN member_id IS NULL THEN tagtrack_scope(team, caller)
              ELSE 'member:' || member_id END;
END
$$;

CREATE OR REPLACE FUNCTION tagtrack_tags(team text, caller text, member_id text,
                                         start_day date, end_day date,
                                         is_opened boolean, is_unopened boolean,
                                         is_clicked boolean, is_unclicked boolean,
                                         lim bigint, off bigint)
RETURNS TABLE ("tagID" text, subject text, "dateSent" text, recipients json,
               "totalOpens" integer, "uniqueOpens" integer, "totalClicks" integer,
               "uniqueClicks" integer, "desktopOpens" integer, "mobileOpens" integer,
               "desktopClicks" integer, "mobileClicks" integer)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  list_scope text := tagtrack_tag_list_scope(team, caller, member_id);
BEGIN
  RETURN QUERY
  SELECT p."tagID", tg.subject, tagtrack_timestamp(p.shown),
         (SELECT coalesce(json_agg(json_build_object('name', r.name, 'email', r.email)
                                   ORDER BY r.position), '[]'::json)
          FROM tagtrack_contact_tags AS r
          WHERE r."teamID" = team AND r."tagID" = p."tagID"),
         c."totalOpens", c."uniqueOpens", c."totalClicks", c."uniqueClicks",
         c."desktopOpens", c."mobileOpens", c."desktopClicks", c."mobileClicks"
  FROM (SELECT ts."tagID", ts.shown
        FROM tagtrack_tag_scopes AS ts
        WHERE ts."teamID" = team AND ts.scope = list_scope
          AND (start_day IS NULL OR ts.shown >= tagtrack_day_start(start_day))
          AND (end_day IS NULL OR ts.shown < tagtrack_day_start(end_day + 1))
          AND (NOT is_opened OR ts.opened)
          AND (NOT is_unopened OR NOT ts.opened)
          AND (NOT is_clicked OR ts.clicked)
          AND (NOT is_unclicked OR NOT ts.clicked)
        ORDER BY ts.shown DESC, ts."tagID" COLLATE "C"
        LIMIT lim OFFSET off) AS p
  JOIN tagtrack_tag_counters AS c ON c."teamID" = team AND c."tagID" = p."tagID"
  JOIN tagtrack_team_tags AS tg ON tg."teamID" = team AND tg."tagID" = p."tagID"
  ORDER BY p.shown DESC, p."tagID" COLLATE "C";
END
$$;

CREATE OR REPLACE FUNCTION tagtrack_tags_count(team text, caller text, member_id text,
                                               start_day date, end_day date,
                                               is_opened boolean, is_unopened boolean,
                                               is_clicked boolean, is_unclicked boolean)
RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  list_scope text := tagtrack_tag_list_scope(team, caller, member_id);
BEGIN
  RETURN (SELECT count(*)
          FROM tagtrack_tag_scopes AS ts
          WHERE ts."teamID" = team AND ts.scope = list_scope
            AND (start_day IS NULL OR ts.shown >= tagtrack_day_start(start_day))
            AND (end_day IS NULL OR ts.shown < tagtrack_day_start(end_day + 1))
            AND (NOT is_opened OR ts.opened)
            AND (NOT is_unopened OR NOT ts.opened)
            AND (NOT is_clicked OR ts.clicked)
            AND (NOT is_unclicked OR NOT ts.clicked));
END
$$;
