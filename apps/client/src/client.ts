import { ENDPOINT_LIST, type Endpoint, type PathParamName } from '@tagtrack/core';
import { createRuntime } from './call.ts';
import { InvalidArgumentError } from './errors.ts';
import type {
  CallOptions,
  ClientOptions,
  EndpointCall,
  ResourceMethods,
  Runtime,
  TagtrackClient,
  WalkOptions,
} from './types.ts';

/**
 * The typed SDK of the Tag Tracking Reporting API, reference profile `tagtrack/v1`
 * (docs/spec.md): the methods of {@link TagtrackClient}, a mapped type over core's endpoint
 * catalogue, over the untyped runtime of `call.ts` (tRPC's `createTRPCClient` over
 * `createTRPCUntypedClient`). Pure web-platform code (global `fetch`, `AbortController`,
 * `URL`): no Node-only imports, so it runs in Node 20+, Deno, Bun and browsers.
 */

async function* flatten<T>(
  pages: AsyncIterable<{ data: T[] }>,
): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page.data;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Splits the arguments of a typed method, `(...pathParams, query?, options?)`. Throws
 * {@link InvalidArgumentError} for an empty or non-string path parameter and for a query or
 * options argument that is not an object.
 */
function splitArgs(
  endpoint: Endpoint,
  args: readonly unknown[],
): { call: EndpointCall; options: (CallOptions & WalkOptions) | undefined } {
  const pathParams: Partial<Record<PathParamName, string>> = {};
  endpoint.pathParams.forEach((name, i) => {
    const v = args[i];
    if (typeof v !== 'string' || v === '') {
      throw new InvalidArgumentError(
        `${endpoint.id}: argument ${i + 1} (${name}) must be a non-empty string`,
      );
    }
    pathParams[name] = v;
  });
  const n = endpoint.pathParams.length;
  const [query, options] = [args[n], args[n + 1]];
  if (query !== undefined && !isRecord(query)) {
    throw new InvalidArgumentError(`${endpoint.id}: the query must be an object`);
  }
  if (options !== undefined && !isRecord(options)) {
    throw new InvalidArgumentError(`${endpoint.id}: the call options must be an object`);
  }
  return { call: { pathParams, query }, options };
}

/**
 * The typed method of one endpoint over the runtime: called, one request; for a list
 * endpoint also `.pages()` and `.all()`.
 */
function methodOf(runtime: Runtime, endpoint: Endpoint) {
  const method = async (...args: unknown[]) => {
    const { call, options } = splitArgs(endpoint, args);
    return runtime.call(endpoint, call, options);
  };
  if (endpoint.response !== 'list') return Object.assign(method, { endpoint });
  const pages = (...args: unknown[]) => {
    const { call, options } = splitArgs(endpoint, args);
    return runtime.pages(endpoint, call, options);
  };
  return Object.assign(method, {
    endpoint,
    pages,
    all: (...args: unknown[]) => flatten(pages(...args)),
  });
}

/**
 * The resource namespaces of the client, built from the catalogue: `teams.memberTags` is
 * `resources.teams.memberTags`. The one place where the untyped runtime meets the mapped
 * type {@link ResourceMethods} (tRPC's proxy does the same): every method takes
 * `(...pathParams, query?, options?)` and answers as its endpoint's `response` says.
 */
function resourcesOf(runtime: Runtime): ResourceMethods {
  const resources: Record<string, Record<string, unknown>> = {};
  for (const endpoint of ENDPOINT_LIST) {
    const dot = endpoint.id.indexOf('.');
    const resource = endpoint.id.slice(0, dot);
    resources[resource] ??= {};
    resources[resource][endpoint.id.slice(dot + 1)] = methodOf(runtime, endpoint);
  }
  return resources as ResourceMethods;
}

/**
 * Creates a client (spec §3 signing, §3 paging, §5 errors, §6 pacing). Every request
 * is a GET signed over its query string, paced to `rateLimit`, retried after a 429 and on
 * network errors (bounded). Errors: `ApiError` (non-2xx), `TimeoutError`, `AbortError`,
 * `NetworkError`, `ResponseValidationError` (JSON body not of the endpoint's schema, unless
 * `validate: false`), {@link InvalidArgumentError} (bad options or arguments; thrown at once
 * by `createClient`, `raw`, `pages` and `.pages()`/`.all()`, as a rejection by the calls).
 */
export function createClient(options: ClientOptions): TagtrackClient {
  const runtime = createRuntime(options);
  return {
    ...resourcesOf(runtime),
    rateLimit: runtime.rateLimit,
    request: (id, call = {}, callOptions) => runtime.call(knownEndpoint(id), call, callOptions),
    pages: (id, call = {}, walkOptions) => runtime.pages(knownEndpoint(id), call, walkOptions),
    raw: runtime.raw,
  };
}

/** The catalogue entry of `id`; {@link InvalidArgumentError} for an unknown id (from JS). */
function knownEndpoint(id: string): Endpoint {
  const endpoint = ENDPOINT_LIST.find((e) => e.id === id);
  if (endpoint === undefined) throw new InvalidArgumentError(`unknown endpoint id '${id}'`);
  return endpoint;
}
