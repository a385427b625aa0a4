-- tagtrack SQL engine, file 80: contacts (endpoints 15, 16, 17; spec §4, §5, §10).
--
-- The contacts of the caller's visible tags in email order (code units), each with the
-- counters over the visible tags (file 30 materialises one row per scope and contact).
-- tag_id: only the contacts that tag was sent to (endpoint 17; counters still over every
-- visible tag); wanted_contact: only the contact of that id (endpoint 16).
-- Every function takes the caller's team first and reads that team's rows only (docs/sql.md
-- §5); the scope is found first (file 20), in a statement of its own.
CREATE OR REPLACE FUNCTION tagtrack_contacts(team text, caller text, tag_id text,
                                             wanted_contact text, lim bigint, off bigint)
RETURNS TABLE ("contactID" text, name text, email text, "dateLastSent" text,
               "totalOpens" integer, "uniqueOpens" integer, "totalClicks" integer,
               "uniqueClicks" integer, "desktopOpens" integer, "mobileOpens" integer,
               "desktopClicks" integer, "mobileClicks" integer, "totalSent" integer)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  list_scope text := tagtrack_scope(team, caller);
BEGIN
  RETURN QUERY
  SELECT s.contact_id, s.name, s.email_key, tagtrack_timestamp(s."dateLastSent"),
         s."totalOpens", s."uniqueOpens", s."totalClicks", s."uniqueClicks",
         s."desktopOpens", s."mobileOpens", s."desktopClicks", s."mobileClicks",
         s."totalSent"
  FROM tagtrack_contact_scopes AS s
  WHERE s."teamID" = team AND s.scope = list_scope
    AND (tag_id IS NULL
         OR s.email_key IN (SELECT ct.email_key FROM tagtrack_contact_tags AS ct
                            WHERE ct."teamID" = team AND ct."tagID" = tag_id))
    AND (wanted_contact IS NULL OR s.contact_id = wanted_contact)
  ORDER BY s.sort_key
  LIMIT lim OFFSET off;
END
$$;

CREATE OR REPLACE FUNCTION tagtrack_contacts_count(team text, caller text, tag_id text)
RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  list_scope text := tagtrack_scope(team, caller);
BEGIN
  RETURN (SELECT count(*)
          FROM tagtrack_contact_scopes AS s
          WHERE s."teamID" = team AND s.scope = list_scope
            AND (tag_id IS NULL
                 OR s.email_key IN (SELECT ct.email_key FROM tagtrack_contact_tags AS ct
                                    WHERE ct."teamID" = team AND ct."tagID" = tag_id)));
END
$$;
