-- tagtrack SQL engine on Citus: the layout (docs/sql.md §5). After files 00 to 80, on a Citus
-- coordinator, this file creates tagtrack_citus_layout(); calling it lays the tables out, and
-- calling it again changes nothing. The engine does both when the database has the citus
-- extension; by hand: psql -f layout.sql -c 'SELECT tagtrack_citus_layout()'. (One statement
-- per call: Citus sends a DDL statement's text to the workers, and refuses a text of several.)
--
-- * Distributed by "teamID", in one co-location group: tags, recipients, opens, clicks (which
--   gain a "teamID" column, the sender's team, filled here for rows already there; new rows
--   must carry it, it is the distribution column) and the six counter tables of file 30.
--   Every request names its team (files 20 to 80), so it is routed to the one shard holding
--   the team; the refresh joins on the team, so it runs on every shard in parallel.
-- * Reference tables (a copy on every node): teams, groups, members, credentials,
--   tagtrack_meta and the two key tables of file 10 (emails and contact ids, shared by teams).
-- * Citus requires the distribution column in every primary key and in every foreign key
--   between distributed tables, and refuses to distribute a table that another local table
--   references: the keys of the four tag tables become ("teamID", ...) first, their foreign
--   keys are dropped while the tables are distributed and added back with the team.

CREATE OR REPLACE FUNCTION tagtrack_citus_layout() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t text;
  fk record;
  dist text[] := ARRAY['tags', 'recipients', 'opens', 'clicks',
                       'tagtrack_tag_counters', 'tagtrack_tag_scopes', 'tagtrack_contact_tags',
                       'tagtrack_contact_scopes', 'tagtrack_member_days', 'tagtrack_scope_days'];
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    RAISE EXCEPTION 'the citus extension is not installed in this database';
  END IF;

  -- the reference tables, parents first (foreign keys between reference tables are allowed)
  FOREACH t IN ARRAY ARRAY['teams', 'groups', 'members', 'credentials', 'tagtrack_meta',
                           'tagtrack_email_keys', 'tagtrack_contact_ids'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_dist_partition
                   WHERE logicalrelid = t::regclass AND repmodel = 't') THEN
      PERFORM create_reference_table(t);
    END IF;
  END LOOP;

  -- (a table referencing a reference table is in Citus's metadata already, as a "Citus
  -- local table": only hash distribution, partmethod 'h', counts as done)
  IF NOT EXISTS (SELECT 1 FROM pg_dist_partition
                 WHERE logicalrelid = 'tags'::regclass AND partmethod = 'h') THEN
    -- no upkeep triggers (file 35): on Citus a trigger runs on a worker's shard, where it
    -- cannot read the other shards' tables; appended rows are followed by calling the ingest
    -- functions on the coordinator (or tagtrack_refresh_team)
    FOREACH t IN ARRAY ARRAY['tags', 'recipients', 'opens', 'clicks'] LOOP
      EXECUTE format('DROP TRIGGER IF EXISTS tagtrack_upkeep ON %I', t);
    END LOOP;
    -- the team on the four tag tables, from the sender (still local tables here)
    ALTER TABLE tags ADD COLUMN IF NOT EXISTS "teamID" text;
    ALTER TABLE recipients ADD COLUMN IF NOT EXISTS "teamID" text;
    ALTER TABLE opens ADD COLUMN IF NOT EXISTS "teamID" text;
    ALTER TABLE clicks ADD COLUMN IF NOT EXISTS "teamID" text;
    UPDATE tags AS x SET "teamID" = m."teamID"
      FROM members AS m WHERE m."memberID" = x."memberID" AND x."teamID" IS NULL;
    UPDATE recipients AS x SET "teamID" = g."teamID"
      FROM tags AS g WHERE g."tagID" = x."tagID" AND x."teamID" IS NULL;
    UPDATE opens AS x SET "teamID" = g."teamID"
      FROM tags AS g WHERE g."tagID" = x."tagID" AND x."teamID" IS NULL;
    UPDATE clicks AS x SET "teamID" = g."teamID"
      FROM tags AS g WHERE g."tagID" = x."tagID" AND x."teamID" IS NULL;
    FOREACH t IN ARRAY ARRAY['tags', 'recipients', 'opens', 'clicks'] LOOP
      EXECUTE format('ALTER TABLE %I ALTER COLUMN "teamID" SET NOT NULL', t);
    END LOOP;

    -- foreign keys among the tag tables go; primary keys gain the team
    FOR fk IN SELECT c.conname, c.conrelid::regclass AS tbl FROM pg_constraint AS c
              WHERE c.contype = 'f'
                AND c.confrelid IN ('tags'::regclass, 'recipients'::regclass,
                                    'opens'::regclass, 'clicks'::regclass) LOOP
      EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', fk.tbl, fk.conname);
    END LOOP;
    ALTER TABLE tags DROP CONSTRAINT IF EXISTS tags_pkey;
    ALTER TABLE tags ADD PRIMARY KEY ("teamID", "tagID");
    ALTER TABLE recipients DROP CONSTRAINT IF EXISTS recipients_pkey;
    ALTER TABLE recipients ADD PRIMARY KEY ("teamID", "tagID", position);
    ALTER TABLE opens DROP CONSTRAINT IF EXISTS opens_pkey;
    ALTER TABLE opens ADD PRIMARY KEY ("teamID", position);
    ALTER TABLE clicks DROP CONSTRAINT IF EXISTS clicks_pkey;
    ALTER TABLE clicks ADD PRIMARY KEY ("teamID", position);
  END IF;

  FOREACH t IN ARRAY dist LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_dist_partition
                   WHERE logicalrelid = t::regclass AND partmethod = 'h') THEN
      IF t = 'tags' THEN
        PERFORM create_distributed_table(t, 'teamID');
      ELSE
        PERFORM create_distributed_table(t, 'teamID', colocate_with => 'tags');
      END IF;
    END IF;
  END LOOP;

  -- the foreign keys, now with the team (distributed to distributed, co-located)
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'recipients_tag_fkey') THEN
    ALTER TABLE recipients ADD CONSTRAINT recipients_tag_fkey
      FOREIGN KEY ("teamID", "tagID") REFERENCES tags ("teamID", "tagID");
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'opens_tag_fkey') THEN
    ALTER TABLE opens ADD CONSTRAINT opens_tag_fkey
      FOREIGN KEY ("teamID", "tagID") REFERENCES tags ("teamID", "tagID");
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'clicks_tag_fkey') THEN
    ALTER TABLE clicks ADD CONSTRAINT clicks_tag_fkey
      FOREIGN KEY ("teamID", "tagID") REFERENCES tags ("teamID", "tagID");
  END IF;

  -- the views of file 15, reading the team the tag tables now carry (same columns)
  CREATE OR REPLACE VIEW tagtrack_team_tags AS
    SELECT t."teamID", t."tagID", t."memberID", t.subject, t."dateSent"
    FROM tags AS t;
  CREATE OR REPLACE VIEW tagtrack_team_recipients AS
    SELECT r."teamID", r."tagID", r.position, r.name, r.email
    FROM recipients AS r;
  CREATE OR REPLACE VIEW tagtrack_team_opens AS
    SELECT e."teamID", e."tagID", e.position, e.email, e.date, e.device, e.os, e.browser,
           e.counry, e.region, e.city, e.latitude, e.longitude
    FROM opens AS e;
  CREATE OR REPLACE VIEW tagtrack_team_clicks AS
    SELECT e."teamID", e."tagID", e.position, e.email, e.date, e.device, e.os, e.browser,
           e.counry, e.region, e.city, e.latitude, e.longitude
    FROM clicks AS e;

  -- a tag's events are read by team and tag, then date
  CREATE INDEX IF NOT EXISTS tagtrack_opens_team_tag_date ON opens ("teamID", "tagID", date);
  CREATE INDEX IF NOT EXISTS tagtrack_clicks_team_tag_date ON clicks ("teamID", "tagID", date);

  INSERT INTO tagtrack_meta (key, value) VALUES ('layout', 'citus')
    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;
END
$$;

