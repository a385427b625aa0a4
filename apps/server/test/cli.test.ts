import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { authorizationHeader } from '@tagtrack/core';
import {
  CANONICAL_CREDENTIALS,
  canonicalDataset,
  DEMO_CREDENTIALS,
} from '@tagtrack/dataset/canonical';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FAULTS } from '../src/index.ts';
import { type CliIo, type CliOutcome, main } from '../src/main.ts';

const BIN = fileURLToPath(new URL('../bin/tagtrack-server.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `tagtrack-server ARGS` in-process (`main` of src/main.ts) with its output captured and
 * `env` in `process.env` (PORT and HOST cleared unless given; restored afterwards). Resolves
 * the outcome and the output so far.
 */
async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ outcome: CliOutcome; out: () => string; err: () => string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        stdout += text;
      },
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
      },
    },
  };
  const saved = { ...process.env };
  delete process.env.PORT;
  delete process.env.HOST;
  Object.assign(process.env, env);
  try {
    const outcome = await main(args, io);
    return { outcome, out: () => stdout, err: () => stderr };
  } finally {
    process.env = saved;
  }
}

/** Runs the CLI in-process for a run that ends (help, lists, bad usage): its code and output. */
async function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { outcome, out, err } = await cli(args, env);
  if (!('code' in outcome)) {
    await outcome.stop('SIGTERM');
    throw new Error(
      `tagtrack-server ${args.join(' ')} listened on ${outcome.url} instead of exiting`,
    );
  }
  return { code: outcome.code, stdout: out(), stderr: err() };
}

/** Starts the CLI in-process and resolves once it listens; the caller must `stop` it. */
async function start(
  args: string[],
  env: Record<string, string> = {},
): Promise<{
  url: string;
  out: () => string;
  err: () => string;
  stop: (signal: string) => Promise<number>;
}> {
  const { outcome, out, err } = await cli(args, env);
  if ('code' in outcome) throw new Error(`exited with ${outcome.code}: ${err()}`);
  return { url: outcome.url, out, err, stop: outcome.stop };
}

/** Starts the real `tagtrack-server` bin and resolves once it printed its URL; the caller must kill it. */
function spawnBin(
  args: string[],
): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (m) resolve({ child, url: m[1]!, out: () => stdout });
    });
    child.on('close', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('close', (code) => resolve(code)));
}

/**
 * The CLI runs in-process (`main`, output captured); two tests spawn the real bin: a server
 * that starts, logs requests and stops on SIGTERM, and a closed stdout reader (EPIPE).
 */
describe('tagtrack-server CLI', { timeout: 120_000 }, () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tagtrack-server-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('--help describes the flags and exits 0', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--port',
      '--host',
      '--dataset',
      '--seed',
      '--scale',
      '--fault',
      '--page-size',
      '--rate-limit',
      '--paging-end',
      '--public-url',
      '--variant',
      '--list-variants',
      '--list-faults',
      '--write-snapshot',
    ]) {
      expect(r.stdout).toContain(flag);
    }
  });

  test.each([
    [['--bogus'], /unknown option '--bogus'/],
    [['--port', 'eighty'], /--port/],
    [['--scale', 'huge'], /--scale/],
    [['--rate-limit', '3/h'], /N\/s or N\/m/],
    [['--fault', 'nope'], /unknown fault/],
    [['--dataset', 'x.json', '--seed', '1'], /cannot be used with/],
    [['--write-snapshot', 'x.ttsnap', '--port', '0'], /--write-snapshot needs --dataset/],
    [
      ['--dataset', 'x.json', '--write-snapshot', './x.json', '--port', '0'],
      /--write-snapshot names the --dataset file itself/,
    ],
    [['--paging-end', 'never'], /--paging-end.*no-content, empty-page/],
    [['--public-url', 'example.com'], /invalid public URL 'example.com'/],
    [['--public-url', 'ftp://example.com'], /scheme must be http or https/],
    [['--public-url', 'http://example.com/?x=1'], /no query or fragment/],
    [
      ['--variant', 'nope'],
      /unknown variant; known: json-keys-shuffled, .*member-without-group-empty/,
    ],
    [
      ['--variant', 'page-size-7', '--page-size', '10', '--port', '0'],
      /variant page-size-7 sets pageSize 7/,
    ],
  ])('bad flags %j exit 2 with a message', async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  test('--list-variants lists every variant with its layer, freedom and profile', async () => {
    const { VARIANTS } = await import('../src/index.ts');
    const r = await run(['--list-variants']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split('\t')[0])).toEqual(VARIANTS.map((v) => v.name));
    expect(r.stdout).toContain('page-size-7\toptions\t');
    expect(r.stdout).toContain('profile {"pageSize":7}');
    expect(r.stdout).toContain('gzip\ttransport (socket only)');
  });

  test('--list-faults names the requirement ids that detect each fault', async () => {
    const r = await run(['--list-faults']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(FAULTS.length);
    expect(r.stdout).toContain('detected by PAGE-END-NO-CONTENT');
  });

  test('--public-url, --paging-end and repeated --variant take effect', async () => {
    const { url, out, stop } = await start([
      '--port',
      '0',
      '--quiet',
      '--public-url',
      'https://api.example.com/v1/',
      '--paging-end',
      'empty-page',
      '--variant',
      'page-size-7',
      '--variant',
      'json-pretty',
    ]);
    try {
      expect(out()).toContain('variants: page-size-7, json-pretty');
      expect(out()).toContain('public URL of paging links: https://api.example.com/v1');
      const cred = CANONICAL_CREDENTIALS[0]!;
      const send = (qs: string) =>
        fetch(`${url}/contacts${qs === '' ? '' : `?${qs}`}`, {
          headers: { Authorization: authorizationHeader(cred.authId, cred.accessKey, qs) },
        });
      const first = await send('rtn=json');
      const text = await first.text();
      expect(text).toMatch(/^\{\n {2}"data"/);
      const body = JSON.parse(text) as { data: unknown[]; paging: { nextURL: string } };
      expect(body.data).toHaveLength(7);
      expect(body.paging.nextURL).toBe('https://api.example.com/v1/contacts?rtn=json&cursor=7');
      const past = await send('cursor=100000');
      expect(past.status).toBe(200);
      expect(((await past.json()) as { data: unknown[] }).data).toEqual([]);
    } finally {
      expect(await stop('SIGTERM')).toBe(0);
    }
  });

  test('without --public-url the paging links use the listen URL; past the end is 204', async () => {
    const { url, stop } = await start(['--port', '0', '--quiet', '--page-size', '5']);
    try {
      const cred = CANONICAL_CREDENTIALS[0]!;
      const send = (qs: string) =>
        fetch(`${url}/contacts?${qs}`, {
          headers: { Authorization: authorizationHeader(cred.authId, cred.accessKey, qs) },
        });
      const body = (await (await send('cursor=5')).json()) as { paging: { nextURL: string } };
      expect(body.paging.nextURL).toBe(`${url}/contacts?cursor=10`);
      const past = await send('cursor=100000');
      expect(past.status).toBe(204);
      expect(past.headers.get('x-total-count')).toMatch(/^\d+$/);
    } finally {
      expect(await stop('SIGTERM')).toBe(0);
    }
  });

  test('a missing dataset file exits 2 naming the file', async () => {
    const r = await run(['--dataset', join(dir, 'missing.json'), '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read dataset file .*missing\.json: no such file/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('an invalid dataset file exits 2 naming the bad field', async () => {
    const bad = structuredClone(canonicalDataset) as unknown as {
      teams: { members: { accountType: string }[] }[];
    };
    bad.teams[0]!.members[1]!.accountType = 'superuser';
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify(bad));
    const r = await run(['--dataset', file, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('teams[0].members[1].accountType');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('a schema-valid but inconsistent dataset file exits 2 naming the problem', async () => {
    const bad = structuredClone(canonicalDataset);
    bad.tags[0]!.memberID = 'nosuchmember';
    const file = join(dir, 'inconsistent.json');
    await writeFile(file, JSON.stringify(bad));
    const r = await run(['--dataset', file, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tagtrack-server: invalid dataset: .*nosuchmember/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('--write-snapshot writes the loaded dataset as a snapshot that --dataset starts from with the same answers', async () => {
    const json = join(dir, 'snap-source.json');
    const snapshot = join(dir, 'dataset.ttsnap');
    await writeFile(json, JSON.stringify(canonicalDataset));
    const answers = async (url: string) => {
      const as = CANONICAL_CREDENTIALS[0]!;
      const out: string[] = [];
      for (const path of ['/teams/tags', '/stats', '/contacts']) {
        const headers = { Authorization: authorizationHeader(as.authId, as.accessKey, '') };
        const text = await (await fetch(`${url}${path}`, { headers })).text();
        // paging links carry each server's own port
        out.push(text.replaceAll(url, 'BASE'));
      }
      return out;
    };
    const first = await start(['--dataset', json, '--write-snapshot', snapshot, '--port', '0']);
    let fromJson: string[];
    try {
      expect(first.out()).toMatch(/snapshot written: .*dataset\.ttsnap \(\d+\.\d MB\)/);
      fromJson = await answers(first.url);
    } finally {
      expect(await first.stop('SIGTERM')).toBe(0);
    }
    const second = await start(['--dataset', snapshot, '--port', '0']);
    try {
      const fromSnapshot = await answers(second.url);
      expect(fromSnapshot.every((a, i) => a === fromJson[i])).toBe(true);
      expect(fromSnapshot[0]).toMatch(/^\{"data":\[\{"tagID"/);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
    const damaged = join(dir, 'damaged.ttsnap');
    const bytes = await readFile(snapshot);
    await writeFile(damaged, bytes.subarray(0, bytes.length - 100));
    const r = await run(['--dataset', damaged, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/snapshot file .*damaged\.ttsnap: snapshot section .* is damaged/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('a file that is not JSON exits 2', async () => {
    const file = join(dir, 'notjson.json');
    await writeFile(file, '{ nope');
    const r = await run(['--dataset', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not JSON/);
  });

  test('the bin starts on port 0, prints the URL and the demo credentials, answers, logs the request id with --log, stops on SIGTERM', async () => {
    const { child, url, out } = await spawnBin(['--port', '0', '--log']);
    try {
      const cred = CANONICAL_CREDENTIALS[0]!;
      const res = await fetch(`${url}/teams`, {
        headers: {
          Authorization: authorizationHeader(cred.authId, cred.accessKey, ''),
          'X-Request-Id': 'cli-test-1',
        },
      });
      expect(res.status).toBe(200);
      for (const c of DEMO_CREDENTIALS) {
        expect(out()).toContain(c.label);
        expect(out()).toContain(c.authId);
        expect(out()).toContain(c.accessKey);
      }
      expect(out()).toContain(`6 of the dataset's ${CANONICAL_CREDENTIALS.length}`);
      // request logs (pino, JSON lines on stdout) carry the request id
      for (let i = 0; i < 40 && !out().includes('cli-test-1'); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const line = out()
        .split('\n')
        .find((l) => l.includes('"reqId":"cli-test-1"'));
      expect(line).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ method: 'GET', url: '/teams', status: 200 });
      // a second server on the same port: clear error, exit 2
      const port = new URL(url).port;
      const second = await run(['--port', port, '--quiet']);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(new RegExp(`port ${port} .*in use`));
    } finally {
      const done = exited(child);
      child.kill('SIGTERM');
      expect(await done).toBe(0);
    }
  });

  test('without --log (or with --verbose --quiet) the bin writes no request log line', async () => {
    for (const args of [[], ['--verbose', '--quiet']]) {
      const { child, url, out } = await spawnBin(['--port', '0', ...args]);
      const done = exited(child);
      try {
        const cred = CANONICAL_CREDENTIALS[0]!;
        const res = await fetch(`${url}/teams`, {
          headers: {
            Authorization: authorizationHeader(cred.authId, cred.accessKey, ''),
            'X-Request-Id': 'cli-test-quiet',
          },
        });
        expect(res.status).toBe(200);
      } finally {
        child.kill('SIGTERM');
      }
      // every line written before the exit is in `out()`
      expect(await done).toBe(0);
      expect(out()).not.toContain('cli-test-quiet');
      expect(out()).not.toContain('"reqId"');
      expect(out()).toMatch(/^tagtrack-server listening on /);
    }
  });

  test('--seed/--scale, repeated --fault and --page-size take effect; SIGINT stops the server', async () => {
    const { url, out, err, stop } = await start([
      '--port',
      '0',
      '--quiet',
      '--seed',
      '7',
      '--scale',
      'tiny',
      '--fault',
      'page-overlap',
      '--fault',
      'json-content-type-text',
      '--page-size',
      '2',
    ]);
    try {
      expect(out()).toContain('generated (seed 7, scale tiny)');
      expect(out()).toContain('FAULTS INJECTED: page-overlap, json-content-type-text');
      expect(out()).not.toContain('demo credentials');
      const { generateDataset } = await import('@tagtrack/dataset');
      const generated = generateDataset({ seed: 7, scale: 'tiny' });
      const cred = generated.credentials[0]!;
      // the banner names one credential per team and account type of the generated dataset
      const team = generated.teams[0]!;
      const admin = team.members.find((m) => m.accountType === 'admin')!;
      const adminCred = generated.credentials.find((c) => c.memberID === admin.memberID)!;
      expect(out()).toContain('sample credentials');
      expect(out()).toContain(
        `${team.teamID}-admin\tauthId=${adminCred.authId}\taccessKey=${adminCred.accessKey}`,
      );
      const res = await fetch(`${url}/teams`, {
        headers: {
          Authorization: authorizationHeader(cred.authId, cred.accessKey, ''),
        },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      const body = (await res.json()) as {
        data: unknown[];
        paging: { cursors: { next: number; total: number } };
      };
      expect(body.data.length).toBeLessThanOrEqual(2);
      if (body.paging.cursors.total > 2) expect(body.paging.cursors.next).toBe(1);
    } finally {
      expect(await stop('SIGINT')).toBe(0);
      expect(err()).toBe('tagtrack-server: SIGINT, shutting down\n');
    }
  });

  test('PORT and HOST environment variables set the listen address; flags win over them', async () => {
    const port = await freePort();
    const fromEnv = await start(['--quiet'], { PORT: String(port), HOST: '127.0.0.1' });
    try {
      expect(fromEnv.url).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await fromEnv.stop('SIGTERM');
    }
    const flagWins = await start(['--quiet', '--port', '0'], { PORT: String(port) });
    try {
      expect(flagWins.url).not.toBe(`http://127.0.0.1:${port}`);
    } finally {
      await flagWins.stop('SIGTERM');
    }
    const badPort = await run(['--quiet'], { PORT: 'eighty' });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain("'eighty' from env 'PORT' is invalid");
    const badHost = await run(['--quiet', '--port', '0'], { HOST: 'no-such-host.invalid' });
    expect(badHost.code).toBe(2);
    expect(badHost.stderr).toContain('cannot listen on host no-such-host.invalid');
  });

  test('the bin: --list-faults into a reader that closed early exits 0 without a stack trace (EPIPE)', async () => {
    const child = spawn(process.execPath, [BIN, '--list-faults'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    expect(await exited(child)).toBe(0);
    expect(stderr).toBe('');
  });

  test('--version prints the package version and exits 0', async () => {
    const { version } = (await import('../package.json', { with: { type: 'json' } })).default;
    for (const flag of ['--version', '-V']) {
      const out = await run([flag]);
      expect(out.code).toBe(0);
      expect(out.stdout).toBe(`${version}\n`);
    }
  });
});
