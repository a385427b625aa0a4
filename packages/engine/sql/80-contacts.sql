-- tagtrack SQL engine, file 80: contacts (endpoints 15, 16, 17; decisions §2, §3, §9).
--
-- The contacts of the caller's visible tags in email order (code units), each with the
-- counters over the visible tags (file 30 materialises one row per scope and contact).
-- tag_id: only the contacts that tag was sent to (endpoint 17; counters still over every
-- visible tag); wanted_contact: only the contact of that id (endpoint 16).
CREATE OR REPLACE FUNCTION tagtrack_contact_list(caller text, tag_id text, wanted_contact text)
RETURNS SETOF tagtrack_contact_scopes
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT s.*
  FROM tagtrack_contact_scopes AS s
  WHERE s.scope = tagtrack_scope(caller)
    AND (tag_id IS NULL
         OR s.email_key IN (SELECT ct.email_key FROM tagtrack_contact_tags AS ct
                            WHERE ct."tagID" = tag_id))
    AND (wanted_contact IS NULL OR s.contact_id = wanted_contact)
$$;

CREATE OR REPLACE FUNCTION tagtrack_contacts(caller text, tag_id text, wanted_contact text,
                                             lim bigint, off bigint)
RETURNS TABLE ("contactID" text, name text, email text, "dateLastSent" text,
               "totalOpens" integer, "uniqueOpens" integer, "totalClicks" integer,
               "uniqueClicks" integer, "desktopOpens" integer, "mobileOpens" integer,
               "desktopClicks" integer, "mobileClicks" integer, "totalSent" integer)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT s.contact_id, s.name, s.email_key, tagtrack_timestamp(s."dateLastSent"),
         s."totalOpens", s."uniqueOpens", s."totalClicks", s."uniqueClicks",
         s."desktopOpens", s."mobileOpens", s."desktopClicks", s."mobileClicks",
         s."totalSent"
  FROM tagtrack_contact_list(caller, tag_id, wanted_contact) AS s
  ORDER BY s.sort_key
  LIMIT lim OFFSET off
$$;

CREATE OR REPLACE FUNCTION tagtrack_contacts_count(caller text, tag_id text)
RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT count(*) FROM tagtrack_contact_list(caller, tag_id, NULL)
$$;
