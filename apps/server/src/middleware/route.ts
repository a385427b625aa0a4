import { type EndpointMatch, matchEndpoint } from '@tagtrack/core';
import type { Context } from 'hono';
import type { FaultSet } from '../faults/index.ts';
import type { Renderer } from '../render.ts';
import { splitTarget } from '../request.ts';
import { type Env, type Middleware, respond, shortPath } from './context.ts';

/** The path of the OpenAPI document, served without authentication (not an endpoint). */
export const OPENAPI_PATH = '/openapi.json';

/**
 * The request target as received: on a socket the raw request line of Node's
 * `IncomingMessage` (so the query string is signed exactly as the client sent it, decisions
 * §1); in memory the `Request`'s URL (already normalised by the WHATWG URL parser).
 */
export function rawTarget(c: Context<Env>): string {
  const incoming = c.env?.incoming?.url;
  if (typeof incoming === 'string' && incoming !== '') return incoming;
  return c.req.url;
}

/**
 * Matches a raw request path against core's catalogue ({@link matchEndpoint}: each segment
 * percent-decoded, decisions §4 Revision 2). Under the fault `path-not-decoded` the literal
 * segments must appear undecoded (`/%74eams` is then an unknown path); placeholders are still
 * decoded, as a router that only decodes its parameters would do. Under `path-param-not-decoded`
 * it is the other way round: the placeholders keep their raw, still encoded text.
 */
export function matchRequestPath(path: string, faults: FaultSet): EndpointMatch | undefined {
  const match = matchEndpoint(normalisedByFaults(path, faults));
  if (match !== undefined && faults.has('path-param-not-decoded')) {
    // bug: the router decodes the literal segments it matches but hands the placeholders on
    // as received, so /teams/member/%61bc looks for the member "%61bc"
    const raw = path.split('/');
    const pathParams = Object.fromEntries(
      match.endpoint.path
        .split('/')
        .flatMap((t, i) => (t.startsWith('{') ? [[t.slice(1, -1), raw[i] ?? '']] : [])),
    );
    return { ...match, pathParams };
  }
  if (match === undefined || !faults.has('path-not-decoded')) return match;
  const raw = path.split('/');
  const template = match.endpoint.path.split('/');
  const literalsAsSent = template.every((t, i) => t.startsWith('{') || t === raw[i]);
  return literalsAsSent ? match : undefined;
}

/**
 * The path as a lenient router would read it: under `empty-segments-collapsed` runs of `/`
 * are one `/` (`/teams//tags` is `/teams/tags`); under `trailing-slash-accepted` a trailing
 * `/` is dropped (`/teams/` is `/teams`). Without those faults, the path as received.
 */
function normalisedByFaults(path: string, faults: FaultSet): string {
  let p = path;
  // bug: a router (or a proxy's merge_slashes) that collapses empty segments
  if (faults.has('empty-segments-collapsed')) p = p.replace(/\/{2,}/g, '/');
  // bug: a router in non-strict mode, where /teams/ and /teams are one route
  if (faults.has('trailing-slash-accepted') && p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

/**
 * Step 1 of the order of checks: which resource the path names. Sets `target` (the raw
 * request target) and `match`; an unknown path answers 404. {@link OPENAPI_PATH} goes to
 * `openApi` instead of the endpoint pipeline. Routing comes from core's endpoint catalogue,
 * the single source of path templates shared with the client and the conformance suite.
 * Routing faults: `path-not-decoded`, `path-param-not-decoded`, `trailing-slash-accepted`,
 * `empty-segments-collapsed`.
 */
export function route(
  faults: FaultSet,
  renderer: Renderer,
  openApi: (c: Context<Env>) => Response,
): Middleware {
  return async (c, next) => {
    const target = splitTarget(rawTarget(c));
    c.set('target', target);
    if (target.path === OPENAPI_PATH) return openApi(c);
    const match = matchRequestPath(target.path, faults);
    if (!match) return respond(c, renderer.error(404, `unknown path '${shortPath(target.path)}'`));
    c.set('match', match);
    await next();
  };
}
