import {
  CONTENT_TYPES,
  type Endpoint,
  type ErrorBody,
  type ExactPaging,
  errorBody,
  type Rtn,
  renderHtml,
  renderText,
  stringifyJson,
  type Table,
  toTable,
} from '@tagtrack/core';
import * as z from 'zod';
import { type HtmlOptions, renderHtmlDocument } from './render-html.ts';
import type { VariantSet } from './variants/index.ts';

/** A response before it becomes a `Response`: status, headers and body text. */
export interface Rendered {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * The stages of the render layer a fault wraps (`faults/render.ts`): each is a small function
 * the {@link Renderer} calls, clean unless a fault replaced it.
 */
export interface RenderLayer {
  /** An error response (spec §6): status, headers (`headers` plus Content-Type), body. */
  error(status: number, message: string, headers: Record<string, string>): Rendered;
  /** The `Content-Type` of a successful response in format `rtn` (spec §8). */
  contentType(rtn: Rtn): string;
  /** The table of a text or html body: one row per record (per event for 9 and 11). */
  table(endpoint: Endpoint, records: readonly unknown[], rtn: 'text' | 'html'): Table;
  /** A text body from its table (spec §8). */
  text(table: Table): string;
  /** An html body from its table (spec §8). */
  html(table: Table, endpoint: Endpoint): string;
}

/**
 * The render layer (spec §6, §8): error bodies, Content-Type, and the bodies of list and
 * single responses in the three formats, with the render variants (`json-*`,
 * `content-type-params`, `columns-reordered`, `empty-columns-dropped`, `html-*`, and the
 * extra text/html columns of `extra-fields`). `wrap` gets the clean {@link RenderLayer} and
 * returns the one to use (the render faults wrap it: `FaultSet.wrap('render', …)`).
 */
export class Renderer {
  readonly #html: HtmlOptions | undefined;
  readonly #layer: RenderLayer;

  constructor(
    readonly variants: VariantSet,
    wrap: (clean: RenderLayer) => RenderLayer = (clean) => clean,
  ) {
    this.#html = variants.hasAny([
      'html-no-thead',
      'html-http-equiv-charset',
      'html-no-charset-meta',
      'html-alternative-markup',
    ])
      ? {
          thead: !variants.has('html-no-thead'),
          charset: variants.has('html-no-charset-meta')
            ? 'none'
            : variants.has('html-http-equiv-charset')
              ? 'http-equiv'
              : 'meta',
          alternativeMarkup: variants.has('html-alternative-markup'),
        }
      : undefined;
    this.#layer = wrap({
      error: (status, message, headers) => {
        const body: ErrorBody = errorBody(status, message);
        return {
          status,
          headers: { ...headers, 'Content-Type': this.#withParams(CONTENT_TYPES.json) },
          body: this.json(body),
        };
      },
      contentType: (rtn) => this.#withParams(CONTENT_TYPES[rtn]),
      table: (endpoint, records) => this.#tableOf(endpoint, records),
      text: (table) => renderText(table),
      html: (table, endpoint) => {
        const title = `tagtrack: ${endpoint.summary} (GET ${endpoint.path})`;
        return this.#html === undefined
          ? renderHtml(table, title)
          : renderHtmlDocument(table, title, this.#html);
      },
    });
  }

  /**
   * An error per spec §6: the JSON {@link ErrorBody} with a JSON Content-Type, whatever
   * `rtn` asked for.
   */
  error(status: number, message: string, headers: Record<string, string> = {}): Rendered {
    return this.#layer.error(status, message, headers);
  }

  /** The `Content-Type` of a successful response in format `rtn` (spec §8). */
  contentType(rtn: Rtn): string {
    return this.#layer.contentType(rtn);
  }

  /**
   * The body of a list response (spec §5, §8): `{ data, paging }` for json, the page's
   * records as a table for text and html. A `bigint` cursor in `paging` is written with all
   * its digits (docs/spec.md §5).
   */
  listBody(endpoint: Endpoint, records: readonly unknown[], paging: ExactPaging, rtn: Rtn): string {
    if (rtn === 'json') return this.json({ data: records, paging });
    return this.#table(endpoint, records, rtn);
  }

  /** The body of a single-object response: `{ data }` for json, a one-row table otherwise. */
  singleBody(endpoint: Endpoint, record: unknown, rtn: Rtn): string {
    if (rtn === 'json') return this.json({ data: record });
    return this.#table(endpoint, [record], rtn);
  }

  /**
   * A JSON text of `value`, equal by value to `JSON.stringify(value)` under every variant
   * (spec introduction): keys reversed (`json-keys-shuffled`), indented
   * (`json-pretty`), non-ASCII and `< > & '` as `\uXXXX` and `/` as `\/`
   * (`json-unicode-escapes`). A `bigint` is written as a number with all its digits (core's
   * `stringifyJson`: the exact `paging.cursors.previous` after a huge cursor).
   */
  json(value: unknown): string {
    const v = this.variants;
    const shaped = v.has('json-keys-shuffled') ? reverseKeys(value) : value;
    let text = v.has('json-pretty') ? `${stringifyJson(shaped, 2)}\n` : stringifyJson(shaped);
    // Outside strings JSON has only ASCII punctuation, digits and literals, so these
    // characters can only occur inside strings, where the escapes mean the same.
    if (v.has('json-unicode-escapes')) text = text.replace(ESCAPED, escapeChar);
    return text;
  }

  #withParams(contentType: string): string {
    if (!this.variants.has('content-type-params')) return contentType;
    const media = contentType.split(';')[0]!;
    return `${media}; version="1"; Charset=UTF-8`;
  }

  #table(endpoint: Endpoint, records: readonly unknown[], rtn: 'text' | 'html'): string {
    const table = this.#layer.table(endpoint, records, rtn);
    return rtn === 'text' ? this.#layer.text(table) : this.#layer.html(table, endpoint);
  }

  /** Core's {@link toTable}, with the table variants applied. */
  #tableOf(endpoint: Endpoint, records: readonly unknown[]): Table {
    const v = this.variants;
    let table = v.has('extra-fields')
      ? withExtraColumns(endpoint, records)
      : toTable(endpoint, records);
    if (v.has('empty-columns-dropped') && table.rows.length > 0) {
      const keep = table.columns.map((_, c) => table.rows.some((r) => (r[c] ?? '') !== ''));
      table = pick(table, (_, c) => keep[c]!);
    }
    if (v.has('columns-reordered')) {
      const n = table.columns.length;
      table = {
        columns: [...table.columns].reverse(),
        rows: table.rows.map((r) => Array.from({ length: n }, (_, c) => r[n - 1 - c] ?? '')),
      };
    }
    return table;
  }
}

function pick(table: Table, keep: (column: string, index: number) => boolean): Table {
  const idx = table.columns.map((c, i) => (keep(c, i) ? i : -1)).filter((i) => i >= 0);
  return {
    columns: idx.map((i) => table.columns[i]!),
    rows: table.rows.map((r) => idx.map((i) => r[i] ?? '')),
  };
}

/**
 * {@link toTable} plus one column per top-level scalar field the records carry beyond their
 * schema (spec §9 Revision 2: records may carry extra fields), so text and html carry
 * what json carries. Each record's rows (several for the event groups of 9 and 11) repeat
 * the record's extra values.
 */
function withExtraColumns(endpoint: Endpoint, records: readonly unknown[]): Table {
  const known = schemaKeys(endpoint);
  const extra: string[] = [];
  for (const r of records) {
    if (r === null || typeof r !== 'object') continue;
    for (const [k, value] of Object.entries(r)) {
      if (!known.has(k) && !extra.includes(k) && (value === null || typeof value !== 'object')) {
        extra.push(k);
      }
    }
  }
  const base = toTable(endpoint, []);
  if (extra.length === 0) return toTable(endpoint, records);
  const rows = records.flatMap((r) => {
    const cells = extra.map((k) => {
      const value = (r as Record<string, unknown>)[k];
      return value === undefined || value === null ? '' : String(value);
    });
    return toTable(endpoint, [r]).rows.map((row) => [...row, ...cells]);
  });
  return { columns: [...base.columns, ...extra], rows };
}

const SCHEMA_KEYS = new WeakMap<Endpoint, ReadonlySet<string>>();

function schemaKeys(endpoint: Endpoint): ReadonlySet<string> {
  let keys = SCHEMA_KEYS.get(endpoint);
  if (keys === undefined) {
    const record = endpoint.record;
    keys = new Set(record instanceof z.ZodObject ? Object.keys(record.shape) : []);
    SCHEMA_KEYS.set(endpoint, keys);
  }
  return keys;
}

/** `value` with every object's keys in reverse order (arrays keep their order). */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).reverse()) {
    out[k] = reverseKeys((value as Record<string, unknown>)[k]);
  }
  return out;
}

/** Characters written as escapes: all but printable ASCII (and `json-pretty`'s newlines). */
const ESCAPED = /[^\n\u0020-\u007e]|[<>&'/]/g;

function escapeChar(c: string): string {
  if (c === '/') return '\\/';
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
