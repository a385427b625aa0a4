import { create } from 'xmlbuilder2';
import { AREAS } from '../check/define.ts';
import { revisionLabel } from '../profile/revisions.ts';
import type { CheckResult, RunResult } from '../run/runner.ts';
import { failureText } from './text.ts';
import { countsOf, isExpectedFailure } from './verdict.ts';
import { VERSION } from './version.ts';

/**
 * A JUnit timestamp: ISO 8601 in UTC to the second, without a zone designator (the JUnit XSD's
 * `xs:dateTime` pattern, which CI test tabs read), e.g. `2026-11-22T22:48:41`.
 */
export function junitTimestamp(iso: string): string {
  return new Date(iso).toISOString().slice(0, 19);
}

/**
 * The run's facts every `<testsuite>` carries as `<properties>` (name, value), in this order;
 * `expectedFailures` is the run's count of checks that failed as listed (not in `failures`).
 */
export function junitProperties(result: RunResult): [string, string][] {
  return [
    ['seed', String(result.seed)],
    ['baseUrl', result.baseUrl],
    ['profile', result.profile.name],
    ...(typeof result.profile.revision === 'number'
      ? ([['revision', revisionLabel(result.profile)]] as [string, string][])
      : []),
    ['mode', result.mode],
    ['numRuns', String(result.numRuns)],
    ['tool', 'tagtrack-conformance'],
    ['toolVersion', VERSION],
    ['startedAt', result.startedAt],
    ['expectedFailures', String(countsOf(result).expectedFailures)],
    ...(result.interrupted === undefined
      ? []
      : ([['interrupted', result.interrupted]] as [string, string][])),
    ...(result.configError === undefined
      ? []
      : ([['configError', result.configError]] as [string, string][])),
  ];
}

/** Counts of a group of checks as JUnit attributes: tests, failures, errors, skipped, time (s). */
function counts(checks: readonly CheckResult[], result: RunResult, ms: number) {
  return {
    tests: checks.length,
    failures: checks.filter((c) => isFailure(c, result)).length,
    errors: checks.filter((c) => c.status === 'error' && c.expectedFailure === undefined).length,
    skipped: checks.filter(
      (c) => c.status === 'skip' || c.status === 'inconclusive' || isExpectedFailure(c),
    ).length,
    time: (ms / 1000).toFixed(3),
  };
}

/**
 * JUnit XML of a run: `<testsuites>` with the run's counts (tests, failures, errors, skipped,
 * time in seconds) and start `timestamp`; one `<testsuite>` per requirement area (built-in
 * areas first, then custom ones) with its counts, the run's start as `timestamp` and the
 * run's `<properties>` ({@link junitProperties}: seed, base URL, profile, mode, tool version);
 * one `<testcase>` per check: fail → `<failure>`, error → `<error>`, skip → `<skipped>`,
 * inconclusive → `<skipped>` whose message starts `inconclusive:` (never a pass, never a
 * failure: spec §5 Revision 3); an expected failure (listed, failed or errored) is a
 * `<skipped type="expected-failure">` whose message starts `expected failure` (as pytest
 * writes an xfail: never a failure, never a plain pass), its failures in `<system-out>`,
 * and the run's count of them is the property `expectedFailures`; a stale expected-failure
 * entry is a `<failure>`. A check whose requests needed retries (transport faults) keeps its
 * status and is marked as flaky: `<properties>` `flaky` and `retriedRequests`, and each
 * retried request in `<system-out>`. Values are escaped by xmlbuilder2.
 */
export function toJUnit(result: RunResult): string {
  const timestamp = junitTimestamp(result.startedAt);
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('testsuites', {
    name: 'tagtrack-conformance',
    ...counts(result.checks, result, result.durationMs),
    timestamp,
  });
  const properties = junitProperties(result);
  const areas = [...new Set([...AREAS, ...result.checks.map((c) => c.area)])];
  for (const area of areas) {
    const checks = result.checks.filter((c) => c.area === area);
    if (checks.length === 0) continue;
    const suite = root.ele('testsuite', {
      name: area,
      ...counts(
        checks,
        result,
        checks.reduce((s, c) => s + c.durationMs, 0),
      ),
      timestamp,
    });
    const props = suite.ele('properties');
    for (const [name, value] of properties) props.ele('property', { name, value });
    for (const c of checks) testcase(suite, c, area, result);
  }
  return root.end({ prettyPrint: true });
}

/** An element of an xmlbuilder2 document. */
type XMLBuilder = ReturnType<typeof create>;

function testcase(suite: XMLBuilder, c: CheckResult, area: string, result: RunResult): void {
  const tc = suite.ele('testcase', {
    name: `${c.id}: ${c.title}`,
    classname: `tagtrack.${area}`,
    time: (c.durationMs / 1000).toFixed(3),
  });
  const text = c.failures.map((f) => failureText(f)).join('\n\n');
  // a check whose requests needed retries is marked as such, like a runner's "flaky" test
  const retried = retriedText(c);
  if (c.retried !== undefined) {
    const props = tc.ele('properties');
    props.ele('property', { name: 'flaky', value: 'true' });
    props.ele('property', { name: 'retriedRequests', value: String(c.retried.length) });
  }
  if (isExpectedFailure(c)) {
    tc.ele('skipped', {
      type: 'expected-failure',
      message: `expected failure${c.expectedFailure ? `: ${c.expectedFailure}` : ''} (${c.failures[0]?.message ?? c.reason ?? c.status})`,
    });
    tc.ele('system-out').txt(
      [text === '' ? (c.reason ?? '') : text, retried].filter((t) => t !== '').join('\n\n'),
    );
    return;
  } else if (result.staleExpectedFailures.includes(c.id)) {
    tc.ele('failure', {
      message: 'listed in the expected-failures file but passed: remove the entry',
      type: 'stale-expected-failure',
    });
  } else if (c.status === 'fail') {
    tc.ele('failure', { message: c.failures[0]?.message ?? 'failed', type: c.clause }).txt(text);
  } else if (c.status === 'error') {
    tc.ele('error', { message: c.reason ?? 'error' }).txt(c.reason ?? '');
  } else if (c.status === 'skip') {
    tc.ele('skipped', { message: c.reason ?? 'skipped' });
  } else if (c.status === 'inconclusive') {
    tc.ele('skipped', {
      message: `inconclusive: ${c.reason ?? 'the data changed during every run'}`,
    });
  }
  if (retried !== '') tc.ele('system-out').txt(retried);
}

/** The requests of a check answered after retries, one a line (`''` when none). */
function retriedText(c: CheckResult): string {
  return (c.retried ?? [])
    .map(
      (q) =>
        `retried: ${q.method} ${q.target} answered on try ${q.tries} after ${q.causes.join(', ')}`,
    )
    .join('\n');
}

function isFailure(c: CheckResult, result: RunResult): boolean {
  return (
    (c.status === 'fail' && c.expectedFailure === undefined) ||
    result.staleExpectedFailures.includes(c.id)
  );
}
