import * as z from 'zod';
import { QueryParamError } from './errors.ts';
import { AccountType } from './member.ts';
import { exactCursor } from './paging.ts';
import { CalendarDate } from './values.ts';

/**
 * Query parameters, written once (spec §5, §6): {@link QUERY_PARAMS} holds one zod
 * schema per parameter, with its wire rule, its default and its description. The endpoint
 * catalogue composes its per-endpoint query schemas from these fields; parsing
 * ({@link parseQuery}), defaults ({@link defaultQueryParams}), the OpenAPI parameters, the
 * client's query types and the CLI's flags are all derived from them.
 *
 * A field is `[optional | default](<wire schema> or <codec wire ↔ value>).describe(...)`:
 * - the wire schema validates the raw, percent-decoded string (its messages and JSON
 *   Schema are the wire rules), e.g. `CalendarDate`, `Rtn`;
 * - a codec (`z.codec`) turns that string into the typed value the server reads and the
 *   client sends (`true` for `True`, `7` for `007`); `z.input` is the wire form, `z.output`
 *   the value.
 */

/** Response formats selected by `rtn` (source: "Common query parameter rtn"; spec §8). */
export const Rtn = z.enum(['json', 'text', 'html']).meta({ id: 'Rtn' });
export type Rtn = z.infer<typeof Rtn>;

/**
 * A boolean query value: `true`/`false`/`1`/`0` in any case (spec §6: the public clients
 * send `true`, `True` and `1`). Wire: the string, spelled case by case so that the JSON Schema
 * pattern (which has no `i` flag) says the same; value: the boolean (encoded as `true`/`false`).
 */
export const BooleanParam = z.codec(
  z
    .string()
    .regex(/^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$/, 'must be true, false, 1 or 0')
    .meta({ description: 'true, false, 1 or 0, case-insensitive (spec §6)' }),
  z.boolean(),
  { decode: (v) => v === '1' || v.toLowerCase() === 'true', encode: (b) => String(b) },
);

/**
 * A cursor: `[0-9]+`, a non-negative decimal integer offset; leading zeros allowed and no
 * size limit (spec §5 Revision 2). Read exactly: a `number` up to
 * `Number.MAX_SAFE_INTEGER`, a `bigint` above (core's `Cursor`), so the cursor arithmetic
 * (`previous` = cursor − pageSize) is exact for any cursor (docs/spec.md §5).
 */
export const CursorParam = z.codec(
  z.string().regex(/^[0-9]+$/, 'must be a non-negative integer'),
  z.union([z.int().nonnegative(), z.bigint().nonnegative()]),
  { decode: (v) => exactCursor(BigInt(v)), encode: (n) => String(n) },
);

/**
 * A calendar day parameter: wire and value are the same `YYYY-MM-DD` string
 * ({@link CalendarDate}). A codec so that describing a required day parameter keeps
 * `CalendarDate` itself as its wire schema (the OpenAPI document refers to it by id).
 */
export const DateParam = z.codec(CalendarDate, z.string(), {
  decode: (d) => d,
  encode: (d) => d,
});

/**
 * A parameter accepted and then ignored, whatever it holds, even empty or repeated
 * (spec §5, §6 Revision 2): any string on the wire; a client may give a number, sent in
 * decimal.
 */
export const IgnoredParam = z.codec(z.string(), z.union([z.string(), z.number()]), {
  decode: (v) => v,
  encode: (v) => String(v),
});

/**
 * Every query parameter the API knows, once: wire rule, default and description (source:
 * endpoint tables; spec §5, §6). The key order is the order of {@link PARAM_NAMES}.
 * `date` is required wherever it is taken (endpoint 14).
 */
export const QUERY_PARAMS = {
  rtn: Rtn.default('json').describe('Response format: json, text (TSV) or html (spec §8)'),
  cursor: CursorParam.default(0).describe(
    'Offset of the first record of the page (spec §5); ignored where nothing pages',
  ),
  total: IgnoredParam.optional().describe(
    'Accepted and ignored, whatever it holds (one public client echoes it back; spec §5)',
  ),
  next: IgnoredParam.optional().describe(
    'Accepted and ignored, whatever it holds (the Node client documents it; spec §5)',
  ),
  start: DateParam.optional().describe('First UTC day included, YYYY-MM-DD (inclusive; spec §6)'),
  end: DateParam.optional().describe('Last UTC day included, YYYY-MM-DD (inclusive; spec §6)'),
  isClicked: BooleanParam.default(false).describe('Only tags with uniqueClicks > 0'),
  isUnclicked: BooleanParam.default(false).describe('Only tags with totalClicks = 0'),
  isOpened: BooleanParam.default(false).describe('Only tags with uniqueOpens > 0'),
  isUnopened: BooleanParam.default(false).describe('Only tags with totalOpens = 0'),
  aggregateData: BooleanParam.default(false).describe(
    'Combine all stats records into one (spec §5)',
  ),
  type: AccountType.optional().describe('Only members of this account type'),
  date: DateParam.describe('The UTC day, YYYY-MM-DD'),
} as const;

/** Name of a query parameter. */
export type ParamName = keyof typeof QUERY_PARAMS;

/** Names of every query parameter the API knows, in the order of {@link QUERY_PARAMS}. */
export const PARAM_NAMES = Object.keys(QUERY_PARAMS) as readonly ParamName[];

const { rtn, cursor, total, next, isClicked, isUnclicked, isOpened, isUnopened } = QUERY_PARAMS;

/**
 * Parameters every endpoint accepts: `rtn`, `cursor`, and `total`/`next` (spec §5,
 * Revision 2: `next` is documented by the original Node client). The catalogue appends them
 * to every endpoint's own parameters.
 */
export const COMMON_QUERY = { rtn, cursor, total, next };

/** The four tag filters, a conjunction (spec §6). */
export const TAG_FILTERS = { isClicked, isUnclicked, isOpened, isUnopened };

/** Names of {@link COMMON_QUERY}, in order. */
export const COMMON_PARAMS = Object.keys(COMMON_QUERY) as readonly ParamName[];

/** Names of {@link TAG_FILTERS}, in order. */
export const TAG_FILTER_PARAMS = Object.keys(TAG_FILTERS) as readonly ParamName[];

/**
 * The wire schema of a query parameter field: the field without its `optional`/`default`
 * wrapper and, for a codec, its input side. Its JSON Schema is the parameter's in OpenAPI.
 */
export function wireSchema(field: z.ZodType): z.ZodType {
  if (field instanceof z.ZodOptional || field instanceof z.ZodDefault) {
    return wireSchema(field.unwrap() as z.ZodType);
  }
  if (field instanceof z.ZodPipe) return field.in as z.ZodType;
  return field;
}

/**
 * The value schema of a query parameter field: the field without its `optional`/`default`
 * wrapper and, for a codec, its output side (`z.boolean()` for a boolean parameter).
 */
export function valueSchema(field: z.ZodType): z.ZodType {
  if (field instanceof z.ZodOptional || field instanceof z.ZodDefault) {
    return valueSchema(field.unwrap() as z.ZodType);
  }
  if (field instanceof z.ZodPipe) return field.out as z.ZodType;
  return field;
}

/** The default value of a query parameter field (the typed value), or `undefined`. */
export function defaultOf(field: z.ZodType): unknown {
  return field instanceof z.ZodDefault ? field.def.defaultValue : undefined;
}

/** Whether a request must send the parameter (its field does not accept absence). */
export function isRequired(field: z.ZodType): boolean {
  return !field.safeParse(undefined).success;
}

/**
 * Parameters accepted on every endpoint and then ignored whatever they hold, even empty or
 * repeated (spec §5, §6 Revision 2): the public clients echo them back. Derived: the
 * parameters whose schema is {@link IgnoredParam}.
 */
export const IGNORED_PARAMS: ReadonlySet<string> = new Set<ParamName>(
  PARAM_NAMES.filter((name) => {
    const field: z.ZodType = QUERY_PARAMS[name];
    return field instanceof z.ZodOptional && field.unwrap() === IgnoredParam;
  }),
);

/** Names of the ignored parameters as a type (`total`, `next`). */
export type IgnoredParamName = {
  [K in ParamName]: (typeof QUERY_PARAMS)[K] extends z.ZodOptional<typeof IgnoredParam> ? K : never;
}[ParamName];

/**
 * The parsed form of a query schema's output: the ignored parameters left out, and an
 * optional parameter either absent or set (never present as `undefined`).
 */
export type Parsed<T> = {
  -readonly [K in keyof T as K extends IgnoredParamName ? never : K]: Exclude<T[K], undefined>;
};

/** Every parameter as a field of one object, `date` optional: the parsed query of any endpoint. */
const ANY_QUERY = z.object({ ...QUERY_PARAMS, date: QUERY_PARAMS.date.optional() });

/**
 * Parsed query parameters of one request (the output of {@link parseQuery}, derived from
 * {@link QUERY_PARAMS}). Parameters the endpoint does not take are absent; booleans, `rtn` and
 * `cursor` carry their defaults; `total` and `next` are never present.
 */
export type QueryParams = Parsed<z.output<typeof ANY_QUERY>>;

/**
 * The parsed query of a request that sends no parameters: every default of
 * {@link QUERY_PARAMS} (`rtn` json, `cursor` 0, every boolean false; spec §5, §6), with
 * `overrides` applied on top.
 */
export function defaultQueryParams(overrides: Partial<QueryParams> = {}): QueryParams {
  // zod leaves absent optional keys out, so no key holds `undefined`
  const defaults = ANY_QUERY.parse({}) as QueryParams;
  return { ...defaults, ...overrides };
}

/**
 * Why a query value could not be decoded (spec §6 Revision 3): a `%` not followed by two
 * hex digits (`malformed-escape`), or percent-decoded bytes that are not UTF-8 (`not-utf8`).
 */
export type UndecodableValue = 'malformed-escape' | 'not-utf8';

/**
 * One parameter of a query string as {@link parseQuery} reads it: the decoded name and value,
 * or, when the value cannot be decoded, the value exactly as sent and why
 * ({@link UndecodableValue}).
 */
export type QueryEntry = readonly [name: string, value: string, undecodable?: UndecodableValue];

/** A `%` not followed by two hex digits. */
const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * Decodes one name or value of an `application/x-www-form-urlencoded` query: `+` is a space
 * and `%XX` a byte; the bytes are read as UTF-8 (characters sent unescaped stay as they are).
 * Returns the decoded text, or why it cannot be decoded: a malformed escape, else bytes that
 * are not UTF-8 (`decodeURIComponent`'s UTF-8 reading: no overlong forms, no surrogates).
 */
export function decodeFormComponent(raw: string): string | { undecodable: UndecodableValue } {
  const text = raw.includes('+') ? raw.replace(/\+/g, ' ') : raw;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return { undecodable: MALFORMED_ESCAPE.test(text) ? 'malformed-escape' : 'not-utf8' };
  }
}

/**
 * Splits a raw query string (no leading `?`) into its parameters per spec §6 Revision 3
 * (`application/x-www-form-urlencoded`): pieces split on `&`; an empty piece (`a=1&&b=2`, a
 * trailing `&`, an empty query) is skipped; a piece without `=` is its name with an empty
 * value (`rtn` is `rtn=`); a piece may have an empty name (`=x`, then unknown to
 * {@link parseQuery}). Names and values are decoded with {@link decodeFormComponent}; a name
 * that cannot be decoded is kept as sent (it names no parameter), a value that cannot be
 * decoded is kept as sent and marked. Entries are in request order.
 */
export function parseQueryString(rawQuery: string): QueryEntry[] {
  const entries: QueryEntry[] = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const rawName = eq < 0 ? piece : piece.slice(0, eq);
    const rawValue = eq < 0 ? '' : piece.slice(eq + 1);
    const name = decodeFormComponent(rawName);
    const value = decodeFormComponent(rawValue);
    const decodedName = typeof name === 'string' ? name : rawName;
    entries.push(
      typeof value === 'string' ? [decodedName, value] : [decodedName, rawValue, value.undecodable],
    );
  }
  return entries;
}

const UNDECODABLE_REASON: Record<UndecodableValue, string> = {
  'malformed-escape': 'malformed percent-encoding (a % must be followed by two hex digits)',
  'not-utf8': 'its percent-encoded bytes are not UTF-8',
};

/** Options of {@link parseQuery}: which parameters are allowed and which are required. */
export interface ParseQueryOptions {
  readonly allowed: readonly ParamName[];
  readonly required?: readonly ParamName[];
}

function describeValue(raw: string): string {
  return raw.length > 40 ? `${JSON.stringify(raw.slice(0, 40))}…` : JSON.stringify(raw);
}

/** What a parameter's value should have been, from its wire schema (enum options, a day). */
function expectation(wire: z.ZodType, reason: string): string {
  if (wire instanceof z.ZodEnum) return `expected one of ${wire.options.join(', ')}`;
  if (wire === CalendarDate) return 'expected a real calendar day as YYYY-MM-DD';
  return reason;
}

/**
 * Parses and validates a request's query parameters per spec §6, with the rules of
 * {@link QUERY_PARAMS} (the fields the catalogue's query schemas are made of).
 *
 * `entries` are the decoded `[name, value]` pairs in request order (from
 * {@link parseQueryString}; a value that could not be decoded is a bad value); `options` names the allowed and required parameters (an endpoint's
 * `query` and `requiredQuery`). Throws {@link QueryParamError} (status 400) naming the
 * parameter, for the first offending entry in request order: `unknown_parameter` (message
 * lists the allowed ones), `repeated_parameter`, `invalid_value` (bad date, boolean, enum or
 * cursor; an empty value is a bad value; so is a value that could not be decoded, echoed as
 * sent); then `missing_parameter`, and `invalid_range`
 * (`start` after `end`). `total` and `next` are skipped whatever they hold, even empty or
 * repeated (spec §6 Revision 2). Returns the defaults of every parameter with the sent
 * values on top.
 */
export function parseQuery(entries: Iterable<QueryEntry>, options: ParseQueryOptions): QueryParams {
  const allowed = new Set<string>(options.allowed);
  const seen = new Set<string>();
  const values: Record<string, unknown> = {};
  for (const [name, raw, undecodable] of entries) {
    if (IGNORED_PARAMS.has(name) && allowed.has(name)) continue;
    if (!allowed.has(name)) {
      throw new QueryParamError(
        'unknown_parameter',
        name,
        `unknown query parameter ${describeValue(name)}; allowed: ${options.allowed.join(', ')}`,
      );
    }
    if (seen.has(name)) {
      throw new QueryParamError(
        'repeated_parameter',
        name,
        `query parameter '${name}' is repeated`,
      );
    }
    seen.add(name);
    if (undecodable !== undefined) {
      throw new QueryParamError(
        'invalid_value',
        name,
        `invalid value ${describeValue(raw)} for query parameter '${name}': ${UNDECODABLE_REASON[undecodable]}`,
      );
    }
    const field: z.ZodType = QUERY_PARAMS[name as ParamName];
    const parsed = field.safeParse(raw);
    if (!parsed.success) {
      const reason = parsed.error.issues[0]?.message ?? 'invalid value';
      throw new QueryParamError(
        'invalid_value',
        name,
        `invalid value ${describeValue(raw)} for query parameter '${name}': ${expectation(wireSchema(field), reason)}`,
      );
    }
    values[name] = parsed.data;
  }
  for (const name of options.required ?? []) {
    if (!seen.has(name)) throw missingParameter(name);
  }
  const out: QueryParams = { ...defaultQueryParams(), ...values };
  if (out.start !== undefined && out.end !== undefined && out.start > out.end) {
    throw new QueryParamError(
      'invalid_range',
      'start',
      `query parameter 'start' (${out.start}) is after 'end' (${out.end})`,
    );
  }
  return out;
}

/**
 * The {@link QueryParamError} (`missing_parameter`, status 400) for a required parameter
 * `name` that the request did not send (spec §6); the message names it and says what it
 * is (its description in {@link QUERY_PARAMS}).
 */
export function missingParameter(name: ParamName): QueryParamError {
  return new QueryParamError(
    'missing_parameter',
    name,
    `query parameter '${name}' is required (${QUERY_PARAMS[name].description})`,
  );
}
