/** The layer of the server a fault is injected into. */
export type FaultArea =
  | 'store'
  | 'params'
  | 'routing'
  | 'paging'
  | 'render'
  | 'auth'
  | 'rate-limit';

/**
 * What a fault breaks: its name, the layer it lives in, the effect, and the requirement ids
 * of the conformance suite that catch it in each mode. The fault matrix
 * (conformance/test/faults.test.ts) runs every fault in both modes under three seeds and
 * asserts that the run fails and that one of the declared ids fails each time.
 */
export interface FaultInfo {
  readonly name: string;
  readonly area: FaultArea;
  readonly description: string;
  /** Requirement ids that fail on this fault in fixture mode (canonical dataset loaded). */
  readonly detectedBy: readonly string[];
  /**
   * Blind mode with one admin credential: the ids that fail there, when they differ from
   * {@link detectedBy} (omitted: the same ids), or `{ unobservable }` with the reason one
   * admin credential cannot observe the fault (the matrix skips it in that mode only).
   */
  readonly blind?: readonly string[] | { readonly unobservable: string };
}
