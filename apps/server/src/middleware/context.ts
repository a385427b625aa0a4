import type { HttpBindings } from '@hono/node-server';
import type { Caller, EndpointMatch } from '@tagtrack/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { RequestIdVariables } from 'hono/request-id';
import type { Rendered } from '../render.ts';
import type { RequestTarget } from '../request.ts';

/** What the steps of the request pipeline hand on to the later ones. */
export interface PipelineVariables {
  /** The request target as received (set by `route`). */
  target: RequestTarget;
  /** The endpoint the path names, with its decoded path parameters (set by `route`). */
  match: EndpointMatch;
  /** The authenticated caller and the auth id of its credential (set by `auth`). */
  caller: Caller;
  authId: string;
  /** The response the answer step rendered (read by `responseCache`). */
  rendered: Rendered;
}

/** The Hono environment of the application: Node bindings (absent in memory) and variables. */
export type Env = {
  Bindings: Partial<HttpBindings>;
  Variables: RequestIdVariables & PipelineVariables;
};

/** One step of the request pipeline. */
export type Middleware = MiddlewareHandler<Env>;

/** A rendered response as a `Response`. */
export function respond(c: Context<Env>, r: Rendered): Response {
  return send(c, r.status, r.headers, r.body);
}

/** A response; a 204 gets no body at all (a `Response` refuses one). */
export function send(
  c: Context<Env>,
  status: number,
  headers: Record<string, string>,
  body: string | Uint8Array<ArrayBuffer>,
): Response {
  if (status === 204) return c.body(null, 204, headers);
  return typeof body === 'string'
    ? c.body(body, status as 200, headers)
    : c.body(body, status as 200, headers);
}

/** A path as error messages quote it: at most 200 characters. */
export function shortPath(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
