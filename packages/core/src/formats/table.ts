import * as z from 'zod';
import type { Endpoint } from '../endpoints.ts';

/**
 * The table layout of the `text` and `html` formats (spec §8): an endpoint's records
 * flattened to string cells under a fixed header row, derived from the endpoint's record
 * schema (never listed by hand):
 * - nested objects flatten to dotted names (`stats.totalOpens`);
 * - `recipients` (an array of `{ name, email }`) is one cell, `name <email>` joined by `; `;
 * - the event groups of endpoints 9 and 11 (`{ tagID, clicks|opens: [{ recipient, details }] }`)
 *   render one row per event, with the group's `tagID` followed by the event's columns
 *   (`recipient.recipientID`, …, `details.clickDate`);
 * - optional fields are columns too, empty when absent (a member's `groupID`/`groupName`,
 *   the `date` of an aggregated stats record);
 * - numbers and booleans as `String(v)`, `null` and absent values as `''`.
 */

/** Header row and data rows of a rendered response; every row has `columns.length` cells. */
export interface Table {
  columns: string[];
  rows: string[][];
}

/** A text or HTML body does not have the layout of spec §8. */
export class FormatParseError extends Error {
  override readonly name = 'FormatParseError';
  constructor(
    readonly code: 'bad_escape' | 'ragged_row' | 'no_table' | 'empty_body' | 'raw_carriage_return',
    message: string,
  ) {
    super(message);
  }
}

type Path = readonly string[];

interface Cell {
  readonly column: string;
  readonly read: (record: unknown) => string;
}

interface Layout {
  columns: string[];
  /** Cells of the record itself, before and after the exploded array (if any). */
  head: Cell[];
  tail: Cell[];
  /** The array of endpoints 9/11 whose elements become rows, and the cells of one element. */
  explode?: { path: Path; cells: Cell[] };
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  return s;
}

function valueAt(record: unknown, path: Path): unknown {
  let v = record;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** A JSON value as one cell: strings as is, numbers/booleans via `String`, null/absent `''`. */
function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** `recipients` as `name <email>` joined by `; ` (spec §8). */
function recipientsText(v: unknown): string {
  if (!Array.isArray(v)) return cellText(v);
  return v
    .map((r) => `${cellText(valueAt(r, ['name']))} <${cellText(valueAt(r, ['email']))}>`)
    .join('; ');
}

function isNameEmailObject(schema: z.ZodType): boolean {
  const s = unwrap(schema);
  if (!(s instanceof z.ZodObject)) return false;
  const keys = Object.keys(s.shape).sort();
  return keys.length === 2 && keys[0] === 'email' && keys[1] === 'name';
}

/** The scalar cells of an object schema, nested objects flattened with dotted names. */
function scalarCells(schema: z.ZodType, prefix: Path, explodable: boolean, out: Layout): void {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) {
    for (const [key, child] of Object.entries(s.shape as Record<string, z.ZodType>)) {
      scalarCells(child, [...prefix, key], explodable, out);
    }
    return;
  }
  const path = prefix;
  const column = path.join('.');
  const target = out.explode === undefined ? out.head : out.tail;
  if (s instanceof z.ZodArray) {
    const element = s.element as z.ZodType;
    if (isNameEmailObject(element)) {
      target.push({ column, read: (r) => recipientsText(valueAt(r, path)) });
      out.columns.push(column);
      return;
    }
    if (explodable && unwrap(element) instanceof z.ZodObject && out.explode === undefined) {
      const inner: Layout = { columns: [], head: [], tail: [] };
      scalarCells(element, [], false, inner);
      out.explode = { path, cells: inner.head };
      out.columns.push(...inner.columns);
      return;
    }
    throw new Error(`formats: no flat layout for the array field '${column}'`);
  }
  target.push({ column, read: (r) => cellText(valueAt(r, path)) });
  out.columns.push(column);
}

const LAYOUTS = new WeakMap<z.ZodType, Layout>();

function layoutOf(record: z.ZodType): Layout {
  let layout = LAYOUTS.get(record);
  if (layout === undefined) {
    layout = { columns: [], head: [], tail: [] };
    scalarCells(record, [], true, layout);
    LAYOUTS.set(record, layout);
  }
  return layout;
}

/**
 * The header row of `endpoint`'s text and html formats, in the order of its record schema
 * (spec §8). E.g. members: `memberID, firstname, lastname, email, accountType, groupID,
 * groupName`; event groups (9, 11): `tagID, recipient.recipientID, …, details.clickDate`.
 */
export function tableColumns(endpoint: Endpoint): string[] {
  return [...layoutOf(endpoint.record).columns];
}

/**
 * Flattens JSON records of `endpoint` (as found in `data`; a single-object response is a
 * one-element list) into a {@link Table} per spec §8. Never throws on malformed records:
 * missing values become `''`, objects where a scalar belongs become their JSON text.
 * An empty list gives the header row only.
 */
export function toTable(endpoint: Endpoint, records: readonly unknown[]): Table {
  const layout = layoutOf(endpoint.record);
  const rows: string[][] = [];
  for (const record of records) {
    const head = layout.head.map((c) => c.read(record));
    const tail = layout.tail.map((c) => c.read(record));
    if (layout.explode === undefined) {
      rows.push(head);
      continue;
    }
    const items = valueAt(record, layout.explode.path);
    for (const item of Array.isArray(items) ? items : []) {
      rows.push([...head, ...layout.explode.cells.map((c) => c.read(item)), ...tail]);
    }
  }
  return { columns: [...layout.columns], rows };
}

/**
 * The table as a list of `{ column: value }` objects, one per row: a convenient form for
 * comparing what two formats carry.
 */
export function tableToRecords(table: Table): Record<string, string>[] {
  return table.rows.map((row) =>
    Object.fromEntries(table.columns.map((c, i) => [c, row[i] ?? ''])),
  );
}
