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

/** The headers of a 429 for `decision` (spec §7); the rate-limit faults wrap it. */
export type RateLimitRefusal = (decision: RateLimitDecision) => Record<string, string>;

/** The clean {@link RateLimitRefusal}: the `X-Rate-Limit-*` headers and `Retry-After`. */
export const rateLimitRefusal: RateLimitRefusal = (d) => ({
  ...rateLimitHeaders(d),
  'Retry-After': String(d.retryAfterSeconds),
});

/**
 * Step 4 of the order of checks (spec §7, when the profile sets a rate limit): counts
 * every authenticated request against its credential, valid or not; over the limit answers
 * 429 with `Retry-After`. Every later response carries the `X-Rate-Limit-*` headers.
 * `refusal` is {@link rateLimitRefusal} or the 429's headers as a rate-limit fault breaks them.
 */
export function rateLimit(
  limiter: RateLimiter,
  refusal: RateLimitRefusal,
  renderer: Renderer,
): Middleware {
  return async (c, next) => {
    const decision = limiter.take(c.get('authId'));
    const limitHeaders = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const headers = refusal(decision);
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
