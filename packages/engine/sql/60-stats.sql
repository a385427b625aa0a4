-- tagtrack SQL engine, file 60: stats (endpoints 6, 7, 8, 13; spec §5, §10).
--
-- The subject's tags sent in the day window, as per-day records (one per UTC day with at
-- least one tag, oldest first) or, with aggregateData, one record (the empty record, with
-- dateLastSent NULL, when there is no tag). totalSent = tags; the four counters are sums of
-- the per-tag ones (unique counted per tag, then summed); dateLastSent = the latest shown.
-- The subject: the visible members (group_id NULL, member_id NULL), those of one group
-- (group_id, as tagtrack_resolve_group found it), or one member (member_id, once known to be
-- visible); account_type keeps members of that type only. Reads the rows of the subject's
-- scope in tagtrack_scope_days (file 30), one per day.

-- The scope of a stats subject, as tagtrack_scope_days keys it.
CREATE OR REPLACE FUNCTION tagtrack_stats_scope(team text, caller text, group_id text,
                                                member_id text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN member_id IS NOT NULL THEN 'member:' || member_id
              WHEN group_id IS NOT NULL THEN tagtrack_group_scope(team, caller, group_id)
              ELSE tagtrack_scope(team, caller) END;
END
$$;

-- The subject's per-day rows in the window, oldest first: what every stats answer sums or
-- lists (the team's rows of one scope and account type).
CREATE OR REPLACE FUNCTION tagtrack_stats_days(team text, caller text, group_id text,
                                               member_id text, account_type text,
                                               start_day date, end_day date,
                                               lim bigint, off bigint)
RETURNS TABLE (date text, "totalSent" integer, "totalOpens" integer, "totalClicks" integer,
               "uniqueOpens" integer, "uniqueClicks" integer, "dateLastSent" text)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  subject text := tagtrack_stats_scope(team, caller, group_id, member_id);
BEGIN
  RETURN QUERY
  SELECT to_char(d.day, 'YYYY-MM-DD'), d."totalSent", d."totalOpens", d."totalClicks",
         d."uniqueOpens", d."uniqueClicks", tagtrack_timestamp(d."lastSent")
  FROM tagtrack_scope_days AS d
  WHERE d."teamID" = team AND d.scope = subject
    AND d."accountType" = coalesce(account_type, '*')
    AND (start_day IS NULL OR d.day >= start_day)
    AND (end_day IS NULL OR d.day <= end_day)
  ORDER BY d.day
  LIMIT lim OFFSET off;
END
$$;

CREATE OR REPLACE FUNCTION tagtrack_stats_days_count(team text, caller text, group_id text,
                                                     member_id text, account_type text,
                                                     start_day date, end_day date)
RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  subject text := tagtrack_stats_scope(team, caller, group_id, member_id);
BEGIN
  RETURN (SELECT count(*)
          FROM tagtrack_scope_days AS d
          WHERE d."teamID" = team AND d.scope = subject
            AND d."accountType" = coalesce(account_type, '*')
            AND (start_day IS NULL OR d.day >= start_day)
            AND (end_day IS NULL OR d.day <= end_day));
END
$$;

CREATE OR REPLACE FUNCTION tagtrack_stats_total(team text, caller text, group_id text,
                                                member_id text, account_type text,
                                                start_day date, end_day date)
RETURNS TABLE ("totalSent" integer, "totalOpens" integer, "totalClicks" integer,
               "uniqueOpens" integer, "uniqueClicks" integer, "dateLastSent" text)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  subject text := tagtrack_stats_scope(team, caller, group_id, member_id);
BEGIN
  RETURN QUERY
  SELECT coalesce(sum(d."totalSent"), 0)::integer,
         coalesce(sum(d."totalOpens"), 0)::integer, coalesce(sum(d."totalClicks"), 0)::integer,
         coalesce(sum(d."uniqueOpens"), 0)::integer, coalesce(sum(d."uniqueClicks"), 0)::integer,
         tagtrack_timestamp(max(d."lastSent"))
  FROM tagtrack_scope_days AS d
  WHERE d."teamID" = team AND d.scope = subject
    AND d."accountType" = coalesce(account_type, '*')
    AND (start_day IS NULL OR d.day >= start_day)
    AND (end_day IS NULL OR d.day <= end_day);
END
$$;
