import type * as z from 'zod';
import { Contact } from './contact.ts';
import { Click, ClickGroup, DailyCounts, Open, OpenGroup } from './events.ts';
import { TeamMember } from './member.ts';
import { ListEnvelope, SingleEnvelope } from './paging.ts';
import { COMMON_PARAMS, type ParamName, TAG_FILTER_PARAMS } from './params.ts';
import { StatsSummary } from './stats.ts';
import { Tag } from './tag.ts';

/** Stable ids of the catalogue's endpoints; the client's method names derive from them. */
export const ENDPOINT_IDS = [
  'teams.list',
  'teams.tags',
  'teams.member',
  'teams.memberTags',
  'teams.group',
  'stats.team',
  'stats.teamAlias',
  'stats.group',
  'stats.member',
  'clicks.list',
  'clicks.tag',
  'opens.list',
  'opens.tag',
  'tags.daily',
  'contacts.list',
  'contacts.get',
  'contacts.tag',
] as const;
export type EndpointId = (typeof ENDPOINT_IDS)[number];

/** Placeholders that appear in path templates. `group` is a group id or a group name. */
export type PathParamName = 'memberID' | 'group' | 'tagID' | 'contactID';

/**
 * How an endpoint's answer is restricted to the caller (decisions §2):
 * `members` the visible members; `tags` the visible members' tags; `events` events of
 * visible tags; `contacts` contacts of visible tags with counters over visible tags.
 * An id outside the scope answers 404.
 */
export type Scoping = 'members' | 'tags' | 'stats' | 'events' | 'contacts';

/** One endpoint of the API as data: the single source for server, client and suite. */
export interface Endpoint {
  readonly id: EndpointId;
  /** Endpoint numbers in the source document's tables (`/stats` is both 6 and 13). */
  readonly numbers: readonly number[];
  readonly method: 'GET';
  /** Path template relative to the base URL, placeholders in braces. */
  readonly path: string;
  readonly pathParams: readonly PathParamName[];
  /** Every allowed query parameter, including `rtn`, `cursor` and `total`. */
  readonly query: readonly ParamName[];
  readonly requiredQuery: readonly ParamName[];
  /** `list`: `{ data: [...], paging }`; `single`: `{ data: {...} }` (decisions §3). */
  readonly response: 'list' | 'single';
  /** Schema of one record of `data`. */
  readonly record: z.ZodType;
  readonly scoping: Scoping;
  readonly summary: string;
}

const TAG_QUERY = ['start', 'end', ...TAG_FILTER_PARAMS] as const;

function endpoint(
  e: Omit<Endpoint, 'method' | 'query' | 'requiredQuery' | 'pathParams'> & {
    query?: readonly ParamName[];
    requiredQuery?: readonly ParamName[];
  },
): Endpoint {
  const pathParams = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as PathParamName);
  return {
    ...e,
    method: 'GET',
    pathParams,
    query: [...(e.query ?? []), ...COMMON_PARAMS],
    requiredQuery: e.requiredQuery ?? [],
  };
}

/**
 * The endpoint catalogue: all 17 endpoints of the source document, with `/stats` (numbers 6
 * and 13, which share a path) and its alias `/teams/stats` (source: "Team endpoints", note
 * under the table; decisions §4).
 */
export const ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    id: 'teams.list',
    numbers: [1],
    path: '/teams',
    query: ['type'],
    response: 'list',
    record: TeamMember,
    scoping: 'members',
    summary: 'Team members',
  }),
  endpoint({
    id: 'teams.tags',
    numbers: [2],
    path: '/teams/tags',
    query: TAG_QUERY,
    response: 'list',
    record: Tag,
    scoping: 'tags',
    summary: 'All team tags with their counters',
  }),
  endpoint({
    id: 'teams.member',
    numbers: [3],
    path: '/teams/member/{memberID}',
    response: 'single',
    record: TeamMember,
    scoping: 'members',
    summary: 'The member with that id',
  }),
  endpoint({
    id: 'teams.memberTags',
    numbers: [4],
    path: '/teams/member/{memberID}/tags',
    query: TAG_QUERY,
    response: 'list',
    record: Tag,
    scoping: 'tags',
    summary: 'All tags of that member',
  }),
  endpoint({
    id: 'teams.group',
    numbers: [5],
    path: '/teams/group/{group}',
    query: ['type'],
    response: 'list',
    record: TeamMember,
    scoping: 'members',
    summary: 'Members of the group with that id or name',
  }),
  endpoint({
    id: 'stats.team',
    numbers: [6, 13],
    path: '/stats',
    query: ['start', 'end', 'aggregateData', 'type'],
    response: 'list',
    record: StatsSummary,
    scoping: 'stats',
    summary: 'Team statistics, one record per day or aggregated',
  }),
  endpoint({
    id: 'stats.teamAlias',
    numbers: [6],
    path: '/teams/stats',
    query: ['start', 'end', 'aggregateData', 'type'],
    response: 'list',
    record: StatsSummary,
    scoping: 'stats',
    summary: 'Team statistics (the path of the source request example)',
  }),
  endpoint({
    id: 'stats.group',
    numbers: [7],
    path: '/teams/stats/group/{group}',
    query: ['start', 'end', 'aggregateData', 'type'],
    response: 'list',
    record: StatsSummary,
    scoping: 'stats',
    summary: 'Statistics of the group with that id or name',
  }),
  endpoint({
    id: 'stats.member',
    numbers: [8],
    path: '/teams/stats/member/{memberID}',
    query: ['start', 'end', 'aggregateData'],
    response: 'list',
    record: StatsSummary,
    scoping: 'stats',
    summary: 'Statistics of the member',
  }),
  endpoint({
    id: 'clicks.list',
    numbers: [9],
    path: '/clicks',
    query: ['start', 'end'],
    response: 'list',
    record: ClickGroup,
    scoping: 'events',
    summary: 'Clicks grouped by tag, each with recipient and details',
  }),
  endpoint({
    id: 'clicks.tag',
    numbers: [10],
    path: '/clicks/tag/{tagID}',
    response: 'list',
    record: Click,
    scoping: 'events',
    summary: 'Clicks of one tag',
  }),
  endpoint({
    id: 'opens.list',
    numbers: [11],
    path: '/opens',
    query: ['start', 'end'],
    response: 'list',
    record: OpenGroup,
    scoping: 'events',
    summary: 'Opens grouped by tag, each with recipient and details',
  }),
  endpoint({
    id: 'opens.tag',
    numbers: [12],
    path: '/opens/tag/{tagID}',
    response: 'list',
    record: Open,
    scoping: 'events',
    summary: 'Opens of one tag',
  }),
  endpoint({
    id: 'tags.daily',
    numbers: [14],
    path: '/tags/daily/{tagID}',
    query: ['date'],
    requiredQuery: ['date'],
    response: 'single',
    record: DailyCounts,
    scoping: 'events',
    summary: 'Unique opens and clicks of the tag on the given day',
  }),
  endpoint({
    id: 'contacts.list',
    numbers: [15],
    path: '/contacts',
    response: 'list',
    record: Contact,
    scoping: 'contacts',
    summary: 'All contacts',
  }),
  endpoint({
    id: 'contacts.get',
    numbers: [16],
    path: '/contacts/{contactID}',
    response: 'single',
    record: Contact,
    scoping: 'contacts',
    summary: 'The contact with that id',
  }),
  endpoint({
    id: 'contacts.tag',
    numbers: [17],
    path: '/contacts/tag/{tagID}',
    response: 'list',
    record: Contact,
    scoping: 'contacts',
    summary: 'Contacts of the tag with that id',
  }),
];

const BY_ID = new Map(ENDPOINTS.map((e) => [e.id, e]));

/** The catalogue entry with id `id`. */
export function endpointById(id: EndpointId): Endpoint {
  return BY_ID.get(id)!;
}

/** A request path matched against the catalogue: the endpoint and decoded path parameters. */
export interface EndpointMatch {
  readonly endpoint: Endpoint;
  readonly pathParams: Partial<Record<PathParamName, string>>;
}

const SEGMENT_RE = /^[^/]+$/;

/**
 * Matches a request path (without query string, percent-encoded as received) against the
 * catalogue (decisions §4 Revision 2): each segment is percent-decoded before matching
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
  for (const e of ENDPOINTS) {
    const tpl = e.path.split('/').slice(1);
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

const LIST_ENVELOPES = new WeakMap<z.ZodType, z.ZodType>();
const SINGLE_ENVELOPES = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The schema of the JSON body of a 200 answer of `e` (decisions §3): `ListEnvelope` or
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
