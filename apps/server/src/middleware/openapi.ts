import type { Context } from 'hono';
import type { Renderer } from '../render.ts';
import { type Env, respond } from './context.ts';
import { isRead, methodNotAllowed } from './method.ts';

/**
 * The handler of the OpenAPI document (`json`, already serialised): 200 for GET and HEAD,
 * 405 for other methods, no authentication.
 */
export function openApiDocument(
  json: () => string,
  renderer: Renderer,
): (c: Context<Env>) => Response {
  return (c) => {
    if (!isRead(c.req.method)) return respond(c, methodNotAllowed(renderer, c.get('target').path));
    return c.body(json(), 200, { 'Content-Type': 'application/json; charset=utf-8' });
  };
}
