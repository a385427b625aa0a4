import type { Profile } from '../profile/profile.ts';
import type { CheckResult } from './result.ts';

/**
 * A release gate's policy: what a passing run must have verified beyond "no required check
 * failed" (docs/conformance.md "Gates"). Each bound names where it came from, for the
 * verdict line (`--max-inconclusive 0`, `profile maxInconclusive 0`).
 *
 * - `maxInconclusive`: the most checks that may end inconclusive (data moved under them);
 * - `maxSkipped`: the most checks that may be skipped, not counting those the profile rules
 *   out (a format or option the implementation did not choose is not a gap);
 * - `require`: ids of checks that must pass, not merely not fail (a skip, an inconclusive, an
 *   expected failure of one of them fails the gate).
 */
export interface GatePolicy {
  readonly maxInconclusive?: { readonly limit: number; readonly source: string } | undefined;
  readonly maxSkipped?: { readonly limit: number; readonly source: string } | undefined;
  readonly require: readonly { readonly id: string; readonly source: string }[];
}

/** The gate options of a run (`--max-inconclusive`, `--max-skipped`, `--require`). */
export interface GateOptions {
  readonly maxInconclusive?: number | undefined;
  readonly maxSkipped?: number | undefined;
  readonly require?: readonly string[] | undefined;
}

/**
 * The policy of a run: an option overrides the profile's bound of the same name; `require`
 * joins both lists (each id once, the option's source kept when both name it).
 */
export function gatePolicy(options: GateOptions, profile: Profile): GatePolicy {
  const bound = (
    option: number | undefined,
    field: number | undefined,
    flag: string,
    key: string,
  ) =>
    option !== undefined
      ? { limit: option, source: `${flag} ${option}` }
      : field !== undefined
        ? { limit: field, source: `profile ${key} ${field}` }
        : undefined;
  const require = new Map<string, string>();
  for (const id of options.require ?? []) require.set(id, '--require');
  for (const id of profile.require ?? []) if (!require.has(id)) require.set(id, 'profile require');
  return {
    maxInconclusive: bound(
      options.maxInconclusive,
      profile.maxInconclusive,
      '--max-inconclusive',
      'maxInconclusive',
    ),
    maxSkipped: bound(options.maxSkipped, profile.maxSkipped, '--max-skipped', 'maxSkipped'),
    require: [...require].map(([id, source]) => ({ id, source })),
  };
}

/** Whether a skip reason is the profile ruling the check out (reporters/verdict.ts's group). */
const ruledOutByProfile = (c: CheckResult) => /^the profile/i.test(c.reason ?? '');

const names = (cs: readonly CheckResult[]) =>
  cs.length <= 3
    ? cs.map((c) => c.id).join(', ')
    : `${cs
        .slice(0, 3)
        .map((c) => c.id)
        .join(', ')}, …`;

/**
 * The policies `checks` break, one sentence each naming the policy, what it allows and what
 * the run had, e.g. `--max-inconclusive 0: 1 check inconclusive (PAGE-CURSOR-ARITHMETIC)`;
 * empty when the run meets its policy.
 */
export function gateFailures(checks: readonly CheckResult[], policy: GatePolicy): string[] {
  const out: string[] = [];
  const plural = (n: number, what: string) => `${n} check${n === 1 ? '' : 's'} ${what}`;
  if (policy.maxInconclusive !== undefined) {
    const hit = checks.filter((c) => c.status === 'inconclusive');
    if (hit.length > policy.maxInconclusive.limit)
      out.push(
        `${policy.maxInconclusive.source}: ${plural(hit.length, 'inconclusive')} (${names(hit)})`,
      );
  }
  if (policy.maxSkipped !== undefined) {
    const hit = checks.filter((c) => c.status === 'skip' && !ruledOutByProfile(c));
    if (hit.length > policy.maxSkipped.limit)
      out.push(`${policy.maxSkipped.source}: ${plural(hit.length, 'skipped')} (${names(hit)})`);
  }
  for (const { id, source } of policy.require) {
    const c = checks.find((x) => x.id === id);
    if (c === undefined) out.push(`${source} ${id}: not run`);
    else if (c.status !== 'pass')
      out.push(
        `${source} ${id}: ${c.status}${c.expectedFailure === undefined ? '' : ' (listed as expected)'}${c.reason === undefined ? '' : ` (${c.reason})`}, and it must pass`,
      );
  }
  return out;
}

/**
 * The required ids of `policy` that name no check of `known`, as a usage message naming the
 * source, or undefined.
 */
export function unknownRequired(
  policy: GatePolicy,
  known: ReadonlySet<string>,
): string | undefined {
  const bad = policy.require.filter((r) => !known.has(r.id));
  if (bad.length === 0) return undefined;
  return `${bad.map((r) => `${r.source} ${r.id}`).join(', ')}: no check has ${bad.length === 1 ? 'this id' : 'these ids'} (list them with the requirements command)`;
}
