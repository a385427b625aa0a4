import { Dataset } from '@tagtrack/core';
import * as z from 'zod';
import { DatasetTables } from './tables.ts';

/** A JSON Schema document (draft 2020-12) as `z.toJSONSchema` returns it. */
export type JsonSchemaDocument = Record<string, unknown>;

/**
 * The schema as zod parses input (`io: 'input'`): a record may carry fields the schema does
 * not name, as `Dataset.parse` accepts (and drops) them; no `additionalProperties: false`.
 */
function withTitle(schema: z.ZodType, title: string, description: string): JsonSchemaDocument {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' });
  return { $schema: out.$schema, title, description, ...out };
}

/**
 * The JSON Schema (draft 2020-12) of a dataset document, generated from the zod
 * {@link Dataset} schema (never written by hand): what `--dataset FILE`, `canonical.json` and
 * the fixture's JSON form hold. Referential rules (unique ids, events of recipients, ...) are
 * not expressible in it; `validateDataset` checks them. Committed as
 * `packages/dataset/dataset.schema.json` by `pnpm generate`.
 */
export function datasetJsonSchema(): JsonSchemaDocument {
  return withTitle(
    Dataset,
    'tagtrack dataset',
    'The event log every answer of the Tag Tracking Reporting API is computed from (tagtrack/v1, spec §10): teams with groups and members, tags with recipients, opens, clicks, credentials.',
  );
}

/**
 * The JSON Schema (draft 2020-12) of the dataset as tables (one array of rows per table, keys
 * in column order; tables.ts), generated from the zod {@link DatasetTables} schema. Each
 * NDJSON line of the fixture's `<table>.ndjson` is one item of the table's array. Committed as
 * `packages/dataset/tables.schema.json` by `pnpm generate`.
 */
export function tablesJsonSchema(): JsonSchemaDocument {
  return withTitle(
    DatasetTables,
    'tagtrack dataset tables',
    'The tagtrack dataset as one table per entity (teams, groups, members, credentials, tags, recipients, opens, clicks), in loading order.',
  );
}
