/**
 * Revisions of the reference profile `tagtrack/v1` a vendor can pin (spec §12). A change to
 * docs/spec.md that turns a passing behaviour into a failing one is a new revision, listed
 * here with the old rule and the new one. A profile that names an older `revision` is judged
 * on each changed rule as that revision stated it; the run then warns once per changed rule
 * the implementation would fail under the current revision.
 */

/** The revision of `tagtrack/v1` this suite states (docs/spec.md): the default of a profile. */
export const CURRENT_REVISION = 3;

/** The oldest revision the suite still judges: Revision 1's changed rules are not kept. */
export const OLDEST_REVISION = 2;

/** A revision number the suite judges, {@link OLDEST_REVISION}..{@link CURRENT_REVISION}. */
export type Revision = 2 | 3;

/**
 * One rule a revision changed so that a behaviour that passed before fails now (spec §12).
 * `revision`: the revision that brought the new rule; `checks`: the requirement ids that judge
 * it; `before`/`after`: the rule as the previous revision and as `revision` state it, in
 * words; `section`: where docs/spec.md states it now (`spec §N`).
 */
export interface RuleChange {
  readonly id: string;
  readonly revision: Revision;
  readonly section: string;
  readonly checks: readonly string[];
  readonly before: string;
  readonly after: string;
}

/**
 * Every changed rule the suite judges per revision. A rule listed here is judged in its old
 * form under a profile pinned to a revision older than the rule's.
 */
export const RULE_CHANGES: readonly RuleChange[] = [
  {
    id: 'huge-cursor',
    revision: 3,
    section: 'spec §5',
    checks: ['PAGE-CURSOR-ARITHMETIC'],
    before:
      'a cursor above 2^53 − 1 is read as 2^53 − 1: past the end, previous = 2^53 − 1 − pageSize (cursor=99999999999999999999 links prev to cursor=9007199254740741)',
    after:
      'cursor arithmetic is exact for any cursor: previous = cursor − pageSize with all its digits (cursor=99999999999999999999 links prev to cursor=99999999999999999749)',
  },
];

/** The rule change `id` (throws on an unknown id: a programming error). */
export function ruleChange(id: string): RuleChange {
  const change = RULE_CHANGES.find((c) => c.id === id);
  if (change === undefined) throw new Error(`unknown rule change ${JSON.stringify(id)}`);
  return change;
}

/**
 * Whether a profile pinned to `revision` judges the changed rule `id` in its old form (the
 * rule came in a later revision than the one pinned).
 */
export function judgesOldRule(revision: number, id: string): boolean {
  return revision < ruleChange(id).revision;
}

/**
 * The revision judged, as every report names it: `tagtrack/v1 Revision 3` (the revision is of
 * the reference profile, whatever name the vendor's profile file gives itself).
 */
export function revisionLabel(profile: { readonly revision: number }): string {
  return `tagtrack/v1 Revision ${profile.revision}`;
}

/**
 * The run's warning for a changed rule the implementation passed only under its pinned older
 * revision: `changed in Revision 3 (spec §5): <new rule>; your implementation fails it
 * (PAGE-CURSOR-ARITHMETIC: <example>)`.
 */
export function upgradeWarning(id: string, check: string, example: string): string {
  const c = ruleChange(id);
  return `changed in Revision ${c.revision} (${c.section}): ${c.after}; your implementation fails it (${check}: ${example}), and passes only because the profile pins an older revision`;
}
