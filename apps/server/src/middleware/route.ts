import { type EndpointMatch, matchEndpoint } from '@tagtrack/core';
import type { Context } from 'hono';
import type { Renderer } from '../render.ts';
import { splitTarget } from '../request.ts';
import { type Env, type Middleware, respond, shortPath } from './context.ts';

/** The path of the OpenAPI document, served without authentication (not an endpoint). */
export const OPENAPI_PATH = '/openapi.json';

/**
 * The request target as received: on a socket the raw request line of Node's
 * `IncomingMessage` (so the query string is signed exactly as the client sent it, spec
 * §3); in memory the `Request`'s URL (already normalised by the WHATWG URL parser).
 */
export function rawTarget(c: Context<Env>): string {
  const incoming = c.env?.incoming?.url;
  if (typeof incoming === 'string' && incoming !== '') return incoming;
  return c.req.url;
}

/**
 * The router: the endpoint a raw request path names and its path parameters, or undefined
 * for an unknown path. The clean one is core's {@link matchEndpoint} (each segment
 * percent-decoded, spec §6 Revision 2); the routing faults wrap it (`faults/routing.ts`).
 */
export type PathMatcher = (path: string) => EndpointMatch | undefined;

/** The clean {@link PathMatcher}: core's catalogue, the path as received. */
export const matchRequestPath: PathMatcher = (path) => matchEndpoint(path);

/**
 * Step 1 of the order of checks: which resource the path names. Sets `target` (the raw
 * request target) and `match`; an unknown path answers 404. {@link OPENAPI_PATH} goes to
 * `openApi` instead of the endpoint pipeline. Routing comes from core's endpoint catalogue,
 * the single source of path templates shared with the client and the conformance suite.
 * `matchPath` is {@link matchRequestPath}, or the router as the routing faults break it.
 */
export function route(
  matchPath: PathMatcher,
  renderer: Renderer,
  openApi: (c: Context<Env>) => Response,
): Middleware {
  return async (c, next) => {
    const target = splitTarget(rawTarget(c));
    c.set('target', target);
    if (target.path === OPENAPI_PATH) return openApi(c);
    const match = matchPath(target.path);
    if (!match) return respond(c, renderer.error(404, `unknown path '${shortPath(target.path)}'`));
    c.set('match', match);
    await next();
  };
}
