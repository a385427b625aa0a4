-- tagtrack SQL engine, file 30: the counters, materialised after every load
-- (decisions §8, §9; docs/spec.md §9). tagtrack_refresh() recomputes all of them from the
-- eight tables; the engine calls it after filling tagtrack_email_keys and
-- tagtrack_contact_ids (file 10). Requests then read these tables and never count events.

-- Text columns keep the database's collation, so they join the dataset's tables through
-- their indexes; where text orders a list, the query says COLLATE "C" (code units for the
-- ASCII ids; file 10).

-- Event lists read a tag's events by date (decisions §3: oldest first).
CREATE INDEX IF NOT EXISTS tagtrack_opens_tag_date ON opens ("tagID", date);
CREATE INDEX IF NOT EXISTS tagtrack_clicks_tag_date ON clicks ("tagID", date);

-- Every table here names the team ("teamID", first in its key): a request reads one team's
-- rows, and a database sharded by team (docs/sql.md §5) keeps them on one shard, beside the
-- team's tags and events; the refresh joins on the team too, so each join stays on a shard.

-- One row per tag: its sender, team, the dateSent a response shows (to the second; it orders
-- tags: decisions §3 Revision 3), its UTC day, and the eight counters of decisions §9:
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
-- tag order (newest shown dateSent first, then tagID: decisions §3 Revision 3) straight
-- from the index, so a page costs its size plus its offset, never a sort of the whole list.
-- opened and clicked say whether the tag has an open (a click): what the filters of decisions
-- §4 and the event lists ask (uniqueOpens > 0 exactly when totalOpens > 0). The index holds
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
-- these rows as their distinct recipients (decisions §3 Revision 2); contacts sum them.
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
-- (decisions §9): totalSent = tags sent to it; totals = its events on them; unique = how many
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

-- One row per member and UTC day with tags: the stats of decisions §9 over that day's tags
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

-- Recomputes every table above from the eight tables and tagtrack_email_keys. Every join
-- and grouping includes the team, so on a database sharded by team each statement runs on
-- every shard at once without moving rows between them. It does not ANALYZE (a sharded
-- database refuses that inside a function): the engine runs VACUUM (ANALYZE) after it.
CREATE OR REPLACE FUNCTION tagtrack_refresh() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE tagtrack_tag_counters, tagtrack_tag_scopes, tagtrack_contact_tags,
           tagtrack_contact_scopes, tagtrack_member_days, tagtrack_scope_days;

  INSERT INTO tagtrack_tag_counters
  SELECT t."teamID", t."tagID", t."memberID",
         date_trunc('second', t."dateSent", 'UTC'),
         (t."dateSent" AT TIME ZONE 'UTC')::date,
         coalesce(o.total, 0), coalesce(o.contacts, 0),
         coalesce(c.total, 0), coalesce(c.contacts, 0),
         coalesce(o.desktop, 0), coalesce(o.mobile, 0),
         coalesce(c.desktop, 0), coalesce(c.mobile, 0)
  FROM tagtrack_team_tags AS t
  LEFT JOIN (SELECT e."teamID", e."tagID", count(*) AS total,
                    count(DISTINCT k.email_key) AS contacts,
                    count(*) FILTER (WHERE e.device = 'desktop') AS desktop,
                    count(*) FILTER (WHERE e.device IN ('mobile', 'tablet')) AS mobile
             FROM tagtrack_team_opens AS e JOIN tagtrack_email_keys AS k ON k.email = e.email
             GROUP BY e."teamID", e."tagID") AS o
    ON o."teamID" = t."teamID" AND o."tagID" = t."tagID"
  LEFT JOIN (SELECT e."teamID", e."tagID", count(*) AS total,
                    count(DISTINCT k.email_key) AS contacts,
                    count(*) FILTER (WHERE e.device = 'desktop') AS desktop,
                    count(*) FILTER (WHERE e.device IN ('mobile', 'tablet')) AS mobile
             FROM tagtrack_team_clicks AS e JOIN tagtrack_email_keys AS k ON k.email = e.email
             GROUP BY e."teamID", e."tagID") AS c
    ON c."teamID" = t."teamID" AND c."tagID" = t."tagID";

  INSERT INTO tagtrack_tag_scopes
  SELECT tc."teamID", s.scope, tc.shown, tc."tagID", tc."totalOpens" > 0, tc."totalClicks" > 0
  FROM tagtrack_tag_counters AS tc
  JOIN members AS m ON m."memberID" = tc."memberID"
  CROSS JOIN LATERAL (VALUES ('team:' || m."teamID"),
                             ('member:' || m."memberID"),
                             ('group:' || m."teamID" || ':' || m."groupID")) AS s (scope)
  WHERE s.scope IS NOT NULL;

  INSERT INTO tagtrack_contact_tags
  SELECT r."teamID", r."tagID", r.email_key, tc."memberID", tc.shown, r.position, r.name,
         r.email,
         coalesce(o.total, 0), coalesce(o.desktop, 0), coalesce(o.mobile, 0),
         coalesce(c.total, 0), coalesce(c.desktop, 0), coalesce(c.mobile, 0)
  FROM (SELECT DISTINCT ON (x."teamID", x."tagID", k.email_key)
               x."teamID", x."tagID", k.email_key, x.position, x.name, x.email
        FROM tagtrack_team_recipients AS x JOIN tagtrack_email_keys AS k ON k.email = x.email
        ORDER BY x."teamID", x."tagID", k.email_key, x.position) AS r
  JOIN tagtrack_tag_counters AS tc ON tc."teamID" = r."teamID" AND tc."tagID" = r."tagID"
  LEFT JOIN (SELECT e."teamID", e."tagID", k.email_key, count(*) AS total,
                    count(*) FILTER (WHERE e.device = 'desktop') AS desktop,
                    count(*) FILTER (WHERE e.device IN ('mobile', 'tablet')) AS mobile
             FROM tagtrack_team_opens AS e JOIN tagtrack_email_keys AS k ON k.email = e.email
             GROUP BY e."teamID", e."tagID", k.email_key) AS o
    ON o."teamID" = r."teamID" AND o."tagID" = r."tagID" AND o.email_key = r.email_key
  LEFT JOIN (SELECT e."teamID", e."tagID", k.email_key, count(*) AS total,
                    count(*) FILTER (WHERE e.device = 'desktop') AS desktop,
                    count(*) FILTER (WHERE e.device IN ('mobile', 'tablet')) AS mobile
             FROM tagtrack_team_clicks AS e JOIN tagtrack_email_keys AS k ON k.email = e.email
             GROUP BY e."teamID", e."tagID", k.email_key) AS c
    ON c."teamID" = r."teamID" AND c."tagID" = r."tagID" AND c.email_key = r.email_key;

  INSERT INTO tagtrack_contact_scopes
  SELECT ct."teamID", s.scope, ct.email_key, ids.sort_key, ids.contact_id,
         (array_agg(ct.name ORDER BY ct.shown DESC, ct."tagID" COLLATE "C"))[1],
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
  WHERE s.scope IS NOT NULL
  GROUP BY ct."teamID", s.scope, ct.email_key, ids.sort_key, ids.contact_id;

  INSERT INTO tagtrack_member_days
  SELECT tc."teamID", tc."memberID", tc.day, count(*),
         sum(tc."totalOpens"), sum(tc."totalClicks"),
         sum(tc."uniqueOpens"), sum(tc."uniqueClicks"),
         max(tc.shown)
  FROM tagtrack_tag_counters AS tc
  GROUP BY tc."teamID", tc."memberID", tc.day;

  INSERT INTO tagtrack_scope_days
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
  WHERE s.scope IS NOT NULL
  GROUP BY d."teamID", s.scope, a."accountType", d.day;
END
$$;

-- The rules of the data that the tables' constraints cannot state (decisions §9; the
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
