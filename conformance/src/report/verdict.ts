import { revisionLabel } from '../profile/revisions.ts';
import type { CheckResult, RunResult } from '../run/runner.ts';

/**
 * Why a check was skipped, in the few groups a reader acts on: `fixture` (needs the canonical
 * dataset loaded: run `--mode fixture`), `credentials` (needs more or other credentials in
 * the profile), `opt-in` (off unless asked for: `--probe-methods`, `--max-response-time`),
 * `profile` (does not apply to the options the profile declares: the requirement is not the
 * implementation's), `other` (anything else, e.g. a transport that cannot show it).
 */
export type SkipGroupKey = 'fixture' | 'credentials' | 'opt-in' | 'profile' | 'other';

/** Skipped checks sharing a {@link SkipGroupKey}, with their reasons as the checks gave them. */
export interface SkipGroup {
  readonly key: SkipGroupKey;
  /** The group in words with its count, e.g. `6 need fixture mode`. */
  readonly text: string;
  readonly checks: readonly CheckResult[];
}

/** The group of a skip reason (see {@link SkipGroupKey}); read from the reason's words. */
export function skipGroupOf(reason: string | undefined): SkipGroupKey {
  const r = reason ?? '';
  if (/fixture mode/i.test(r)) return 'fixture';
  if (/^the profile/i.test(r)) return 'profile';
  if (/credential/i.test(r)) return 'credentials';
  if (/opt-in|^off:/i.test(r)) return 'opt-in';
  return 'other';
}

const GROUP_ORDER: readonly SkipGroupKey[] = [
  'fixture',
  'credentials',
  'opt-in',
  'other',
  'profile',
];

function groupText(key: SkipGroupKey, checks: readonly CheckResult[]): string {
  const n = checks.length;
  const one = n === 1;
  switch (key) {
    case 'fixture':
      return `${n} ${one ? 'needs' : 'need'} fixture mode`;
    case 'credentials':
      return `${n} ${one ? 'needs' : 'need'} more credentials`;
    case 'opt-in':
      return `${n} opt-in (not asked for)`;
    case 'profile':
      return `${n} ${one ? 'does' : 'do'} not apply to the profile`;
    default: {
      const reasons = [...new Set(checks.map((c) => (c.reason ?? 'skipped').split(':')[0]))];
      return `${n} other (${reasons.join('; ')})`;
    }
  }
}

/** The skipped checks of a run grouped by {@link skipGroupOf}, most telling group first. */
export function skipGroups(result: RunResult): SkipGroup[] {
  const skipped = result.checks.filter((c) => c.status === 'skip');
  return GROUP_ORDER.flatMap((key) => {
    const checks = skipped.filter((c) => skipGroupOf(c.reason) === key);
    return checks.length === 0 ? [] : [{ key, text: groupText(key, checks), checks }];
  });
}

/** Whether a check failed or errored and the expected-failures file lists it. */
export const isExpectedFailure = (c: CheckResult): boolean =>
  c.expectedFailure !== undefined && (c.status === 'fail' || c.status === 'error');

/**
 * The checks that count against the run, in catalogue order: failed or errored and not
 * listed as expected, or listed and passed (a stale entry).
 */
export function failedChecks(result: RunResult): CheckResult[] {
  return result.checks.filter(
    (c) =>
      ((c.status === 'fail' || c.status === 'error') && c.expectedFailure === undefined) ||
      result.staleExpectedFailures.includes(c.id),
  );
}

/** Counts of a run's checks, each check in exactly one of the first six (they add up to `total`). */
export interface Counts {
  readonly pass: number;
  /** Failed, not listed as expected. */
  readonly fail: number;
  /** Errored, not listed as expected. */
  readonly error: number;
  /** Failed or errored and listed in the expected-failures file. */
  readonly expectedFailures: number;
  readonly inconclusive: number;
  readonly skip: number;
  readonly total: number;
  /** Listed in the expected-failures file but passed (also counted in `pass`). */
  readonly stale: number;
}

/** The counts of a run, from its checks (expected failures apart from failures and errors). */
export function countsOf(result: RunResult): Counts {
  const n = (p: (c: CheckResult) => boolean) => result.checks.filter(p).length;
  return {
    pass: n((c) => c.status === 'pass'),
    fail: n((c) => c.status === 'fail' && c.expectedFailure === undefined),
    error: n((c) => c.status === 'error' && c.expectedFailure === undefined),
    expectedFailures: n(isExpectedFailure),
    inconclusive: n((c) => c.status === 'inconclusive'),
    skip: n((c) => c.status === 'skip'),
    total: result.checks.length,
    stale: result.staleExpectedFailures.length,
  };
}

/**
 * The verdict of a run as every report words it:
 * - `tone`: `fail` (the run failed); `partial` (it passed, but something was left unjudged:
 *   a check skipped for a reason other than the profile ruling it out, an inconclusive
 *   check, or an expected failure); `pass` (everything that applies was checked and passed);
 * - `label`: `FAIL`, `PASS`, or e.g. `PASS (blind, 16 skipped)`,
 *   `PASS with 1 inconclusive (fixture, 1 expected failure, 6 skipped)`;
 * - `notChecked`: what the run did not check, one sentence, e.g. `blind mode: 16 checks
 *   skipped — 6 need fixture mode, 5 need more credentials, …; 2 inconclusive (…)`;
 *   undefined when every check ran and was judged (an expected failure was judged: the label
 *   and the counts name it).
 */
export interface Verdict {
  readonly ok: boolean;
  readonly tone: 'pass' | 'partial' | 'fail';
  readonly label: string;
  /**
   * The profile revision judged, `tagtrack/v1 Revision 3` (spec §12); undefined for a result
   * whose profile names none (written before revisions could be pinned).
   */
  readonly judged: string | undefined;
  /**
   * The verdict line every report prints: the label, the gate policies the run broke (`FAIL
   * (policy --max-inconclusive 0: 1 check inconclusive (…))`), and the revision judged, e.g.
   * `PASS (blind, 16 skipped) under tagtrack/v1 Revision 3`.
   */
  readonly line: string;
  readonly notChecked: string | undefined;
  readonly counts: Counts;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The {@link Verdict} of a run. */
export function verdictOf(result: RunResult): Verdict {
  const counts = countsOf(result);
  const groups = skipGroups(result);
  const unchecked = groups.some((g) => g.key !== 'profile');
  const parts: string[] = [];
  if (counts.skip > 0)
    parts.push(
      `${result.mode} mode: ${plural(counts.skip, 'check')} skipped — ${groups.map((g) => g.text).join(', ')}`,
    );
  if (counts.inconclusive > 0)
    parts.push(`${counts.inconclusive} inconclusive (the data changed during each of their runs)`);
  const notChecked = parts.length === 0 ? undefined : parts.join('; ');
  const judged =
    typeof result.profile.revision === 'number' ? revisionLabel(result.profile) : undefined;
  const lineOf = (label: string) => (judged === undefined ? label : `${label} under ${judged}`);
  if (!result.ok) {
    const gates = result.gateFailures ?? [];
    const line = lineOf(gates.length === 0 ? 'FAIL' : `FAIL (policy ${gates.join('; policy ')})`);
    return { ok: false, tone: 'fail', label: 'FAIL', judged, line, notChecked, counts };
  }
  const caveats = [
    ...(counts.expectedFailures > 0 ? [plural(counts.expectedFailures, 'expected failure')] : []),
    ...(unchecked ? [`${counts.skip} skipped`] : []),
  ];
  const label =
    `PASS${counts.inconclusive > 0 ? ` with ${counts.inconclusive} inconclusive` : ''}` +
    (caveats.length === 0 ? '' : ` (${result.mode}, ${caveats.join(', ')})`);
  const tone = caveats.length > 0 || counts.inconclusive > 0 ? 'partial' : 'pass';
  return { ok: true, tone, label, judged, line: lineOf(label), notChecked, counts };
}
