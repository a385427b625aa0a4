import type { Answer, Caller, Dataset, EndpointRequest } from '@tagtrack/core';
import type { Credential } from '../http/types.ts';
import type { Profile } from '../profile/profile.ts';

/**
 * What a check knows before it runs and whom it calls as: the types the check API and the
 * run share. A leaf of check/: imports only types of http/ and profile/.
 */

/** What a check may know before it runs (for `skipIf`). */
export interface CheckEnv {
  readonly profile: Profile;
  readonly mode: 'blind' | 'fixture';
  readonly probeMethods: boolean;
  /** `--max-response-time` in ms: every response must arrive within it (undefined: not checked). */
  readonly maxResponseTimeMs?: number | undefined;
  readonly credentials: readonly SuiteCredential[];
  readonly oracle: Oracle | undefined;
  /**
   * The run's warnings for changed rules (profile/revisions.ts) the implementation passes
   * only under the older revision its profile pins, by rule id: one each, the first example.
   */
  readonly upgrades?: Map<string, string> | undefined;
  /**
   * Distinct callers the per-caller and caller-pairing checks of a blind run judge at most
   * (`--max-callers`; callers.ts `sampledCallers`); absent: `DEFAULT_MAX_CALLERS`;
   * `Infinity`: every class.
   */
  readonly maxCallers?: number | undefined;
  /** The run's seed, which picks the sampled callers (the same for every check of the run). */
  readonly seed?: number | undefined;
}

/** A credential with what the profile says about its owner. */
export interface SuiteCredential extends Credential {
  readonly teamID?: string | undefined;
  readonly accountType?: 'admin' | 'manager' | 'user' | undefined;
  readonly memberID?: string | undefined;
}

/**
 * Fixture mode's expected answers: core's plain rules (`plainAnswer`) over the dataset the
 * implementation serves, never the reference server's engine (`buildIndex`), so the suite
 * judges the reference server independently.
 */
export interface Oracle {
  /** The dataset the implementation serves (canonical unless the run names another). */
  readonly dataset: Dataset;
  /** The caller a credential belongs to in the dataset, or undefined when unknown. */
  callerOf(credential: Credential): Caller | undefined;
  /**
   * The plain rules' answer to a request of `caller` (same shape as `ReportingIndex.answer`:
   * whole ordered list, single record or `not_found`). Throws core's `QueryParamError` for
   * a missing required parameter.
   */
  answer(caller: Caller, request: EndpointRequest): Answer;
}
