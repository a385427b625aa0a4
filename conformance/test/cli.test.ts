import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Dataset } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { createServer, type TagtrackServer } from '@tagtrack/server';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ALL_CHECKS } from '../src/checks/index.ts';
import { main } from '../src/cli.ts';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import { Profile } from '../src/profile/profile.ts';
import { ResultsJson, useColor, writeReports } from '../src/report/index.ts';
import { runConformance } from '../src/run/runner.ts';
import { team1Admin } from './helpers.ts';

const BIN = fileURLToPath(new URL('../bin/tagtrack-conformance.js', import.meta.url));

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI launcher as a child process with a clean TAGTRACK_* environment. */
function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Outcome> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('TAGTRACK_')),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: Object.fromEntries(
        Object.entries({ ...clean, NO_COLOR: '1', ...env }).filter(([, v]) => v !== undefined),
      ) as Record<string, string>,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs the CLI in this process (`main`, no child): what a test that is not about the process
 * itself uses. TAGTRACK_* variables are cleared and `env` applied (an undefined value unsets
 * it) for the call; stdout and stderr are captured.
 */
async function inProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<Outcome> {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith('TAGTRACK_')) delete process.env[k];
  for (const [k, v] of Object.entries({ NO_COLOR: '1', ...env })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(['node', 'tagtrack-conformance', ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/**
 * A reference server behind a socket that answers every request `delayMs` late (its public
 * URL is the socket's, so paging URLs stay on it). Resolves its base URL and a close.
 */
async function slowServer(delayMs: number): Promise<{ url: string; close: () => Promise<void> }> {
  let app: TagtrackServer | undefined;
  const http: Server = createHttpServer((req, res) => {
    setTimeout(async () => {
      try {
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string') headers.set(k, v);
        const answer = await app!.fetch(
          new Request(new URL(req.url ?? '/', url), { method: req.method ?? 'GET', headers }),
        );
        const out: Record<string, string> = {};
        answer.headers.forEach((v, k) => {
          out[k] = v;
        });
        res.writeHead(answer.status, out);
        res.end(Buffer.from(await answer.arrayBuffer()));
      } catch {
        res.destroy();
      }
    }, delayMs);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  app = createServer({ publicUrl: url });
  return {
    url,
    close: async () => {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
      await app!.close();
    },
  };
}

/** A port nothing listens on: bound once on 127.0.0.1, then released. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let server: TagtrackServer;
let faulty: TagtrackServer;
let baseUrl: string;
let faultyUrl: string;
let dir: string;

beforeAll(async () => {
  server = createServer();
  baseUrl = await server.listen(0, '127.0.0.1');
  faulty = createServer({ faults: ['bad-date-200'] });
  faultyUrl = await faulty.listen(0, '127.0.0.1');
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-cli-'));
});

afterAll(async () => {
  await server.close();
  await faulty.close();
  await rm(dir, { recursive: true, force: true });
});

describe('tagtrack-conformance CLI (in process unless the process is the point)', () => {
  test('exit 0 on the reference server in fixture mode, with reports written', async () => {
    // the CLI's wiring, not the checks (runner.test.ts runs them all): a few areas suffice
    const out = await inProcess([
      'run',
      '--base-url',
      baseUrl,
      '--mode',
      'fixture',
      '--num-runs',
      '5',
      '--seed',
      '11',
      '--only',
      'oracle,agg,auth,err',
      '--report-dir',
      join(dir, 'reports'),
      '--report-md',
      join(dir, 'pr', 'comment.md'),
    ]);
    expect(out.stderr).not.toMatch(/Error/);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/\d+ checks, \d+ passed, 0 failed, 0 errors/);
    expect(out.stdout.trim().split('\n').at(-2)).toBe('PASS under tagtrack/v1 Revision 3');
    expect((await readdir(join(dir, 'reports'))).sort()).toEqual([
      'junit.xml',
      'report.html',
      'results.json',
      'summary.md',
    ]);
    const md = await readFile(join(dir, 'pr', 'comment.md'), 'utf8');
    expect(md).toBe(await readFile(join(dir, 'reports', 'summary.md'), 'utf8'));
    expect(md.split('\n')[0]).toBe('## tagtrack conformance: PASS');
  });

  test('exit 1 when a check fails; options come from TAGTRACK_* variables, the command line wins', async () => {
    const out = await inProcess(['run', '--only', 'INPUT-400-BAD-DATE', '--seed', '5'], {
      TAGTRACK_BASE_URL: faultyUrl,
      TAGTRACK_AUTH_ID: team1Admin.authId,
      TAGTRACK_ACCESS_KEY: team1Admin.accessKey,
      TAGTRACK_ONLY: 'AUTH',
      TAGTRACK_REPORT_MD: join(dir, 'bad-date.md'),
    });
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('FAIL INPUT-400-BAD-DATE');
    // the Markdown summary (TAGTRACK_REPORT_MD) names the failure, never the given access key
    const md = await readFile(join(dir, 'bad-date.md'), 'utf8');
    expect(md).toMatch(/^## tagtrack conformance: FAIL\n/);
    expect(md).toContain('**`INPUT-400-BAD-DATE`**');
    expect(md).not.toContain(team1Admin.accessKey);
    expect(out.stdout).not.toContain('AUTH-401');
    expect(out.stdout).toMatch(/reproduce: tagtrack-conformance request GET '\/[^']*' --base-url /);
    expect(out.stdout).not.toContain(team1Admin.accessKey);
  });

  test('exit 2 with one clear line when the base URL is unreachable', async () => {
    const closed = await freePort();
    const out = await inProcess([
      'run',
      '--base-url',
      `http://127.0.0.1:${closed}`,
      '--auth-id',
      'a',
      '--access-key',
      'b',
    ]);
    expect(out.code).toBe(2);
    const lines = out.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `tagtrack-conformance: cannot reach http://127.0.0.1:${closed}/teams: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:${closed})`,
    );
  });

  test('exit 2 for a bad flag, a bad value and an invalid profile (naming the field)', async () => {
    const flag = await inProcess(['run', '--base-url', baseUrl, '--no-such-flag']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--no-such-flag'/);
    const value = await inProcess(['run', '--base-url', baseUrl, '--num-runs', 'many']);
    expect(value.code).toBe(2);
    expect(value.stderr).toMatch(/num-runs must be a positive integer/);
    const profile = join(dir, 'bad-profile.json');
    await writeFile(profile, JSON.stringify({ pageSize: -1 }));
    const bad = await inProcess(['run', '--base-url', baseUrl, '--profile', profile]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/pageSize/);
    const missing = await inProcess(['run']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing --base-url/);
  });

  test('--help documents every option with its environment variable', async () => {
    const out = await inProcess(['run', '--help']);
    expect(out.code).toBe(0);
    out.stdout = out.stdout.replace(/\s+/g, ' ');
    for (const [flag, env] of [
      ['--base-url', 'TAGTRACK_BASE_URL'],
      ['--auth-id', 'TAGTRACK_AUTH_ID'],
      ['--access-key', 'TAGTRACK_ACCESS_KEY'],
      ['--profile', 'TAGTRACK_PROFILE'],
      ['--mode', 'TAGTRACK_MODE'],
      ['--num-runs', 'TAGTRACK_NUM_RUNS'],
      ['--seed', 'TAGTRACK_SEED'],
      ['--only', 'TAGTRACK_ONLY'],
      ['--exclude', 'TAGTRACK_EXCLUDE'],
      ['--rate-limit', 'TAGTRACK_RATE_LIMIT'],
      ['--timeout', 'TAGTRACK_TIMEOUT'],
      ['--expected-failures', 'TAGTRACK_EXPECTED_FAILURES'],
      ['--report-dir', 'TAGTRACK_REPORT_DIR'],
      ['--checks', 'TAGTRACK_CHECKS'],
      ['--har', 'TAGTRACK_HAR'],
      ['--bail', 'TAGTRACK_BAIL'],
      ['--probe-methods', 'TAGTRACK_PROBE_METHODS'],
      ['--sample-above', 'TAGTRACK_SAMPLE_ABOVE'],
      ['--max-callers', 'TAGTRACK_MAX_CALLERS'],
    ]) {
      expect(out.stdout).toContain(flag);
      expect(out.stdout).toContain(`env: ${env}`);
    }
    expect(out.stdout).toMatch(/Exit codes: 0/);
  });
  test('fixture --out writes the canonical dataset and a valid profile a fixture run accepts', async () => {
    const out = join(dir, 'fixture');
    const res = await inProcess(['fixture', '--out', out]);
    expect(res.code).toBe(0);
    const dataset = Dataset.parse(
      JSON.parse(await readFile(join(out, 'canonical-dataset.json'), 'utf8')),
    );
    expect(dataset).toEqual(canonicalDataset);
    const profile = Profile.parse(
      JSON.parse(await readFile(join(out, 'canonical-profile.json'), 'utf8')),
    );
    const authIds = new Set(dataset.credentials.map((c) => c.authId));
    expect(profile.credentials.length).toBeGreaterThanOrEqual(6);
    for (const c of profile.credentials) expect(authIds.has(c.authId)).toBe(true);
    const missing = await inProcess(['fixture']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--out');
  });

  test('requirements lists every check id once, with its clause', async () => {
    const res = await inProcess(['requirements', '--json']);
    expect(res.code).toBe(0);
    const rows = JSON.parse(res.stdout) as { id: string; clause: string }[];
    expect(rows.map((r) => r.id)).toEqual(ALL_CHECKS.map((c) => c.id));
    // cited as docs/spec.md numbers its sections (users have no decisions document)
    for (const r of rows) expect(r.clause).toMatch(/^spec §\d|^source: the suite's/);
  });

  const creds = () => [
    '--base-url',
    baseUrl,
    '--auth-id',
    team1Admin.authId,
    '--access-key',
    team1Admin.accessKey,
  ];

  test('TAGTRACK_PROBE_METHODS: false, 0 and no do not probe; TRUE and yes do; maybe exits 2', async () => {
    for (const value of ['false', '0', 'No', 'FALSE']) {
      const out = await inProcess(['run', ...creds(), '--only', 'METHOD-405-NON-GET'], {
        TAGTRACK_PROBE_METHODS: value,
      });
      expect(out.code, value).toBe(0);
      expect(out.stderr, value).toContain(
        'SKIP  METHOD-405-NON-GET (opt-in: run with --probe-methods)',
      );
    }
    for (const value of ['TRUE', 'yes', '1']) {
      const out = await inProcess(['run', ...creds(), '--only', 'METHOD-405-NON-GET'], {
        TAGTRACK_PROBE_METHODS: value,
      });
      expect(out.code, value).toBe(0);
      expect(out.stderr, value).toContain('PASS  METHOD-405-NON-GET');
    }
    for (const [variable, value] of [
      ['TAGTRACK_PROBE_METHODS', 'maybe'],
      ['TAGTRACK_BAIL', 'on'],
      ['TAGTRACK_BAIL', ''],
    ] as const) {
      const out = await inProcess(['run', ...creds(), '--only', 'METHOD-405-NON-GET'], {
        [variable]: value,
      });
      expect(out.code).toBe(2);
      const lines = out.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(variable);
      expect(lines[0]).toContain('true/false, 1/0 or yes/no');
    }
  });

  test('--only or --exclude matching no check exits 2 naming the pattern; --exclude leaves checks out', async () => {
    const only = await inProcess(['run', ...creds(), '--only', 'NOPE']);
    expect(only.code).toBe(2);
    expect(only.stdout).not.toContain('PASS');
    expect(only.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^tagtrack-conformance: --only pattern "NOPE" matches no/),
    ]);
    const partly = await inProcess(['run', ...creds(), '--only', 'AUTH,NOPE*']);
    expect(partly.code).toBe(2);
    expect(partly.stderr).toContain('"NOPE*"');
    const exclude = await inProcess(['run', ...creds()], { TAGTRACK_EXCLUDE: 'nope' });
    expect(exclude.code).toBe(2);
    expect(exclude.stderr).toContain('--exclude pattern "nope"');
    const all = await inProcess(['run', ...creds(), '--only', 'AUTH', '--exclude', 'auth']);
    expect(all.code).toBe(2);
    expect(all.stderr).toContain('leave no check');

    const authIds = ALL_CHECKS.filter((c) => c.area === 'auth').map((c) => c.id);
    expect(authIds.length).toBeGreaterThan(1);
    const [first, ...rest] = authIds;
    const out = await inProcess(['run', ...creds(), '--only', 'auth', '--exclude', first!]);
    expect(out.code).toBe(0);
    expect(out.stderr).not.toContain(` ${first}`);
    for (const id of rest) expect(out.stderr).toContain(` ${id}`);
    const env = await inProcess(['run', ...creds(), '--only', 'auth'], {
      TAGTRACK_EXCLUDE: `${first!.toLowerCase().slice(0, -1)}?`,
    });
    expect(env.code).toBe(0);
    expect(env.stderr).not.toContain(` ${first}\n`);
  });

  test("unknown options keep commander's suggestion on the one error line", async () => {
    const out = await inProcess(['run', '--exclud', 'x']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toEqual([
      "error: unknown option '--exclud' (Did you mean --exclude?)",
    ]);
  });

  test('--version prints the package version and exits 0', async () => {
    const pkg = JSON.parse(
      await readFile(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'),
    ) as { version: string };
    // the launcher itself (bin/), as a user runs it, once; the short flag in process
    for (const out of [await cli(['--version']), await inProcess(['-V'])]) {
      expect(out.code).toBe(0);
      expect(out.stdout).toBe(`${pkg.version}\n`);
    }
  });

  test('colour follows FORCE_COLOR and NO_COLOR (NO_COLOR wins)', async () => {
    const args = ['run', ...creds(), '--only', 'AUTH-401*'];
    const forced = await inProcess(args, { NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('\x1b[');
    const plain = await inProcess(args, { NO_COLOR: undefined, FORCE_COLOR: undefined });
    expect(plain.stdout).not.toContain('\x1b[');
    const both = await inProcess(args, { NO_COLOR: '1', FORCE_COLOR: '1' });
    expect(both.stdout).not.toContain('\x1b[');
    expect(both.stderr).not.toContain('\x1b[');
  });
});

describe('useColor', () => {
  test('NO_COLOR off, FORCE_COLOR on (0/false off), else a TTY that is not dumb', () => {
    const tty = { isTTY: true };
    const pipe = { isTTY: false };
    expect(useColor(tty, {})).toBe(true);
    expect(useColor(pipe, {})).toBe(false);
    expect(useColor(tty, { TERM: 'dumb' })).toBe(false);
    expect(useColor(tty, { NO_COLOR: '1' })).toBe(false);
    expect(useColor(tty, { NO_COLOR: '' })).toBe(true);
    expect(useColor(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColor(pipe, { FORCE_COLOR: '' })).toBe(true);
    expect(useColor(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColor(tty, { FORCE_COLOR: 'false' })).toBe(false);
    expect(useColor(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
  });
});

describe('stopping a run: SIGINT and SIGTERM', () => {
  test.each(['SIGINT', 'SIGTERM'] as const)(
    '%s to the spawned CLI stops the run: every report written, unfinished checks "interrupted: <signal>", exit 2',
    async (signal) => {
      const slow = await slowServer(40);
      const reports = join(dir, signal.toLowerCase());
      try {
        const clean = Object.fromEntries(
          Object.entries(process.env).filter(([k]) => !k.startsWith('TAGTRACK_')),
        );
        const child = spawn(
          process.execPath,
          [
            BIN,
            'run',
            '--base-url',
            slow.url,
            '--mode',
            'fixture',
            '--seed',
            '3',
            '--report-dir',
            reports,
          ],
          { env: { ...clean, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => {
          stdout += d;
        });
        const started = new Promise<void>((resolve) => {
          child.stderr.on('data', (d) => {
            stderr += d;
            // some checks have ended: the run is under way
            if (/^(PASS|FAIL|SKIP)/m.test(stderr)) resolve();
          });
        });
        const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
        await started;
        const t0 = performance.now();
        child.kill(signal);
        const code = await closed;
        expect(performance.now() - t0).toBeLessThan(60_000);
        expect(code).toBe(2);
        expect(stderr).toContain(
          `tagtrack-conformance: ${signal}: stopping, writing the reports of what ran`,
        );
        expect(stderr).toContain(`tagtrack-conformance: interrupted (${signal})`);
        expect(stdout).toMatch(/reports: /);
        expect((await readdir(reports)).sort()).toEqual([
          'junit.xml',
          'report.html',
          'results.json',
          'summary.md',
        ]);
        const raw = JSON.parse(await readFile(join(reports, 'results.json'), 'utf8'));
        const results = ResultsJson.parse(raw);
        expect(raw.interrupted).toBe(signal);
        expect(results.ok).toBe(false);
        expect(results.checks).toHaveLength(ALL_CHECKS.length);
        const interrupted = results.checks.filter((c) => c.reason === `interrupted: ${signal}`);
        expect(interrupted.length).toBeGreaterThan(0);
        for (const c of interrupted) expect(c.status).toBe('error');
        expect(results.checks.some((c) => c.status === 'pass')).toBe(true);
      } finally {
        await slow.close();
      }
    },
  );
});

describe('replay', () => {
  test('replay results.json --check ID reruns the failed check with its seed and shrink path and prints the same failure', async () => {
    const faultyOracle = createServer({ faults: ['unique-opens-as-total'] });
    const url = await faultyOracle.listen(0, '127.0.0.1');
    const reports = join(dir, 'replay');
    try {
      const result = await runConformance({
        baseUrl: url,
        profile: canonicalProfile(),
        mode: 'fixture',
        seed: 21,
        numRuns: 6,
        only: 'ORACLE-TAGS,AUTH-401-MISSING',
      });
      await writeReports(result, reports);
      const failed = result.checks.find((c) => c.id === 'ORACLE-TAGS')!;
      expect(failed.status).toBe('fail');
      const property = failed.failures.find((f) => f.property !== undefined)!;
      expect(property.path).toMatch(/^\d+(:\d+)*$/);

      const file = join(reports, 'results.json');
      const out = await inProcess(['replay', file, '--check', 'ORACLE-TAGS']);
      expect(out.stderr).toBe('');
      expect(out.code).toBe(1);
      expect(out.stdout).toContain(
        `replaying ORACLE-TAGS against ${url} (fixture mode, seed 21, 6 runs; property seed ${property.seed} path "${property.path}")`,
      );
      expect(out.stdout).toContain('FAIL ORACLE-TAGS');
      expect(out.stdout).toContain(property.message);
      expect(out.stdout).toContain(`counterexample ${property.counterexample}`);
      expect(out.stdout).toMatch(/reproduced: \d+ of \d+ recorded failures came back\n$/);

      const passed = await inProcess(['replay', file, '--check', 'AUTH-401-MISSING']);
      expect(passed.code).toBe(2);
      expect(passed.stderr).toContain('AUTH-401-MISSING did not fail');
      const unknown = await inProcess(['replay', file, '--check', 'NOPE-X']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('has no check NOPE-X');
      const notResults = await inProcess(['replay', join(reports, 'junit.xml'), '--check', 'X-Y']);
      expect(notResults.code).toBe(2);
      expect(notResults.stderr).toMatch(/cannot read|is not a results\.json/);
    } finally {
      await faultyOracle.close();
    }
  });
});
