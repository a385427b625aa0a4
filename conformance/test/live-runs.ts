import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Dataset, ReportingEngine } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { openSqlEngine } from '@tagtrack/engine';
import {
  createServer,
  FAULTS,
  type FaultInfo,
  type FaultName,
  ServerOptionsError,
  type TagtrackServer,
} from '@tagtrack/server';
import { type RunResult, runConformance } from '../src/run/runner.ts';
import { declaredFor, exhaustRateLimit, NUM_RUNS, serverFor } from './fault-matrix.ts';
import { behindProxy, MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';

/**
 * The suite blind against the live reference server (apps/server/src/live.ts: tags, opens and
 * clicks appended at `rate` records per second, spec §5 Revision 3), as used by
 * `pnpm live-sweep` (scripts/live-sweep.ts) and its budgeted sample in live-server.test.ts:
 * whole runs per rate, seed and caller ({@link liveRun}), and the faults of the fault matrix
 * on live data against the same fault on still data ({@link liveFaultRun}).
 */

/** The rates of the sweep, in records (tags, opens, clicks) per second. */
export const LIVE_RATES = [0.05, 1, 10, 50] as const;

/** The live seeds of the sweep (`--live-seed`; the suite's seed is the same number). */
export const LIVE_SEEDS = [1, 2, 3] as const;

/** Who runs the suite: one admin credential, or the canonical profile (all 12 credentials). */
export type LiveCaller = 'team1-admin' | 'canonical';

/**
 * What answers the live server: core's in-memory index (`memory`, the default), the SQL engine
 * on embedded PGlite (`pglite`), or on the PostgreSQL server at `url` (`postgres`: the
 * dataset is loaded into that database, replacing its tables), where the appended records
 * are INSERTed and the database's triggers keep the counters.
 */
export type LiveEngineChoice =
  | { readonly kind: 'memory' }
  | { readonly kind: 'pglite' }
  | { readonly kind: 'postgres'; readonly url: string };

/** The SQL engine of `choice` loaded with `dataset`, or `undefined` for `memory`. */
async function openLiveEngine(
  choice: LiveEngineChoice | undefined,
  dataset: Dataset,
): Promise<ReportingEngine | undefined> {
  if (choice === undefined || choice.kind === 'memory') return undefined;
  return openSqlEngine({
    load: dataset,
    ...(choice.kind === 'postgres' ? { databaseUrl: choice.url, maxConnections: 4 } : {}),
  });
}

/**
 * Appends what is due on `server` now (in memory at once; into a database, awaited). A failed
 * append into a database is the server's own trouble, not the request's: it is reported as
 * the server reports it (a process warning) and the request is answered from the data as it
 * is. Then yields to the event loop once: an in-process request answered from a cache never
 * waits for I/O, and without a turn of the loop the database's sockets (the appends, the
 * other answers) would starve behind a run of such requests.
 */
async function appendDue(server: TagtrackServer): Promise<void> {
  if (server.live !== undefined) server.live.tick();
  else
    await server.appender
      ?.tick()
      .catch((e: unknown) =>
        process.emitWarning(
          `live data: cannot append: ${e instanceof Error ? e.message : String(e)}`,
        ),
      );
  await new Promise((resolve) => setImmediate(resolve));
}

/** Records `server` appended so far. */
function appendedBy(server: TagtrackServer): number {
  return server.live?.current.appended ?? server.appender?.appended ?? 0;
}

/** The `tagtrack-server` flags of an engine choice. */
export function engineArgs(choice: LiveEngineChoice | undefined): string[] {
  if (choice === undefined || choice.kind === 'memory') return [];
  return choice.kind === 'pglite' ? ['--engine', 'pglite'] : ['--database-url', choice.url];
}

/** One whole blind run against live data, as the sweep's table shows it. */
export interface LiveRunRow {
  readonly rate: number;
  readonly seed: number;
  readonly caller: LiveCaller;
  readonly transport: 'memory' | 'socket';
  /**
   * Records appended during the run: exact in memory (`server.live.current.appended`); over
   * a socket `rate` × the seconds from the server's start to the run's end, rounded down (the
   * records due by then, decisions of live.ts).
   */
  readonly appended: number;
  readonly checks: number;
  readonly passed: number;
  readonly failed: number;
  readonly inconclusive: number;
  readonly errors: number;
  /** Checks that ran again because their data moved, and the runs made again. */
  readonly rerunChecks: number;
  readonly reruns: number;
  /** Requests sent, and how many of them read a watermark. */
  readonly requests: number;
  readonly watermarkRequests: number;
  /** Wall-clock seconds of the run (the server's start excluded). */
  readonly seconds: number;
  /** `status ID: reason` of each failed, errored or inconclusive check. */
  readonly problems: readonly string[];
}

/** The blind options of a caller: one admin's credential, or the canonical profile's 12. */
function callerOptions(caller: LiveCaller) {
  return caller === 'team1-admin'
    ? { authId: team1Admin.authId, accessKey: team1Admin.accessKey }
    : { profile: profileFor() };
}

/** The row of a finished run. */
function rowOf(
  result: RunResult,
  common: Pick<LiveRunRow, 'rate' | 'seed' | 'caller' | 'transport' | 'appended'>,
): LiveRunRow {
  const d = result.data;
  return {
    ...common,
    checks: result.checks.length,
    passed: result.summary.pass,
    failed: result.summary.fail,
    inconclusive: result.summary.inconclusive ?? 0,
    errors: result.summary.error,
    rerunChecks: d?.rerunChecks ?? 0,
    reruns: d?.reruns ?? 0,
    requests: result.requests.sent,
    watermarkRequests: d?.watermarkRequests ?? 0,
    seconds: result.durationMs / 1000,
    problems: result.checks
      .filter((c) => c.status === 'fail' || c.status === 'inconclusive' || c.status === 'error')
      .map((c) => `${c.status} ${c.id}: ${c.reason ?? c.failures[0]?.message ?? ''}`),
  };
}

/**
 * A clock for the live server that moves `msPerRequest` milliseconds per request the suite
 * sends (`step` before each), from the instant it was made: the records appended per request
 * are then the same on an idle and on a busy machine (a wall clock appends more per request
 * the slower the machine runs the suite). `undefined` when `msPerRequest` is.
 */
export function requestClock(
  msPerRequest: number | undefined,
): { now: () => number; step: () => void } | undefined {
  if (msPerRequest === undefined) return undefined;
  const start = Date.now();
  let requests = 0;
  return {
    now: () => start + requests * msPerRequest,
    step: () => {
      requests++;
    },
  };
}

/**
 * Runs the suite blind as `caller` against `createServer({ live: { rate, seed } })` in memory,
 * appending what is due before each answer (an in-memory run never yields to the server's
 * timer), suite seed `seed`, `numRuns` fast-check runs per property. Closes the server.
 */
export async function liveRun(options: {
  readonly rate: number;
  readonly seed: number;
  readonly caller: LiveCaller;
  readonly numRuns: number;
  /** See {@link requestClock}; absent: the wall clock. */
  readonly msPerRequest?: number | undefined;
  /** What answers (default in memory). */
  readonly engine?: LiveEngineChoice | undefined;
  /** Only these requirement ids (`--only`; default every check). */
  readonly only?: string | undefined;
  /** Checks at once (default the runner's). */
  readonly concurrency?: number | undefined;
}): Promise<LiveRunRow & { readonly statuses: Readonly<Record<string, string>> }> {
  const { rate, seed, caller, numRuns } = options;
  const clock = requestClock(options.msPerRequest);
  const engine = await openLiveEngine(options.engine, canonicalDataset);
  const server = createServer({
    publicUrl: MEMORY_BASE_URL,
    ...(engine === undefined ? {} : { engine }),
    live: { rate, seed, ...(clock === undefined ? {} : { clock: clock.now }) },
  });
  try {
    const result = await runConformance({
      baseUrl: MEMORY_BASE_URL,
      fetch: async (r) => {
        clock?.step();
        await appendDue(server);
        return server.fetch(r);
      },
      mode: 'blind',
      seed,
      numRuns,
      ...(options.only === undefined ? {} : { only: options.only }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...callerOptions(caller),
    });
    return {
      ...rowOf(result, {
        rate,
        seed,
        caller,
        transport: 'memory',
        appended: appendedBy(server),
      }),
      // each check's status, by requirement id
      statuses: Object.fromEntries(result.checks.map((c) => [c.id, c.status])),
    };
  } finally {
    await server.close();
    await engine?.close();
  }
}

/** The launcher of the reference server's CLI (apps/server/bin). */
const SERVER_BIN = fileURLToPath(
  new URL('../../apps/server/bin/tagtrack-server.js', import.meta.url),
);

/**
 * Starts `tagtrack-server --live RATE --live-seed SEED --port 0 --host 127.0.0.1` in a child
 * process and resolves its URL (from the `tagtrack-server listening on URL` line it prints)
 * and the child. Rejects with the child's output when it exits first or prints no URL
 * within 60 s.
 */
export function startLiveServerProcess(
  rate: number,
  seed: number,
  engine?: LiveEngineChoice,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      SERVER_BIN,
      '--live',
      String(rate),
      '--live-seed',
      String(seed),
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      ...engineArgs(engine),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`tagtrack-server printed no URL within 60 s: ${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /tagtrack-server listening on (\S+)/.exec(output);
      if (m !== null) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({ url: m[1]!, child });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tagtrack-server exited (${code}) before listening: ${output}`));
    });
  });
}

/** Kills a child process (SIGTERM) and resolves once it exited. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * {@link liveRun} against the real server over HTTP: `tagtrack-server --live RATE --live-seed
 * SEED` in a child process (its own timer appends, every 200 ms), killed at the end.
 */
export async function liveSocketRun(options: {
  readonly rate: number;
  readonly seed: number;
  readonly caller: LiveCaller;
  readonly numRuns: number;
  /** What answers (default in memory). */
  readonly engine?: LiveEngineChoice | undefined;
}): Promise<LiveRunRow> {
  const { rate, seed, caller, numRuns } = options;
  const started = Date.now();
  const { url, child } = await startLiveServerProcess(rate, seed, options.engine);
  try {
    const result = await runConformance({
      baseUrl: url,
      mode: 'blind',
      seed,
      numRuns,
      ...callerOptions(caller),
    });
    return rowOf(result, {
      rate,
      seed,
      caller,
      transport: 'socket',
      appended: Math.floor(((Date.now() - started) / 1000) * rate),
    });
  } finally {
    await stopProcess(child);
  }
}

/** The faults blind mode with one admin credential is declared to catch (the fault matrix's). */
export function blindFaults(): FaultInfo[] {
  return FAULTS.filter((f) => Array.isArray(declaredFor(f, 'blind')));
}

/** One fault run blind as team1-admin, narrowed to the fault's declared blind ids. */
export interface LiveFaultRow {
  readonly fault: FaultName;
  /** Records per second, or `undefined` for still data. */
  readonly rate: number | undefined;
  readonly seed: number;
  readonly declared: readonly string[];
  /** Whether one of the declared ids failed. */
  readonly caught: boolean;
  /** Ids of the checks that failed, errored and came out inconclusive. */
  readonly failed: readonly string[];
  readonly errors: readonly string[];
  readonly inconclusive: readonly string[];
  readonly rerunChecks: number;
  readonly requests: number;
  readonly watermarkRequests: number;
  readonly appended: number;
  readonly seconds: number;
  /** `status ID: reason` of each failed, errored or inconclusive check. */
  readonly problems: readonly string[];
}

/**
 * Runs blind mode as team1-admin (the fault matrix's blind run: its server options from
 * `serverFor`, the canonical profile's options without credentials, `only` the fault's
 * declared blind ids, `NUM_RUNS` per property) against the reference server with `fault`
 * injected, over live data at `rate` records per second (live seed 1), or over still data
 * when `rate` is undefined. A rate-limited server has every canonical credential's window
 * spent first, as in the matrix. With a SQL `engine`, the fault's dataset is loaded into it
 * first, and a fault it cannot serve (a store fault) resolves `undefined`. Throws a
 * `RangeError` for a fault blind mode is not declared to catch.
 */
export async function liveFaultRun(options: {
  readonly fault: FaultName;
  readonly rate: number | undefined;
  readonly seed: number;
  readonly numRuns?: number | undefined;
  /** See {@link requestClock}; absent: the wall clock. */
  readonly msPerRequest?: number | undefined;
  /** What answers (default in memory). */
  readonly engine?: LiveEngineChoice | undefined;
}): Promise<LiveFaultRow | undefined> {
  const { fault, rate, seed } = options;
  const clock = requestClock(options.msPerRequest);
  const info = FAULTS.find((f) => f.name === fault);
  const declared = info === undefined ? undefined : declaredFor(info, 'blind');
  if (declared === undefined || !Array.isArray(declared)) {
    throw new RangeError(`fault ${fault} is not one blind mode is declared to catch`);
  }
  const serverOptions = serverFor(fault);
  const engine = await openLiveEngine(options.engine, serverOptions.dataset ?? canonicalDataset);
  let server: TagtrackServer;
  try {
    server = createServer({
      publicUrl: MEMORY_BASE_URL,
      ...serverOptions,
      ...(engine === undefined ? {} : { engine }),
      ...(rate === undefined
        ? {}
        : { live: { rate, seed: 1, ...(clock === undefined ? {} : { clock: clock.now }) } }),
    });
  } catch (e) {
    await engine?.close();
    // a fault the engine cannot serve (a store fault needs the in-memory index)
    if (engine !== undefined && e instanceof ServerOptionsError) return undefined;
    throw e;
  }
  try {
    const { rateLimit } = serverOptions;
    if (rateLimit !== undefined) await exhaustRateLimit(server, rateLimit.limit);
    const baseUrl = serverOptions.publicUrl ?? MEMORY_BASE_URL;
    const result = await runConformance({
      baseUrl,
      fetch: behindProxy(async (r) => {
        clock?.step();
        await appendDue(server);
        return server.fetch(r);
      }, baseUrl),
      mode: 'blind',
      seed,
      numRuns: options.numRuns ?? NUM_RUNS,
      only: declared.join(','),
      profile: { ...profileFor(serverOptions), credentials: [] },
      authId: team1Admin.authId,
      accessKey: team1Admin.accessKey,
    });
    const ids = (status: string) =>
      result.checks.filter((c) => c.status === status).map((c) => c.id);
    const failed = ids('fail');
    const row = rowOf(result, {
      rate: rate ?? 0,
      seed,
      caller: 'team1-admin',
      transport: 'memory',
      appended: appendedBy(server),
    });
    return {
      fault,
      rate,
      seed,
      declared,
      caught: failed.some((id) => declared.includes(id)),
      failed,
      errors: ids('error'),
      inconclusive: ids('inconclusive'),
      rerunChecks: row.rerunChecks,
      requests: row.requests,
      watermarkRequests: row.watermarkRequests,
      appended: row.appended,
      seconds: row.seconds,
      problems: row.problems,
    };
  } finally {
    await server.close();
    await engine?.close();
  }
}
