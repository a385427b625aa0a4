import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ExpectedFailuresError, loadExpectedFailures } from '../src/run/expected-failures.ts';
import { ConfigError } from '../src/run/runner.ts';
import { runInMemory } from './helpers.ts';

const ONLY = 'INPUT-400-UNKNOWN-PARAM,INPUT-400-BAD-ENUM';

describe('expected failures', () => {
  test('a listed failing check does not fail the run', async () => {
    const result = await runInMemory(
      { faults: ['unknown-param-ignored'] },
      {
        only: ONLY,
        expectedFailures: [{ id: 'INPUT-400-UNKNOWN-PARAM', reason: 'typos accepted' }],
      },
    );
    const check = result.checks.find((c) => c.id === 'INPUT-400-UNKNOWN-PARAM')!;
    expect(check.status).toBe('fail');
    expect(check.expectedFailure).toBe('typos accepted');
    expect(result.summary.expectedFailures).toBe(1);
    expect(result.ok).toBe(true);
  });

  test('the same fault without the entry fails the run', async () => {
    const result = await runInMemory({ faults: ['unknown-param-ignored'] }, { only: ONLY });
    expect(result.ok).toBe(false);
  });

  test('an entry whose check now passes is stale and fails the run', async () => {
    const result = await runInMemory(
      {},
      { only: ONLY, expectedFailures: [{ id: 'INPUT-400-UNKNOWN-PARAM' }] },
    );
    expect(result.checks.every((c) => c.status === 'pass')).toBe(true);
    expect(result.staleExpectedFailures).toEqual(['INPUT-400-UNKNOWN-PARAM']);
    expect(result.ok).toBe(false);
  });

  test('an entry naming no requirement id is a configuration error', async () => {
    await expect(
      runInMemory({}, { only: ONLY, expectedFailures: [{ id: 'NO-SUCH-REQ' }] }),
    ).rejects.toThrow(ConfigError);
  });

  test('the file holds ids or {id, reason} objects; anything else names the entry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tagtrack-xf-'));
    try {
      const good = join(dir, 'good.json');
      await writeFile(
        good,
        JSON.stringify(['AUTH-401-MISSING', { id: 'PAGE-WALK-ONCE', reason: 'r' }]),
      );
      expect(await loadExpectedFailures(good)).toEqual([
        { id: 'AUTH-401-MISSING' },
        { id: 'PAGE-WALK-ONCE', reason: 'r' },
      ]);
      const bad = join(dir, 'bad.json');
      await writeFile(bad, JSON.stringify(['A-B', { reason: 'no id' }]));
      await expect(loadExpectedFailures(bad)).rejects.toThrow(ExpectedFailuresError);
      await expect(loadExpectedFailures(bad)).rejects.toThrow(/\[1\]/);
      await expect(loadExpectedFailures(join(dir, 'missing.json'))).rejects.toThrow(/cannot read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
