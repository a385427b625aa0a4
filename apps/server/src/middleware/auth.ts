import { AuthError, type Endpoint, QueryParamError } from '@tagtrack/core';
import { LRUCache } from 'lru-cache';
import { type Authenticated, type AuthLayer, authenticate } from '../auth.ts';
import type { Renderer } from '../render.ts';
import type { Store } from '../store.ts';
import { type Middleware, respond } from './context.ts';

/**
 * Step 3 of the order of checks (spec §3): {@link authenticate} the `Authorization`
 * header against the raw query string; failure answers 401. Sets `caller` and `authId`.
 * `layer` is the clean `AUTH_LAYER` or the steps as the auth faults break them;
 * `parseQuery` is the query parser (step 6), which `layer.beforeCredentials` may run.
 *
 * A verified (Authorization, query string) pair stays valid while its credential does: HMAC
 * is deterministic. Remembering it (at most 16,384 pairs, 16 MiB of keys) skips the base64
 * decoding and up to two HMAC-SHA1 computations on repeated requests (the benchmark's hot
 * path); a remembered pair is used only while the store still has that very credential
 * (credentials in a database are re-read: a deleted or changed one is gone). Failures are
 * never remembered. An unknown authId makes the store re-read credentials kept in a
 * database (at most once per second) before the request is refused: a credential inserted
 * while the server runs is accepted without a restart.
 */
export function auth(
  store: Store,
  layer: AuthLayer,
  parseQuery: (endpoint: Endpoint, rawQuery: string) => unknown,
  renderer: Renderer,
): Middleware {
  const verified = new LRUCache<string, Authenticated>({
    max: 16_384,
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (_, key) => key.length,
  });
  return async (c, next) => {
    const authorization = c.req.header('authorization');
    const { rawQuery } = c.get('target');
    try {
      layer.beforeCredentials(() => parseQuery(c.get('match').endpoint, rawQuery));
    } catch (e) {
      if (e instanceof QueryParamError) return respond(c, renderer.error(400, e.message));
      throw e;
    }
    const key = `${authorization}\u0000${rawQuery}`;
    let found = authorization === undefined ? undefined : verified.get(key);
    if (found && store.credential(found.authId)?.caller !== found.caller) found = undefined;
    if (!found) {
      try {
        found = await authenticateFresh(store, layer, authorization, rawQuery);
      } catch (e) {
        if (e instanceof AuthError) return respond(c, renderer.error(401, e.message));
        throw e;
      }
      verified.set(key, found);
    }
    c.set('caller', found.caller);
    c.set('authId', found.authId);
    await next();
  };
}

/**
 * {@link authenticate}, and once more after the store re-read its credentials when the authId
 * was unknown and the store re-read them (credentials kept in a database).
 */
async function authenticateFresh(
  store: Store,
  layer: AuthLayer,
  authorization: string | undefined,
  rawQuery: string,
): Promise<Authenticated> {
  try {
    return authenticate(store, layer, authorization, rawQuery);
  } catch (e) {
    if (!(e instanceof AuthError && e.code === 'unknown_credential')) throw e;
    if (!(await store.refreshCredentials())) throw e;
    return authenticate(store, layer, authorization, rawQuery);
  }
}
