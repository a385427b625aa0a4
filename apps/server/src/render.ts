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

/** A response before it becomes a `Response`: status, headers and body text. */
export interface Rendered {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * The stages of the render layer: each is a small function the {@link Renderer} calls, clean
 * unless a variant (`variants/render.ts`) or a fault (`faults/render.ts`) replaced it.
 */
export interface RenderLayer {
  /**
   * A JSON text of `value`, equal by value to `JSON.stringify(value)` (spec introduction). A
   * `bigint` is written as a number with all its digits (core's `stringifyJson`: the exact
   * `paging.cursors.previous` after a huge cursor).
   */
  json(value: unknown): string;
  /**
   * An error response (spec §6): status, headers (`headers` plus Content-Type), and the
   * JSON {@link ErrorBody} in the layer's `json`.
   */
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

/** The title of an html body of `endpoint`: `tagtrack: <summary> (GET <path>)`. */
export function htmlTitle(endpoint: Endpoint): string {
  return `tagtrack: ${endpoint.summary} (GET ${endpoint.path})`;
}

/**
 * The render layer (spec §6, §8): error bodies, Content-Type, and the bodies of list and
 * single responses in the three formats. `wrap` gets the clean {@link RenderLayer} and
 * returns the one to use: composition (`compose.ts`) passes it through the render variants
 * and faults. An error's body is written by the layer in use's `json`, so a variant of the
 * JSON form shapes errors too.
 */
export class Renderer {
  readonly #layer: RenderLayer;

  constructor(wrap: (clean: RenderLayer) => RenderLayer = (clean) => clean) {
    this.#layer = wrap({
      json: (value) => stringifyJson(value),
      error: (status, message, headers) => {
        const body: ErrorBody = errorBody(status, message);
        return {
          status,
          headers: { ...headers, 'Content-Type': CONTENT_TYPES.json },
          body: this.#layer.json(body),
        };
      },
      contentType: (rtn) => CONTENT_TYPES[rtn],
      table: (endpoint, records) => toTable(endpoint, records),
      text: (table) => renderText(table),
      html: (table, endpoint) => renderHtml(table, htmlTitle(endpoint)),
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
    if (rtn === 'json') return this.#layer.json({ data: records, paging });
    return this.#table(endpoint, records, rtn);
  }

  /** The body of a single-object response: `{ data }` for json, a one-row table otherwise. */
  singleBody(endpoint: Endpoint, record: unknown, rtn: Rtn): string {
    if (rtn === 'json') return this.#layer.json({ data: record });
    return this.#table(endpoint, [record], rtn);
  }

  #table(endpoint: Endpoint, records: readonly unknown[], rtn: 'text' | 'html'): string {
    const table = this.#layer.table(endpoint, records, rtn);
    return rtn === 'text' ? this.#layer.text(table) : this.#layer.html(table, endpoint);
  }
}
