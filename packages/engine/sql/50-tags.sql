-- tagtrack SQL engine, file 50: tags (endpoints 2 and 4; decisions §3, §4, §9).
--
-- The tags of visible members (or of one member, endpoint 4), sent in the day window
-- (the dateSent shown lies in it: the day of an instant and of its second are the same)
-- [start_day, end_day] (either bound NULL: open), kept by the filters of decisions §4 (a
-- conjunction: isOpened uniqueOpens > 0, isUnopened totalOpens = 0, isClicked
-- uniqueClicks > 0, isUnclicked totalClicks = 0), newest first by the dateSent shown, then
-- tagID (decisions §3 Revision 3). recipients: each contact once, the first entry's name and
-- email as written, in list order (decisions §3 Revision 2). Counters: file 30.
-- The tags a list holds, from the scope's rows alone: the caller's scope (endpoint 2) or
-- one member's (endpoint 4, once the member is known to be visible: tagtrack_member_visible).
CREATE OR REPLACE FUNCTION tagtrack_tag_list(caller text, member_id text,
                                             start_day date, end_day date,
                                             is_opened boolean, is_unopened boolean,
                                             is_clicked boolean, is_unclicked boolean)
RETURNS TABLE ("tagID" text, shown timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT ts."tagID", ts.shown
  FROM tagtrack_tag_scopes AS ts
  WHERE ts.scope = CASE WHEN member_id IS NULL THEN tagtrack_scope(caller)
                        ELSE 'member:' || member_id END
    AND (start_day IS NULL OR ts.shown >= tagtrack_day_start(start_day))
    AND (end_day IS NULL OR ts.shown < tagtrack_day_start(end_day + 1))
    AND (NOT is_opened OR ts.opened)
    AND (NOT is_unopened OR NOT ts.opened)
    AND (NOT is_clicked OR ts.clicked)
    AND (NOT is_unclicked OR NOT ts.clicked)
$$;

CREATE OR REPLACE FUNCTION tagtrack_tags(caller text, member_id text,
                                         start_day date, end_day date,
                                         is_opened boolean, is_unopened boolean,
                                         is_clicked boolean, is_unclicked boolean,
                                         lim bigint, off bigint)
RETURNS TABLE ("tagID" text, subject text, "dateSent" text, recipients json,
               "totalOpens" integer, "uniqueOpens" integer, "totalClicks" integer,
               "uniqueClicks" integer, "desktopOpens" integer, "mobileOpens" integer,
               "desktopClicks" integer, "mobileClicks" integer)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT p."tagID", tg.subject, tagtrack_timestamp(p.shown),
         (SELECT coalesce(json_agg(json_build_object('name', r.name, 'email', r.email)
                                   ORDER BY r.position), '[]'::json)
          FROM tagtrack_contact_tags AS r WHERE r."tagID" = p."tagID"),
         c."totalOpens", c."uniqueOpens", c."totalClicks", c."uniqueClicks",
         c."desktopOpens", c."mobileOpens", c."desktopClicks", c."mobileClicks"
  FROM (SELECT t.*
        FROM tagtrack_tag_list(caller, member_id, start_day, end_day,
                               is_opened, is_unopened, is_clicked, is_unclicked) AS t
        ORDER BY t.shown DESC, t."tagID" COLLATE "C"
        LIMIT lim OFFSET off) AS p
  JOIN tagtrack_tag_counters AS c ON c."tagID" = p."tagID"
  JOIN tags AS tg ON tg."tagID" = p."tagID"
  ORDER BY p.shown DESC, p."tagID" COLLATE "C"
$$;

CREATE OR REPLACE FUNCTION tagtrack_tags_count(caller text, member_id text,
                                               start_day date, end_day date,
                                               is_opened boolean, is_unopened boolean,
                                               is_clicked boolean, is_unclicked boolean)
RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT count(*)
  FROM tagtrack_tag_list(caller, member_id, start_day, end_day,
                         is_opened, is_unopened, is_clicked, is_unclicked)
$$;
