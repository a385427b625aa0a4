/**
 * Bench of the suite itself at production size (`pnpm bench` in conformance, after the full
 * fixture run): its wall time, requests sent and peak RSS against the reference server
 * (`tagtrack-server`, a process of its own on 127.0.0.1):
 *
 * - fixture mode against the canonical dataset;
 * - blind mode at each scale (`--seed 1 --scale tiny|small|medium|large`, in memory), with
 *   one admin credential, and with a profile of every sample credential the server prints
 *   (written by `tagtrack-conformance init --credentials-file`);
 * - with `BENCH_DATABASE_URL` (a PostgreSQL database the role may write), blind mode against
 *   `tagtrack-server --database-url` loaded with `BENCH_DATABASE_SCALE` (default large).
 *
 * The suite runs as a child process (its CLI, `--seed 1`); its peak RSS is VmHWM of
 * /proc/<pid>/status (Linux), read until it exits. Prints a Markdown table and writes it to
 * `BENCH_OUT` when set (docs/bench.md keeps one).
 *
 *   BENCH_SCALES=tiny,small,medium,large   scales of the blind runs (default all four)
 *   BENCH_MODES=fixture,admin,all          which runs (default all three kinds)
 *   BENCH_DATABASE_URL=postgres://…/db     also the database row
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = join(ROOT, 'apps/server/bin/tagtrack-server.js');
const SUITE = join(ROOT, 'conformance/src/cli.ts');
const SCALES = (process.env.BENCH_SCALES ?? 'tiny,small,medium,large').split(',');
const MODES = new Set((process.env.BENCH_MODES ?? 'fixture,admin,all').split(','));
const tmp = await mkdtemp(join(tmpdir(), 'tagtrack-suite-bench-'));

interface Server {
  readonly url: string;
  readonly credentials: { label: string; authId: string; accessKey: string }[];
  readonly process: ChildProcess;
}

/** Starts `tagtrack-server` with `args` and reads its URL and printed sample credentials. */
function startServer(args: string[]): Promise<Server> {
  const child = spawn(process.execPath, [SERVER, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`tagtrack-server exited (${code}): ${out}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('OpenAPI document')) return;
      const url = /listening on (\S+)/.exec(out)![1]!;
      const credentials = [...out.matchAll(/^\s+(\S+)\s+authId=(\S+)\s+accessKey=(\S+)$/gm)].map(
        ([, label, authId, accessKey]) => ({
          label: label!,
          authId: authId!,
          accessKey: accessKey!,
        }),
      );
      resolve({ url, credentials, process: child });
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.process.removeAllListeners('exit');
    server.process.on('exit', () => resolve());
    server.process.kill('SIGTERM');
  });
}

/** The peak RSS (VmHWM, bytes) of a running process, or 0 once it is gone. */
function peakRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]) * 1024;
  } catch {
    return 0;
  }
}

interface Row {
  readonly what: string;
  readonly seconds: number;
  readonly requests: number;
  readonly rssMb: number;
  readonly verdict: string;
}

/** Runs the suite's CLI with `args` (and `env`), returning its figures from results.json. */
async function runSuite(
  what: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Row> {
  const dir = await mkdtemp(join(tmp, 'run-'));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--conditions=@tagtrack/source',
      '--import',
      'tsx',
      SUITE,
      'run',
      '--seed',
      '1',
      '--quiet',
      '--report-dir',
      dir,
      ...args,
    ],
    {
      cwd: join(ROOT, 'conformance'),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  let peak = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRss(child.pid!));
  }, 200);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  child.stdout!.resume();
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(poll);
  const seconds = (performance.now() - started) / 1000;
  const json = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8'));
  const s = json.summary;
  const row = {
    what,
    seconds,
    requests: json.requests.sent as number,
    rssMb: peak / 1024 / 1024,
    verdict: `${s.pass} pass, ${s.fail} fail, ${s.error} error (exit ${code})`,
  };
  console.error(
    `${what}: ${row.seconds.toFixed(1)} s, ${row.requests} requests, ${row.rssMb.toFixed(0)} MB, ${row.verdict}${code === 0 ? '' : `\n${stderr.slice(-2000)}`}`,
  );
  return row;
}

/** Writes a profile of `server`'s printed credentials with `init`, returning its path. */
async function profileOfAll(server: Server): Promise<string> {
  const file = join(tmp, `credentials-${Date.now()}.json`);
  const out = join(tmp, `profile-${Date.now()}.json`);
  await writeFile(file, JSON.stringify(server.credentials), { mode: 0o600 });
  const child = spawn(
    process.execPath,
    [
      '--conditions=@tagtrack/source',
      '--import',
      'tsx',
      SUITE,
      'init',
      '--base-url',
      server.url,
      '--credentials-file',
      file,
      '--out',
      out,
    ],
    { cwd: join(ROOT, 'conformance'), stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`init exited ${code}`);
  return out;
}

const rows: Row[] = [];
const admin = (s: Server) => {
  const a = s.credentials.find((c) => c.label.endsWith('-admin')) ?? s.credentials[0]!;
  return { TAGTRACK_AUTH_ID: a.authId, TAGTRACK_ACCESS_KEY: a.accessKey };
};

if (MODES.has('fixture')) {
  const server = await startServer([]);
  try {
    rows.push(
      await runSuite('fixture, canonical dataset', ['--base-url', server.url, '--mode', 'fixture']),
    );
  } finally {
    await stop(server);
  }
}
const blind = async (name: string, serverArgs: string[]) => {
  const server = await startServer(serverArgs);
  try {
    if (MODES.has('admin'))
      rows.push(
        await runSuite(`blind, ${name}, one admin`, ['--base-url', server.url], admin(server)),
      );
    if (MODES.has('all')) {
      const profile = await profileOfAll(server);
      rows.push(
        await runSuite(`blind, ${name}, all ${server.credentials.length} printed credentials`, [
          '--base-url',
          server.url,
          '--profile',
          profile,
        ]),
      );
    }
  } finally {
    await stop(server);
  }
};
for (const scale of SCALES) await blind(`${scale} (memory)`, ['--seed', '1', '--scale', scale]);
const db = process.env.BENCH_DATABASE_URL;
if (db !== undefined && db !== '') {
  const scale = process.env.BENCH_DATABASE_SCALE ?? 'large';
  await blind(`${scale} (--database-url)`, ['--seed', '1', '--scale', scale, '--database-url', db]);
}

const table = [
  `Suite bench (seed 1, default options), ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average at the end ${loadavg()[0]!.toFixed(1)}`,
  '',
  '| run | wall time | requests | peak RSS | verdict |',
  '| --- | ---: | ---: | ---: | --- |',
  ...rows.map(
    (r) =>
      `| ${r.what} | ${r.seconds.toFixed(1)} s | ${r.requests.toLocaleString('en')} | ${r.rssMb.toFixed(0)} MB | ${r.verdict} |`,
  ),
].join('\n');
console.log(table);
if (process.env.BENCH_OUT) await writeFile(process.env.BENCH_OUT, `${table}\n`);
