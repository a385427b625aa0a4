import { readFileSync } from 'node:fs';
import { LAWS } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { SPEC_SECTION_OF_DECISION, specClause } from '../src/check/spec-clause.ts';
import { ALL_CHECKS } from '../src/checks/index.ts';

/** Users see docs/spec.md's numbering, never the decisions document's. */

const SPEC = readFileSync(new URL('../../docs/spec.md', import.meta.url), 'utf8');

describe('specClause', () => {
  test("the map is docs/spec.md's citation table, and each section it names is a heading there", () => {
    const table = SPEC.slice(SPEC.indexOf('### How code and reports cite this document'));
    const rows = table.split('\n').filter((l) => l.startsWith('| `decisions §'));
    const fromDoc: Record<number, number> = {};
    for (const row of rows) {
      const section = Number(/\[(\d+)\. /.exec(row)![1]);
      for (const m of row.matchAll(/`decisions §(\d+)`/g)) fromDoc[Number(m[1])] = section;
    }
    expect(fromDoc).toEqual(SPEC_SECTION_OF_DECISION);
    for (const section of Object.values(SPEC_SECTION_OF_DECISION))
      expect(SPEC).toMatch(new RegExp(`^## ${section}\\. `, 'm'));
  });

  test.each([
    ['decisions §9 (team stats), §4 (type)', 'spec §10 (team stats), §6 (type)'],
    ['decisions §3 Revision 2 (paging end)', 'spec §5 Revision 2 (paging end)'],
    ['decisions §8, source: Team member', 'spec §9, spec §1 Team member'],
    ['source: endpoints 3 and 16', 'spec §2 endpoints 3 and 16'],
    [
      'source: Statistics summary (x), §3 (one record per day)',
      'spec §1 Statistics summary (x), §3 (one record per day)',
    ],
    [
      'decisions §4 (unknown path), §11 (a trailing slash)',
      'spec §6 (unknown path), §11 (a trailing slash)',
    ],
    ['docs/spec.md §5 (order)', 'docs/spec.md §5 (order)'],
    ['our own rule 7', 'our own rule 7'],
  ])('%s -> %s', (clause, shown) => {
    expect(specClause(clause)).toBe(shown);
  });

  test('no built-in check or law shows a decisions § once mapped: each cites spec §N', () => {
    const clauses = [...ALL_CHECKS.map((c) => c.clause), ...LAWS.map((l) => l.clause)];
    for (const c of clauses) {
      const shown = specClause(c);
      expect(shown, c).not.toMatch(/decisions/);
      // one check cites the suite's own option (RATE-RESPONSE-TIME), not a document
      expect(shown, c).toMatch(/spec §\d|^source: the suite's/);
    }
  });
});
