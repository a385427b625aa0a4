import { VARIANTS } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../src/checks/index.ts';
import { parseProfile } from '../src/profile/profile.ts';
import { CURRENT_REVISION, RULE_CHANGES, revisionLabel } from '../src/profile/revisions.ts';
import { formatSummary, toMarkdown, verdictOf } from '../src/report/index.ts';
import { toResultsJson } from '../src/report/json.ts';
import { profileFor, runInMemory } from './helpers.ts';

/**
 * Profile revisions a vendor can pin (spec §12): each changed rule is judged as the pinned
 * revision stated it, and the run warns once naming each rule the implementation fails under
 * the current revision. Each old rule lives on as a server variant that passes under its
 * revision and fails under the next.
 */

/** One run of PAGE-CURSOR-ARITHMETIC against the reference server with `variants`, profile `revision`. */
function cursorRun(variants: ('huge-cursor-clamp' | 'paging-path-canonical')[], revision?: number) {
  const { revision: _drop, ...profile } = { ...profileFor(), revision };
  return runInMemory(
    { variants },
    {
      mode: 'blind',
      only: 'PAGE-CURSOR-ARITHMETIC',
      numRuns: 2,
      profile: revision === undefined ? profile : { ...profile, revision },
    },
  );
}

const statusOf = (r: Awaited<ReturnType<typeof cursorRun>>) =>
  r.checks.find((c) => c.id === 'PAGE-CURSOR-ARITHMETIC')?.status;

describe('revisions: the huge cursor changed in Revision 3', () => {
  test('variant huge-cursor-clamp passes under a profile pinned to revision 2, with one warning naming the Revision 3 rule', async () => {
    const run = await cursorRun(['huge-cursor-clamp'], 2);
    expect(statusOf(run)).toBe('pass');
    expect(run.ok).toBe(true);
    const upgrades = (run.warnings ?? []).filter((w) => w.startsWith('changed in Revision'));
    expect(upgrades).toHaveLength(1);
    expect(upgrades[0]).toMatch(/^changed in Revision 3 \(spec §5\): cursor arithmetic is exact/);
    expect(upgrades[0]).toContain('your implementation fails it (PAGE-CURSOR-ARITHMETIC:');
    expect(upgrades[0]).toContain('99999999999999999749');
    // the verdict line and results.json name the revision judged
    expect(formatSummary(run)).toContain('tagtrack/v1 Revision 2');
    expect(toResultsJson(run)).toMatchObject({ revision: 'tagtrack/v1 Revision 2' });
  }, 120_000);

  test('variant huge-cursor-clamp fails under revision 3 and under a profile without revision (the current one)', async () => {
    for (const revision of [3, undefined]) {
      const run = await cursorRun(['huge-cursor-clamp'], revision);
      expect(statusOf(run)).toBe('fail');
      expect(run.ok).toBe(false);
      const messages = run.checks.flatMap((c) => c.failures.map((f) => f.message));
      expect(messages.some((m) => m.includes('cursor=9007199254740741'))).toBe(true);
      expect(run.profile.revision).toBe(CURRENT_REVISION);
      expect(verdictOf(run).judged).toBe('tagtrack/v1 Revision 3');
      expect(run.warnings ?? []).not.toContainEqual(expect.stringMatching(/^changed in/));
    }
  }, 120_000);

  test('the reference (exact arithmetic) passes under revision 2 without a warning: the newer rule is met', async () => {
    const run = await cursorRun([], 2);
    expect(statusOf(run)).toBe('pass');
    expect(run.warnings ?? []).toEqual([]);
  }, 120_000);

  test('under revision 2 a huge cursor answered neither way still fails, citing the old rule', async () => {
    const run = await runInMemory(
      { faults: ['prev-cursor-float'] },
      {
        mode: 'blind',
        only: 'PAGE-CURSOR-ARITHMETIC',
        numRuns: 2,
        profile: { ...profileFor(), revision: 2 },
      },
    );
    expect(statusOf(run)).toBe('fail');
    const messages = run.checks.flatMap((c) => c.failures.map((f) => f.message));
    expect(messages.some((m) => m.includes('the profile pins Revision 2: read as 2^53 - 1'))).toBe(
      true,
    );
    expect(run.warnings ?? []).toEqual([]);
  }, 120_000);
});

describe('revisions: rules Revision 2 did not state', () => {
  test('fault empty-piece-400 under revision 2: INPUT-QUERY-EMPTY-PIECES is skipped naming the revision, with one warning; under revision 3 it fails', async () => {
    const options = (revision: number) => ({
      mode: 'blind' as const,
      only: 'INPUT-QUERY-EMPTY-PIECES',
      numRuns: 2,
      profile: { ...profileFor(), revision },
    });
    const pinned = await runInMemory({ faults: ['empty-piece-400'] }, options(2));
    const check = pinned.checks.find((c) => c.id === 'INPUT-QUERY-EMPTY-PIECES')!;
    expect(check.status).toBe('skip');
    expect(check.reason).toMatch(
      /^the profile pins Revision 2, which did not state this rule \(spec §6/,
    );
    expect(pinned.ok).toBe(true);
    expect(pinned.warnings).toEqual([
      expect.stringMatching(
        /^changed in Revision 3 \(spec §6\): the query is read as application\/x-www-form-urlencoded.*your implementation fails it \(INPUT-QUERY-EMPTY-PIECES: /,
      ),
    ]);
    const current = await runInMemory({ faults: ['empty-piece-400'] }, options(3));
    expect(current.checks.find((c) => c.id === 'INPUT-QUERY-EMPTY-PIECES')?.status).toBe('fail');
    expect(current.warnings ?? []).toEqual([]);
  }, 120_000);
});

describe('revisions: the profile field', () => {
  test('revision defaults to the current one; 1 and a future one are refused naming the field', () => {
    expect(parseProfile({}).revision).toBe(CURRENT_REVISION);
    expect(parseProfile({ revision: 2 }).revision).toBe(2);
    expect(() => parseProfile({ revision: 1 })).toThrow(/revision: Revision 1 is no longer judged/);
    expect(() => parseProfile({ revision: CURRENT_REVISION + 1 })).toThrow(
      /revision: this suite states revisions up to 3/,
    );
    expect(() => parseProfile({ revision: '3' })).toThrow(/revision:/);
  });

  test('every rule change names checks of the suite, a revision the suite judges, and both rules', () => {
    const ids = new Set(ALL_CHECKS.map((c) => c.id));
    for (const change of RULE_CHANGES) {
      for (const id of change.checks) expect(ids.has(id)).toBe(true);
      expect(change.revision).toBeLessThanOrEqual(CURRENT_REVISION);
      expect(change.before).not.toBe(change.after);
    }
    expect(revisionLabel({ revision: 2 })).toBe('tagtrack/v1 Revision 2');
  });

  test('each old rule is kept as a server variant that declares the revision it passes under', () => {
    const pinned = VARIANTS.filter((v) => 'revision' in v);
    expect(pinned.map((v) => [v.name, v.revision, v.profile])).toEqual([
      ['huge-cursor-clamp', 2, { revision: 2 }],
    ]);
    // every rule whose old form was stated (not merely unstated) lives on as a variant
    expect(RULE_CHANGES.filter((c) => c.judged === 'in-check').map((c) => c.revision - 1)).toEqual(
      pinned.map((v) => v.revision),
    );
  });

  test('the markdown report names the revision judged', async () => {
    const run = await cursorRun([], undefined);
    expect(toMarkdown(run)).toContain('tagtrack/v1 Revision 3');
  }, 120_000);
});
