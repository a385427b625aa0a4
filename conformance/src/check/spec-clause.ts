/**
 * Checks and laws cite the reference profile's clauses as `decisions §N` (and the API's
 * source document as `source: …`), a numbering users of the suite do not have. What a user
 * sees (reports, `requirements`, docs/requirements.md) cites docs/spec.md instead, by the
 * table of its section "How code and reports cite this document": this module is that table.
 */

/** docs/spec.md's section of each `decisions §N` (N = 1…9). */
export const SPEC_SECTION_OF_DECISION: Readonly<Record<number, number>> = {
  1: 3, // authentication, signing
  2: 4, // scoping
  3: 5, // envelope, pagination, ordering
  4: 6, // query parameters
  5: 6, // errors
  6: 7, // rate limit
  7: 8, // formats
  8: 9, // values
  9: 10, // aggregation laws
};

/** docs/spec.md's sections of the source document's parts: resources (§1), endpoints (§2). */
const SOURCE = /source: (endpoints?\b[\d ,and–-]*\d|[A-Z][A-Za-z ]*[A-Za-z])/g;

/**
 * `clause` as docs/spec.md numbers it: `decisions §9 (daily counts), §3 (order)` becomes
 * `spec §10 (daily counts), §5 (order)`: every `§N` after `decisions` (up to `spec` or
 * `docs/spec.md`) is mapped by {@link SPEC_SECTION_OF_DECISION}; `source: endpoints 1, 3`
 * becomes `spec §2 endpoints 1, 3` and `source: Team member` `spec §1 Team member`. Anything
 * else is kept as written: a check of your own citing something else, `Revision 2`, and a `§N`
 * of no decisions section (`§11` is docs/spec.md's own "Decisions beyond the reference
 * profile").
 */
export function specClause(clause: string): string {
  let inDecisions = false;
  const mapped = clause.replace(
    /\b(docs\/spec\.md|spec|decisions|source:)|§(\d+)/g,
    (match, word: string | undefined, n: string | undefined) => {
      if (word === 'decisions') inDecisions = true;
      // `source: …` names a part of the source document, never a § (later ones are still decisions')
      else if (word !== undefined && word !== 'source:') inDecisions = false;
      if (word !== undefined) return word === 'decisions' ? 'spec' : match;
      const section = inDecisions ? SPEC_SECTION_OF_DECISION[Number(n)] : undefined;
      return section === undefined ? match : `§${section}`;
    },
  );
  return mapped.replace(SOURCE, (_, what: string) =>
    /^endpoints?\b/.test(what) || what === 'Endpoints'
      ? `spec §2 ${what.charAt(0).toLowerCase()}${what.slice(1)}`
      : `spec §1 ${what}`,
  );
}
