import { describe, expect, test } from 'vitest';
import { parseProfile } from '../src/profile/profile.ts';
import { verdictOf } from '../src/report/index.ts';
import { gateFailures, gatePolicy, unknownRequired } from '../src/run/gates.ts';
import type { CheckResult } from '../src/run/result.ts';
import { profileFor, runInMemory } from './helpers.ts';

/** A check result with `status` and `reason` (the rest as a built-in check's). */
const result = (id: string, status: CheckResult['status'], reason?: string): CheckResult => ({
  id,
  area: 'page',
  title: id,
  clause: 'spec §5',
  endpoints: [],
  required: true,
  status,
  reason,
  failures: [],
  seed: 1,
  requests: 0,
  durationMs: 0,
});

describe('gates: the policy', () => {
  test('an option overrides the profile field of the same name; require joins both, each id once', () => {
    const profile = parseProfile({ maxInconclusive: 2, maxSkipped: 5, require: ['A-B', 'C-D'] });
    expect(gatePolicy({ maxInconclusive: 0, require: ['C-D', 'E-F'] }, profile)).toEqual({
      maxInconclusive: { limit: 0, source: '--max-inconclusive 0' },
      maxSkipped: { limit: 5, source: 'profile maxSkipped 5' },
      require: [
        { id: 'C-D', source: '--require' },
        { id: 'E-F', source: '--require' },
        { id: 'A-B', source: 'profile require' },
      ],
    });
    expect(gatePolicy({}, parseProfile({}))).toEqual({
      maxInconclusive: undefined,
      maxSkipped: undefined,
      require: [],
    });
  });

  test('each broken policy is one sentence naming it; skips the profile rules out do not count', () => {
    const checks = [
      result('PAGE-A', 'inconclusive', 'the data changed'),
      result('PAGE-B', 'skip', 'needs fixture mode'),
      result('PAGE-C', 'skip', 'the profile declares no rate limit'),
      result('PAGE-D', 'pass'),
    ];
    const policy = gatePolicy(
      { maxInconclusive: 0, maxSkipped: 0, require: ['PAGE-B', 'PAGE-D'] },
      parseProfile({}),
    );
    expect(gateFailures(checks, policy)).toEqual([
      '--max-inconclusive 0: 1 check inconclusive (PAGE-A)',
      '--max-skipped 0: 1 check skipped (PAGE-B)',
      '--require PAGE-B: skip (needs fixture mode), and it must pass',
    ]);
    expect(
      gateFailures(checks, gatePolicy({ maxInconclusive: 1, maxSkipped: 1 }, parseProfile({}))),
    ).toEqual([]);
  });

  test('a required id that names no check is a usage error naming where it came from', () => {
    const policy = gatePolicy({}, parseProfile({ require: ['PAGE-NOPE'] }));
    expect(unknownRequired(policy, new Set(['PAGE-A']))).toMatch(
      /^profile require PAGE-NOPE: no check has this id/,
    );
  });

  test('live: the profile bar fails a blind run whose required fixture check was skipped, and the verdict line names the policy', async () => {
    const run = await runInMemory(
      {},
      {
        mode: 'blind',
        only: 'PAGE-CURSOR-ARITHMETIC,ORACLE-TAGS',
        numRuns: 2,
        profile: { ...profileFor(), require: ['ORACLE-TAGS'] },
      },
    );
    expect(run.checks.map((c) => [c.id, c.status])).toEqual([
      ['PAGE-CURSOR-ARITHMETIC', 'pass'],
      ['ORACLE-TAGS', 'skip'],
    ]);
    expect(run.ok).toBe(false);
    expect(run.gateFailures).toEqual([
      expect.stringMatching(
        /^profile require ORACLE-TAGS: skip \(.*fixture mode.*\), and it must pass$/,
      ),
    ]);
    expect(verdictOf(run).line).toMatch(
      /^FAIL \(policy profile require ORACLE-TAGS: skip .*\) under tagtrack\/v1 Revision 3$/,
    );
  }, 120_000);
});
