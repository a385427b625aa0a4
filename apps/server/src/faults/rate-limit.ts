import type { FaultInfo } from './info.ts';

/** Faults of the rate limiter (spec §6); they wrap the 429's headers (middleware/rate-limit.ts). */
export const RATE_LIMIT_FAULTS = [
  {
    name: 'rate-limit-no-retry-after',
    area: 'rate-limit',
    description: '429 answered without Retry-After; needs a rate limit (spec §7)',
    detectedBy: ['RATE-429-HEADERS'],
    wrap: {
      rateLimitRefusal: (refusal) => (decision) => {
        // bug: the 429 is sent without the header that says when to come back
        const { 'Retry-After': _retryAfter, ...headers } = refusal(decision);
        return headers;
      },
    },
  },
  {
    name: 'rate-limit-reset-milliseconds',
    area: 'rate-limit',
    description:
      '429 whose X-Rate-Limit-Reset is epoch milliseconds, not seconds; needs a rate limit (spec §7)',
    detectedBy: ['RATE-429-HEADERS'],
    wrap: {
      rateLimitRefusal: (refusal) => (decision) => ({
        ...refusal(decision),
        // bug: the reset instant in the unit of Date.now()
        'X-Rate-Limit-Reset': String(decision.resetEpochSeconds * 1000),
      }),
    },
  },
] as const satisfies readonly FaultInfo[];
