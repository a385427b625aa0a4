-- tagtrack SQL engine, file 15: the dataset's tags, recipients and events, each with its team.
--
-- A tag's team is its sender's (spec §4); recipients and events belong to their tag's.
-- Every counter table (file 30) and every request (files 40 to 80) names the team, and reads
-- the dataset's tag tables only through these four views, so that on a database sharded by
-- team (docs/sql.md §5: Citus, sql/citus/layout.sql) every query names the shard it reads.
-- Here the team is looked up through the sender (tags -> members); the Citus layout gives
-- tags, recipients, opens and clicks a "teamID" column of their own (the distribution
-- column) and redefines these views to read it, with the same columns.

CREATE OR REPLACE VIEW tagtrack_team_tags AS
  SELECT m."teamID", t."tagID", t."memberID", t.subject, t."dateSent"
  FROM tags AS t
  JOIN members AS m ON m."memberID" = t."memberID";

CREATE OR REPLACE VIEW tagtrack_team_recipients AS
  SELECT t."teamID", r."tagID", r.position, r.name, r.email
  FROM recipients AS r
  JOIN tagtrack_team_tags AS t ON t."tagID" = r."tagID";

CREATE OR REPLACE VIEW tagtrack_team_opens AS
  SELECT t."teamID", e."tagID", e.position, e.email, e.date, e.device, e.os, e.browser,
         e.counry, e.region, e.city, e.latitude, e.longitude
  FROM opens AS e
  JOIN tagtrack_team_tags AS t ON t."tagID" = e."tagID";

CREATE OR REPLACE VIEW tagtrack_team_clicks AS
  SELECT t."teamID", e."tagID", e.position, e.email, e.date, e.device, e.os, e.browser,
         e.counry, e.region, e.city, e.latitude, e.longitude
  FROM clicks AS e
  JOIN tagtrack_team_tags AS t ON t."tagID" = e."tagID";
