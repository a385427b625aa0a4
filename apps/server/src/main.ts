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
import { type CliEngine, EngineFlagError, engineLine, engineOf, openEngine } from './cli-engine.ts';
import { type CliIo, type CliOptions, program } from './cli-options.ts';
import { DatasetFileError, loadDatasetSource } from './dataset-file.ts';
import { FAULTS } from './faults/index.ts';
import {
  createServer,
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

async function datasetOf(
  opts: CliOptions,
): Promise<{ dataset?: Dataset; columnar?: ColumnarSource; origin: string }> {
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
 * before any dataset is loaded: `--write-snapshot`, `--live`, a store fault.
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
  if (opts.live !== undefined) fail(`--live needs the in-memory engine, not ${kind}`);
  const refusal = storeFaultsRefusal(opts.fault, kind);
  if (refusal !== undefined) fail(refusal);
  return kind;
}

/**
 * Opens the SQL engine `kind` with the dataset to load: with `pglite` the one the in-memory
 * engine would index (canonical, `--dataset`, generated); with `--database-url` the one a
 * dataset flag names, else none (the tables already in the database are served).
 */
async function openSqlEngine(
  kind: 'pglite' | 'postgres',
  opts: CliOptions,
  loaded: { dataset?: Dataset; columnar?: ColumnarSource; origin: string },
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
  const engine = await openEngine(kind, {
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

async function listen(argv: readonly string[], io: CliIo): Promise<CliOutcome> {
  const cmd = program(io);
  try {
    cmd.parse(argv as string[], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return { code: e.exitCode === 0 ? 0 : EXIT_USAGE };
    throw e;
  }
  const opts = cmd.opts<CliOptions>();
  if (opts.listFaults) {
    for (const f of FAULTS) {
      io.stdout.write(
        `${f.name}\t${f.area}\t${f.description}\tdetected by ${f.detectedBy.join(', ')}\n`,
      );
    }
    return { code: 0 };
  }
  if (opts.listVariants) {
    for (const v of VARIANTS) {
      const profile = 'profile' in v ? `\tprofile ${JSON.stringify(v.profile)}` : '';
      io.stdout.write(
        `${v.name}\t${v.layer}${v.transport ? ' (socket only)' : ''}\t${v.description}\t${v.freedom}${profile}\n`,
      );
    }
    return { code: 0 };
  }

  if (opts.liveSeed !== undefined && opts.live === undefined) {
    fail('--live-seed needs --live (the rate of appended records)');
  }
  if (opts.writeSnapshot !== undefined && opts.dataset === undefined) {
    fail('--write-snapshot needs --dataset (the file or directory to snapshot)');
  }
  if (opts.writeSnapshot !== undefined && resolve(opts.writeSnapshot) === resolve(opts.dataset!)) {
    fail('--write-snapshot names the --dataset file itself: write the snapshot to another file');
  }
  const kind = engineKind(opts);
  let server: TagtrackServer;
  let origin: string;
  let snapshotLine: string | undefined;
  let engine: ReportingEngine | undefined;
  let served: Dataset | undefined;
  try {
    const loaded = await datasetOf(opts);
    origin = loaded.origin;
    if (kind !== 'memory') {
      ({ engine, served, origin } = await openSqlEngine(kind, opts, loaded));
    }
    server = createServer({
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
    });
    if (opts.writeSnapshot !== undefined && loaded.columnar !== undefined) {
      snapshotLine = await writeSnapshot(opts.writeSnapshot, loaded.columnar);
    }
  } catch (e) {
    await engine?.close().catch(() => {});
    if (e instanceof DatasetFileError || e instanceof DatasetError) fail(e.message);
    // e.g. an option that contradicts a variant (--page-size 10 --variant page-size-7)
    if (e instanceof ServerOptionsError || e instanceof EngineFlagError) fail(e.message);
    throw e;
  }

  let url: string;
  try {
    url = await server.listen(opts.port, opts.host);
  } catch (e) {
    await engine?.close().catch(() => {});
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') fail(`port ${opts.port} on ${opts.host} is already in use`);
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') {
      fail(`cannot listen on host ${opts.host}: ${err.code}`);
    }
    if (err.code === 'EACCES') fail(`no permission to listen on port ${opts.port}`);
    throw e;
  }

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
  if (snapshotLine !== undefined) lines.push(snapshotLine);
  if (opts.fault.length > 0) lines.push(`FAULTS INJECTED: ${opts.fault.join(', ')}`);
  if (opts.variant.length > 0) lines.push(`variants: ${opts.variant.join(', ')}`);
  lines.push(`public URL of paging links: ${server.publicUrl}`);
  if (opts.live !== undefined) {
    lines.push(
      `live data: ${opts.live} records/s appended (seed ${opts.liveSeed ?? 1}); each response answers one version`,
    );
  }
  if (opts.rateLimit) {
    lines.push(
      `rate limit: ${opts.rateLimit.limit} per ${opts.rateLimit.windowMs / 1000} s per credential`,
    );
  }
  const shown = server.index?.dataset ?? served;
  if (shown === undefined) {
    lines.push("credentials: those of the database's credentials table");
  } else if (origin.startsWith('canonical')) {
    lines.push(
      `demo credentials (${DEMO_CREDENTIALS.length} of the dataset's ${CANONICAL_CREDENTIALS.length}; all are in the conformance suite's canonical profile):`,
    );
    for (const c of DEMO_CREDENTIALS) {
      lines.push(`  ${c.label}\tauthId=${c.authId}\taccessKey=${c.accessKey}`);
    }
  } else {
    lines.push('sample credentials (one per team and account type; all are in the dataset):');
    for (const c of sampleCredentials(shown)) {
      lines.push(`  ${c.label}\tauthId=${c.authId}\taccessKey=${c.accessKey}`);
    }
  }
  lines.push(`OpenAPI document: ${url}/openapi.json`);
  io.stdout.write(`${lines.join('\n')}\n`);

  return {
    server,
    url,
    stop: (signal) => {
      io.stderr.write(`tagtrack-server: ${signal}, shutting down\n`);
      // the engine is closed even when the server fails to
      const closed = server.close().then(
        () => 0,
        () => 1,
      );
      return closed.then((code) =>
        (engine?.close() ?? Promise.resolve()).then(
          () => code,
          () => 1,
        ),
      );
    },
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
