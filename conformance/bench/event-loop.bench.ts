/**
 * Bench of the suite's event loop at production size (`pnpm bench` in conformance, after the
 * suite bench): the suite's CLI, blind with the first admin the server prints, against
 * `tagtrack-server --seed 1 --scale medium|large` (in memory, a process of its own), with
 * bench/event-loop-probe.mjs preloaded. Per scale: `monitorEventLoopDelay` max and p99, and
 * how many times the loop was held up more than 100 ms (stalls) and the longest, how many of
 * those the process spent more than 100 ms of CPU in (busy stalls: the suite's own work, not
 * time spent waiting for a core of a shared machine), beside the
 * run's wall time, requests and verdict. The target (docs/spec.md §11, docs/bench.md): no
 * stall at all from the suite's own work; on a shared machine a stall also counts the time
 * the process was not scheduled, so read the figures with the load average printed.
 *
 *   BENCH_SCALES=medium,large     scales (default medium,large)
 *   BENCH_OUT=file.md             also write the Markdown table there
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = join(ROOT, 'apps/server/bin/tagtrack-server.js');
const SUITE = join(ROOT, 'conformance/src/cli.ts');
const PROBE = new URL('./event-loop-probe.mjs', import.meta.url).href;
const SCALES = (process.env.BENCH_SCALES ?? 'medium,large').split(',');
const tmp = await mkdtemp(join(tmpdir(), 'tagtrack-event-loop-bench-'));

/** Starts `tagtrack-server` and reads its URL and first printed admin credential. */
function startServer(args: string[]) {
  const child = spawn(process.execPath, [SERVER, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<{ url: string; authId: string; accessKey: string; stop: () => Promise<void> }>(
    (resolve, reject) => {
      let out = '';
      child.on('exit', (code) => reject(new Error(`tagtrack-server exited (${code}): ${out}`)));
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (!out.includes('OpenAPI document')) return;
        const url = /listening on (\S+)/.exec(out)![1]!;
        const admin = /^\s+\S+-admin\s+authId=(\S+)\s+accessKey=(\S+)$/m.exec(out)!;
        resolve({
          url,
          authId: admin[1]!,
          accessKey: admin[2]!,
          stop: () =>
            new Promise((done) => {
              child.removeAllListeners('exit');
              child.on('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      });
    },
  );
}

interface Row {
  readonly scale: string;
  readonly seconds: number;
  readonly requests: number;
  readonly verdict: string;
  readonly maxMs: number;
  readonly p99Ms: number;
  readonly stalls: number;
  readonly longestStallMs: number;
  readonly busyStalls: number;
  readonly longestBusyStallCpuMs: number;
  readonly load: number;
}

const rows: Row[] = [];
for (const scale of SCALES) {
  const server = await startServer(['--seed', '1', '--scale', scale]);
  try {
    const dir = await mkdtemp(join(tmp, `${scale}-`));
    const probeOut = join(dir, 'event-loop.json');
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        '--conditions=@tagtrack/source',
        '--import',
        'tsx',
        '--import',
        PROBE,
        SUITE,
        'run',
        '--base-url',
        server.url,
        '--seed',
        '1',
        '--quiet',
        '--report-dir',
        dir,
      ],
      {
        cwd: join(ROOT, 'conformance'),
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          TAGTRACK_AUTH_ID: server.authId,
          TAGTRACK_ACCESS_KEY: server.accessKey,
          EVENT_LOOP_PROBE_OUT: probeOut,
        },
      },
    );
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const seconds = (performance.now() - started) / 1000;
    const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8'));
    const probe = JSON.parse(await readFile(probeOut, 'utf8'));
    const s = results.summary;
    const row: Row = {
      scale,
      seconds,
      requests: results.requests.sent,
      verdict: `${s.pass} pass, ${s.fail} fail, ${s.error} error (exit ${code})`,
      maxMs: probe.maxMs,
      p99Ms: probe.p99Ms,
      stalls: probe.stallsOver100Ms,
      longestStallMs: probe.longestStallMs,
      busyStalls: probe.busyStallsOver100Ms,
      longestBusyStallCpuMs: probe.longestBusyStallCpuMs,
      load: loadavg()[0]!,
    };
    rows.push(row);
    console.error(`${scale}: ${JSON.stringify(row)} stalls ${JSON.stringify(probe.stalls)}`);
  } finally {
    await server.stop();
  }
}

const table = [
  `Event loop of the suite (blind, one admin, seed 1), ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}`,
  '',
  '| scale | wall time | requests | verdict | loop delay max | p99 | stalls > 100 ms | longest stall | stalls with > 100 ms of CPU | most CPU in one stall | load average |',
  '| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.scale} | ${r.seconds.toFixed(1)} s | ${r.requests.toLocaleString('en')} | ${r.verdict} | ${r.maxMs} ms | ${r.p99Ms} ms | ${r.stalls} | ${r.longestStallMs} ms | ${r.busyStalls} | ${r.longestBusyStallCpuMs} ms | ${r.load.toFixed(1)} |`,
  ),
].join('\n');
console.log(table);
if (process.env.BENCH_OUT) await writeFile(process.env.BENCH_OUT, `${table}\n`);
