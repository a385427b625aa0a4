-- tagtrack SQL engine, file 70: opens and clicks (endpoints 9-12, 14; decisions §3, §4,
-- §8, §9).
--
-- An event as the API lists it: its date (openDate or clickDate, shown to the second), then
-- the location fields in the source's order. Events are oldest first by their instant (to
-- the millisecond), events of the same instant in the order of their rows (position).
-- event_kind is 'opens' or 'clicks'.

-- The events of one tag in a day window (by their own date), oldest first, as JSON objects
-- {date, counry, ..., browser, recipientID, name, email}: the recipient is the contact (id
-- and key) with the name of the tag's first recipient entry of that contact ('' if none).
CREATE OR REPLACE FUNCTION tagtrack_tag_events(event_kind text, tag_id text,
                                               start_day date, end_day date)
RETURNS TABLE (event json)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
           'date', tagtrack_timestamp(e.date),
           'counry', e.counry, 'region', e.region, 'city', e.city,
           'latitude', e.latitude::text, 'longitude', e.longitude::text,
           'device', e.device, 'os', e.os, 'browser', e.browser,
           'recipientID', ids.contact_id, 'name', coalesce(ct.name, ''), 'email', k.email_key)
  FROM tagtrack_events AS e
  JOIN tagtrack_email_keys AS k ON k.email = e.email
  JOIN tagtrack_contact_ids AS ids ON ids.email_key = k.email_key
  LEFT JOIN tagtrack_contact_tags AS ct ON ct."tagID" = e."tagID" AND ct.email_key = k.email_key
  WHERE e.kind = event_kind
    AND e."tagID" = tag_id
    AND (start_day IS NULL OR e.date >= tagtrack_day_start(start_day))
    AND (end_day IS NULL OR e.date < tagtrack_day_start(end_day + 1))
  ORDER BY date_trunc('milliseconds', e.date), e.position
$$;

-- The visible tags, in tag order, with at least one event of the kind in the window: the
-- groups of endpoints 9 and 11 (a tag without such an event is left out).
CREATE OR REPLACE FUNCTION tagtrack_event_tags(caller text, event_kind text,
                                               start_day date, end_day date)
RETURNS TABLE ("tagID" text, shown timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT ts."tagID", ts.shown
  FROM tagtrack_tag_scopes AS ts
  WHERE ts.scope = tagtrack_scope(caller)
    AND (CASE WHEN event_kind = 'opens' THEN ts.opened ELSE ts.clicked END)
    -- no event precedes its tag (decisions §9; refused at refresh): a tag shown after the
    -- window has none in it
    AND (end_day IS NULL OR ts.shown < tagtrack_day_start(end_day + 1))
    AND (start_day IS NULL AND end_day IS NULL
         OR EXISTS (SELECT 1 FROM tagtrack_events AS e
                    WHERE e.kind = event_kind AND e."tagID" = ts."tagID"
                      AND (start_day IS NULL OR e.date >= tagtrack_day_start(start_day))
                      AND (end_day IS NULL OR e.date < tagtrack_day_start(end_day + 1))))
$$;

-- Endpoints 9 and 11: one record per tag of tagtrack_event_tags, its events in the window.
CREATE OR REPLACE FUNCTION tagtrack_event_groups(caller text, event_kind text,
                                                 start_day date, end_day date,
                                                 lim bigint, off bigint)
RETURNS TABLE ("tagID" text, events json)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT p."tagID",
         (SELECT json_agg(x.event)
          FROM tagtrack_tag_events(event_kind, p."tagID", start_day, end_day) AS x)
  FROM (SELECT t."tagID", t.shown
        FROM tagtrack_event_tags(caller, event_kind, start_day, end_day) AS t
        ORDER BY t.shown DESC, t."tagID" COLLATE "C"
        LIMIT lim OFFSET off) AS p
  ORDER BY p.shown DESC, p."tagID" COLLATE "C"
$$;

CREATE OR REPLACE FUNCTION tagtrack_event_groups_count(caller text, event_kind text,
                                                       start_day date, end_day date)
RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT count(*) FROM tagtrack_event_tags(caller, event_kind, start_day, end_day)
$$;

-- Endpoint 14: distinct contacts with an open (a click) of the tag on UTC day d.
CREATE OR REPLACE FUNCTION tagtrack_daily(tag_id text, d date)
RETURNS TABLE (opens integer, clicks integer)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT count(DISTINCT k.email_key) FILTER (WHERE e.kind = 'opens')::integer,
         count(DISTINCT k.email_key) FILTER (WHERE e.kind = 'clicks')::integer
  FROM tagtrack_events AS e
  JOIN tagtrack_email_keys AS k ON k.email = e.email
  WHERE e."tagID" = tag_id
    AND e.date >= tagtrack_day_start(d) AND e.date < tagtrack_day_start(d + 1)
$$;
