-- tagtrack SQL engine, file 35: live upkeep. The counter tables of file 30 kept current as
-- rows are appended, in the transaction that appends them (docs/sql.md §5 "Live data").
--
-- One ingest function per kind of record, each taking the team first (every row it touches
-- carries that "teamID": a tag's team is its sender's), and an AFTER INSERT trigger per table
-- calling it, so an application's own INSERT into tags, recipients, opens or clicks keeps
-- every counter current, with nothing else to call. Append in the order of the foreign keys:
-- a tag, then its recipients, then their events.
--
-- Upkeep follows appended rows only. An UPDATE or DELETE of these tables, or a member moved
-- to another group, is followed by tagtrack_refresh_team(teamID) (file 30); a bulk load by
-- tagtrack_refresh() (disable the triggers for it: ALTER TABLE … DISABLE TRIGGER USER, or
-- session_replication_role = replica).
--
-- Two rules of the data that no constraint states (spec §10; tagtrack_data_problems) are
-- enforced here: an event's email must be, as a contact, a recipient of its tag, and an event
-- must not be dated before its tag was sent. A row breaking them is refused (SQLSTATE 23514,
-- check_violation), so the counters never hold what the full refresh would refuse.

-- A new tag (its row in tags already there): its counter row (all zero), its rows in its
-- sender's scopes, and one more tag sent on its day in the sender's stats rows.
CREATE OR REPLACE FUNCTION tagtrack_ingest_tag(team_id text, tag_id text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t tagtrack_tag_counters;
BEGIN
  INSERT INTO tagtrack_tag_counters
    ("tagID", "memberID", "teamID", shown, day, "totalOpens", "uniqueOpens", "totalClicks",
     "uniqueClicks", "desktopOpens", "mobileOpens", "desktopClicks", "mobileClicks")
  SELECT g."tagID", g."memberID", m."teamID", date_trunc('second', g."dateSent", 'UTC'),
         (g."dateSent" AT TIME ZONE 'UTC')::date, 0, 0, 0, 0, 0, 0, 0, 0
  FROM tagtrack_team_tags AS g JOIN members AS m ON m."memberID" = g."memberID"
  WHERE g."teamID" = team_id AND g."tagID" = tag_id AND m."teamID" = team_id
  RETURNING * INTO t;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'tag % of team % is not in tags', tag_id, team_id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  INSERT INTO tagtrack_tag_scopes ("teamID", scope, shown, "tagID", opened, clicked)
  SELECT team_id, s.scope, t.shown, t."tagID", false, false
  FROM tagtrack_sender_scopes(team_id, t."memberID") AS s;
  INSERT INTO tagtrack_member_days AS d
    ("teamID", "memberID", day, "totalSent", "totalOpens", "totalClicks", "uniqueOpens",
     "uniqueClicks", "lastSent")
  VALUES (team_id, t."memberID", t.day, 1, 0, 0, 0, 0, t.shown)
  ON CONFLICT ("teamID", "memberID", day) DO UPDATE
    SET "totalSent" = d."totalSent" + 1, "lastSent" = greatest(d."lastSent", EXCLUDED."lastSent");
  INSERT INTO tagtrack_scope_days AS d
    ("teamID", scope, "accountType", day, "totalSent", "totalOpens", "totalClicks",
     "uniqueOpens", "uniqueClicks", "lastSent")
  SELECT team_id, s.scope, a."accountType", t.day, 1, 0, 0, 0, 0, t.shown
  FROM tagtrack_sender_scopes(team_id, t."memberID") AS s
  CROSS JOIN LATERAL (VALUES (s."accountType"), ('*')) AS a ("accountType")
  ON CONFLICT ("teamID", scope, "accountType", day) DO UPDATE
    SET "totalSent" = d."totalSent" + 1, "lastSent" = greatest(d."lastSent", EXCLUDED."lastSent");
END
$$;

-- A recipient entry of a tag (spec §5 Revision 2, §9). The first entry of a contact on
-- the tag adds its (tag, contact) row and one more tag sent to the contact in the sender's
-- scopes, whose dateLastSent and name follow the tag when it comes first in tag order
-- (newest shown dateSent, then tagID). A later entry of the same contact changes nothing,
-- unless it comes earlier in the tag's list (a lower position): then its name and email are
-- the row's, and the contact's name where this tag gave it.
CREATE OR REPLACE FUNCTION tagtrack_ingest_recipient(team_id text, tag_id text, pos integer,
                                                     recipient_name text, recipient_email text)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t tagtrack_tag_counters;
  k text;
  was integer;
BEGIN
  SELECT * INTO t FROM tagtrack_tag_counters AS c WHERE c."teamID" = team_id AND c."tagID" = tag_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'tag % of team % has no counters (was it inserted with the triggers disabled? run tagtrack_refresh_team)', tag_id, team_id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  k := tagtrack_contact_key(recipient_email);
  SELECT ct.position INTO was FROM tagtrack_contact_tags AS ct
  WHERE ct."teamID" = team_id AND ct."tagID" = tag_id AND ct.email_key = k FOR UPDATE;
  IF FOUND THEN
    IF pos < was THEN
      UPDATE tagtrack_contact_tags AS ct
        SET position = pos, name = recipient_name, email = recipient_email
        WHERE ct."teamID" = team_id AND ct."tagID" = tag_id AND ct.email_key = k;
      UPDATE tagtrack_contact_scopes AS cs SET name = recipient_name
        WHERE cs."teamID" = team_id AND cs.scope IN (SELECT s.scope FROM tagtrack_sender_scopes(team_id, t."memberID") AS s)
          AND cs.email_key = k AND cs.name_tag = tag_id;
    END IF;
    RETURN;
  END IF;
  INSERT INTO tagtrack_contact_tags
    ("teamID", "tagID", email_key, "memberID", shown, position, name, email, opens,
     "desktopOpens", "mobileOpens", clicks, "desktopClicks", "mobileClicks")
  VALUES (team_id, tag_id, k, t."memberID", t.shown, pos, recipient_name, recipient_email,
          0, 0, 0, 0, 0, 0);
  INSERT INTO tagtrack_contact_scopes AS cs
    ("teamID", scope, email_key, sort_key, contact_id, name, name_tag, "dateLastSent",
     "totalSent", "totalOpens", "uniqueOpens", "totalClicks", "uniqueClicks",
     "desktopOpens", "mobileOpens", "desktopClicks", "mobileClicks")
  SELECT team_id, s.scope, k, ids.sort_key, ids.contact_id, recipient_name, tag_id, t.shown,
         1, 0, 0, 0, 0, 0, 0, 0, 0
  FROM tagtrack_sender_scopes(team_id, t."memberID") AS s
  JOIN tagtrack_contact_ids AS ids ON ids.email_key = k
  ON CONFLICT ("teamID", scope, email_key) DO UPDATE
    SET "totalSent" = cs."totalSent" + 1,
        "dateLastSent" = greatest(cs."dateLastSent", EXCLUDED."dateLastSent"),
        name = CASE WHEN (EXCLUDED."dateLastSent", cs.name_tag COLLATE "C")
                         > (cs."dateLastSent", EXCLUDED.name_tag COLLATE "C")
                    THEN EXCLUDED.name ELSE cs.name END,
        name_tag = CASE WHEN (EXCLUDED."dateLastSent", cs.name_tag COLLATE "C")
                             > (cs."dateLastSent", EXCLUDED.name_tag COLLATE "C")
                        THEN EXCLUDED.name_tag ELSE cs.name_tag END;
END
$$;

-- An open (event_kind 'opens') or a click ('clicks') of a tag by email, on device: one more
-- event in the tag's row, the (tag, contact) row, the contact's rows in the sender's scopes
-- and the stats rows of the tag's day; one more to the unique counters only when this is the
-- contact's first open (click) of the tag; the tag's scope rows become opened (clicked) with
-- its first.
CREATE OR REPLACE FUNCTION tagtrack_ingest_event(team_id text, event_kind text, tag_id text,
                                                 event_email text, event_date timestamptz,
                                                 event_device text)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t tagtrack_tag_counters;
  k text;
  o integer := CASE event_kind WHEN 'opens' THEN 1 WHEN 'clicks' THEN 0 END;
  c integer;
  desk integer := (event_device = 'desktop')::integer;
  mob integer := (event_device IN ('mobile', 'tablet'))::integer;
  n_opens integer;
  n_clicks integer;
  first_open integer;
  first_click integer;
  scopes text[];
  account text;
  sent timestamptz;
BEGIN
  IF o IS NULL THEN
    RAISE EXCEPTION 'event kind % is not opens or clicks', event_kind;
  END IF;
  c := 1 - o;
  SELECT g."dateSent" INTO sent FROM tagtrack_team_tags AS g
  WHERE g."teamID" = team_id AND g."tagID" = tag_id;
  IF event_date < sent THEN
    RAISE EXCEPTION 'an event of tag % is dated % before the tag was sent (%)', tag_id, event_date, sent
      USING ERRCODE = 'check_violation';
  END IF;
  k := tagtrack_contact_key(event_email);
  UPDATE tagtrack_contact_tags AS ct
    SET opens = ct.opens + o, "desktopOpens" = ct."desktopOpens" + o * desk,
        "mobileOpens" = ct."mobileOpens" + o * mob,
        clicks = ct.clicks + c, "desktopClicks" = ct."desktopClicks" + c * desk,
        "mobileClicks" = ct."mobileClicks" + c * mob
    WHERE ct."tagID" = tag_id AND ct.email_key = k AND ct."teamID" = team_id
    RETURNING ct.opens, ct.clicks INTO n_opens, n_clicks;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'an event of tag % has email %, which is not a recipient of the tag', tag_id, event_email
      USING ERRCODE = 'check_violation';
  END IF;
  first_open := (o = 1 AND n_opens = 1)::integer;
  first_click := (c = 1 AND n_clicks = 1)::integer;
  UPDATE tagtrack_tag_counters AS tc
    SET "totalOpens" = tc."totalOpens" + o, "uniqueOpens" = tc."uniqueOpens" + first_open,
        "totalClicks" = tc."totalClicks" + c, "uniqueClicks" = tc."uniqueClicks" + first_click,
        "desktopOpens" = tc."desktopOpens" + o * desk, "mobileOpens" = tc."mobileOpens" + o * mob,
        "desktopClicks" = tc."desktopClicks" + c * desk, "mobileClicks" = tc."mobileClicks" + c * mob
    WHERE tc."teamID" = team_id AND tc."tagID" = tag_id
    RETURNING tc.* INTO t;
  SELECT array_agg(s.scope), min(s."accountType") INTO scopes, account
  FROM tagtrack_sender_scopes(team_id, t."memberID") AS s;
  IF first_open + first_click > 0 THEN
    -- the tag's first open (click) by anyone is some contact's first
    IF (o = 1 AND t."totalOpens" = 1) OR (c = 1 AND t."totalClicks" = 1) THEN
      UPDATE tagtrack_tag_scopes AS ts
        SET opened = t."totalOpens" > 0, clicked = t."totalClicks" > 0
        WHERE ts."teamID" = team_id AND ts.scope = ANY (scopes) AND ts."tagID" = tag_id;
    END IF;
  END IF;
  UPDATE tagtrack_contact_scopes AS cs
    SET "totalOpens" = cs."totalOpens" + o, "uniqueOpens" = cs."uniqueOpens" + first_open,
        "totalClicks" = cs."totalClicks" + c, "uniqueClicks" = cs."uniqueClicks" + first_click,
        "desktopOpens" = cs."desktopOpens" + o * desk, "mobileOpens" = cs."mobileOpens" + o * mob,
        "desktopClicks" = cs."desktopClicks" + c * desk, "mobileClicks" = cs."mobileClicks" + c * mob
    WHERE cs."teamID" = team_id AND cs.scope = ANY (scopes) AND cs.email_key = k;
  UPDATE tagtrack_member_days AS d
    SET "totalOpens" = d."totalOpens" + o, "uniqueOpens" = d."uniqueOpens" + first_open,
        "totalClicks" = d."totalClicks" + c, "uniqueClicks" = d."uniqueClicks" + first_click
    WHERE d."teamID" = team_id AND d."memberID" = t."memberID" AND d.day = t.day;
  UPDATE tagtrack_scope_days AS d
    SET "totalOpens" = d."totalOpens" + o, "uniqueOpens" = d."uniqueOpens" + first_open,
        "totalClicks" = d."totalClicks" + c, "uniqueClicks" = d."uniqueClicks" + first_click
    WHERE d."teamID" = team_id AND d.scope = ANY (scopes) AND d."accountType" IN (account, '*')
      AND d.day = t.day;
END
$$;

-- The triggers: each row appended to tags, recipients, opens or clicks goes through the
-- ingest function of its kind, with its team (the sender's).
CREATE OR REPLACE FUNCTION tagtrack_on_tag() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tagtrack_ingest_tag((SELECT m."teamID" FROM members AS m WHERE m."memberID" = NEW."memberID"),
                              NEW."tagID");
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION tagtrack_on_recipient() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tagtrack_ingest_recipient(tagtrack_tag_team(NEW."tagID"), NEW."tagID", NEW.position,
                                    NEW.name, NEW.email);
  RETURN NULL;
END
$$;

-- The kind is the table's name as text of the default collation: TG_TABLE_NAME is a `name`,
-- whose collation is "C", and a function's arguments give their collation to all its text
-- parameters, so the ingest function would compare team, tag and contact key under "C" and
-- no index of the counter tables (default collation) could serve it: every event would scan
-- them whole (seconds an event at 10 M events).
CREATE OR REPLACE FUNCTION tagtrack_on_event() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tagtrack_ingest_event(tagtrack_tag_team(NEW."tagID"),
                                TG_TABLE_NAME::text COLLATE "default", NEW."tagID",
                                NEW.email, NEW.date, NEW.device);
  RETURN NULL;
END
$$;

-- The team of a tag: its sender's.
CREATE OR REPLACE FUNCTION tagtrack_tag_team(tag_id text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT m."teamID" FROM tags AS g JOIN members AS m ON m."memberID" = g."memberID"
  WHERE g."tagID" = tag_id
$$;

DROP TRIGGER IF EXISTS tagtrack_upkeep ON tags;
CREATE TRIGGER tagtrack_upkeep AFTER INSERT ON tags
  FOR EACH ROW EXECUTE FUNCTION tagtrack_on_tag();
DROP TRIGGER IF EXISTS tagtrack_upkeep ON recipients;
CREATE TRIGGER tagtrack_upkeep AFTER INSERT ON recipients
  FOR EACH ROW EXECUTE FUNCTION tagtrack_on_recipient();
DROP TRIGGER IF EXISTS tagtrack_upkeep ON opens;
CREATE TRIGGER tagtrack_upkeep AFTER INSERT ON opens
  FOR EACH ROW EXECUTE FUNCTION tagtrack_on_event();
DROP TRIGGER IF EXISTS tagtrack_upkeep ON clicks;
CREATE TRIGGER tagtrack_upkeep AFTER INSERT ON clicks
  FOR EACH ROW EXECUTE FUNCTION tagtrack_on_event();
