import { LRUCache } from 'lru-cache';
import { type Middleware, send } from './context.ts';

/** A rendered response kept for identical requests (same base URL, caller, method and target). */
interface CachedResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array<ArrayBuffer>;
}

/** What a cached response is keyed by: the request as the cache sees it. */
export interface ResponseCacheRequest {
  /** The public base URL (`nextURL` and `Link` depend on it). */
  readonly publicUrl: string;
  /** The caller's memberID. */
  readonly caller: string;
  readonly method: string;
  /** The raw path and query string as received. */
  readonly path: string;
  readonly rawQuery: string;
}

/** The cache key of a request; routing faults wrap it (`faults/routing.ts`). */
export type ResponseCacheKey = (request: ResponseCacheRequest) => string;

/** The clean {@link ResponseCacheKey}: every part of the request, NUL-separated. */
export const responseCacheKey: ResponseCacheKey = (r) =>
  `${r.publicUrl}\u0000${r.caller}\u0000${r.method}\u0000${r.path}\u0000${r.rawQuery}`;

/**
 * Step 5, before the answer: the data of an application never changes (under `--live` each
 * version of the data gets its own application, so its own cache: `live.ts`), so the response
 * to the same caller, method and request target (on the same public base URL, `publicUrl()`)
 * is always the same (spec §5 stable order): replay it instead of answering again. The
 * request's Host plays no part (spec §5 Revision 2). Keeps what the answer step renders
 * (`rendered`: 200, 204, 400, 404), at most 4,096 responses and `maxBytes` of bodies
 * (default 64 MiB). `keyOf` is {@link responseCacheKey} or the key as a routing fault breaks it.
 */
export function responseCache(
  publicUrl: () => string,
  keyOf: ResponseCacheKey,
  maxBytes: number = 64 * 1024 * 1024,
): Middleware {
  const responses = new LRUCache<string, CachedResponse>({
    max: 4096,
    maxSize: maxBytes,
    // a body larger than maxBytes is not kept (lru-cache's maxEntrySize defaults to maxSize)
    sizeCalculation: (r) => r.body.byteLength + 512,
  });
  const encoder = new TextEncoder();
  return async (c, next) => {
    const { path, rawQuery } = c.get('target');
    const key = keyOf({
      publicUrl: publicUrl(),
      caller: c.get('caller').memberID,
      method: c.req.method,
      path,
      rawQuery,
    });
    const cached = responses.get(key);
    if (cached) return send(c, cached.status, cached.headers, cached.body);
    await next();
    const rendered = c.get('rendered');
    if (rendered !== undefined) {
      const body = encoder.encode(rendered.body);
      responses.set(key, { status: rendered.status, headers: rendered.headers, body });
    }
  };
}
