/**
 * Pacing and waiting (spec §7). The clock, the pacer, the abortable sleep and the delay
 * a 429 asks for are core's transport steps (`@tagtrack/core` `transport/pace.ts`), shared with
 * the conformance suite; this module adds the client's default rate.
 */
export { Pacer, retryDelayMs, sleep, systemClock } from '@tagtrack/core';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Default pacing for a base URL (spec §7): 1 request/s, none on loopback hosts. */
export function defaultRateLimit(baseUrl: string): number {
  return LOOPBACK_HOSTS.has(new URL(baseUrl).hostname) ? 0 : 1;
}
