-- tagtrack SQL engine, file 60: stats (endpoints 6, 7, 8, 13; decisions §3, §9).
--
-- The subject's tags sent in the day window, as per-day records (one per UTC day with at
-- least one tag, oldest first) or, with aggregateData, one record (the empty record, with
-- dateLastSent NULL, when there is no tag). totalSent = tags; the four counters are sums of
-- the per-tag ones (unique counted per tag, then summed); dateLastSent = the latest shown.
-- The subject: the visible members (group_id NULL, member_id NULL), those of one group
-- (group_id, as tagtrack_resolve_group found it), or one member (member_id); account_type
-- keeps members of that type only. Reads the per-member, per-day rows of file 30.
CREATE OR REPLACE FUNCTION tagtrack_stats_days(caller text, group_id text, member_id text,
                                               account_type text,
                                               start_day date, end_day date,
                                               lim bigint, off bigint)
RETURNS TABLE (date text, "totalSent" integer, "totalOpens" integer, "totalClicks" integer,
               "uniqueOpens" integer, "uniqueClicks" integer, "dateLastSent" text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT to_char(d.day, 'YYYY-MM-DD'), sum(d."totalSent")::integer,
         sum(d."totalOpens")::integer, sum(d."totalClicks")::integer,
         sum(d."uniqueOpens")::integer, sum(d."uniqueClicks")::integer,
         tagtrack_timestamp(max(d."lastSent"))
  FROM tagtrack_member_days AS d
  JOIN members AS m ON m."memberID" = d."memberID"
  WHERE d."memberID" IN (SELECT v."memberID" FROM tagtrack_visible_members(caller) AS v)
    AND (group_id IS NULL OR m."groupID" = group_id)
    AND (member_id IS NULL OR d."memberID" = member_id)
    AND (account_type IS NULL OR m."accountType" = account_type)
    AND (start_day IS NULL OR d.day >= start_day)
    AND (end_day IS NULL OR d.day <= end_day)
  GROUP BY d.day
  ORDER BY d.day
  LIMIT lim OFFSET off
$$;

CREATE OR REPLACE FUNCTION tagtrack_stats_days_count(caller text, group_id text,
                                                     member_id text, account_type text,
                                                     start_day date, end_day date)
RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT count(DISTINCT d.day)
  FROM tagtrack_member_days AS d
  JOIN members AS m ON m."memberID" = d."memberID"
  WHERE d."memberID" IN (SELECT v."memberID" FROM tagtrack_visible_members(caller) AS v)
    AND (group_id IS NULL OR m."groupID" = group_id)
    AND (member_id IS NULL OR d."memberID" = member_id)
    AND (account_type IS NULL OR m."accountType" = account_type)
    AND (start_day IS NULL OR d.day >= start_day)
    AND (end_day IS NULL OR d.day <= end_day)
$$;

CREATE OR REPLACE FUNCTION tagtrack_stats_total(caller text, group_id text, member_id text,
                                                account_type text,
                                                start_day date, end_day date)
RETURNS TABLE ("totalSent" integer, "totalOpens" integer, "totalClicks" integer,
               "uniqueOpens" integer, "uniqueClicks" integer, "dateLastSent" text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(sum(d."totalSent"), 0)::integer,
         coalesce(sum(d."totalOpens"), 0)::integer, coalesce(sum(d."totalClicks"), 0)::integer,
         coalesce(sum(d."uniqueOpens"), 0)::integer, coalesce(sum(d."uniqueClicks"), 0)::integer,
         tagtrack_timestamp(max(d."lastSent"))
  FROM tagtrack_member_days AS d
  JOIN members AS m ON m."memberID" = d."memberID"
  WHERE d."memberID" IN (SELECT v."memberID" FROM tagtrack_visible_members(caller) AS v)
    AND (group_id IS NULL OR m."groupID" = group_id)
    AND (member_id IS NULL OR d."memberID" = member_id)
    AND (account_type IS NULL OR m."accountType" = account_type)
    AND (start_day IS NULL OR d.day >= start_day)
    AND (end_day IS NULL OR d.day <= end_day)
$$;
