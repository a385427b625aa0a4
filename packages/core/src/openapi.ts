import * as z from 'zod';
import { ENDPOINT_LIST, type Endpoint, envelopeSchema, type PathParamName } from './endpoints.ts';
import { ErrorBody } from './errors.ts';
import { tableColumns } from './formats.ts';
import { defaultOf, QUERY_PARAMS, wireSchema } from './params.ts';

/**
 * The OpenAPI 3.1 document of the reference profile `tagtrack/v1`, generated from the zod
 * schemas (`z.toJSONSchema`) and the endpoint catalogue: records and envelopes from the record
 * schemas, query parameters from each endpoint's query schema (wire schema, default,
 * description, required). Nothing here lists a field by hand.
 */

/** Options of {@link openApiDocument}. */
export interface OpenApiOptions {
  /** The `servers[0].url`; default `/` (relative to where the document is served). */
  readonly serverUrl?: string;
}

type Json = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';
const ref = (id: string): Json => ({ $ref: `${SCHEMA_REF}${id}` });

function globalId(schema: z.ZodType): string | undefined {
  return z.globalRegistry.get(schema)?.id;
}

function recordId(e: Endpoint): string {
  const id = globalId(e.record);
  if (id === undefined) throw new Error(`openapi: the record schema of ${e.id} has no meta id`);
  return id;
}

/** Component name of the 200 JSON body of `e`: `<Record>List` or `<Record>Response`. */
function envelopeId(e: Endpoint): string {
  return `${recordId(e)}${e.response === 'list' ? 'List' : 'Response'}`;
}

/**
 * Converts the envelopes, `ErrorBody` and the parameter schemas to JSON Schema components.
 * Every schema with a `.meta({ id })` that they reach becomes its own component, referenced
 * by `$ref` (zod would otherwise collect them under `__shared`).
 */
function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  const add = (schema: z.ZodType, id: string) => {
    if (!registry.has(schema)) registry.add(schema, { id });
  };
  const envelopes = new Map<string, z.ZodType>();
  for (const e of ENDPOINT_LIST) {
    const id = envelopeId(e);
    if (!envelopes.has(id)) {
      envelopes.set(id, envelopeSchema(e));
    }
  }
  for (const [id, schema] of envelopes) add(schema, id);
  add(ErrorBody, 'ErrorBody');
  for (const field of Object.values(QUERY_PARAMS)) {
    const wire = wireSchema(field);
    const id = globalId(wire);
    if (id !== undefined) add(wire, id);
  }
  for (;;) {
    const out = z.toJSONSchema(registry, { uri: (id) => `${SCHEMA_REF}${id}` }) as {
      schemas: Record<string, Json>;
    };
    const shared = out.schemas.__shared?.$defs as Record<string, unknown> | undefined;
    if (shared === undefined) {
      for (const schema of Object.values(out.schemas)) {
        delete schema.$schema;
        delete schema.$id;
      }
      return out.schemas;
    }
    for (const id of Object.keys(shared)) {
      const schema = z.globalRegistry._idmap.get(id);
      if (schema === undefined) throw new Error(`openapi: no schema with meta id '${id}'`);
      add(schema as z.ZodType, id);
    }
  }
}

/**
 * The OpenAPI schema of a query parameter field: its wire schema (a `$ref` when it has a meta
 * id), with the default in wire form (`String` of the typed default: `false`, `0`, `json`).
 */
function parameterSchema(field: z.ZodType): Json {
  const wire = wireSchema(field);
  const id = globalId(wire);
  const schema: Json =
    id === undefined
      ? (() => {
          const { $schema: _, ...rest } = z.toJSONSchema(wire) as Json;
          return rest;
        })()
      : ref(id);
  const value = defaultOf(field);
  if (value !== undefined) schema.default = String(value);
  return schema;
}

const PATH_PARAMS: Readonly<Record<PathParamName, { schema: Json; description: string }>> = {
  memberID: { schema: ref('Id'), description: 'A member id' },
  tagID: { schema: ref('Id'), description: 'A tag id' },
  contactID: { schema: ref('Id'), description: 'A contact id' },
  group: {
    schema: { type: 'string', minLength: 1 },
    description:
      'A group id (matched exactly first) or else an exact, case-sensitive group name among the groups the caller sees; several groups of that name: the lowest groupID (spec §4, §6)',
  },
};

/**
 * Descriptions of the operation tags: the first path segment of each catalogue endpoint
 * (`openApiDocument` throws on a segment without one, so a new endpoint group needs one).
 */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  teams:
    'Members of the teams the caller sees, their tags, and the statistics of a team, a group or a member (endpoints 1–8; scoping spec §4)',
  stats:
    'Statistics summaries of the tags the caller sees, per UTC day or aggregated (endpoints 6 and 13, one path; spec §10)',
  clicks: 'Click events of the visible tags, grouped by tag or of one tag (endpoints 9 and 10)',
  opens: 'Open events of the visible tags, grouped by tag or of one tag (endpoints 11 and 12)',
  tags: 'Unique opens and clicks of one tag per UTC day (endpoint 14; spec §10 daily counts)',
  contacts:
    'Recipients of the visible tags with their counters over those tags (endpoints 15–17; spec §10 contact counters)',
};

const ERROR_RESPONSES = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '429': 'TooManyRequests',
} as const;

function errorResponse(description: string, headers?: Json): Json {
  return {
    description,
    ...(headers === undefined ? {} : { headers }),
    content: { 'application/json': { schema: ref('ErrorBody') } },
  };
}

const integerHeader = (description: string): Json => ({
  description,
  schema: { type: 'integer', minimum: 0 },
});

function operation(e: Endpoint): Json {
  const parameters = [
    ...e.pathParams.map((name) => ({
      name,
      in: 'path',
      required: true,
      description: PATH_PARAMS[name].description,
      schema: PATH_PARAMS[name].schema,
    })),
    ...Object.entries(e.querySchema.shape as Record<string, z.ZodType>).map(([name, field]) => ({
      name,
      in: 'query',
      required: e.requiredQuery.some((r) => r === name),
      description: field.description,
      schema: parameterSchema(field),
    })),
  ];
  const listHeaders =
    e.response === 'list'
      ? {
          headers: {
            'X-Total-Count': integerHeader('Number of records in the whole list (spec §5)'),
            Link: {
              description:
                'RFC 8288 links: rel="next" iff nextURL is non-null, rel="prev" iff previousURL is non-null (spec §5)',
              schema: { type: 'string' },
            },
          },
        }
      : {};
  const noContent =
    e.response === 'list'
      ? {
          '204': {
            description:
              'Paging end `no-content` (the reference profile): the page holds no records (cursor at or past the total, or an empty list); empty body (spec §5)',
            ...listHeaders,
          },
        }
      : {};
  const header = `${tableColumns(e).join('\t')}\n`;
  return {
    operationId: e.id,
    summary: e.summary,
    description:
      `Endpoint ${e.numbers.join(' and ')} of the source document. ` +
      `Scoped to what the caller may see (${e.scoping}; spec §4): an id outside the ` +
      'scope answers 404. HEAD answers like GET without a body.',
    tags: [e.path.split('/')[1]!],
    parameters,
    responses: {
      '200': {
        description:
          e.response === 'list'
            ? 'One page of the stably ordered list (spec §5)'
            : 'The single record (spec §5)',
        ...listHeaders,
        content: {
          'application/json': { schema: ref(envelopeId(e)) },
          'text/plain': {
            schema: {
              type: 'string',
              description: 'Tab-separated: the header row (example), then one row per record (§7)',
            },
            example: header,
          },
          'text/html': {
            schema: {
              type: 'string',
              description: 'A complete HTML5 document with one <table> of the same rows (§7)',
            },
          },
        },
      },
      ...noContent,
      ...Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, name]) => [
          status,
          { $ref: `#/components/responses/${name}` },
        ]),
      ),
    },
  };
}

/**
 * The OpenAPI 3.1.0 document of the API (reference profile `tagtrack/v1`): one GET operation
 * per catalogue endpoint (17 paths, `/stats` and its alias `/teams/stats` included), every path
 * and query parameter with its schema and default, the JSON envelopes and records as component
 * schemas generated from zod, the text and html alternatives, the error responses (400, 401,
 * 404, 405, 429 with `ErrorBody`; spec §6), and the signed `Authorization` header as an
 * `apiKey` security scheme (spec §3). Returns a fresh JSON-serialisable object.
 */
export function openApiDocument(options: OpenApiOptions = {}): Json {
  const paths: Record<string, Json> = {};
  for (const e of ENDPOINT_LIST) paths[e.path] = { get: operation(e) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tag Tracking Reporting API',
      version: 'tagtrack/v1',
      description:
        'Read-only reporting on tracked emails (tags): members, tags, statistics, opens, ' +
        'clicks, daily counts and contacts. This document describes the reference profile ' +
        'tagtrack/v1; see docs/spec.md.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    security: [{ signature: [] }],
    tags: [...new Set(ENDPOINT_LIST.map((e) => e.path.split('/')[1]!))].map((name) => {
      const description = TAG_DESCRIPTIONS[name];
      if (description === undefined) throw new Error(`openapi: no description of tag '${name}'`);
      return { name, description };
    }),
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        signature: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'base64(authId + ":" + signature), no scheme prefix. signature = lowercase hex ' +
            'HMAC-SHA1 keyed with the access key over the query string in request order ' +
            '(without "?"; the empty string when there is none). The server accepts a ' +
            'signature over the raw query string or over its percent-decoded form ' +
            '(spec §3). Missing, malformed or wrong credentials: 401.',
        },
      },
      responses: {
        BadRequest: errorResponse('Bad input: the message names the parameter (spec §6)'),
        Unauthorized: errorResponse('Missing, malformed or wrong credentials (spec §3)'),
        NotFound: errorResponse('Unknown path, or an id unknown or outside the caller’s scope'),
        MethodNotAllowed: errorResponse('Only GET and HEAD are allowed', {
          Allow: { description: 'Always "GET, HEAD"', schema: { type: 'string' } },
        }),
        TooManyRequests: errorResponse('Rate limit exceeded (spec §7, profile option)', {
          'Retry-After': integerHeader('Seconds to wait before retrying'),
          'X-Rate-Limit-Limit': integerHeader('Requests allowed per window'),
          'X-Rate-Limit-Remaining': integerHeader('Requests left in the window'),
          'X-Rate-Limit-Reset': integerHeader('Epoch seconds when the window resets'),
        }),
      },
    },
  };
}
