import * as z from 'zod';
import { QueryParamError } from './errors.ts';
import { AccountType } from './member.ts';
import { CalendarDate } from './values.ts';

/** Response formats selected by `rtn` (source: "Common query parameter rtn"; decisions §7). */
export const Rtn = z.enum(['json', 'text', 'html']).meta({ id: 'Rtn' });
export type Rtn = z.infer<typeof Rtn>;

/** Names of every query parameter the API knows (source: endpoint tables; decisions §3, §4). */
export const PARAM_NAMES = [
  'rtn',
  'cursor',
  'total',
  'next',
  'start',
  'end',
  'isClicked',
  'isUnclicked',
  'isOpened',
  'isUnopened',
  'aggregateData',
  'type',
  'date',
] as const;
export type ParamName = (typeof PARAM_NAMES)[number];

/**
 * Parameters every endpoint accepts: `rtn`, `cursor`, and `total`/`next` (decisions §3,
 * Revision 2: `next` is documented by the original Node client).
 */
export const COMMON_PARAMS = [
  'rtn',
  'cursor',
  'total',
  'next',
] as const satisfies readonly ParamName[];

/**
 * Parameters accepted on every endpoint and then ignored whatever they hold, even empty or
 * repeated (decisions §3, §4 Revision 2): the public clients echo them back.
 */
export const IGNORED_PARAMS: ReadonlySet<string> = new Set<ParamName>(['total', 'next']);

/** The four tag filters, a conjunction (decisions §4). */
export const TAG_FILTER_PARAMS = [
  'isClicked',
  'isUnclicked',
  'isOpened',
  'isUnopened',
] as const satisfies readonly ParamName[];

const BOOLEAN_RE = /^(true|false|1|0)$/i;

/**
 * A boolean query value: `true`/`false`/`1`/`0` in any case (decisions §4: the public clients
 * send `true`, `True` and `1`).
 */
export const BooleanParam = z
  .string()
  .regex(BOOLEAN_RE, 'must be true, false, 1 or 0')
  .transform((v) => v === '1' || v.toLowerCase() === 'true');

/** The wire form of a boolean for the OpenAPI document: what {@link BooleanParam} accepts. */
const BOOLEAN_WIRE = z
  .string()
  .regex(/^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$/)
  .meta({ description: 'true, false, 1 or 0, case-insensitive (decisions §4)' });

/**
 * A cursor: `[0-9]+`, a non-negative decimal integer offset; leading zeros allowed and no
 * size limit (decisions §3 Revision 2). A cursor beyond `Number.MAX_SAFE_INTEGER` is read
 * as that number: it is past the end of any list either way.
 */
export const CursorParam = z
  .string()
  .regex(/^[0-9]+$/, 'must be a non-negative integer')
  .transform((v) => Math.min(Number(v), Number.MAX_SAFE_INTEGER));

/** How one query parameter is spelled on the wire, parsed, and defaulted. */
export interface ParamSpec {
  readonly name: ParamName;
  /** Parses the raw (percent-decoded) string into the typed value. */
  readonly schema: z.ZodType<unknown, string>;
  /** JSON-schema-friendly description of the wire value, for the OpenAPI document. */
  readonly wire: z.ZodType;
  /** Value when the parameter is absent (`undefined`: no default). */
  readonly default: unknown;
  readonly description: string;
}

/** Every query parameter's rule (decisions §3, §4). */
export const PARAMS: { readonly [K in ParamName]: ParamSpec } = {
  rtn: {
    name: 'rtn',
    schema: Rtn,
    wire: Rtn,
    default: 'json',
    description: 'Response format: json, text (TSV) or html (decisions §7)',
  },
  cursor: {
    name: 'cursor',
    schema: CursorParam,
    wire: z.string().regex(/^[0-9]+$/),
    default: 0,
    description:
      'Offset of the first record of the page (decisions §3); ignored where nothing pages',
  },
  total: {
    name: 'total',
    schema: z.string(),
    wire: z.string(),
    default: undefined,
    description:
      'Accepted and ignored, whatever it holds (one public client echoes it back; decisions §3)',
  },
  next: {
    name: 'next',
    schema: z.string(),
    wire: z.string(),
    default: undefined,
    description:
      'Accepted and ignored, whatever it holds (the Node client documents it; decisions §3)',
  },
  start: {
    name: 'start',
    schema: CalendarDate,
    wire: CalendarDate,
    default: undefined,
    description: 'First UTC day included, YYYY-MM-DD (inclusive; decisions §4)',
  },
  end: {
    name: 'end',
    schema: CalendarDate,
    wire: CalendarDate,
    default: undefined,
    description: 'Last UTC day included, YYYY-MM-DD (inclusive; decisions §4)',
  },
  isClicked: {
    name: 'isClicked',
    schema: BooleanParam,
    wire: BOOLEAN_WIRE,
    default: false,
    description: 'Only tags with uniqueClicks > 0',
  },
  isUnclicked: {
    name: 'isUnclicked',
    schema: BooleanParam,
    wire: BOOLEAN_WIRE,
    default: false,
    description: 'Only tags with totalClicks = 0',
  },
  isOpened: {
    name: 'isOpened',
    schema: BooleanParam,
    wire: BOOLEAN_WIRE,
    default: false,
    description: 'Only tags with uniqueOpens > 0',
  },
  isUnopened: {
    name: 'isUnopened',
    schema: BooleanParam,
    wire: BOOLEAN_WIRE,
    default: false,
    description: 'Only tags with totalOpens = 0',
  },
  aggregateData: {
    name: 'aggregateData',
    schema: BooleanParam,
    wire: BOOLEAN_WIRE,
    default: false,
    description: 'Combine all stats records into one (decisions §3)',
  },
  type: {
    name: 'type',
    schema: AccountType,
    wire: AccountType,
    default: undefined,
    description: 'Only members of this account type',
  },
  date: {
    name: 'date',
    schema: CalendarDate,
    wire: CalendarDate,
    default: undefined,
    description: 'The UTC day, YYYY-MM-DD',
  },
};

/**
 * Parsed query parameters of one request. Parameters the endpoint does not take are absent;
 * booleans and `cursor` carry their defaults.
 */
export interface QueryParams {
  rtn: Rtn;
  cursor: number;
  start?: CalendarDate;
  end?: CalendarDate;
  isClicked: boolean;
  isUnclicked: boolean;
  isOpened: boolean;
  isUnopened: boolean;
  aggregateData: boolean;
  type?: AccountType;
  date?: CalendarDate;
}

/**
 * The parsed query of a request that sends no parameters: `rtn` json, `cursor` 0, every
 * boolean false (decisions §3, §4), with `overrides` applied on top.
 */
export function defaultQueryParams(overrides: Partial<QueryParams> = {}): QueryParams {
  return {
    rtn: 'json',
    cursor: 0,
    isClicked: false,
    isUnclicked: false,
    isOpened: false,
    isUnopened: false,
    aggregateData: false,
    ...overrides,
  };
}

/** Options of {@link parseQuery}: which parameters are allowed and which are required. */
export interface ParseQueryOptions {
  readonly allowed: readonly ParamName[];
  readonly required?: readonly ParamName[];
}

function describeValue(raw: string): string {
  return raw.length > 40 ? `${JSON.stringify(raw.slice(0, 40))}…` : JSON.stringify(raw);
}

/**
 * Parses and validates a request's query parameters per decisions §4.
 *
 * `entries` are the decoded `[name, value]` pairs in request order (e.g. from
 * `URLSearchParams`). Throws {@link QueryParamError} (status 400) naming the parameter:
 * `unknown_parameter` (message lists the allowed ones), `repeated_parameter`,
 * `invalid_value` (bad date, boolean, enum or cursor; an empty value is a bad value),
 * `missing_parameter`, and `invalid_range` (`start` after `end`). `total` and `next` are
 * skipped whatever they hold, even empty or repeated (decisions §4 Revision 2).
 */
export function parseQuery(
  entries: Iterable<readonly [string, string]>,
  options: ParseQueryOptions,
): QueryParams {
  const allowed = new Set<string>(options.allowed);
  const seen = new Set<string>();
  const out = defaultQueryParams();
  const values = out as unknown as Record<string, unknown>;
  for (const [name, raw] of entries) {
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
    const spec = PARAMS[name as ParamName];
    const parsed = spec.schema.safeParse(raw);
    if (!parsed.success) {
      const reason = parsed.error.issues[0]?.message ?? 'invalid value';
      throw new QueryParamError(
        'invalid_value',
        name,
        `invalid value ${describeValue(raw)} for query parameter '${name}': ${expectation(name as ParamName, reason)}`,
      );
    }
    values[name] = parsed.data;
  }
  for (const name of options.required ?? []) {
    if (!seen.has(name)) throw missingParameter(name);
  }
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
 * `name` that the request did not send (decisions §4); the message names it and says what it is.
 */
export function missingParameter(name: ParamName): QueryParamError {
  return new QueryParamError(
    'missing_parameter',
    name,
    `query parameter '${name}' is required (${PARAMS[name].description})`,
  );
}

function expectation(name: ParamName, reason: string): string {
  switch (name) {
    case 'start':
    case 'end':
    case 'date':
      return 'expected a real calendar day as YYYY-MM-DD';
    case 'rtn':
      return 'expected one of json, text, html';
    case 'type':
      return 'expected one of admin, manager, user';
    default:
      return reason;
  }
}
