/**
 * The annotation script of the GitHub Action (scripts/action/annotate.mjs, run by action.yml)
 * on the results.json of real runs: a run against a server with a fault gets one `::error`
 * per failing check, a passing run none; the job summary lists the failing checks.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  annotations,
  assertResults,
  escapeData,
  MAX_ANNOTATIONS,
  stepSummary,
} from '../../scripts/action/annotate.mjs';
import { writeReports } from '../src/report/index.ts';
import { toResultsJson } from '../src/report/json.ts';
import type { RunResult } from '../src/run/runner.ts';
import { runInMemory, team1Admin } from './helpers.ts';

const SCRIPT = fileURLToPath(new URL('../../scripts/action/annotate.mjs', import.meta.url));
const ONLY = 'AGG-UNIQUE-LE-TOTAL,AGG-UNIQUE-LE-RECIPIENTS,AUTH-401-MISSING';

function annotate(
  file: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, file], {
      env: { ...process.env, GITHUB_STEP_SUMMARY: '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

describe('GitHub Action annotations (scripts/action/annotate.mjs)', { timeout: 120_000 }, () => {
  let dir = '';
  let failed: RunResult;
  let passed: RunResult;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tagtrack-annotate-'));
    failed = await runInMemory({ faults: ['unique-opens-as-total'] }, { only: ONLY, numRuns: 3 });
    passed = await runInMemory({}, { only: ONLY, numRuns: 3 });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a run against a faulty server: one ::error per failing check, naming it, and the totals', async () => {
    const results = toResultsJson(failed);
    const ids = results.checks.filter((c) => c.status === 'fail').map((c) => c.id);
    expect(ids.length).toBeGreaterThan(0);
    const lines = annotations(results);
    const errors = lines.filter((l: string) => l.startsWith('::error'));
    expect(errors).toHaveLength(ids.length);
    for (const id of ids) {
      const line = errors.find((l: string) => l.startsWith(`::error title=${id} failed::`));
      expect(line, id).toBeDefined();
      const message = results.checks.find((c) => c.id === id)!.failures[0]!.message;
      expect(line).toContain(escapeData(message));
      expect(line).not.toMatch(/\n/);
    }
    expect(lines.at(-1)).toMatch(
      /^::notice title=tagtrack-conformance::FAILED: \d+ pass, \d+ fail/,
    );
  });

  test('a passing run: no ::error, a PASSED notice', () => {
    const lines = annotations(toResultsJson(passed));
    expect(passed.ok).toBe(true);
    expect(lines.filter((l: string) => l.startsWith('::error'))).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^::notice title=tagtrack-conformance::PASSED: \d+ pass, 0 fail, 0 error/,
    );
  });

  test("the script reads results.json, prints the annotations and appends the suite's summary.md to the job summary", async () => {
    const reports = join(dir, 'failed');
    await writeReports(failed, reports);
    const summaryFile = join(dir, 'step-summary.md');
    await writeFile(summaryFile, '');
    const out = await annotate(join(reports, 'results.json'), { GITHUB_STEP_SUMMARY: summaryFile });
    expect(out.code).toBe(0);
    const results = toResultsJson(failed);
    expect(out.stdout).toBe(`${annotations(results).join('\n')}\n`);
    const summary = await readFile(summaryFile, 'utf8');
    expect(summary).toBe(await readFile(join(reports, 'summary.md'), 'utf8'));
    expect(summary).toMatch(/^## tagtrack conformance: FAIL\n/);
    for (const c of results.checks.filter((c) => c.status === 'fail')) {
      expect(summary).toContain(`- **\`${c.id}\`** `);
    }
    expect(out.stdout + summary).not.toContain(team1Admin.accessKey);
  });

  test('without summary.md beside results.json (an older suite) the job summary is the table of this script', async () => {
    const reports = join(dir, 'older');
    await writeReports(failed, reports);
    await rm(join(reports, 'summary.md'));
    const summaryFile = join(dir, 'older-step-summary.md');
    await writeFile(summaryFile, '');
    const out = await annotate(join(reports, 'results.json'), { GITHUB_STEP_SUMMARY: summaryFile });
    expect(out.code).toBe(0);
    const results = toResultsJson(failed);
    const summary = await readFile(summaryFile, 'utf8');
    expect(summary).toBe(stepSummary(results));
    expect(summary).toContain('## tagtrack-conformance: FAILED');
    for (const c of results.checks.filter((c) => c.status === 'fail')) {
      expect(summary).toContain(`| \`${c.id}\` |`);
    }
    expect(out.stdout + summary).not.toContain(team1Admin.accessKey);
  });

  test('stale expected failures and interrupted runs are annotated; errors beyond the cap are counted', () => {
    const base = toResultsJson(failed);
    const template = base.checks.find((c) => c.status === 'fail')!;
    const many = {
      ...base,
      checks: Array.from({ length: MAX_ANNOTATIONS + 3 }, (_, i) => ({
        ...template,
        id: `${template.id}-X${i}`,
      })),
      staleExpectedFailures: ['AUTH-401-MISSING'],
      interrupted: 'SIGINT',
    };
    const lines = annotations(many);
    const errors = lines.filter((l: string) => l.startsWith('::error'));
    expect(errors).toHaveLength(MAX_ANNOTATIONS + 2);
    expect(errors[MAX_ANNOTATIONS]).toContain('3 more failing checks');
    expect(errors.at(-1)).toMatch(/^::error title=AUTH-401-MISSING passed::.*remove the entry/);
    expect(lines).toContainEqual('::warning title=run interrupted::the run stopped early (SIGINT)');
  });

  test('a missing or foreign file: one ::error naming the problem, exit 2', async () => {
    const missing = await annotate(join(dir, 'nope.json'));
    expect(missing.code).toBe(2);
    expect(missing.stdout).toMatch(
      /^::error title=tagtrack-conformance::.*nope\.json does not exist/,
    );
    const foreign = join(dir, 'foreign.json');
    await writeFile(foreign, JSON.stringify({ suite: 'other', checks: [] }));
    const wrong = await annotate(foreign);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toContain('expected "tagtrack-conformance"');
    expect(() => assertResults({ suite: 'tagtrack-conformance', checks: [{ id: 1 }] })).toThrow(
      /checks\[0\]/,
    );
  });

  test('workflow command escaping keeps a message on one line', () => {
    expect(escapeData('50% done\r\nnext')).toBe('50%25 done%0D%0Anext');
  });
});
