-- tagtrack SQL engine, file 00: what version of these objects the database holds.
--
-- The eight tables of the dataset (teams, groups, members, credentials, tags, recipients,
-- opens, clicks) come from @tagtrack/dataset's tablesDdl('postgres'), the same DDL as the
-- fixture's SQL export (`tagtrack-conformance fixture --format sql`). Everything this engine
-- adds is named tagtrack_*: helper functions, materialised counters and the query functions
-- one per concern (files 10 to 80). Running the files in order is idempotent.

CREATE TABLE IF NOT EXISTS tagtrack_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);

-- The version of the tagtrack_* objects, raised with every change of these files: an engine
-- of another version refuses the database (exit 2) rather than read counters it does not
-- understand, and an engine of this version serves the objects as they are.
INSERT INTO tagtrack_meta (key, value) VALUES ('schema_version', '5')
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;
