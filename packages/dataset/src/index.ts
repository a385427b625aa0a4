/**
 * `@tagtrack/dataset`: datasets of the Tag Tracking Reporting API for servers, fixtures and
 * tests: the deterministic generator (scales, edge cases), the tables of a dataset and their
 * SQL/CSV/NDJSON export, and the JSON Schemas of both documents. The canonical dataset is
 * `@tagtrack/dataset/canonical` (a separate entry: importing it parses 1 MB of JSON). The
 * `Dataset` schema itself is core's (`@tagtrack/core`): the plain rules take a Dataset.
 */
export { SOUNDNESS_EDGE_CASES, withEveryEdgeCase } from './edge-cases.ts';
export {
  CANONICAL_SCALE,
  CANONICAL_SEED,
  type GeneratedContact,
  generateCanonicalDataset,
  generateDataset,
  generatedContact,
  generatedDevice,
  generatedEvent,
  generatedSubject,
} from './generate.ts';
export {
  datasetJsonSchema,
  type JsonSchemaDocument,
  tablesJsonSchema,
} from './json-schema.ts';
export {
  AGENTS,
  type Agent,
  type GeoLocation,
  LOCATIONS,
  PROXY_LOCATION,
} from './locations.ts';
export { Prng } from './prng.ts';
export { REVISION_3_CASES, withRevision3Cases } from './revision3-cases.ts';
export {
  expectedEvents,
  type GenerateOptions,
  MAX_CLICKS_PER_RECIPIENT,
  MAX_EVENT_DELAY_DAYS,
  MAX_OPENS_PER_RECIPIENT,
  resolveScale,
  SCALE_NAMES,
  SCALES,
  Scale,
  type ScaleName,
  scaleForEvents,
} from './scales.ts';
export {
  SQL_DIALECTS,
  type SqlDialect,
  type SqlInsertOptions,
  SqlLiteralError,
  sqlIdentifier,
  sqlInserts,
  sqlLiteral,
  TRIM_CHARACTERS,
  tablesDdl,
} from './sql.ts';
export {
  type ColumnKind,
  type ColumnSpec,
  CredentialRow,
  DatasetTables,
  datasetToTables,
  EventRow,
  eventRow,
  type ForeignKey,
  GroupRow,
  MemberRow,
  RecipientRow,
  TABLE_NAMES,
  TABLES,
  type TableName,
  type TableSpec,
  TablesError,
  TagRow,
  TeamRow,
  tablesToDataset,
} from './tables.ts';
