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
 * words; `section`: where docs/spec.md states it now (`spec §N`). `judged`: `in-check` when
 * the checks judge the old form themselves (they ask `ctx.judgesOldRule`), `whole-check` when
 * the previous revision did not state the rule at all, so under a pinned older revision a
 * failure of those checks is no verdict: the runner reports the check as skipped and warns.
 */
export interface RuleChange {
  readonly id: string;
  readonly revision: Revision;
  readonly section: string;
  readonly checks: readonly string[];
  readonly before: string;
  readonly after: string;
  readonly judged: 'in-check' | 'whole-check';
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
    judged: 'in-check',
  },
  {
    id: 'query-syntax',
    revision: 3,
    section: 'spec §6',
    checks: [
      'INPUT-QUERY-EMPTY-PIECES',
      'INPUT-QUERY-BARE-NAME',
      'INPUT-QUERY-EMPTY-NAME',
      'INPUT-QUERY-NAMES-CASE',
      'INPUT-QUERY-VALUES-DECODED',
      'INPUT-QUERY-NAMES-DECODED',
      'INPUT-QUERY-UNDECODABLE',
    ],
    before: 'the syntax of the query string unstated (not judged)',
    after:
      'the query is read as application/x-www-form-urlencoded: empty pieces ignored, a bare name has an empty value, an empty name is unknown (400), names case-sensitive, names and values percent-decoded with + as a space, an undecodable value 400 naming it',
    judged: 'whole-check',
  },
  {
    id: 'event-recipient',
    revision: 3,
    section: 'spec §9',
    checks: ['REL-EVENT-RECIPIENT'],
    before: 'the recipient of an event on endpoints 9 and 11 unstated (not judged)',
    after:
      "an event's recipient is one of its tag's recipients: recipientID the contact id of its normalised email, name from the tag's first entry with that email",
    judged: 'whole-check',
  },
];

/**
 * The changes judged as whole checks (see {@link RuleChange.judged}) that a profile pinned to
 * `revision` does not judge yet, by check id.
 */
export function unjudgedChecks(revision: number): Map<string, RuleChange> {
  const out = new Map<string, RuleChange>();
  for (const c of RULE_CHANGES)
    if (c.judged === 'whole-check' && revision < c.revision)
      for (const id of c.checks) out.set(id, c);
  return out;
}

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
  if (c.judged === 'whole-check')
    return `changed in Revision ${c.revision} (${c.section}): ${c.after}; your implementation fails it (${check}: ${example}), and is not judged on it because the profile pins an older revision`;
  return `changed in Revision ${c.revision} (${c.section}): ${c.after}; your implementation fails it (${check}: ${example}), and passes only because the profile pins an older revision`;
}
