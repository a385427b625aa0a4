/**
 * `@tagtrack/engine`: Node engines answering the endpoints of the Tag Tracking Reporting API
 * behind core's `ReportingEngine` interface (`@tagtrack/core`, aggregate/types.ts), one folder
 * per engine: `memory/` is the in-memory index (`buildIndex`, a `ReportingIndex`) with its
 * columnar dataset loaders (JSON in one or two threads, tables, binary snapshot files);
 * `sql/` is the SQL engine (`openSqlEngine`) on PostgreSQL or PGlite, running the shipped
 * `sql/*.sql` files (docs/sql.md). Imported by the
 * reference server and by tools that load large datasets; the plain rules of core
 * (`plainAnswer`, `plainIndex`) are the oracle every engine is tested against.
 */
export { type BuildIndexOptions, buildIndex } from './memory/build.ts';
export { ColumnarBuilder, type ColumnarDataset, DATASET_KEYS } from './memory/columnar/builder.ts';
export { JsonObjectStream, JsonStreamError } from './memory/columnar/json-stream.ts';
export {
  type ColumnarLoadOptions,
  type ColumnarSource,
  columnarIndexOf,
  columnsOf,
  csvCell,
  loadDatasetJson,
  loadDatasetJsonSync,
  TableFormatError,
  TablesLoader,
} from './memory/columnar/load.ts';
export {
  type LoadDatasetJsonFileOptions,
  loadDatasetJsonFile,
} from './memory/columnar/parallel.ts';
export {
  isSnapshot,
  parseSnapshot,
  SNAPSHOT_VERSION,
  SnapshotError,
  type SnapshotParts,
} from './memory/columnar/snapshot.ts';
export {
  isSnapshotFile,
  loadSnapshotFile,
  writeSnapshotFile,
} from './memory/columnar/snapshot-file.ts';
export { indexEngine } from './memory/engine.ts';
export { type EngineName, type OpenEngineOptions, openEngine } from './open.ts';
export { type AppendedRecords, appendRecords } from './sql/append.ts';
export {
  type CopyNdjsonOptions,
  type CopyNdjsonResult,
  copyTablesFromNdjson,
} from './sql/copy-ndjson.ts';
export {
  type Database,
  openPglite,
  openPostgres,
  type Queryable,
  type TransactionOptions,
} from './sql/database.ts';
export {
  openSqlEngine,
  type SqlEngine,
  type SqlEngineOptions,
  type SqlTopology,
} from './sql/engine.ts';
export { redactUrl, SqlEngineError, type SqlEngineErrorCode } from './sql/errors.ts';
export {
  checkSchema,
  citusLayoutSql,
  installSql,
  isCitus,
  isStandby,
  loadDataset,
  refreshCounters,
  registerEmails,
  SQL_SCHEMA_VERSION,
  sqlFiles,
} from './sql/schema.ts';
