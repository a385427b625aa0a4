-- tagtrack SQL engine, file 30: the counters, materialised after every load
-- (spec §9, §10; docs/spec.md §9). tagtrack_refresh() recomputes all of them from the
-- eight tables; the engine calls it after filling tagtrack_email_keys and
-- tagtrack_contact_ids (file 10). Requests then read these tables and never count events.

-- Text columns keep the database's collation, so they join the dataset's tables through
-- their indexes; where text orders a list, the query says COLLATE "C" (code units for the
-- ASCII ids; file 10).

-- Event lists read a tag's events by date (spec §5: oldest first).
CREATE INDEX IF NOT EXISTS tagtrack_opens_tag_date ON opens ("tagID", date);
CREATE INDEX IF NOT EXISTS tagtrack_clicks_tag_date ON clicks ("tagID", date);

-- Every table here names the team ("teamID", first in its key): a request reads one team's
-- rows, and a database sharded by team (docs/sql.md §5) keeps them on one shard, beside the
-- team's tags and events; the refresh joins on the team too, so each join stays on a shard.

-- One row per tag: its sender, team, the dateSent a response shows (to the second; it orders
-- tags: spec §5 Revision 3), its UTC day, and the eight counters of spec §10:
-- totalOpens = its opens; uniqueOpens = distinct contacts with an open; likewise clicks;
-- desktop = device 'desktop'; mobile = device 'mobile' or 'tablet'.
CREATE TABLE IF NOT EXISTS tagtrack_tag_counters (
  "teamID" text NOT NULL,
  "tagID" text NOT NULL,
  "memberID" text NOT NULL,
  shown timestamptz NOT NULL,
  day date NOT NULL,
  "totalOpens" integer NOT NULL,
  "uniqueOpens" integer NOT NULL,
  "totalClicks" integer NOT NULL,
  "uniqueClicks" integer NOT NULL,
  "desktopOpens" integer NOT NULL,
  "mobileOpens" integer NOT NULL,
  "desktopClicks" integer NOT NULL,
  "mobileClicks" integer NOT NULL,
  PRIMARY KEY ("teamID", "tagID")
);

-- One row per scope (file 20) and tag visible in it: the team's, the sender's group's (when
-- the sender has a group) and the sender's own. A caller's tags are one scope's rows, read in
-- tag order (newest shown dateSent first, then tagID: spec §5 Revision 3) straight
-- from the index, so a page costs its size plus its offset, never a sort of the whole list.
-- opened and clicked say whether the tag has an open (a click): what the filters of spec
-- §6 and the event lists ask (uniqueOpens > 0 exactly when totalOpens > 0). The index holds
-- them, so a page, its offset and the list's length are read from the index alone.
CREATE TABLE IF NOT EXISTS tagtrack_tag_scopes (
  "teamID" text NOT NULL,
  scope text NOT NULL,
  shown timestamptz NOT NULL,
  "tagID" text NOT NULL,
  opened boolean NOT NULL,
  clicked boolean NOT NULL,
  PRIMARY KEY ("teamID", scope, "tagID")
);
CREATE INDEX IF NOT EXISTS tagtrack_tag_scopes_order
  ON tagtrack_tag_scopes ("teamID", scope, shown DESC, "tagID" COLLATE "C") INCLUDE (opened, clicked);

-- One row per tag and contact it was sent to: the first recipient entry with that contact
-- (name and email as written, position), and the contact's events on the tag. Tags list
-- these rows as their distinct recipients (spec §5 Revision 2); contacts sum them.
CREATE TABLE IF NOT EXISTS tagtrack_contact_tags (
  "teamID" text NOT NULL,
  "tagID" text NOT NULL,
  email_key text NOT NULL,
  "memberID" text NOT NULL,
  shown timestamptz NOT NULL,
  position integer NOT NULL,
  name text NOT NULL,
  email text NOT NULL,
  opens integer NOT NULL,
  "desktopOpens" integer NOT NULL,
  "mobileOpens" integer NOT NULL,
  clicks integer NOT NULL,
  "desktopClicks" integer NOT NULL,
  "mobileClicks" integer NOT NULL,
  PRIMARY KEY ("teamID", "tagID", email_key)
);

-- One row per scope and contact: the contact record over the tags visible in that scope
-- (spec §10): totalSent = tags sent to it; totals = its events on them; unique = how many
-- of them it opened (clicked); dateLastSent = the latest; name = its name on the first of
-- them in tag order. Scopes (file 20, tagtrack_scope): 'team:T' (an admin), 'group:T:G' (a
-- manager with a group), 'member:M' (everyone else).
CREATE TABLE IF NOT EXISTS tagtrack_contact_scopes (
  "teamID" text NOT NULL,
  scope text NOT NULL,
  email_key text NOT NULL,
  sort_key bytea NOT NULL,
  contact_id text NOT NULL,
  name text NOT NULL,
  name_tag text NOT NULL,
  "dateLastSent" timestamptz NOT NULL,
  "totalSent" integer NOT NULL,
  "totalOpens" integer NOT NULL,
  "uniqueOpens" integer NOT NULL,
  "totalClicks" integer NOT NULL,
  "uniqueClicks" integer NOT NULL,
  "desktopOpens" integer NOT NULL,
  "mobileOpens" integer NOT NULL,
  "desktopClicks" integer NOT NULL,
  "mobileClicks" integer NOT NULL,
  PRIMARY KEY ("teamID", scope, email_key)
);
CREATE INDEX IF NOT EXISTS tagtrack_contact_scopes_order
  ON tagtrack_contact_scopes ("teamID", scope, sort_key);
CREATE INDEX IF NOT EXISTS tagtrack_contact_scopes_id
  ON tagtrack_contact_scopes ("teamID", scope, contact_id);

-- One row per member and UTC day with tags: the stats of spec §10 over that day's tags
-- (totalSent, sums of the per-tag counters, the latest dateSent shown). Stats of a team, a
-- group or a member come from their sums by scope (tagtrack_scope_days).
CREATE TABLE IF NOT EXISTS tagtrack_member_days (
  "teamID" text NOT NULL,
  "memberID" text NOT NULL,
  day date NOT NULL,
  "totalSent" integer NOT NULL,
  "totalOpens" integer NOT NULL,
  "totalClicks" integer NOT NULL,
  "uniqueOpens" integer NOT NULL,
  "uniqueClicks" integer NOT NULL,
  "lastSent" timestamptz NOT NULL,
  PRIMARY KEY ("teamID", "memberID", day)
);

-- One row per scope, account type ('*' for any) and UTC day with tags: the stats of that
-- day's tags sent by the scope's members of that type (the sums of tagtrack_member_days).
-- Stats of a team, a group or a member (file 60) read one scope's rows, one per day.
CREATE TABLE IF NOT EXISTS tagtrack_scope_days (
  "teamID" text NOT NULL,
  scope text NOT NULL,
  "accountType" text NOT NULL,
  day date NOT NULL,
  "totalSent" integer NOT NULL,
  "totalOpens" integer NOT NULL,
  "totalClicks" integer NOT NULL,
  "uniqueOpens" integer NOT NULL,
  "uniqueClicks" integer NOT NULL,
  "lastSent" timestamptz NOT NULL,
  PRIMARY KEY ("teamID", scope, "accountType", day)
);

-- The sender's scopes of a member of team team_id (file 20, tagtrack_scope): 'team:T',
-- 'member:M' and, when the member has a group, 'group:T:G'; with the member's account type,
-- which the stats rows are kept under besides '*'. A tag, its events and its recipients count
-- in exactly these scopes.
CREATE OR REPLACE FUNCTION tagtrack_sender_scopes(team_id text, member_id text)
RETURNS TABLE (scope text, "accountType" text)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN QUERY
  SELECT s.scope, m."accountType"
  FROM members AS m
  CROSS JOIN LATERAL (VALUES ('team:' || m."teamID"),
                             ('member:' || m."memberID"),
                             ('group:' || m."teamID" || ':' || m."groupID")) AS s (scope)
  WHERE m."memberID" = member_id AND m."teamID" = team_id AND s.scope IS NOT NULL;
END
$$;

-- Computes the counter rows of team team_id (every team when NULL) from the eight tables
-- and the key tables, into counter tables that hold none of that team's rows (emptied by
-- tagtrack_refresh() or tagtrack_refresh_team()). One pass over each event table: the events
-- are counted once per (tag, contact) into a temporary work table (not written to the WAL),
-- and the tag counters and the (tag, contact) rows both read it; the scope tables are sums
-- of those.
CREATE OR REPLACE FUNCTION tagtrack_fill(team_id text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DROP TABLE IF EXISTS pg_temp.tagtrack_work_tags, pg_temp.tagtrack_work_pairs;
  -- the tags of the team (all tags when team_id is NULL), with their sender's team
  CREATE TEMPORARY TABLE tagtrack_work_tags ON COMMIT DROP AS
    SELECT t."tagID", t."memberID", m."teamID", t."dateSent"
    FROM tags AS t JOIN members AS m ON m."memberID" = t."memberID"
    WHERE team_id IS NULL OR m."teamID" = team_id;
  -- one row per tag and contact with an event: its opens and clicks, and their devices
  CREATE TEMPORARY TABLE tagtrack_work_pairs ON COMMIT DROP AS
    SELECT e."tagID", k.email_key,
           count(*) FILTER (WHERE e.o) AS opens,
           count(*) FILTER (WHERE e.o AND e.device = 'desktop') AS "desktopOpens",
           count(*) FILTER (WHERE e.o AND e.device IN ('mobile', 'tablet')) AS "mobileOpens",
           count(*) FILTER (WHERE NOT e.o) AS clicks,
           count(*) FILTER (WHERE NOT e.o AND e.device = 'desktop') AS "desktopClicks",
           count(*) FILTER (WHERE NOT e.o AND e.device IN ('mobile', 'tablet')) AS "mobileClicks"
    FROM (SELECT x."tagID", x.email, x.device, true AS o FROM opens AS x
          UNION ALL
          SELECT x."tagID", x.email, x.device, false AS o FROM clicks AS x) AS e
    JOIN tagtrack_email_keys AS k ON k.email = e.email
    WHERE team_id IS NULL OR e."tagID" IN (SELECT w."tagID" FROM tagtrack_work_tags AS w)
    GROUP BY e."tagID", k.email_key;
  ANALYZE tagtrack_work_tags, tagtrack_work_pairs;

  INSERT INTO tagtrack_tag_counters
    ("tagID", "memberID", "teamID", shown, day, "totalOpens", "uniqueOpens", "totalClicks",
     "uniqueClicks", "desktopOpens", "mobileOpens", "desktopClicks", "mobileClicks")
  SELECT t."tagID", t."memberID", t."teamID",
         date_trunc('second', t."dateSent", 'UTC'),
         (t."dateSent" AT TIME ZONE 'UTC')::date,
         coalesce(p.opens, 0), coalesce(p."uniqueOpens", 0),
         coalesce(p.clicks, 0), coalesce(p."uniqueClicks", 0),
         coalesce(p."desktopOpens", 0), coalesce(p."mobileOpens", 0),
         coalesce(p."desktopClicks", 0), coalesce(p."mobileClicks", 0)
  FROM tagtrack_work_tags AS t
  LEFT JOIN (SELECT w."tagID", sum(w.opens) AS opens, count(*) FILTER (WHERE w.opens > 0) AS "uniqueOpens",
                    sum(w.clicks) AS clicks, count(*) FILTER (WHERE w.clicks > 0) AS "uniqueClicks",
                    sum(w."desktopOpens") AS "desktopOpens", sum(w."mobileOpens") AS "mobileOpens",
                    sum(w."desktopClicks") AS "desktopClicks", sum(w."mobileClicks") AS "mobileClicks"
             FROM tagtrack_work_pairs AS w
             GROUP BY w."tagID") AS p ON p."tagID" = t."tagID";

  INSERT INTO tagtrack_tag_scopes ("teamID", scope, shown, "tagID", opened, clicked)
  SELECT tc."teamID", s.scope, tc.shown, tc."tagID", tc."totalOpens" > 0, tc."totalClicks" > 0
  FROM tagtrack_tag_counters AS tc
  JOIN members AS m ON m."memberID" = tc."memberID"
  CROSS JOIN LATERAL (VALUES ('team:' || m."teamID"),
                             ('member:' || m."memberID"),
                             ('group:' || m."teamID" || ':' || m."groupID")) AS s (scope)
  WHERE s.scope IS NOT NULL AND (team_id IS NULL OR tc."teamID" = team_id);

  INSERT INTO tagtrack_contact_tags
    ("teamID", "tagID", email_key, "memberID", shown, position, name, email, opens,
     "desktopOpens", "mobileOpens", clicks, "desktopClicks", "mobileClicks")
  SELECT tc."teamID", r."tagID", r.email_key, tc."memberID", tc.shown, r.position, r.name, r.email,
         coalesce(p.opens, 0), coalesce(p."desktopOpens", 0), coalesce(p."mobileOpens", 0),
         coalesce(p.clicks, 0), coalesce(p."desktopClicks", 0), coalesce(p."mobileClicks", 0)
  FROM (SELECT DISTINCT ON (x."tagID", k.email_key)
               x."tagID", k.email_key, x.position, x.name, x.email
        FROM recipients AS x JOIN tagtrack_email_keys AS k ON k.email = x.email
        WHERE team_id IS NULL OR x."tagID" IN (SELECT w."tagID" FROM tagtrack_work_tags AS w)
        ORDER BY x."tagID", k.email_key, x.position) AS r
  JOIN tagtrack_tag_counters AS tc
    ON tc."tagID" = r."tagID" AND (team_id IS NULL OR tc."teamID" = team_id)
  LEFT JOIN tagtrack_work_pairs AS p ON p."tagID" = r."tagID" AND p.email_key = r.email_key;

  -- name: the contact's name on the first of its tags in tag order (newest shown first,
  -- then tagID), and that tag (name_tag), which live upkeep compares a new tag with
  INSERT INTO tagtrack_contact_scopes
    ("teamID", scope, email_key, sort_key, contact_id, name, name_tag, "dateLastSent",
     "totalSent", "totalOpens", "uniqueOpens", "totalClicks", "uniqueClicks",
     "desktopOpens", "mobileOpens", "desktopClicks", "mobileClicks")
  SELECT m."teamID", s.scope, ct.email_key, ids.sort_key, ids.contact_id,
         (array_agg(ct.name ORDER BY ct.shown DESC, ct."tagID" COLLATE "C"))[1],
         (array_agg(ct."tagID" ORDER BY ct.shown DESC, ct."tagID" COLLATE "C"))[1],
         max(ct.shown),
         count(*),
         sum(ct.opens), count(*) FILTER (WHERE ct.opens > 0),
         sum(ct.clicks), count(*) FILTER (WHERE ct.clicks > 0),
         sum(ct."desktopOpens"), sum(ct."mobileOpens"),
         sum(ct."desktopClicks"), sum(ct."mobileClicks")
  FROM tagtrack_contact_tags AS ct
  JOIN members AS m ON m."memberID" = ct."memberID"
  JOIN tagtrack_contact_ids AS ids ON ids.email_key = ct.email_key
  CROSS JOIN LATERAL (VALUES ('team:' || m."teamID"),
                             ('member:' || m."memberID"),
                             ('group:' || m."teamID" || ':' || m."groupID")) AS s (scope)
  WHERE s.scope IS NOT NULL AND (team_id IS NULL OR ct."teamID" = team_id)
  GROUP BY m."teamID", s.scope, ct.email_key, ids.sort_key, ids.contact_id;

  INSERT INTO tagtrack_member_days
    ("teamID", "memberID", day, "totalSent", "totalOpens", "totalClicks", "uniqueOpens",
     "uniqueClicks", "lastSent")
  SELECT tc."teamID", tc."memberID", tc.day, count(*),
         sum(tc."totalOpens"), sum(tc."totalClicks"),
         sum(tc."uniqueOpens"), sum(tc."uniqueClicks"),
         max(tc.shown)
  FROM tagtrack_tag_counters AS tc
  WHERE team_id IS NULL OR tc."teamID" = team_id
  GROUP BY tc."teamID", tc."memberID", tc.day;

  INSERT INTO tagtrack_scope_days
    ("teamID", scope, "accountType", day, "totalSent", "totalOpens", "totalClicks",
     "uniqueOpens", "uniqueClicks", "lastSent")
  SELECT d."teamID", s.scope, a."accountType", d.day, sum(d."totalSent"),
         sum(d."totalOpens"), sum(d."totalClicks"),
         sum(d."uniqueOpens"), sum(d."uniqueClicks"),
         max(d."lastSent")
  FROM tagtrack_member_days AS d
  JOIN members AS m ON m."memberID" = d."memberID"
  CROSS JOIN LATERAL (VALUES ('team:' || m."teamID"),
                             ('member:' || m."memberID"),
                             ('group:' || m."teamID" || ':' || m."groupID")) AS s (scope)
  CROSS JOIN LATERAL (VALUES (m."accountType"), ('*')) AS a ("accountType")
  WHERE s.scope IS NOT NULL AND (team_id IS NULL OR d."teamID" = team_id)
  GROUP BY d."teamID", s.scope, a."accountType", d.day;

  DROP TABLE pg_temp.tagtrack_work_tags, pg_temp.tagtrack_work_pairs;
END
$$;

-- Recomputes every table above from the eight tables and tagtrack_email_keys: for a batch
-- load. Its cost grows with all the data; live data keeps the tables current row by row
-- (file 35), and tagtrack_refresh_team recomputes one team. It does not ANALYZE (Citus
-- refuses that inside a function): the engine runs VACUUM (ANALYZE) after it.
--
-- On one PostgreSQL the tables' indexes (primary keys included) are dropped while the rows
-- go in and built again afterwards, each in one sort: measured on 1 M events, inserting the
-- rows into the indexed tables took most of the refresh (the tag scope rows 10.5 s of the
-- 10.9 s their statement took, the stats rows 8.7 s of 12.9 s; EXPLAIN ANALYZE in
-- docs/sql.md §3.3). The definitions are read from the catalog, so they are the tables' own.
-- The aggregates get 256 MB of work_mem for this transaction (they spilled to disk at 4 MB),
-- the index builds 512 MB of maintenance_work_mem (one sort in memory where it fits).
-- On Citus (distributed tables) the indexes stay: it refuses some of these statements in a
-- function.
CREATE OR REPLACE FUNCTION tagtrack_refresh() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  counter_tables regclass[] := ARRAY['tagtrack_tag_counters', 'tagtrack_tag_scopes',
    'tagtrack_contact_tags', 'tagtrack_contact_scopes', 'tagtrack_member_days',
    'tagtrack_scope_days']::regclass[];
  rebuild text[] := '{}';
  d record;
BEGIN
  SET LOCAL work_mem = '256MB';
  SET LOCAL maintenance_work_mem = '512MB';
  TRUNCATE tagtrack_tag_counters, tagtrack_tag_scopes, tagtrack_contact_tags,
           tagtrack_contact_scopes, tagtrack_member_days, tagtrack_scope_days;
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    FOR d IN
      SELECT c.conrelid::regclass AS tbl, c.conname AS name, pg_get_constraintdef(c.oid) AS def
      FROM pg_constraint AS c
      WHERE c.conrelid = ANY (counter_tables) AND c.contype = 'p'
    LOOP
      rebuild := rebuild || format('ALTER TABLE %s ADD CONSTRAINT %I %s', d.tbl, d.name, d.def);
      EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', d.tbl, d.name);
    END LOOP;
    FOR d IN
      SELECT i.indexrelid::regclass AS idx, pg_get_indexdef(i.indexrelid) AS def
      FROM pg_index AS i
      WHERE i.indrelid = ANY (counter_tables)
    LOOP
      rebuild := rebuild || d.def;
      EXECUTE format('DROP INDEX %s', d.idx);
    END LOOP;
  END IF;
  PERFORM tagtrack_fill(NULL);
  FOR i IN 1 .. coalesce(array_length(rebuild, 1), 0) LOOP
    EXECUTE rebuild[i];
  END LOOP;
END
$$;

-- Recomputes the counter rows of one team (its tags, their recipients and events, its
-- scopes), leaving every other team's rows as they are: after rows of the team were
-- changed or deleted, or a member moved to another group (live upkeep, file 35, follows
-- appended rows only). Rows are found by their "teamID" column, so a member moved to another
-- team needs both teams refreshed.
CREATE OR REPLACE FUNCTION tagtrack_refresh_team(team_id text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF team_id IS NULL THEN
    RAISE EXCEPTION 'tagtrack_refresh_team needs a teamID (tagtrack_refresh() refreshes every team)'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  DELETE FROM tagtrack_tag_counters AS x WHERE x."teamID" = team_id;
  DELETE FROM tagtrack_tag_scopes AS x WHERE x."teamID" = team_id;
  DELETE FROM tagtrack_contact_tags AS x WHERE x."teamID" = team_id;
  DELETE FROM tagtrack_contact_scopes AS x WHERE x."teamID" = team_id;
  DELETE FROM tagtrack_member_days AS x WHERE x."teamID" = team_id;
  DELETE FROM tagtrack_scope_days AS x WHERE x."teamID" = team_id;
  PERFORM tagtrack_fill(team_id);
END
$$;

-- The rules of the data that the tables' constraints cannot state (spec §10; the
-- in-memory engine refuses a dataset that breaks them): every event's email is a recipient of
-- its tag (compared as contacts), and no event is dated before its tag was sent. One line
-- per broken rule, with a count and an example; no row when the data holds. Run after
-- tagtrack_refresh() (it reads tagtrack_contact_tags).
CREATE OR REPLACE FUNCTION tagtrack_data_problems() RETURNS SETOF text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  kind text;
BEGIN
  FOREACH kind IN ARRAY ARRAY['opens', 'clicks'] LOOP
    RETURN QUERY EXECUTE format(
      $q$SELECT format('%%s row(s) of %s have an email that is not a recipient of their tag (e.g. tag %%s, email %%s)',
                       count(*), min(e."tagID"), min(e.email))
         FROM %I AS e
         JOIN tagtrack_email_keys AS k ON k.email = e.email
         LEFT JOIN tagtrack_contact_tags AS ct
           ON ct."teamID" = e."teamID" AND ct."tagID" = e."tagID" AND ct.email_key = k.email_key
         WHERE ct."tagID" IS NULL
         HAVING count(*) > 0$q$, kind, 'tagtrack_team_' || kind);
  END LOOP;
  FOREACH kind IN ARRAY ARRAY['opens', 'clicks'] LOOP
    RETURN QUERY EXECUTE format(
      $q$SELECT format('%%s row(s) of %s are dated before their tag was sent (e.g. tag %%s)',
                       count(*), min(e."tagID"))
         FROM %I AS e
         JOIN tagtrack_team_tags AS t ON t."teamID" = e."teamID" AND t."tagID" = e."tagID"
         WHERE e.date < t."dateSent"
         HAVING count(*) > 0$q$, kind, 'tagtrack_team_' || kind);
  END LOOP;
END
$$;
