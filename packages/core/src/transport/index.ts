/**
 * The transport steps shared by the client and the conformance suite: sign a request, pace
 * it on an injected clock, walk pages with guards. Each a small pure function or class.
 */

export { type Clock, monotonicClock, Pacer, retryDelayMs, sleep, systemClock } from './pace.ts';
export {
  type Authorizer,
  hmacAuthorizer,
  type RequestTarget,
  type SignedRequest,
  signRequest,
} from './sign.ts';
export {
  type PageReading,
  type WalkCursorOptions,
  type WalkLaw,
  type WalkStep,
  type WalkViolation,
  walkCursor,
} from './walk.ts';
