-- tagtrack SQL engine, file 10: text as the profile compares it (docs/spec.md §3, §9, §10).
--
-- * Order is by UTF-16 code units (spec §5), the order of JavaScript's `<`. COLLATE "C"
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

-- A timestamp as the profile writes it (spec §9): YYYY-MM-DDTHH:MM:SSZ, in UTC, the
-- sub-second part dropped.
CREATE OR REPLACE FUNCTION tagtrack_timestamp(ts timestamptz) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
$$;

-- Midnight UTC starting day d: day windows are whole UTC days (spec §6).
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

-- Every contact key: its contact id (spec §9, §10: also the recipientID of events) and
-- its place in email order (code units).
CREATE TABLE IF NOT EXISTS tagtrack_contact_ids (
  email_key text PRIMARY KEY,
  contact_id text NOT NULL,
  sort_key bytea NOT NULL
);

-- x * y modulo 2^32, for x and y in [0, 2^32): JavaScript's Math.imul on unsigned values
-- (each partial product stays below 2^49, inside bigint).
CREATE OR REPLACE FUNCTION tagtrack_imul32(x bigint, y bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT (x * (y & 65535) + (((x * (y >> 16)) & 65535) << 16)) & 4294967295
$$;

-- The murmur3 finaliser of a 32-bit value, as 8 lowercase hex digits.
CREATE OR REPLACE FUNCTION tagtrack_fmix32_hex(h bigint) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT lpad(to_hex(h3 # (h3 >> 16)), 8, '0')
  FROM (SELECT tagtrack_imul32(h2 # (h2 >> 13), 3266489909) AS h3
        FROM (SELECT tagtrack_imul32(h # (h >> 16), 2246822507) AS h2) AS a) AS b
$$;

-- The contact id of a contact key (spec §9, §10), exactly core's contactIdOfNormalised:
-- three 32-bit FNV-1a lanes over the key's UTF-16 code units, each finished by murmur3's
-- finaliser, 24 hex digits. The engine computes ids in JavaScript when it loads; this is
-- what the upkeep of file 35 uses for an email it has never seen (a vendor's own INSERT).
CREATE OR REPLACE FUNCTION tagtrack_contact_id(email_key text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  a bigint := 2166136261;
  b bigint := 1000000007;
  c bigint := 1779033703;
  n integer := 0;
  cp integer;
  u integer;
BEGIN
  FOR i IN 1 .. length(email_key) LOOP
    cp := ascii(substr(email_key, i, 1));
    FOREACH u IN ARRAY CASE WHEN cp < 65536 THEN ARRAY[cp]
                            ELSE ARRAY[55296 + ((cp - 65536) >> 10), 56320 + ((cp - 65536) & 1023)]
                       END LOOP
      a := tagtrack_imul32(a # u, 16777619);
      b := tagtrack_imul32(b # u, 16777629);
      c := tagtrack_imul32(c # u, 16777651);
      n := n + 1;
    END LOOP;
  END LOOP;
  RETURN tagtrack_fmix32_hex(a # n)
      || tagtrack_fmix32_hex(b # tagtrack_imul32(a, 2654435761))
      || tagtrack_fmix32_hex(c # b);
END
$$;

-- The contact key of an email as written, from tagtrack_email_keys; an email not there yet
-- gets its key from normalise_email (created with the tables: JavaScript's trim, then
-- lower(), which agrees with core's normaliseEmail for ordinary addresses on a UTF-8
-- database) and its contact id and sort key, both written to the key tables. An application
-- that inserts an email's key rows first (as the engine does, from core) decides the key.
CREATE OR REPLACE FUNCTION tagtrack_contact_key(email text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  k text;
BEGIN
  SELECT x.email_key INTO k FROM tagtrack_email_keys AS x WHERE x.email = tagtrack_contact_key.email;
  IF FOUND THEN
    RETURN k;
  END IF;
  k := normalise_email(email);
  INSERT INTO tagtrack_email_keys (email, email_key) VALUES (email, k) ON CONFLICT DO NOTHING;
  INSERT INTO tagtrack_contact_ids (email_key, contact_id, sort_key)
    VALUES (k, tagtrack_contact_id(k), tagtrack_utf16_key(k)) ON CONFLICT DO NOTHING;
  RETURN k;
END
$$;
