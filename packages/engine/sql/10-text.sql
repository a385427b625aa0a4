-- tagtrack SQL engine, file 10: text as the profile compares it (docs/spec.md §3, §9, §10).
--
-- * Order is by UTF-16 code units (decisions §3), the order of JavaScript's `<`. COLLATE "C"
--   orders by UTF-8 bytes, which is code-point order: the same except that a character at or
--   above U+10000 sorts after U+E000..U+FFFF in code points but before them in code units.
--   tagtrack_utf16_key gives a bytea whose byte order is code-unit order. Ids are ASCII
--   ([A-Za-z0-9_-]), so for them COLLATE "C" is enough.
-- * A contact is an email trimmed and lowercased (spec §10, JavaScript's trim() and
--   toLowerCase()). PostgreSQL's lower() depends on the database's LC_CTYPE (under C it
--   folds ASCII only) and differs from JavaScript even under UTF-8 (final sigma: 'ΣΑΣ' is
--   'σασ' there and 'σας' in JavaScript; 'İ'), and btrim() trims spaces only unless given
--   every character JavaScript trims, so the engine computes each
--   distinct email's key and contact id in JavaScript (core's normaliseEmail and contactIdOf)
--   and keeps them in two small tables; every query joins them instead of calling lower().
--   On a UTF-8 database, normalise_email(email) (created with the tables) agrees for
--   ordinary addresses.

-- The UTF-16 code units of s, big-endian, as bytea: bytea order = code-unit order.
CREATE OR REPLACE FUNCTION tagtrack_utf16_key(s text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(decode(string_agg(
           CASE WHEN cp < 65536 THEN lpad(to_hex(cp), 4, '0')
                ELSE lpad(to_hex(55296 + ((cp - 65536) >> 10)), 4, '0')
                  || lpad(to_hex(56320 + ((cp - 65536) & 1023)), 4, '0')
           END, '' ORDER BY i), 'hex'), '\x'::bytea)
  FROM (SELECT i, ascii(substr(s, i, 1)) AS cp FROM generate_series(1, length(s)) AS i) AS chars
$$;

-- A timestamp as the profile writes it (decisions §8): YYYY-MM-DDTHH:MM:SSZ, in UTC, the
-- sub-second part dropped.
CREATE OR REPLACE FUNCTION tagtrack_timestamp(ts timestamptz) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
$$;

-- Midnight UTC starting day d: day windows are whole UTC days (decisions §4).
CREATE OR REPLACE FUNCTION tagtrack_day_start(d date) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT d::timestamp AT TIME ZONE 'UTC'
$$;

-- Every email as written in recipients, opens and clicks, and its contact key.
CREATE TABLE IF NOT EXISTS tagtrack_email_keys (
  email text PRIMARY KEY,
  email_key text NOT NULL
);
CREATE INDEX IF NOT EXISTS tagtrack_email_keys_key ON tagtrack_email_keys (email_key);

-- Every contact key: its contact id (decisions §8, §9: also the recipientID of events) and
-- its place in email order (code units).
CREATE TABLE IF NOT EXISTS tagtrack_contact_ids (
  email_key text PRIMARY KEY,
  contact_id text NOT NULL,
  sort_key bytea NOT NULL
);
