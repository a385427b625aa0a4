import type { FaultSet } from '../faults/index.ts';
import type { RateLimitDecision, RateLimiter } from '../rate-limit.ts';
import type { Renderer } from '../render.ts';
import { type Middleware, respond } from './context.ts';

function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  return {
    'X-Rate-Limit-Limit': String(d.limit),
    'X-Rate-Limit-Remaining': String(d.remaining),
    'X-Rate-Limit-Reset': String(d.resetEpochSeconds),
  };
}

/**
 * Step 4 of the order of checks (decisions §6, when the profile sets a rate limit): counts
 * every authenticated request against its credential, valid or not; over the limit answers
 * 429 with `Retry-After`. Every later response carries the `X-Rate-Limit-*` headers.
 * Rate-limit fault: `rate-limit-no-retry-after`.
 */
export function rateLimit(limiter: RateLimiter, faults: FaultSet, renderer: Renderer): Middleware {
  return async (c, next) => {
    const decision = limiter.take(c.get('authId'));
    const limitHeaders = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const headers = faults.has('rate-limit-no-retry-after')
        ? limitHeaders
        : { ...limitHeaders, 'Retry-After': String(decision.retryAfterSeconds) };
      return respond(
        c,
        renderer.error(
          429,
          `rate limit of ${decision.limit} requests per ${limiter.rate.windowMs / 1000} s exceeded; retry after ${decision.retryAfterSeconds} s`,
          headers,
        ),
      );
    }
    // Prepared headers: Hono adds them to whatever response the later steps create.
    for (const [name, value] of Object.entries(limitHeaders)) c.header(name, value);
    await next();
  };
}
