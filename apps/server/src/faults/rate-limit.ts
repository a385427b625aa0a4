import type { FaultInfo } from './info.ts';

/** Faults of the rate limiter (decisions §5). */
export const RATE_LIMIT_FAULTS = [
  {
    name: 'rate-limit-no-retry-after',
    area: 'rate-limit',
    description: '429 answered without Retry-After; needs a rate limit (decisions §6)',
    detectedBy: ['RATE-429-HEADERS'],
  },
] as const satisfies readonly FaultInfo[];
