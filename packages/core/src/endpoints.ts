import * as z from 'zod';
import { Contact } from './contact.ts';
import { Click, ClickGroup, DailyCounts, Open, OpenGroup } from './events.ts';
import { TeamMember } from './member.ts';
import { ListEnvelope, SingleEnvelope } from './paging.ts';
import {
  COMMON_QUERY,
  isRequired,
  type ParamName,
  type Parsed,
  QUERY_PARAMS,
  TAG_FILTERS,
} from './params.ts';
import { StatsSummary } from './stats.ts';
import { Tag } from './tag.ts';

/**
 * The endpoint catalogue, the single source for server, client, suite and documents: one
 * const object keyed by endpoint id (tRPC's router, Hono's typed routes), each entry with its
 * path template, ONE zod query schema (its own parameters, then `rtn`, `cursor`, `total`,
 * `next`; wire rules and defaults included) and its record schema. Everything else is
 * derived: the runtime fields (`pathParams`, `query`, `requiredQuery`), the types
 * {@link QueryOf}, {@link ParsedQueryOf}, {@link RecordOf}, {@link PathParamsOf}, the
 * client's methods, the CLI's flags and the OpenAPI parameters.
 */

/**
 * How an endpoint's answer is restricted to the caller (spec §4):
 * `members` the visible members; `tags` the visible members' tags; `events` events of
 * visible tags; `contacts` contacts of visible tags with counters over visible tags.
 * An id outside the scope answers 404.
 */
export type Scoping = 'members' | 'tags' | 'stats' | 'events' | 'contacts';

/**
 * The placeholders of a path template, in path order (Hono's `ParamKeys` over `{name}`):
 * `PathParamTuple<'/teams/member/{memberID}/tags'>` is `['memberID']`.
 */
export type PathParamTuple<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? [N, ...PathParamTuple<Rest>]
  : [];

/** What an entry of the catalogue is written with (see {@link ENDPOINTS}). */
interface EndpointDefinition<
  P extends string,
  S extends Partial<Record<ParamName, z.ZodType>>,
  R extends z.ZodType,
  Res extends 'list' | 'single',
> {
  /** Endpoint numbers in the source document's tables (`/stats` is both 6 and 13). */
  readonly numbers: readonly number[];
  /** Path template relative to the base URL, placeholders in braces. */
  readonly path: P;
  /** The endpoint's own query parameters, fields of `QUERY_PARAMS` in the source's order. */
  readonly query: z.ZodObject<S>;
  /** `list`: `{ data: [...], paging }`; `single`: `{ data: {...} }` (spec §5). */
  readonly response: Res;
  /** Schema of one record of `data`. */
  readonly record: R;
  readonly scoping: Scoping;
  readonly summary: string;
}

/**
 * Builds a catalogue entry: appends the common parameters to the query schema and derives
 * the runtime fields the server and the suite read (placeholders, parameter names, required
 * names).
 */
function endpoint<
  const P extends string,
  S extends Partial<Record<ParamName, z.ZodType>>,
  R extends z.ZodType,
  const Res extends 'list' | 'single',
>(def: EndpointDefinition<P, S, R, Res>) {
  const querySchema = def.query.extend(COMMON_QUERY);
  const shape: Record<string, z.ZodType> = (querySchema as z.ZodObject).shape;
  const query = Object.keys(shape) as ParamName[];
  const pathParams: readonly string[] = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return {
    numbers: def.numbers,
    method: 'GET' as const,
    path: def.path,
    pathParams: pathParams as Readonly<PathParamTuple<P>>,
    query: query as readonly ParamName[],
    requiredQuery: query.filter((name) => isRequired(shape[name]!)) as readonly ParamName[],
    querySchema,
    response: def.response,
    record: def.record,
    scoping: def.scoping,
    summary: def.summary,
  };
}

const { start, end, aggregateData, type, date } = QUERY_PARAMS;
const NONE = z.object({});
const MEMBER_QUERY = z.object({ type });
const WINDOW_QUERY = z.object({ start, end });
const TAG_QUERY = z.object({ start, end, ...TAG_FILTERS });
const STATS_QUERY = z.object({ start, end, aggregateData, type });

/**
 * The entries of the catalogue without their ids: all 17 endpoints of the source document,
 * with `/stats` (numbers 6 and 13, which share a path) and its alias `/teams/stats` (source:
 * "Team endpoints", note under the table; spec §6). Key order is catalogue order.
 */
const DEFINITIONS = {
  'teams.list': endpoint({
    numbers: [1],
    path: '/teams',
    query: MEMBER_QUERY,
    response: 'list',
    record: TeamMember,
    scoping: 'members',
    summary: 'Team members',
  }),
  'teams.tags': endpoint({
    numbers: [2],
    path: '/teams/tags',
    query: TAG_QUERY,
    response: 'list',
    record: Tag,
    scoping: 'tags',
    summary: 'All team tags with their counters',
  }),
  'teams.member': endpoint({
    numbers: [3],
    path: '/teams/member/{memberID}',
    query: NONE,
    response: 'single',
    record: TeamMember,
    scoping: 'members',
    summary: 'The member with that id',
  }),
  'teams.memberTags': endpoint({
    numbers: [4],
    path: '/teams/member/{memberID}/tags',
    query: TAG_QUERY,
    response: 'list',
    record: Tag,
    scoping: 'tags',
    summary: 'All tags of that member',
  }),
  'teams.group': endpoint({
    numbers: [5],
    path: '/teams/group/{group}',
    query: MEMBER_QUERY,
    response: 'list',
    record: TeamMember,
    scoping: 'members',
    summary: 'Members of the group with that id or name',
  }),
  'stats.team': endpoint({
    numbers: [6, 13],
    path: '/stats',
    query: STATS_QUERY,
    response: 'list',
    record: StatsSummary,
    scoping: 'stats',
    summary: 'Team statistics, one record per day or aggregated',
  }),
  'stats.teamAlias': endpoint({
    numbers: [6],
    path: '/teams/stats',
    query: STATS_QUERY,
    response: 'list',
    record: StatsSummary,
    scoping: 'stats',
    summary: 'Team statistics (the path of the source request example)',
  }),
  'stats.group': endpoint({
    numbers: [7],
    path: '/teams/stats/group/{group}',
    query: STATS_QUERY,
    response: 'list',
    record: StatsSummary,
    scoping: 'stats',
    summary: 'Statistics of the group with that id or name',
  }),
  'stats.member': endpoint({
    numbers: [8],
    path: '/teams/stats/member/{memberID}',
    query: z.object({ start, end, aggregateData }),
    response: 'list',
    record: StatsSummary,
    scoping: 'stats',
    summary: 'Statistics of the member',
  }),
  'clicks.list': endpoint({
    numbers: [9],
    path: '/clicks',
    query: WINDOW_QUERY,
    response: 'list',
    record: ClickGroup,
    scoping: 'events',
    summary: 'Clicks grouped by tag, each with recipient and details',
  }),
  'clicks.tag': endpoint({
    numbers: [10],
    path: '/clicks/tag/{tagID}',
    query: NONE,
    response: 'list',
    record: Click,
    scoping: 'events',
    summary: 'Clicks of one tag',
  }),
  'opens.list': endpoint({
    numbers: [11],
    path: '/opens',
    query: WINDOW_QUERY,
    response: 'list',
    record: OpenGroup,
    scoping: 'events',
    summary: 'Opens grouped by tag, each with recipient and details',
  }),
  'opens.tag': endpoint({
    numbers: [12],
    path: '/opens/tag/{tagID}',
    query: NONE,
    response: 'list',
    record: Open,
    scoping: 'events',
    summary: 'Opens of one tag',
  }),
  'tags.daily': endpoint({
    numbers: [14],
    path: '/tags/daily/{tagID}',
    query: z.object({ date }),
    response: 'single',
    record: DailyCounts,
    scoping: 'events',
    summary: 'Unique opens and clicks of the tag on the given day',
  }),
  'contacts.list': endpoint({
    numbers: [15],
    path: '/contacts',
    query: NONE,
    response: 'list',
    record: Contact,
    scoping: 'contacts',
    summary: 'All contacts',
  }),
  'contacts.get': endpoint({
    numbers: [16],
    path: '/contacts/{contactID}',
    query: NONE,
    response: 'single',
    record: Contact,
    scoping: 'contacts',
    summary: 'The contact with that id',
  }),
  'contacts.tag': endpoint({
    numbers: [17],
    path: '/contacts/tag/{tagID}',
    query: NONE,
    response: 'list',
    record: Contact,
    scoping: 'contacts',
    summary: 'Contacts of the tag with that id',
  }),
};

/** Stable ids of the catalogue's endpoints; the client's method names derive from them. */
export type EndpointId = keyof typeof DEFINITIONS;

/** The type of the catalogue: each entry as written, with its id. */
export type Catalogue = {
  readonly [Id in EndpointId]: (typeof DEFINITIONS)[Id] & { readonly id: Id };
};

/**
 * The endpoint catalogue keyed by id, e.g. `ENDPOINTS['teams.tags']`: each entry an
 * {@link Endpoint} whose types keep its path, query schema and record schema. Iterate with
 * {@link ENDPOINT_LIST}.
 */
export const ENDPOINTS: Catalogue = Object.fromEntries(
  Object.entries(DEFINITIONS).map(([id, entry]) => [id, { id, ...entry }]),
) as Catalogue;

/** Ids of the catalogue in catalogue order. */
export const ENDPOINT_IDS = Object.keys(DEFINITIONS) as readonly EndpointId[];

/** Placeholders that appear in path templates. `group` is a group id or a group name. */
export type PathParamName = PathParamTuple<Catalogue[EndpointId]['path']>[number];

/** One endpoint of the API as data, the runtime shape every entry of {@link ENDPOINTS} has. */
export interface Endpoint {
  readonly id: EndpointId;
  /** Endpoint numbers in the source document's tables (`/stats` is both 6 and 13). */
  readonly numbers: readonly number[];
  readonly method: 'GET';
  /** Path template relative to the base URL, placeholders in braces. */
  readonly path: string;
  /** The placeholders of `path`, in path order. */
  readonly pathParams: readonly PathParamName[];
  /** Every allowed query parameter, including `rtn`, `cursor`, `total` and `next`, in order. */
  readonly query: readonly ParamName[];
  /** The parameters a request must send (`date` on endpoint 14). */
  readonly requiredQuery: readonly ParamName[];
  /** The query schema: fields of `QUERY_PARAMS`, keys in the order of `query`. */
  readonly querySchema: z.ZodObject;
  /** `list`: `{ data: [...], paging }`; `single`: `{ data: {...} }` (spec §5). */
  readonly response: 'list' | 'single';
  /** Schema of one record of `data`. */
  readonly record: z.ZodType;
  readonly scoping: Scoping;
  readonly summary: string;
}

/**
 * The catalogue as an array in catalogue order, for code that iterates over endpoints. (This
 * assignment also checks every entry of {@link ENDPOINTS} against the runtime shape.)
 */
export const ENDPOINT_LIST: readonly Endpoint[] = ENDPOINT_IDS.map((id) => ENDPOINTS[id]);

/** The query schema of endpoint `Id`. */
export type QuerySchemaOf<Id extends EndpointId> = Catalogue[Id]['querySchema'];

/**
 * The query a client sends to endpoint `Id`, as typed values (booleans, numbers, days as
 * `YYYY-MM-DD`): every parameter optional except the required ones (`date` of `tags.daily`).
 * The wire form is `z.input` of the schema (strings); the codecs of `QUERY_PARAMS` relate both.
 */
export type QueryOf<Id extends EndpointId> = ClientQuery<QuerySchemaOf<Id>>;

/**
 * The client form of a query schema: the keys of its input (optional where the wire allows
 * absence: a default or `.optional()`), each with its output value type.
 */
type ClientQuery<S extends z.ZodObject> = {
  readonly [K in keyof z.input<S>]: K extends keyof S['shape']
    ?
        | Exclude<z.output<S['shape'][K]>, undefined>
        | (undefined extends z.input<S>[K] ? undefined : never)
    : never;
};

/** The parsed query of endpoint `Id`: defaults applied, `total` and `next` left out. */
export type ParsedQueryOf<Id extends EndpointId> = Parsed<z.output<QuerySchemaOf<Id>>>;

/** The type of one record of endpoint `Id`'s `data`: `RecordOf<'teams.tags'>` is `Tag`. */
export type RecordOf<Id extends EndpointId> = z.output<Catalogue[Id]['record']>;

/** `list` or `single` (spec §5). */
export type ResponseOf<Id extends EndpointId> = Catalogue[Id]['response'];

/** The path parameters of endpoint `Id` by name: `PathParamsOf<'contacts.get'>` is `{ contactID: string }`. */
export type PathParamsOf<Id extends EndpointId> = {
  readonly [K in PathParamTuple<Catalogue[Id]['path']>[number]]: string;
};

/** The catalogue entry with id `id` (typed precisely: `ENDPOINTS[id]`). */
export function endpointById(id: EndpointId): Endpoint {
  return ENDPOINTS[id];
}

/** A request path matched against the catalogue: the endpoint and decoded path parameters. */
export interface EndpointMatch {
  readonly endpoint: Endpoint;
  readonly pathParams: Partial<Record<PathParamName, string>>;
}

const SEGMENT_RE = /^[^/]+$/;

/** Each endpoint of {@link ENDPOINT_LIST} with its path template's segments, split once. */
const TEMPLATES = ENDPOINT_LIST.map((endpoint) => ({
  endpoint,
  segments: endpoint.path.split('/').slice(1),
}));

/**
 * Matches a request path (without query string, percent-encoded as received) against the
 * catalogue (spec §6 Revision 2): each segment is percent-decoded before matching
 * (`/%74eams` is `/teams`); dot segments and empty segments are not normalised, so a
 * trailing slash or `//` matches nothing. Returns `undefined` for an unknown path, or when a
 * segment is not valid percent-encoding.
 */
export function matchEndpoint(pathname: string): EndpointMatch | undefined {
  const parts = pathname.split('/');
  if (parts[0] !== '') return undefined;
  const segs: string[] = [];
  for (const raw of parts.slice(1)) {
    if (!SEGMENT_RE.test(raw)) return undefined;
    try {
      segs.push(decodeURIComponent(raw));
    } catch {
      return undefined;
    }
  }
  for (const { endpoint: e, segments: tpl } of TEMPLATES) {
    if (tpl.length !== segs.length) continue;
    const params: Partial<Record<PathParamName, string>> = {};
    let ok = true;
    for (let i = 0; i < tpl.length && ok; i++) {
      const t = tpl[i]!;
      const s = segs[i]!;
      if (t.startsWith('{')) params[t.slice(1, -1) as PathParamName] = s;
      else if (t !== s) ok = false;
    }
    if (ok) return { endpoint: e, pathParams: params };
  }
  return undefined;
}

/** Fills a path template with percent-encoded path parameters. Throws when one is missing. */
export function buildPath(
  e: Endpoint,
  pathParams: Partial<Record<PathParamName, string>> = {},
): string {
  return e.path.replace(/\{(\w+)\}/g, (_, name: PathParamName) => {
    const v = pathParams[name];
    if (v === undefined) throw new Error(`path parameter '${name}' is required by ${e.path}`);
    return encodeURIComponent(v);
  });
}

/**
 * The canonical form of a request path (spec §5 Revision 3): each segment
 * percent-decoded, then encoded as {@link buildPath} encodes a path parameter
 * (`encodeURIComponent`), so `/%74eams/tags` is `/teams/tags` and `/teams/group/Key Accounts`
 * is `/teams/group/Key%20Accounts`. A segment that is not valid percent-encoding is kept as
 * it is. Two paths name the same endpoint and resource exactly when their canonical forms
 * are equal (an encoded `/`, `%2F`, stays inside its segment). The path of a paging URL may
 * be the path as received or this form.
 */
export function canonicalPath(path: string): string {
  return path
    .split('/')
    .map((segment) => {
      try {
        return encodeURIComponent(decodeURIComponent(segment));
      } catch {
        return segment;
      }
    })
    .join('/');
}

const LIST_ENVELOPES = new WeakMap<z.ZodType, z.ZodType>();
const SINGLE_ENVELOPES = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The schema of the JSON body of a 200 answer of `e` (spec §5): `ListEnvelope` or
 * `SingleEnvelope` of its record schema. Built once per record schema and shared, so
 * endpoints with the same record (e.g. teams.tags and teams.memberTags) get the same object.
 */
export function envelopeSchema(e: Endpoint): z.ZodType {
  const cache = e.response === 'list' ? LIST_ENVELOPES : SINGLE_ENVELOPES;
  let schema = cache.get(e.record);
  if (schema === undefined) {
    schema = e.response === 'list' ? ListEnvelope(e.record) : SingleEnvelope(e.record);
    cache.set(e.record, schema);
  }
  return schema;
}
