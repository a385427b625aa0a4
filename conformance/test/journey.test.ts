import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { afterAll, beforeAll, expect, test } from 'vitest';

/**
 * The vendor's journey, end to end, against a reference server in a subprocess with a fault,
 * every step through a fresh shell as a vendor types it, from the checkout install the README
 * documents (`node conformance/bin/tagtrack-conformance.js`, no `tagtrack-conformance` on
 * PATH, no package manager's variables): `init` writes a profile from the server's answers
 * and its "next:" line runs -> `run` fails -> every printed reproduce line, run as printed,
 * reproduces its failing request -> every "run it again" line and the `replay` line fail
 * again with the run's own status (never 127) -> an expected-failures file listing them ->
 * the run is green. No output, report or written file other than the profile (which must
 * hold them, mode 0600) contains an access key.
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
/** The README's checkout command: `node <checkout>/conformance/bin/tagtrack-conformance.js`. */
const SUITE = `node ${/^[\w./-]+$/.test(SUITE_BIN) ? SUITE_BIN : `'${SUITE_BIN}'`}`;

/** PATH without any folder that holds a `tagtrack-conformance` (a vendor's fresh shell). */
const PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((d) => d !== '' && !existsSync(join(d, 'tagtrack-conformance')))
  .join(delimiter);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-journey-'));
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

/**
 * `line` through a fresh `sh -c` in the journey's folder, with `env`: no `TAGTRACK_*` or
 * package-manager (`npm_*`) variable of the test's own process, and a PATH without
 * `tagtrack-conformance`.
 */
function sh(line: string, env: Record<string, string> = {}): Promise<Shell> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('TAGTRACK_') && !k.toLowerCase().startsWith('npm_'),
    ),
  ) as Record<string, string>;
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', line],
      {
        cwd: dir,
        env: { ...clean, NO_COLOR: '1', ...env, PATH },
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

test('init and its next line -> a failing run -> every printed command run as printed -> expected failures -> green, with no secret anywhere', async () => {
  expect((await sh('command -v tagtrack-conformance')).code).not.toBe(0);
  const outputs: string[] = [];
  const keyEnv = Object.fromEntries(
    CREDENTIALS.map((c) => [
      `TAGTRACK_ACCESS_KEY_${c.label.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`,
      c.accessKey,
    ]),
  );

  // 1. init: the profile from the server's answers, keys from the environment
  const init = await sh(
    `${SUITE} init --base-url '${baseUrl}' ${CREDENTIALS.map((c) => `--credential '${c.label}:${c.authId}'`).join(' ')} --out profile.json`,
    keyEnv,
  );
  outputs.push(init.output);
  expect(init.code, init.output).toBe(0);
  const profile = JSON.parse(await readFile(join(dir, 'profile.json'), 'utf8')) as {
    revision: number;
    credentials: { label: string; accountType?: string }[];
  };
  // init writes the current revision: the vendor's profile pins what it was certified against
  expect(profile.revision).toBe(3);
  expect(profile.credentials.map((c) => c.label).sort()).toEqual(
    CREDENTIALS.map((c) => c.label).sort(),
  );
  // its next line, as printed (narrowed by the environment, not by editing it): the run fails
  const next = /^next: (.*)$/m.exec(init.output);
  expect(next, init.output).not.toBeNull();
  expect(next![1]!.startsWith(`${SUITE} run `)).toBe(true);
  const nextRun = await sh(next![1]!, {
    TAGTRACK_ONLY: 'INPUT-400-BAD-DATE',
    TAGTRACK_NUM_RUNS: '2',
  });
  outputs.push(nextRun.output);
  expect(nextRun.code, `${next![1]}\n${nextRun.output}`).toBe(1);

  // 2. the run fails on the faulted server
  const run = await sh(
    `${SUITE} run --base-url '${baseUrl}' --profile profile.json --seed 5 --num-runs 5 --report-dir reports --only REL,INPUT`,
  );
  outputs.push(run.output);
  expect(run.code, run.output).toBe(1);
  const results = JSON.parse(await readFile(join(dir, 'reports', 'results.json'), 'utf8')) as {
    checks: { id: string; status: string }[];
  };
  const failed = results.checks.filter((c) => c.status === 'fail').map((c) => c.id);
  expect(failed).toEqual(expect.arrayContaining(['REL-FILTER-CONJUNCTION', 'INPUT-400-BAD-DATE']));

  // 3. every reproduce line, run as printed, sends the failing request again
  const lines = [...new Set([...run.output.matchAll(/reproduce: (.*)$/gm)].map((m) => m[1]!))];
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(line.startsWith(`${SUITE} request `), line).toBe(true);
  for (const line of lines) {
    const again = await sh(line);
    outputs.push(again.output);
    expect(again.code, `${line}\n${again.output}`).toBe(0);
    expect(again.output, line).toMatch(/^HTTP \d{3}/m);
  }

  // each "run it again" line of the report fails again, with the run's own status
  const summary = await readFile(join(dir, 'reports', 'summary.md'), 'utf8');
  const again = [...summary.matchAll(/run it again: `([^`]+)`/g)].map((m) => m[1]!);
  expect(again.length).toBe(failed.length);
  for (const line of again) {
    expect(line.startsWith(`${SUITE} run `), line).toBe(true);
    const rerun = await sh(line);
    outputs.push(rerun.output);
    expect(rerun.code, `${line}\n${rerun.output}`).toBe(1);
  }

  // 4. replay of all failures: they fail again
  const replayLine = /rerun every failed check: (.* replay .*)$/m.exec(run.output);
  expect(replayLine, run.output).not.toBeNull();
  expect(replayLine![1]!.startsWith(`${SUITE} replay `)).toBe(true);
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
    `${SUITE} run --base-url '${baseUrl}' --profile profile.json --seed 5 --num-runs 5 --report-dir reports-green --only REL,INPUT --expected-failures expected.json`,
  );
  outputs.push(green.output);
  expect(green.code, green.output).toBe(0);

  // no secret in any output or report (the profile holds the keys, by design, mode 0600)
  for (const [i, o] of outputs.entries()) expectNoKey(o, `output ${i}`);
  for (const folder of ['reports', 'reports-green']) {
    for (const file of await readdir(join(dir, folder)))
      expectNoKey(await readFile(join(dir, folder, file), 'utf8'), `${folder}/${file}`);
  }
}, 900_000);
