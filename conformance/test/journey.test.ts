import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { afterAll, beforeAll, expect, test } from 'vitest';

/**
 * The vendor's journey (issue 22), end to end, against a reference server in a subprocess
 * with a fault, every step through a shell as a vendor types it: `init` writes a profile from
 * the server's answers -> `run` fails -> each printed reproduce line, run as printed,
 * reproduces its failing request -> `replay` of all failures fails again -> an
 * expected-failures file listing them -> the run is green. No output, report or written file
 * other than the profile (which must hold them, mode 0600) contains an access key.
 */

const SERVER_BIN = fileURLToPath(
  new URL('../../apps/server/bin/tagtrack-server.js', import.meta.url),
);
const SUITE_BIN = fileURLToPath(new URL('../bin/tagtrack-conformance.js', import.meta.url));
const CREDENTIALS = CANONICAL_CREDENTIALS.filter((c) =>
  ['team1-admin', 'team1-user', 'team2-manager'].includes(c.label),
);
const KEYS = CANONICAL_CREDENTIALS.map((c) => c.accessKey);

let server: ChildProcess;
let baseUrl: string;
let dir: string;
let binDir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-journey-'));
  binDir = join(dir, 'bin');
  await mkdir(binDir);
  const launcher = join(binDir, 'tagtrack-conformance');
  await writeFile(launcher, `#!/bin/sh\nexec "${process.execPath}" "${SUITE_BIN}" "$@"\n`);
  await chmod(launcher, 0o755);
  server = spawn(
    process.execPath,
    [SERVER_BIN, '--port', '0', '--fault', 'ignore-is-opened', '--fault', 'bad-date-200'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.on('exit', (code) => reject(new Error(`tagtrack-server exited ${code}: ${out}`)));
  });
});

afterAll(async () => {
  server?.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
});

interface Shell {
  readonly code: number;
  readonly output: string;
}

/** `line` through `sh -c` in the journey's folder, with `env` and the launcher on PATH. */
function sh(line: string, env: Record<string, string> = {}): Promise<Shell> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('TAGTRACK_')),
  ) as Record<string, string>;
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', line],
      {
        cwd: dir,
        env: { ...clean, NO_COLOR: '1', ...env, PATH: `${binDir}:${process.env.PATH}` },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          output: `${stdout}${stderr}`,
        }),
    );
  });
}

function expectNoKey(text: string, where: string): void {
  for (const key of KEYS) expect(text.includes(key), `an access key in ${where}`).toBe(false);
}

test('init -> a failing run -> its reproduce lines -> replay -> expected failures -> green, with no secret anywhere', async () => {
  const outputs: string[] = [];
  const keyEnv = Object.fromEntries(
    CREDENTIALS.map((c) => [
      `TAGTRACK_ACCESS_KEY_${c.label.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`,
      c.accessKey,
    ]),
  );

  // 1. init: the profile from the server's answers, keys from the environment
  const init = await sh(
    `tagtrack-conformance init --base-url '${baseUrl}' ${CREDENTIALS.map((c) => `--credential '${c.label}:${c.authId}'`).join(' ')} --out profile.json`,
    keyEnv,
  );
  outputs.push(init.output);
  expect(init.code, init.output).toBe(0);
  const profile = JSON.parse(await readFile(join(dir, 'profile.json'), 'utf8')) as {
    credentials: { label: string; accountType?: string }[];
  };
  expect(profile.credentials.map((c) => c.label).sort()).toEqual(
    CREDENTIALS.map((c) => c.label).sort(),
  );

  // 2. the run fails on the faulted server
  const run = await sh(
    `tagtrack-conformance run --base-url '${baseUrl}' --profile profile.json --seed 5 --num-runs 5 --report-dir reports --only REL,INPUT`,
  );
  outputs.push(run.output);
  expect(run.code, run.output).toBe(1);
  const results = JSON.parse(await readFile(join(dir, 'reports', 'results.json'), 'utf8')) as {
    checks: { id: string; status: string }[];
  };
  const failed = results.checks.filter((c) => c.status === 'fail').map((c) => c.id);
  expect(failed).toEqual(expect.arrayContaining(['REL-FILTER-CONJUNCTION', 'INPUT-400-BAD-DATE']));

  // 3. every reproduce line, run as printed, sends the failing request again
  const lines = [
    ...new Set(
      [...run.output.matchAll(/reproduce: (tagtrack-conformance request .*)$/gm)].map((m) => m[1]!),
    ),
  ];
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines.slice(0, 4)) {
    const again = await sh(line);
    outputs.push(again.output);
    expect(again.code, `${line}\n${again.output}`).toBe(0);
    expect(again.output, line).toMatch(/^HTTP \d{3}/m);
  }

  // 4. replay of all failures: they fail again
  const replayLine = /rerun every failed check: (tagtrack-conformance replay .*)$/m.exec(
    run.output,
  );
  expect(replayLine, run.output).not.toBeNull();
  const replay = await sh(replayLine![1]!);
  outputs.push(replay.output);
  expect(replay.code, replay.output).toBe(1);
  expect(replay.output).toMatch(/failed again/);

  // 5. the failures listed as expected: the same run is green
  await writeFile(
    join(dir, 'expected.json'),
    JSON.stringify(failed.map((id) => ({ id, reason: 'known: the fault injected in this test' }))),
  );
  const green = await sh(
    `tagtrack-conformance run --base-url '${baseUrl}' --profile profile.json --seed 5 --num-runs 5 --report-dir reports-green --only REL,INPUT --expected-failures expected.json`,
  );
  outputs.push(green.output);
  expect(green.code, green.output).toBe(0);

  // no secret in any output or report (the profile holds the keys, by design, mode 0600)
  for (const [i, o] of outputs.entries()) expectNoKey(o, `output ${i}`);
  for (const folder of ['reports', 'reports-green']) {
    for (const file of await readdir(join(dir, folder)))
      expectNoKey(await readFile(join(dir, folder, file), 'utf8'), `${folder}/${file}`);
  }
});
