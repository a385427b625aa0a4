-- tagtrack SQL engine, file 70: opens and clicks (endpoints 9-12, 14; spec §5, §6,
-- §8, §9).
--
-- An event as the API lists it: its date (openDate or clickDate, shown to the second), then
-- the location fields in the source's order. Events are oldest first by their instant (to
-- the millisecond), events of the same instant in the order of their rows (position).
-- event_kind is 'opens' or 'clicks'.

-- Every function takes the caller's team first and reads that team's rows only (docs/sql.md
-- §5); the scope is found first (file 20), in a statement of its own. The events are read
-- from tagtrack_team_opens or tagtrack_team_clicks (file 15), named by event_kind.

-- The name of the view holding the events of event_kind ('opens' or 'clicks').
CREATE OR REPLACE FUNCTION tagtrack_event_view(event_kind text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF event_kind IS DISTINCT FROM 'opens' AND event_kind IS DISTINCT FROM 'clicks' THEN
    RAISE EXCEPTION 'event kind must be opens or clicks, not %', event_kind;
  END IF;
  RETURN 'tagtrack_team_' || event_kind;
END
$$;

-- One event as JSON {date, counry, ..., browser, recipientID, name, email}: the recipient is
-- the contact (id and key) with the name of the tag's first recipient entry of that contact
-- ('' if none). %1$I is the events view, e its rows; the select list of a query over
-- "%1$I AS e JOIN tagtrack_email_keys AS k JOIN tagtrack_contact_ids AS ids LEFT JOIN
-- tagtrack_contact_tags AS ct" (tagtrack_event_from).
CREATE OR REPLACE FUNCTION tagtrack_event_json() RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
  SELECT $q$json_build_object(
           'date', tagtrack_timestamp(e.date),
           'counry', e.counry, 'region', e.region, 'city', e.city,
           'latitude', e.latitude::text, 'longitude', e.longitude::text,
           'device', e.device, 'os', e.os, 'browser', e.browser,
           'recipientID', ids.contact_id, 'name', coalesce(ct.name, ''), 'email', k.email_key)$q$
$f$;

-- The FROM clause of an event query (the team $1, the tag's rows joined on it).
CREATE OR REPLACE FUNCTION tagtrack_event_from() RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
  SELECT $q$%1$I AS e
  JOIN tagtrack_email_keys AS k ON k.email = e.email
  JOIN tagtrack_contact_ids AS ids ON ids.email_key = k.email_key
  LEFT JOIN tagtrack_contact_tags AS ct
    ON ct."teamID" = e."teamID" AND ct."tagID" = e."tagID" AND ct.email_key = k.email_key$q$
$f$;

-- The events of one tag (endpoints 10 and 12), oldest first (events of the same millisecond
-- in row order).
CREATE OR REPLACE FUNCTION tagtrack_tag_events(team text, event_kind text, tag_id text)
RETURNS TABLE (event json)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT ' || tagtrack_event_json() || ' FROM ' || tagtrack_event_from() || '
     WHERE e."teamID" = $1 AND e."tagID" = $2
     ORDER BY date_trunc(''milliseconds'', e.date), e.position',
    tagtrack_event_view(event_kind))
  USING team, tag_id;
END
$$;

-- The visible tags, in tag order, with at least one event of the kind in the window: the
-- groups of endpoints 9 and 11 (a tag without such an event is left out), a page of them
-- (lim, off) each with its events in the window (oldest first). No event precedes its tag
-- (spec §10; refused at refresh): a tag shown after the window has none in it.
CREATE OR REPLACE FUNCTION tagtrack_event_groups(team text, caller text, event_kind text,
                                                 start_day date, end_day date,
                                                 lim bigint, off bigint)
RETURNS TABLE ("tagID" text, events json)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  list_scope text := tagtrack_scope(team, caller);
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT p."tagID",
            (SELECT json_agg(' || tagtrack_event_json() || '
                             ORDER BY date_trunc(''milliseconds'', e.date), e.position)
             FROM ' || tagtrack_event_from() || '
             WHERE e."teamID" = $1 AND e."tagID" = p."tagID"
               AND ($3::date IS NULL OR e.date >= tagtrack_day_start($3))
               AND ($4::date IS NULL OR e.date < tagtrack_day_start($4 + 1)))
     FROM (SELECT ts."tagID", ts.shown
           FROM tagtrack_tag_scopes AS ts
           WHERE ts."teamID" = $1 AND ts.scope = $2
             AND (CASE WHEN $7 = ''opens'' THEN ts.opened ELSE ts.clicked END)
             AND ($4::date IS NULL OR ts.shown < tagtrack_day_start($4 + 1))
             AND ($3::date IS NULL AND $4::date IS NULL
                  OR EXISTS (SELECT 1 FROM %1$I AS x
                             WHERE x."teamID" = $1 AND x."tagID" = ts."tagID"
                               AND ($3::date IS NULL OR x.date >= tagtrack_day_start($3))
                               AND ($4::date IS NULL OR x.date < tagtrack_day_start($4 + 1))))
           ORDER BY ts.shown DESC, ts."tagID" COLLATE "C"
           LIMIT $5 OFFSET $6) AS p
     ORDER BY p.shown DESC, p."tagID" COLLATE "C"',
    tagtrack_event_view(event_kind))
  USING team, list_scope, start_day, end_day, lim, off, event_kind;
END
$$;

CREATE OR REPLACE FUNCTION tagtrack_event_groups_count(team text, caller text, event_kind text,
                                                       start_day date, end_day date)
RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  list_scope text := tagtrack_scope(team, caller);
  n bigint;
BEGIN
  EXECUTE format(
    'SELECT count(*)
     FROM tagtrack_tag_scopes AS ts
     WHERE ts."teamID" = $1 AND ts.scope = $2
       AND (CASE WHEN $5 = ''opens'' THEN ts.opened ELSE ts.clicked END)
       AND ($4::date IS NULL OR ts.shown < tagtrack_day_start($4 + 1))
       AND ($3::date IS NULL AND $4::date IS NULL
            OR EXISTS (SELECT 1 FROM %1$I AS x
                       WHERE x."teamID" = $1 AND x."tagID" = ts."tagID"
                         AND ($3::date IS NULL OR x.date >= tagtrack_day_start($3))
                         AND ($4::date IS NULL OR x.date < tagtrack_day_start($4 + 1))))',
    tagtrack_event_view(event_kind))
  INTO n
  USING team, list_scope, start_day, end_day, event_kind;
  RETURN n;
END
$$;

-- Endpoint 14: distinct contacts with an open (a click) of the tag on UTC day d.
CREATE OR REPLACE FUNCTION tagtrack_daily(team text, tag_id text, d date)
RETURNS TABLE (opens integer, clicks integer)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  o integer;
  c integer;
BEGIN
  SELECT count(DISTINCT k.email_key) INTO o
  FROM tagtrack_team_opens AS e
  JOIN tagtrack_email_keys AS k ON k.email = e.email
  WHERE e."teamID" = team AND e."tagID" = tag_id
    AND e.date >= tagtrack_day_start(d) AND e.date < tagtrack_day_start(d + 1);
  SELECT count(DISTINCT k.email_key) INTO c
  FROM tagtrack_team_clicks AS e
  JOIN tagtrack_email_keys AS k ON k.email = e.email
  WHERE e."teamID" = team AND e."tagID" = tag_id
    AND e.date >= tagtrack_day_start(d) AND e.date < tagtrack_day_start(d + 1);
  RETURN QUERY SELECT o, c;
END
$$;
