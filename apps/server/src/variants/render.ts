import { type Endpoint, stringifyJson, type Table, toTable } from '@tagtrack/core';
import * as z from 'zod';
import { htmlTitle, type RenderLayer } from '../render.ts';
import { type HtmlOptions, renderHtmlDocument } from '../render-html.ts';
import type { VariantSet } from './index.ts';

/**
 * The render variants (layer `render`): the JSON form (`json-keys-shuffled`, `json-pretty`,
 * `json-unicode-escapes`), Content-Type parameters (`content-type-params`), the text and html
 * tables (`extra-fields`' extra columns, `empty-columns-dropped`, `columns-reordered`) and
 * the html document (`html-no-thead`, `html-http-equiv-charset`, `html-no-charset-meta`,
 * `html-alternative-markup`). Each replaces the stage of the clean {@link RenderLayer} it
 * varies; without a render variant the layer is returned as it is.
 */
export function withRenderVariants(layer: RenderLayer, variants: VariantSet): RenderLayer {
  let out = layer;
  const json = jsonForm(variants);
  if (json !== undefined) out = { ...out, json };
  if (variants.has('content-type-params')) {
    const inner = out;
    out = {
      ...out,
      contentType: (rtn) => withParams(inner.contentType(rtn)),
      error: (status, message, headers) => {
        const r = inner.error(status, message, headers);
        const type = r.headers['Content-Type'];
        return type === undefined
          ? r
          : { ...r, headers: { ...r.headers, 'Content-Type': withParams(type) } };
      },
    };
  }
  if (variants.hasAny(['extra-fields', 'empty-columns-dropped', 'columns-reordered'])) {
    const inner = out;
    out = {
      ...out,
      table: (endpoint, records, rtn) => tableOf(inner, variants, endpoint, records, rtn),
    };
  }
  const html = htmlOptions(variants);
  if (html !== undefined)
    out = {
      ...out,
      html: (table, endpoint) => renderHtmlDocument(table, htmlTitle(endpoint), html),
    };
  return out;
}

/**
 * The JSON text of the JSON form variants, equal by value to `JSON.stringify(value)` (spec
 * introduction): keys reversed (`json-keys-shuffled`), indented (`json-pretty`), non-ASCII
 * and `< > & '` as `\uXXXX` and `/` as `\/` (`json-unicode-escapes`); undefined without one.
 */
function jsonForm(variants: VariantSet): ((value: unknown) => string) | undefined {
  if (!variants.hasAny(['json-keys-shuffled', 'json-pretty', 'json-unicode-escapes']))
    return undefined;
  return (value) => {
    const shaped = variants.has('json-keys-shuffled') ? reverseKeys(value) : value;
    let text = variants.has('json-pretty')
      ? `${stringifyJson(shaped, 2)}\n`
      : stringifyJson(shaped);
    // Outside strings JSON has only ASCII punctuation, digits and literals, so these
    // characters can only occur inside strings, where the escapes mean the same.
    if (variants.has('json-unicode-escapes')) text = text.replace(ESCAPED, escapeChar);
    return text;
  };
}

/** Variant `content-type-params`: `media; version="1"; Charset=UTF-8`. */
function withParams(contentType: string): string {
  const media = contentType.split(';')[0]!;
  return `${media}; version="1"; Charset=UTF-8`;
}

/** The html document options of the html variants, or undefined without one. */
function htmlOptions(variants: VariantSet): HtmlOptions | undefined {
  if (
    !variants.hasAny([
      'html-no-thead',
      'html-http-equiv-charset',
      'html-no-charset-meta',
      'html-alternative-markup',
    ])
  )
    return undefined;
  return {
    thead: !variants.has('html-no-thead'),
    charset: variants.has('html-no-charset-meta')
      ? 'none'
      : variants.has('html-http-equiv-charset')
        ? 'http-equiv'
        : 'meta',
    alternativeMarkup: variants.has('html-alternative-markup'),
  };
}

/** The table of `inner` (or with `extra-fields`' columns), with the table variants applied. */
function tableOf(
  inner: RenderLayer,
  variants: VariantSet,
  endpoint: Endpoint,
  records: readonly unknown[],
  rtn: 'text' | 'html',
): Table {
  let table = variants.has('extra-fields')
    ? withExtraColumns(endpoint, records)
    : inner.table(endpoint, records, rtn);
  if (variants.has('empty-columns-dropped') && table.rows.length > 0) {
    const keep = table.columns.map((_, c) => table.rows.some((r) => (r[c] ?? '') !== ''));
    table = pick(table, (_, c) => keep[c]!);
  }
  if (variants.has('columns-reordered')) {
    const n = table.columns.length;
    table = {
      columns: [...table.columns].reverse(),
      rows: table.rows.map((r) => Array.from({ length: n }, (_, c) => r[n - 1 - c] ?? '')),
    };
  }
  return table;
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
