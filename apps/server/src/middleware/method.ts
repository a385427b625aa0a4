import type { Rendered, Renderer } from '../render.ts';
import { type Middleware, respond, shortPath } from './context.ts';

/** Methods every endpoint allows (spec §6). */
export const ALLOW = 'GET, HEAD';

/** Whether `method` reads (GET or HEAD), the only methods of the API. */
export function isRead(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** The 405 answer for `path`, with `Allow: GET, HEAD`. */
export function methodNotAllowed(renderer: Renderer, path: string): Rendered {
  const r = renderer.error(405, `method not allowed on '${shortPath(path)}'; allowed: ${ALLOW}`);
  return { ...r, headers: { ...r.headers, Allow: ALLOW } };
}

/** Step 2 of the order of checks: a method other than GET or HEAD answers 405. */
export function method(renderer: Renderer): Middleware {
  return async (c, next) => {
    if (!isRead(c.req.method)) return respond(c, methodNotAllowed(renderer, c.get('target').path));
    await next();
  };
}
