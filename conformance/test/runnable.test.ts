import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type TagtrackServer } from '@tagtrack/server';
import { decodeHTML } from 'entities';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rerunWords, runAgainCommand } from '../src/http/rerun.ts';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import { ResultsJson } from '../src/report/index.ts';
import { runCli, team1Admin } from './helpers.ts';

/**
 * Every command a run prints (console reproduce lines, report.html's "run it again",
 * junit.xml, results.json, the replay hint) runs as printed through `sh -c` in the
 * environment the run started in, and reproduces what the run saw: credentials come from
 * where the run took them (the profile file, or the TAGTRACK_* variables), never from a
 * secret printed on the line. No output of the run or of the commands holds the access key.
 */

const BIN = fileURLToPath(new URL('../bin/tagtrack-conformance.js', import.meta.url));

let server: TagtrackServer;
let baseUrl: string;
let dir: string;
/** A directory holding a `tagtrack-conformance` launcher, put first on PATH for `sh -c`. */
let binDir: string;
let profileFile: string;

beforeAll(async () => {
  server = createServer({ faults: ['bad-date-200', 'ignore-is-opened'] });
  baseUrl = await server.listen(0, '127.0.0.1');
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-runnable-'));
  binDir = join(dir, 'bin');
  await mkdir(binDir);
  const launcher = join(binDir, 'tagtrack-conformance');
  await writeFile(launcher, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  await chmod(launcher, 0o755);
  profileFile = join(dir, 'my profile.json');
  await writeFile(profileFile, JSON.stringify(canonicalProfile()));
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

interface Shell {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `line` through `sh -c` in `cwd` with the TAGTRACK_* variables of `env` only. */
function sh(line: string, env: Record<string, string>, cwd: string): Promise<Shell> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('TAGTRACK_')),
  ) as Record<string, string>;
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', line],
      {
        cwd,
        env: { ...clean, NO_COLOR: '1', ...env, PATH: `${binDir}:${process.env.PATH}` },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          stdout,
          stderr,
        }),
    );
  });
}

/** The `reproduce:` lines of a console output, distinct. */
function reproduceLines(text: string): string[] {
  return [
    ...new Set(
      [...text.matchAll(/reproduce: (tagtrack-conformance request .*)$/gm)].map((m) => m[1]!),
    ),
  ];
}

/** The status the HAR recorded for the request a reproduce line sends (method and target). */
async function recordedStatus(har: string, line: string): Promise<number> {
  const m = /^tagtrack-conformance request (\S+) '((?:[^']|'\\'')*)'/.exec(line)!;
  const method = m[1]!;
  const target = m[2]!.replace(/'\\''/g, "'");
  const entries = (
    JSON.parse(await readFile(har, 'utf8')) as {
      log: {
        entries: { request: { method: string; url: string }; response: { status: number } }[];
      };
    }
  ).log.entries;
  const entry = entries.find(
    (e) => e.request.method === method && e.request.url === `${baseUrl}${target}`,
  );
  expect(entry, `the HAR records ${method} ${target}`).toBeDefined();
  return entry!.response.status;
}

/** Every file a run wrote, as text. */
async function reportTexts(reports: string, har: string): Promise<string[]> {
  return Promise.all(
    [
      join(reports, 'results.json'),
      join(reports, 'junit.xml'),
      join(reports, 'report.html'),
      har,
    ].map((f) => readFile(f, 'utf8')),
  );
}

/**
 * Runs a failing run with `args` (and `env`), then every reproduce line it printed (up to
 * three), the report's run-it-again line of a failed check and the replay hint, through
 * `sh -c` with `shellEnv`; asserts each reproduces, and that no output holds the access key.
 */
async function runnableEverywhere(
  name: string,
  args: string[],
  env: Record<string, string>,
  shellEnv: Record<string, string>,
  expectWords: readonly string[],
): Promise<void> {
  const cwd = join(dir, name);
  await mkdir(cwd);
  const reports = join(cwd, 'reports');
  const har = join(cwd, 'run.har');
  const secret = team1Admin.accessKey;
  const saved = process.cwd();
  process.chdir(cwd);
  let run: Awaited<ReturnType<typeof runCli>>;
  try {
    run = await runCli(
      [
        'run',
        '--base-url',
        baseUrl,
        '--seed',
        '5',
        '--num-runs',
        '4',
        '--only',
        'INPUT-400-BAD-DATE,REL-FILTER-CONJUNCTION',
        '--report-dir',
        'reports',
        '--har',
        'run.har',
        ...args,
      ],
      env,
    );
  } finally {
    process.chdir(saved);
  }
  expect(run.code, run.stderr).toBe(1);
  const outputs = [run.stdout, run.stderr, ...(await reportTexts(reports, har))];

  // the console's reproduce lines: each names where the credentials come from
  const lines = reproduceLines(run.stdout);
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) for (const w of expectWords) expect(line).toContain(w);
  // …and results.json and junit.xml print the same lines
  const results = ResultsJson.parse(JSON.parse(outputs[2]!));
  const recorded = results.checks.flatMap((c) => c.failures.flatMap((f) => f.reproduce ?? []));
  for (const line of lines) expect(recorded).toContain(line);
  // junit.xml and report.html (escaped for XML/HTML)
  for (const line of lines.slice(0, 3)) {
    expect(decodeHTML(outputs[3]!)).toContain(line);
    expect(decodeHTML(outputs[4]!)).toContain(line);
  }

  for (const line of lines.slice(0, 3)) {
    const status = await recordedStatus(har, line);
    const out = await sh(line, shellEnv, cwd);
    expect(out.stderr, line).toBe('');
    expect(out.code, line).toBe(0);
    expect(out.stdout.split('\n')[0], line).toBe(`HTTP ${status}`);
    outputs.push(out.stdout, out.stderr);
  }

  // report.html's "run it again" of a failed check: the check fails again
  const failed = results.checks.find((c) => c.status === 'fail')!;
  const again = runAgainCommand(results as Parameters<typeof runAgainCommand>[0], failed.id);
  expect(decodeHTML(outputs[4]!)).toContain(again);
  const rerun = await sh(again, shellEnv, cwd);
  expect(rerun.code, rerun.stderr).toBe(1);
  expect(rerun.stdout).toContain(`FAIL ${failed.id}`);
  outputs.push(rerun.stdout, rerun.stderr);

  // the replay hint: every failed check again, with the recorded failures
  const hint = /^rerun every failed check: (tagtrack-conformance replay .*)$/m.exec(run.stdout);
  expect(hint).not.toBeNull();
  const replay = await sh(hint![1]!, shellEnv, cwd);
  expect(replay.code, replay.stderr).toBe(1);
  expect(replay.stdout).toMatch(/^reproduced: /m);
  expect(replay.stdout).toContain('replayed 2 checks: 2 failed again (2 as recorded), 0 pass now');
  outputs.push(replay.stdout, replay.stderr);

  for (const text of outputs) expect(text).not.toContain(secret);
}

describe('the commands a run prints run as printed where it started', () => {
  test('a run with --profile: lines name the profile file, quoted for the shell', async () => {
    await runnableEverywhere('profile', ['--mode', 'fixture', '--profile', profileFile], {}, {}, [
      `--profile '${profileFile}'`,
      "--credential '",
    ]);
  });

  test('a run with --profile given relative: lines carry its absolute path', async () => {
    const cwd = join(dir, 'relative');
    await mkdir(cwd);
    await writeFile(join(cwd, 'p.json'), JSON.stringify(canonicalProfile()));
    const saved = process.cwd();
    process.chdir(cwd);
    try {
      const out = await runCli([
        'run',
        '--base-url',
        baseUrl,
        '--mode',
        'fixture',
        '--profile',
        'p.json',
        '--only',
        'INPUT-400-BAD-DATE',
        '--num-runs',
        '2',
      ]);
      expect(out.code).toBe(1);
      const lines = reproduceLines(out.stdout);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toContain(`--profile '${join(cwd, 'p.json')}'`);
    } finally {
      process.chdir(saved);
    }
  });

  test('a run with TAGTRACK_AUTH_ID/TAGTRACK_ACCESS_KEY: lines read the same variables', async () => {
    const env = { TAGTRACK_AUTH_ID: team1Admin.authId, TAGTRACK_ACCESS_KEY: team1Admin.accessKey };
    await runnableEverywhere('env', ['--mode', 'blind'], env, env, [
      '--auth-id "$TAGTRACK_AUTH_ID" --access-key "$TAGTRACK_ACCESS_KEY"',
      "--credential '",
    ]);
  });

  test('a run with --auth-id/--access-key on its command line: lines read the key from TAGTRACK_ACCESS_KEY, and say so', async () => {
    await runnableEverywhere(
      'argv',
      ['--mode', 'blind', '--auth-id', team1Admin.authId, '--access-key', team1Admin.accessKey],
      {},
      { TAGTRACK_ACCESS_KEY: team1Admin.accessKey },
      [`--auth-id '${team1Admin.authId}' --access-key "\${TAGTRACK_ACCESS_KEY:?`],
    );
  });

  test('without the variable, a line of such a run stops with the shell naming it, and replay says what to set', async () => {
    const cwd = join(dir, 'argv-missing');
    await mkdir(cwd);
    const out = await runCli([
      'run',
      '--base-url',
      baseUrl,
      '--report-dir',
      join(cwd, 'reports'),
      '--only',
      'INPUT-400-BAD-DATE',
      '--num-runs',
      '2',
      '--auth-id',
      team1Admin.authId,
      '--access-key',
      team1Admin.accessKey,
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      'note: the printed commands read TAGTRACK_ACCESS_KEY (the access key) from the environment',
    );
    const line = reproduceLines(out.stdout)[0]!;
    const missing = await sh(line, {}, cwd);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('TAGTRACK_ACCESS_KEY');
    expect(missing.stdout).toBe('');
    const replay = await sh(`tagtrack-conformance replay reports/results.json`, {}, cwd);
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain(
      `the run was given an access key for ${team1Admin.authId}: set TAGTRACK_ACCESS_KEY`,
    );
  });
});

describe('rerunWords', () => {
  test('names every source, quoted, and no value of a secret', () => {
    expect(
      rerunWords({
        profile: "/tmp/it's.json",
        authId: { from: 'env' },
        accessKey: 'env',
        headers: { from: 'env', names: ['x-api-key'] },
        caFile: '/etc/ca.pem',
        insecure: true,
      }).join(' '),
    ).toBe(
      `--profile '/tmp/it'\\''s.json' --auth-id "$TAGTRACK_AUTH_ID" --access-key "$TAGTRACK_ACCESS_KEY" -H "$TAGTRACK_HEADERS" --ca-file '/etc/ca.pem' --insecure`,
    );
    expect(rerunWords(undefined)).toEqual([]);
  });
});

describe('diff: a difference’s reproduce line', () => {
  test('sends the request to A and then to B, as printed, with the diff’s credentials', async () => {
    const reference = createServer();
    const referenceUrl = await reference.listen(0, '127.0.0.1');
    const cwd = join(dir, 'diff');
    await mkdir(cwd);
    try {
      const out = await runCli([
        'diff',
        '--base-url',
        referenceUrl,
        '--against',
        baseUrl,
        '--profile',
        profileFile,
        '--only',
        'INPUT-400-BAD-DATE',
        '--num-runs',
        '1',
        '--report-dir',
        join(cwd, 'reports'),
      ]);
      expect(out.code, out.stderr).toBe(1);
      const results = ResultsJson.parse(
        JSON.parse(await readFile(join(cwd, 'reports', 'results.json'), 'utf8')),
      );
      const line = results.checks
        .flatMap((c) => c.failures)
        .map((f) => f.reproduce)
        .find((r) => r?.includes('start=') && r.includes("--credential '"))!;
      expect(line).toContain(`--base-url '${referenceUrl}'`);
      expect(line).toContain(`; tagtrack-conformance request GET`);
      expect(line).toContain(`--profile '${profileFile}'`);
      const both = await sh(line, {}, cwd);
      expect(both.stderr).toBe('');
      expect(both.code).toBe(0);
      // A (the reference) refuses the date, B (bad-date-200) accepts it
      expect([...both.stdout.matchAll(/^HTTP (\d+)$/gm)].map((m) => m[1])).toEqual(['400', '200']);
    } finally {
      await reference.close();
    }
  });
});
