import { create } from 'xmlbuilder2';
import { AREAS } from '../checks/define.ts';
import type { CheckResult, RunResult } from '../runner.ts';
import { failureText } from './text.ts';

/**
 * JUnit XML of a run (one `<testsuite>` per requirement area, one `<testcase>` per check):
 * fail → `<failure>`, error → `<error>`, skip → `<skipped>`; an expected failure is a passing
 * testcase with a `<system-out>` note; a stale expected-failure entry is a `<failure>`.
 */
export function toJUnit(result: RunResult): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('testsuites', {
    name: 'tagtrack-conformance',
    tests: result.checks.length,
    failures: result.checks.filter((c) => isFailure(c, result)).length,
    errors: result.checks.filter((c) => c.status === 'error' && c.expectedFailure === undefined)
      .length,
    time: (result.durationMs / 1000).toFixed(3),
  });
  const areas = [...new Set([...AREAS, ...result.checks.map((c) => c.area)])];
  for (const area of areas) {
    const checks = result.checks.filter((c) => c.area === area);
    if (checks.length === 0) continue;
    const suite = root.ele('testsuite', {
      name: area,
      tests: checks.length,
      failures: checks.filter((c) => isFailure(c, result)).length,
      errors: checks.filter((c) => c.status === 'error' && c.expectedFailure === undefined).length,
      skipped: checks.filter((c) => c.status === 'skip').length,
      time: (checks.reduce((s, c) => s + c.durationMs, 0) / 1000).toFixed(3),
    });
    for (const c of checks) {
      const tc = suite.ele('testcase', {
        name: `${c.id}: ${c.title}`,
        classname: `tagtrack.${area}`,
        time: (c.durationMs / 1000).toFixed(3),
      });
      const text = c.failures.map((f) => failureText(f)).join('\n\n');
      if (c.expectedFailure !== undefined && (c.status === 'fail' || c.status === 'error')) {
        tc.ele('system-out').txt(
          `expected failure${c.expectedFailure ? `: ${c.expectedFailure}` : ''}\n${text}`,
        );
      } else if (result.staleExpectedFailures.includes(c.id)) {
        tc.ele('failure', {
          message: 'listed in the expected-failures file but passed: remove the entry',
          type: 'stale-expected-failure',
        });
      } else if (c.status === 'fail') {
        tc.ele('failure', { message: c.failures[0]?.message ?? 'failed', type: c.clause }).txt(
          text,
        );
      } else if (c.status === 'error') {
        tc.ele('error', { message: c.reason ?? 'error' }).txt(c.reason ?? '');
      } else if (c.status === 'skip') {
        tc.ele('skipped', { message: c.reason ?? 'skipped' });
      }
    }
  }
  return root.end({ prettyPrint: true });
}

function isFailure(c: CheckResult, result: RunResult): boolean {
  return (
    (c.status === 'fail' && c.expectedFailure === undefined) ||
    result.staleExpectedFailures.includes(c.id)
  );
}
