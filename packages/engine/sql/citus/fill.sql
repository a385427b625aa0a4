-- tagtrack SQL engine on Citus: tagtrack_fill (file 30) for tables sharded by team. After
-- citus/layout.sql, one statement. File 30's version counts events into temporary tables on
-- the node that runs it, which on Citus would pull every shard's events to the coordinator;
-- this one is plain INSERT ... SELECT statements whose every join and grouping includes the
-- team, which Citus runs on every shard at once (team_id NULL: every team) or on the team's
-- one shard, rows never leaving their shard. Same rows as file 30's.
CREATE OR REPLACE FUNCTION tagtrack_fill(team_id text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tagtrack_tag_counters
    ("teamID", "tagID", "memberID", shown, day, "totalOpens", "uniqueOpens", "totalClicks",
     "uniqueClicks", "desktopOpens", "mobileOpens", "desktopClicks", "mobileClicks")
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
             WHERE team_id IS NULL OR e."teamID" = team_id
             GROUP BY e."teamID", e."tagID") AS o
    ON o."teamID" = t."teamID" AND o."tagID" = t."tagID"
  LEFT JOIN (SELECT e."teamID", e."tagID", count(*) AS total,
                    count(DISTINCT k.email_key) AS contacts,
                    count(*) FILTER (WHERE e.device = 'desktop') AS desktop,
                    count(*) FILTER (WHERE e.device IN ('mobile', 'tablet')) AS mobile
             FROM tagtrack_team_clicks AS e JOIN tagtrack_email_keys AS k ON k.email = e.email
             WHERE team_id IS NULL OR e."teamID" = team_id
             GROUP BY e."teamID", e."tagID") AS c
    ON c."teamID" = t."teamID" AND c."tagID" = t."tagID"
  WHERE team_id IS NULL OR t."teamID" = team_id;

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
  SELECT r."teamID", r."tagID", r.email_key, tc."memberID", tc.shown, r.position, r.name,
         r.email,
         coalesce(o.total, 0), coalesce(o.desktop, 0), coalesce(o.mobile, 0),
         coalesce(c.total, 0), coalesce(c.desktop, 0), coalesce(c.mobile, 0)
  FROM (SELECT DISTINCT ON (x."teamID", x."tagID", k.email_key)
               x."teamID", x."tagID", k.email_key, x.position, x.name, x.email
        FROM tagtrack_team_recipients AS x JOIN tagtrack_email_keys AS k ON k.email = x.email
        WHERE team_id IS NULL OR x."teamID" = team_id
        ORDER BY x."teamID", x."tagID", k.email_key, x.position) AS r
  JOIN tagtrack_tag_counters AS tc ON tc."teamID" = r."teamID" AND tc."tagID" = r."tagID"
  LEFT JOIN (SELECT e."teamID", e."tagID", k.email_key, count(*) AS total,
                    count(*) FILTER (WHERE e.device = 'desktop') AS desktop,
                    count(*) FILTER (WHERE e.device IN ('mobile', 'tablet')) AS mobile
             FROM tagtrack_team_opens AS e JOIN tagtrack_email_keys AS k ON k.email = e.email
             WHERE team_id IS NULL OR e."teamID" = team_id
             GROUP BY e."teamID", e."tagID", k.email_key) AS o
    ON o."teamID" = r."teamID" AND o."tagID" = r."tagID" AND o.email_key = r.email_key
  LEFT JOIN (SELECT e."teamID", e."tagID", k.email_key, count(*) AS total,
                    count(*) FILTER (WHERE e.device = 'desktop') AS desktop,
                    count(*) FILTER (WHERE e.device IN ('mobile', 'tablet')) AS mobile
             FROM tagtrack_team_clicks AS e JOIN tagtrack_email_keys AS k ON k.email = e.email
             WHERE team_id IS NULL OR e."teamID" = team_id
             GROUP BY e."teamID", e."tagID", k.email_key) AS c
    ON c."teamID" = r."teamID" AND c."tagID" = r."tagID" AND c.email_key = r.email_key;

  INSERT INTO tagtrack_contact_scopes
    ("teamID", scope, email_key, sort_key, contact_id, name, name_tag, "dateLastSent",
     "totalSent", "totalOpens", "uniqueOpens", "totalClicks", "uniqueClicks",
     "desktopOpens", "mobileOpens", "desktopClicks", "mobileClicks")
  SELECT ct."teamID", s.scope, ct.email_key, ids.sort_key, ids.contact_id,
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
  GROUP BY ct."teamID", s.scope, ct.email_key, ids.sort_key, ids.contact_id;

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
END
$$;
