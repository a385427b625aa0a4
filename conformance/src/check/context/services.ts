import type { RecordOf } from '@tagtrack/core';
import type { ByteCache } from '../../http/byte-cache.ts';
import type { Exchange, HttpClient } from '../../http/client.ts';
import { type Failure, type FailureKind, Violation, type ViolationDetails } from '../failure.ts';
import type { CheckEnv, SuiteCredential } from '../types.ts';
import type { Walk } from '../walk.ts';
import { type Watermarks, watermarkMove } from '../watermark.ts';

/** Ids discovered from list endpoints for one credential (blind mode needs nothing else). */
export interface Discovery {
  readonly members: RecordOf<'teams.list'>[];
  readonly tags: RecordOf<'teams.tags'>[];
  readonly contacts: RecordOf<'contacts.list'>[];
  readonly groups: { groupID: string; groupName: string }[];
  /** The exchanges the discovery made, in call order (they join the log of each check using it). */
  readonly exchanges?: readonly Exchange[];
  /** Why a list could not be walked (its part is then empty), one line each. */
  readonly problems?: readonly string[];
  /**
   * The parts read from a seeded sample of a list too long to walk whole (`discover.ts`):
   * each id in them is the implementation's, but an id missing from them may still be in
   * the list. Absent or empty: every part is its whole list.
   */
  readonly sampled?: readonly DiscoveredPart[];
}

/** A part of a {@link Discovery}: the records of one list endpoint. */
export type DiscoveredPart = 'members' | 'tags' | 'contacts';

/** Shared per-run services a {@link CheckContext} is built from. */
export interface RunServices {
  readonly http: HttpClient;
  readonly env: CheckEnv;
  readonly primary: SuiteCredential;
  readonly numRuns: number;
  readonly baseSeed: number;
  readonly discover: (credential: SuiteCredential) => Promise<Discovery>;
  /** The run's walks of lists, capped by bytes (`walk-cache.ts`, `newWalkCache`). */
  readonly walkCache: ByteCache<Walk>;
  /**
   * Records of a list verified whole ({@link CheckContext.sampledList}): a longer list is
   * verified on a seeded sample of about as many (coverage.ts; default
   * `DEFAULT_SAMPLE_ABOVE`; `Infinity`: never sampled).
   */
  readonly sampleAbove?: number | undefined;
  /**
   * Set by the run's data watch when it watches watermarks (attempt.ts, spec §5 Revision
   * 3): reads them now, for {@link CheckContext.onStillData}. Absent on still data.
   */
  still?: StillWatch | undefined;
  /**
   * Replay (`tagtrack-conformance replay`): the fast-check seed and shrink path of a property
   * of a check, by `CHECK-ID#n` (n: the check's n-th `ctx.property` call, from 0). That
   * property runs only the recorded counterexample.
   */
  readonly replay?: ReadonlyMap<
    string,
    { readonly seed: number; readonly path?: string | undefined }
  >;
}

/** How {@link CheckContext.onStillData} reads the watermarks of the run (attempt.ts). */
export interface StillWatch {
  /**
   * The watched credentials' watermarks now (uncached reads, counted as watermark requests):
   * of those `labels` names only, when given (the credentials whose data a comparison used).
   */
  read(labels?: ReadonlySet<string>): Promise<Watermarks>;
  /**
   * Whether the data has not moved since the cache epoch `epoch` (`HttpClient.epoch`) began,
   * for answers read through `http` (false for a fork: its cache outlives epochs): one
   * watermark read (of the credentials `labels` names, when given); a move seen starts a new
   * epoch.
   */
  stillSince(epoch: number, http: HttpClient, labels?: ReadonlySet<string>): Promise<boolean>;
  /** Tries at most (the run's `--attempts`). */
  readonly attempts: number;
}

/** Details of the Violations {@link CheckContext.onStillData} read on still data. */
export const STILL_DETAILS = new WeakSet<object>();
/** Failures recorded from those Violations (see {@link readOnStillData}). */
export const STILL_FAILURES = new WeakSet<object>();

/**
 * Whether `failure` (of a check's outcome) rests on reads made between two equal watermark
 * reads ({@link CheckContext.onStillData}): a failure that stands on moving data without the
 * check running again (spec §5 Revision 3).
 */
export function readOnStillData(failure: object): boolean {
  return STILL_FAILURES.has(failure);
}

/** FNV-1a 32-bit of a string (per-check seed offsets). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * `CheckContext.onStillData` over the run's `http` and `still` watch (`fresh(1)` before a
 * try, `fresh(-1)` after: the context's reads bypass the caches meanwhile).
 *
 * For a comparison whose verdict rests only on the reads `fn` makes (one call in two
 * formats, say), not on what the check read before (spec §5 Revision 3: a verdict of
 * non-conformance rests on responses read while the caller's data did not change). Runs
 * `fn(false)` (reads through the run's cache); when it throws a {@link Violation} and the
 * run watches its data ({@link RunServices.still}), runs `fn(true)` (every read sent again:
 * meanwhile the context's calls and walks bypass the caches) between two watermark reads,
 * up to the run's attempts: a pass there is the pass (the first answers were read across a
 * change); a Violation read between equal watermarks is thrown marked as read on still data,
 * so the check's failure stands without the whole check running again (attempt.ts); so is
 * the first Violation when one watermark read shows that nothing moved since the epoch its
 * reads were made in began; when the data moved on every try, the last Violation is thrown
 * as it is (the check runs again, or ends inconclusive). On still data
 * a failing comparison costs one watermark read (per watched credential); a passing one
 * costs nothing; on moving data a failing one costs its reads again and two watermark reads
 * per try. Other exceptions propagate.
 */
export async function readOnStill<T>(
  http: HttpClient,
  still: StillWatch | undefined,
  fn: (fresh: boolean) => Promise<T>,
  fresh: (delta: 1 | -1) => void,
  labels?: () => ReadonlySet<string>,
): Promise<T> {
  const epoch = http.epoch;
  try {
    return await fn(false);
  } catch (e) {
    if (!(e instanceof Violation) || still === undefined) throw e;
    // the watermarks of the credentials whose data the comparison used, and no other
    const used = labels?.();
    // nothing moved since its reads' epoch began: the failure rests on still data already
    if (await still.stillSince(epoch, http, used)) {
      STILL_DETAILS.add(e.details);
      throw e;
    }
    let last: Violation = e;
    for (let i = 0; i < still.attempts; i++) {
      const w0 = await still.read(labels?.() ?? used);
      fresh(1);
      try {
        return await fn(true);
      } catch (again) {
        if (!(again instanceof Violation)) throw again;
        last = again;
      } finally {
        fresh(-1);
      }
      if (watermarkMove(w0, await still.read(new Set(w0.keys()))) === undefined) {
        STILL_DETAILS.add(last.details);
        throw last;
      }
    }
    throw last;
  }
}

/** A failure record of a message and details (exchange → its reproduce line, key by default). */
export function failureOf(message: string, details: ViolationDetails, http: HttpClient): Failure {
  const ex = details.exchange;
  // a cited exchange keeps its headers and the start of its body in the report
  if (ex !== undefined) http.keepForReport(ex);
  const kind: FailureKind = details.kind;
  const failure: Failure = {
    kind,
    key: details.key ?? `${kind}: ${message}`,
    message,
    expected: details.expected === undefined ? undefined : show(details.expected),
    actual: details.actual === undefined ? undefined : show(details.actual),
    exchangeId: ex?.id,
    request: ex === undefined ? undefined : `${ex.method} ${ex.target}`,
    reproduce: ex === undefined ? undefined : http.reproduce(ex),
  };
  if (STILL_DETAILS.has(details)) STILL_FAILURES.add(failure);
  return failure;
}

function show(v: unknown): string {
  if (typeof v === 'string') return v;
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
}
