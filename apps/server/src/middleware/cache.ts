import { LruCache } from '../cache.ts';
import type { FaultSet } from '../faults/index.ts';
import { type Middleware, send } from './context.ts';

/** A rendered response kept for identical requests (same base URL, caller, method and target). */
interface CachedResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array<ArrayBuffer>;
}

/**
 * Step 5, before the answer: the data of an application never changes (under `--live` each
 * version of the data gets its own application, so its own cache: `live.ts`), so the response
 * to the same caller, method and request target (on the same public base URL, `publicUrl()`)
 * is always the same (decisions §3 stable order): replay it instead of answering again. The
 * request's Host plays no part (decisions §3 Revision 2). Keeps what the answer step renders
 * (`rendered`: 200, 204, 400, 404), at most 4,096 responses and 64 MiB of bodies.
 * Routing fault `cache-key-url-only`: the key leaves the caller out.
 */
export function responseCache(publicUrl: () => string, faults: FaultSet): Middleware {
  const responses = new LruCache<CachedResponse>(4096, 64 * 1024 * 1024);
  const encoder = new TextEncoder();
  return async (c, next) => {
    const { path, rawQuery } = c.get('target');
    // bug (`cache-key-url-only`): the key is the URL alone, so the same URL for another
    // caller replays the first caller's answer
    const caller = faults.has('cache-key-url-only') ? '' : c.get('caller').memberID;
    const key = `${publicUrl()}\u0000${caller}\u0000${c.req.method}\u0000${path}\u0000${rawQuery}`;
    const cached = responses.get(key);
    if (cached) return send(c, cached.status, cached.headers, cached.body);
    await next();
    const rendered = c.get('rendered');
    if (rendered !== undefined) {
      const body = encoder.encode(rendered.body);
      responses.set(
        key,
        { status: rendered.status, headers: rendered.headers, body },
        body.byteLength + 512,
      );
    }
  };
}
