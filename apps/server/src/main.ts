import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Dataset, DatasetError, type ReportingEngine } from '@tagtrack/core';
import { generateDataset } from '@tagtrack/dataset';
import {
  CANONICAL_CREDENTIALS,
  canonicalDataset,
  DEMO_CREDENTIALS,
} from '@tagtrack/dataset/canonical';
import { type ColumnarSource, type SqlEngine, writeSnapshotFile } from '@tagtrack/engine';
import { CommanderError } from 'commander';
import {
  type CliEngine,
  EngineFlagError,
  engineLine,
  engineOf,
  openSqlEngineFlag,
} from './cli-engine.ts';
import { type CliIo, type CliOptions, program } from './cli-options.ts';
import { DatasetFileError, loadDatasetSource } from './dataset-file.ts';
import { FAULTS } from './faults/index.ts';
import {
  createServer,
  type ServerOptions,
  ServerOptionsError,
  storeFaultsRefusal,
  type TagtrackServer,
} from './server.ts';
import { VARIANTS, variantInfo } from './variants/index.ts';

/** Exit code for bad usage, an unusable dataset, or a port that cannot be bound. */
const EXIT_USAGE = 2;

export type { CliIo } from './cli-options.ts';

const PROCESS_IO: CliIo = { stdout: process.stdout, stderr: process.stderr };

/**
 * What {@link main} resolves: the exit code of a run that ended (help, version, a list, bad
 * usage), or the listening server with its URL and `stop`, which closes it as SIGINT or
 * SIGTERM does (a line on stderr) and resolves the exit code (0 once closed, 1 if closing
 * failed).
 */
export type CliOutcome =
  | { readonly code: number }
  | {
      readonly server: TagtrackServer;
      readonly url: string;
      stop(signal: string): Promise<number>;
    };

/** Bad usage, an unusable dataset or a port that cannot be bound: exit 2 with `message`. */
class UsageExit extends Error {}

async function datasetOf(opts: CliOptions): Promise<Loaded> {
  if (opts.dataset !== undefined) {
    // streamed into core's columnar store (a JSON file, or a per-table NDJSON/CSV directory)
    const columnar = await loadDatasetSource(opts.dataset, { progress: true });
    return { columnar, origin: `file ${opts.dataset} (${columnar.events} events)` };
  }
  if (opts.seed !== undefined || opts.scale !== undefined) {
    const seed = opts.seed ?? 1;
    const scale = opts.scale ?? 'small';
    return {
      dataset: generateDataset({ seed, scale }),
      origin: `generated (seed ${seed}, scale ${scale})`,
    };
  }
  return { origin: 'canonical dataset (@tagtrack/dataset/canonical)' };
}

/**
 * One credential per team and account type of `dataset` (the first member in dataset order
 * that has one), labelled `<teamID>-<accountType>`, for the start-up banner.
 */
export function sampleCredentials(
  dataset: Dataset,
): { label: string; authId: string; accessKey: string }[] {
  const byMember = new Map(dataset.credentials.map((c) => [c.memberID, c]));
  const out: { label: string; authId: string; accessKey: string }[] = [];
  for (const team of dataset.teams) {
    for (const type of ['admin', 'manager', 'user'] as const) {
      const cred = team.members
        .filter((m) => m.accountType === type)
        .map((m) => byMember.get(m.memberID))
        .find((c) => c !== undefined);
      if (cred)
        out.push({
          label: `${team.teamID}-${type}`,
          authId: cred.authId,
          accessKey: cred.accessKey,
        });
    }
  }
  return out;
}

function fail(message: string): never {
  throw new UsageExit(message.replace(/\s*\n\s*/g, ' '));
}

/** Writes the snapshot of the finished `source` to `file`; its line for the start banner. */
async function writeSnapshot(file: string, source: ColumnarSource): Promise<string> {
  try {
    const bytes = await writeSnapshotFile(file, source);
    return `snapshot written: ${file} (${(bytes / 2 ** 20).toFixed(1)} MB)`;
  } catch (e) {
    throw new DatasetFileError(file, `cannot write snapshot ${file}: ${(e as Error).message}`);
  }
}

/**
 * The engine the flags pick (cli-engine.ts); what a SQL engine cannot do exits 2 here,
 * before any dataset is loaded: `--write-snapshot`, a store fault.
 */
function engineKind(opts: CliOptions): CliEngine {
  let kind: CliEngine;
  try {
    kind = engineOf(opts);
  } catch (e) {
    if (e instanceof EngineFlagError) fail(e.message);
    throw e;
  }
  if (kind === 'memory') return kind;
  if (opts.writeSnapshot !== undefined) {
    fail(`--write-snapshot needs the in-memory engine (it writes its columns), not ${kind}`);
  }
  const refusal = storeFaultsRefusal(opts.fault, kind);
  if (refusal !== undefined) fail(refusal);
  return kind;
}

/** What the dataset flags name: a dataset in memory, a columnar source, or neither (canonical). */
interface Loaded {
  readonly dataset?: Dataset;
  readonly columnar?: ColumnarSource;
  readonly origin: string;
}

/**
 * Opens the SQL engine `kind` with the dataset to load: with `pglite` the one the in-memory
 * engine would index (canonical, `--dataset`, generated); with `--database-url` the one a
 * dataset flag names, else none (the tables already in the database are served).
 */
async function openSqlEngine(
  kind: 'pglite' | 'postgres',
  opts: CliOptions,
  loaded: Loaded,
): Promise<{ engine: ReportingEngine; served: Dataset | undefined; origin: string }> {
  const named = opts.dataset !== undefined || opts.seed !== undefined || opts.scale !== undefined;
  const memberWithoutGroup =
    opts.memberWithoutGroup ??
    opts.variant.map((v) => variantInfo(v).server?.memberWithoutGroup).find((m) => m);
  const served =
    kind === 'postgres' && !named
      ? undefined
      : (loaded.dataset ??
        loaded.columnar?.finish(memberWithoutGroup ? { memberWithoutGroup } : {}).index.dataset ??
        canonicalDataset);
  const engine = await openSqlEngineFlag(kind, {
    databaseUrl: opts.databaseUrl,
    load: served,
    memberWithoutGroup,
  });
  return {
    engine,
    served,
    origin: served === undefined ? 'the tagtrack tables already in the database' : loaded.origin,
  };
}

/**
 * Runs the CLI with `argv` (the arguments after the program name; PORT and HOST are read from
 * `process.env`): parses flags, loads or generates the dataset, listens, prints the URL on
 * `io.stdout`. Resolves the exit code of a run that ends, or the listening server (see
 * {@link CliOutcome}); process-level effects (exit, signals) are {@link run}'s.
 */
export async function main(argv: readonly string[], io: CliIo = PROCESS_IO): Promise<CliOutcome> {
  try {
    return await listen(argv, io);
  } catch (e) {
    if (!(e instanceof UsageExit)) throw e;
    io.stderr.write(`tagtrack-server: ${e.message}\n`);
    return { code: EXIT_USAGE };
  }
}

/** The CLI's steps: flags, lists, checks, the server, its socket, the banner. */
async function listen(argv: readonly string[], io: CliIo): Promise<CliOutcome> {
  const opts = parseFlags(argv, io);
  if (typeof opts === 'number') return { code: opts };
  if (printLists(opts, io)) return { code: 0 };
  checkFlags(opts);
  const kind = engineKind(opts);
  const started = await startServer(opts, kind);
  const url = await listenOn(started, opts);
  io.stdout.write(`${bannerLines(started, opts, kind, url).join('\n')}\n`);
  return { server: started.server, url, stop: stopper(started, io) };
}

/** The parsed flags, or the exit code of `--help`, `--version` or a usage error. */
function parseFlags(argv: readonly string[], io: CliIo): CliOptions | number {
  const cmd = program(io);
  try {
    cmd.parse(argv as string[], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT_USAGE;
    throw e;
  }
  return cmd.opts<CliOptions>();
}

/** Prints the faults (`--list-faults`) or variants (`--list-variants`); whether it did. */
function printLists(opts: CliOptions, io: CliIo): boolean {
  if (opts.listFaults) {
    for (const f of FAULTS) {
      io.stdout.write(
        `${f.name}\t${f.area}\t${f.description}\tdetected by ${f.detectedBy.join(', ')}\n`,
      );
    }
    return true;
  }
  if (opts.listVariants) {
    for (const v of VARIANTS) {
      const profile = 'profile' in v ? `\tprofile ${JSON.stringify(v.profile)}` : '';
      io.stdout.write(
        `${v.name}\t${v.layer}${v.transport ? ' (socket only)' : ''}\t${v.description}\t${v.freedom}${profile}\n`,
      );
    }
    return true;
  }
  return false;
}

/** Exits 2 for flags that need another flag or contradict one. */
function checkFlags(opts: CliOptions): void {
  if (opts.liveSeed !== undefined && opts.live === undefined) {
    fail('--live-seed needs --live (the rate of appended records)');
  }
  if (opts.writeSnapshot !== undefined && opts.dataset === undefined) {
    fail('--write-snapshot needs --dataset (the file or directory to snapshot)');
  }
  if (opts.writeSnapshot !== undefined && resolve(opts.writeSnapshot) === resolve(opts.dataset!)) {
    fail('--write-snapshot names the --dataset file itself: write the snapshot to another file');
  }
}

/** A server created from the flags, not yet listening. */
interface Started {
  readonly server: TagtrackServer;
  /** The SQL engine the CLI opened (closed on stop), or `undefined` for the in-memory one. */
  readonly engine: ReportingEngine | undefined;
  /** The dataset a SQL engine serves, when known. */
  readonly served: Dataset | undefined;
  readonly origin: string;
  readonly snapshotLine: string | undefined;
}

/**
 * Loads the dataset, opens the engine `kind` and creates the server; exits 2 for an unusable
 * dataset, an engine that cannot open or options that cannot work (the engine closed).
 */
async function startServer(opts: CliOptions, kind: CliEngine): Promise<Started> {
  let engine: ReportingEngine | undefined;
  try {
    const loaded = await datasetOf(opts);
    let origin = loaded.origin;
    let served: Dataset | undefined;
    if (kind !== 'memory') ({ engine, served, origin } = await openSqlEngine(kind, opts, loaded));
    const server = createServer(serverOptionsOf(opts, loaded, engine, served));
    const snapshotLine =
      opts.writeSnapshot !== undefined && loaded.columnar !== undefined
        ? await writeSnapshot(opts.writeSnapshot, loaded.columnar)
        : undefined;
    return { server, engine, served, origin, snapshotLine };
  } catch (e) {
    await engine?.close().catch(() => {});
    if (e instanceof DatasetFileError || e instanceof DatasetError) fail(e.message);
    // e.g. an option that contradicts a variant (--page-size 10 --variant page-size-7)
    if (e instanceof ServerOptionsError || e instanceof EngineFlagError) fail(e.message);
    throw e;
  }
}

/** The options of `createServer` from the flags, the dataset loaded and the engine opened. */
function serverOptionsOf(
  opts: CliOptions,
  loaded: Loaded,
  engine: ReportingEngine | undefined,
  served: Dataset | undefined,
): ServerOptions {
  return {
    ...(engine !== undefined
      ? { engine, ...(served ? { dataset: served } : {}) }
      : {
          ...(loaded.dataset ? { dataset: loaded.dataset } : {}),
          ...(loaded.columnar ? { columnar: loaded.columnar } : {}),
        }),
    ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}),
    ...(opts.memberWithoutGroup !== undefined
      ? { memberWithoutGroup: opts.memberWithoutGroup }
      : {}),
    ...(opts.pagingEnd !== undefined ? { pagingEnd: opts.pagingEnd } : {}),
    ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
    ...(opts.live !== undefined
      ? {
          live: {
            rate: opts.live,
            ...(opts.liveSeed === undefined ? {} : { seed: opts.liveSeed }),
          },
        }
      : {}),
    rateLimit: opts.rateLimit,
    faults: opts.fault,
    variants: opts.variant,
    logger: (opts.log || opts.verbose) && !opts.quiet,
  };
}

/** Listens on `--port` and `--host`; exits 2 when that cannot be (the engine closed). */
async function listenOn(started: Started, opts: CliOptions): Promise<string> {
  try {
    return await started.server.listen(opts.port, opts.host);
  } catch (e) {
    await started.engine?.close().catch(() => {});
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') fail(`port ${opts.port} on ${opts.host} is already in use`);
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') {
      fail(`cannot listen on host ${opts.host}: ${err.code}`);
    }
    if (err.code === 'EACCES') fail(`no permission to listen on port ${opts.port}`);
    throw e;
  }
}

/** The start-up banner: the URL, what answers, the options in force and credentials to try. */
function bannerLines(started: Started, opts: CliOptions, kind: CliEngine, url: string): string[] {
  const { server, served, origin, engine } = started;
  const lines = [
    `tagtrack-server listening on ${url}`,
    engineLine(
      kind,
      opts.databaseUrl,
      served !== undefined,
      engine !== undefined && 'topology' in engine ? (engine as SqlEngine).topology : undefined,
    ),
    `dataset: ${origin}`,
  ];
  if (started.snapshotLine !== undefined) lines.push(started.snapshotLine);
  if (opts.fault.length > 0) lines.push(`FAULTS INJECTED: ${opts.fault.join(', ')}`);
  if (opts.variant.length > 0) lines.push(`variants: ${opts.variant.join(', ')}`);
  lines.push(`public URL of paging links: ${server.publicUrl}`);
  if (opts.live !== undefined) {
    lines.push(
      kind === 'memory'
        ? `live data: ${opts.live} records/s appended (seed ${opts.liveSeed ?? 1}); each response answers one version`
        : `live data: ${opts.live} records/s appended to the database's tables (seed ${opts.liveSeed ?? 1}); each response reads one snapshot`,
    );
  }
  if (opts.rateLimit) {
    lines.push(
      `rate limit: ${opts.rateLimit.limit} per ${opts.rateLimit.windowMs / 1000} s per credential`,
    );
  }
  lines.push(...credentialLines(server.index?.dataset ?? served, origin));
  lines.push(`OpenAPI document: ${url}/openapi.json`);
  return lines;
}

/** The banner's credentials: the demo ones of the canonical dataset, else a sample. */
function credentialLines(shown: Dataset | undefined, origin: string): string[] {
  if (shown === undefined) return ["credentials: those of the database's credentials table"];
  if (origin.startsWith('canonical')) {
    return [
      `demo credentials (${DEMO_CREDENTIALS.length} of the dataset's ${CANONICAL_CREDENTIALS.length}; all are in the conformance suite's canonical profile):`,
      ...DEMO_CREDENTIALS.map((c) => `  ${c.label}\tauthId=${c.authId}\taccessKey=${c.accessKey}`),
    ];
  }
  return [
    'sample credentials (one per team and account type; all are in the dataset):',
    ...sampleCredentials(shown).map(
      (c) => `  ${c.label}\tauthId=${c.authId}\taccessKey=${c.accessKey}`,
    ),
  ];
}

/**
 * The `stop` of a listening server: a line on stderr, the server closed, then the engine
 * (even when the server fails to close); resolves 0, or 1 when closing failed.
 */
function stopper(started: Started, io: CliIo): (signal: string) => Promise<number> {
  return (signal) => {
    io.stderr.write(`tagtrack-server: ${signal}, shutting down\n`);
    const closed = started.server.close().then(
      () => 0,
      () => 1,
    );
    return closed.then((code) =>
      (started.engine?.close() ?? Promise.resolve()).then(
        () => code,
        () => 1,
      ),
    );
  };
}

/**
 * The `tagtrack-server` process: {@link main} on the process's streams, its exit code as the
 * process's; a listening server stops on SIGINT or SIGTERM (exit 0, or 1 when closing fails
 * or takes over 5 s). A closed stdout reader (`tagtrack-server --list-faults | head -3`) ends
 * the output, not the process with a stack trace.
 */
export async function run(argv: readonly string[]): Promise<void> {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    process.stderr.write(`tagtrack-server: stdout: ${e.message}\n`);
    process.exit(1);
  });
  let outcome: CliOutcome;
  try {
    outcome = await main(argv);
  } catch (e) {
    process.stderr.write(`tagtrack-server: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  }
  if ('code' in outcome) {
    if (outcome.code !== 0) process.exit(outcome.code);
    return;
  }
  const { stop } = outcome;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    stop(signal).then((code) => process.exit(code));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

/** Whether this module is the process's entry (`node src/main.ts`), not an import. */
function isEntry(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry()) void run(process.argv.slice(2));
