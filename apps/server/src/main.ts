import { readFileSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Dataset, DatasetError, type PagingEnd } from '@tagtrack/core';
import { generateDataset } from '@tagtrack/dataset';
import { CANONICAL_CREDENTIALS, DEMO_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { type ColumnarSource, writeSnapshotFile } from '@tagtrack/engine';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DatasetFileError, loadDatasetSource } from './dataset-file.ts';
import { FAULT_NAMES, FAULTS, type FaultName, isFaultName } from './faults/index.ts';
import { parseRate, type RateLimit } from './rate-limit.ts';
import {
  createServer,
  normalisePublicUrl,
  ServerOptionsError,
  type TagtrackServer,
} from './server.ts';
import { isVariantName, VARIANT_NAMES, VARIANTS, type VariantName } from './variants.ts';

/** Exit code for bad usage, an unusable dataset, or a port that cannot be bound. */
const EXIT_USAGE = 2;

interface CliOptions {
  port: number;
  host: string;
  dataset?: string;
  seed?: number;
  scale?: 'tiny' | 'small' | 'medium' | 'large';
  pageSize?: number;
  rateLimit?: RateLimit;
  fault: FaultName[];
  variant: VariantName[];
  memberWithoutGroup?: 'omit' | 'empty';
  pagingEnd?: PagingEnd;
  publicUrl?: string;
  live?: number;
  liveSeed?: number;
  writeSnapshot?: string;
  /** `--log` / `--verbose`: one pino JSON line per request on stdout (off by default). */
  log: boolean;
  verbose: boolean;
  /** Accepted for older scripts: request logs are off unless `--log`; it wins over `--log`. */
  quiet: boolean;
  listFaults: boolean;
  listVariants: boolean;
}

function integer(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    }
    return Number(value);
  };
}

/**
 * The argument of `--live`: records per second, a decimal > 0 (`0.05`, `1`, `50`); anything
 * else (`0`, `-1`, `abc`, `1e3`) is an `InvalidArgumentError`.
 */
function liveRateArg(value: string): number {
  const rate = Number(value);
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value) || !(rate > 0) || !Number.isFinite(rate)) {
    throw new InvalidArgumentError('expected records per second, a decimal > 0 (e.g. 0.05, 1, 50)');
  }
  return rate;
}

/** The version of this package (its package.json, one level above src/ and dist/). */
const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** Where the CLI writes: the process's streams, or a test's capture. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

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

function program(io: CliIo): Command {
  return new Command('tagtrack-server')
    .configureOutput({
      writeOut: (text) => {
        io.stdout.write(text);
      },
      writeErr: (text) => {
        io.stderr.write(text);
      },
    })
    .version(VERSION, '-V, --version', 'print the version and exit')
    .description(
      'Reference server of the Tag Tracking Reporting API (profile tagtrack/v1), answering from an in-memory dataset',
    )
    .addOption(
      new Option('--port <n>', 'TCP port, 0 for any free port')
        .env('PORT')
        .default(8080)
        .argParser(integer(0, 65535)),
    )
    .addOption(
      new Option('--host <host>', 'interface to listen on').env('HOST').default('127.0.0.1'),
    )
    .option(
      '--dataset <path>',
      "JSON file of core's Dataset schema, a directory of per-table NDJSON/CSV files (fixture --format ndjson|csv), or a snapshot file (--write-snapshot); streamed into columns (default: canonical dataset)",
    )
    .option(
      '--write-snapshot <file>',
      'with --dataset: once the dataset is loaded and valid, also write it to <file> as a columnar snapshot, which --dataset then starts from in a fraction of the time',
    )
    .addOption(
      new Option('--seed <n>', 'generate a dataset from this seed instead')
        .argParser(integer(0, 2 ** 31 - 1))
        .conflicts('dataset'),
    )
    .addOption(
      new Option('--scale <name>', 'size of the generated dataset (with --seed; default small)')
        .choices(['tiny', 'small', 'medium', 'large'])
        .conflicts('dataset'),
    )
    .addOption(
      new Option('--page-size <n>', 'records per page (default 250)').argParser(
        integer(1, 1_000_000),
      ),
    )
    .addOption(
      new Option(
        '--rate-limit <rate>',
        'requests per credential, N/s or N/m (e.g. 1/s); off by default',
      ).argParser((v: string) => {
        try {
          return parseRate(v);
        } catch (e) {
          throw new InvalidArgumentError((e as Error).message);
        }
      }),
    )
    .addOption(
      new Option('--fault <name>', 'inject a fault (repeatable; see --list-faults)')
        .argParser((v: string, prev: FaultName[] = []) => {
          if (!isFaultName(v)) {
            throw new InvalidArgumentError(`unknown fault; known: ${FAULT_NAMES.join(', ')}`);
          }
          return [...prev, v];
        })
        .default([]),
    )
    .addOption(
      new Option(
        '--variant <name>',
        'take a variant of the profile (repeatable; see --list-variants)',
      )
        .argParser((v: string, prev: VariantName[] = []) => {
          if (!isVariantName(v)) {
            throw new InvalidArgumentError(`unknown variant; known: ${VARIANT_NAMES.join(', ')}`);
          }
          return [...prev, v];
        })
        .default([]),
    )
    .addOption(
      new Option(
        '--member-without-group <mode>',
        'groupID/groupName of members without a group (default omit)',
      ).choices(['omit', 'empty']),
    )
    .addOption(
      new Option(
        '--paging-end <mode>',
        'past the end of a list: 204 No Content (no-content, default) or 200 with data [] (empty-page)',
      ).choices(['no-content', 'empty-page']),
    )
    .addOption(
      new Option(
        '--public-url <url>',
        'absolute http(s) base URL of nextURL/previousURL/Link (default: the listen URL)',
      ).argParser((v: string) => {
        try {
          return normalisePublicUrl(v);
        } catch (e) {
          throw new InvalidArgumentError((e as Error).message);
        }
      }),
    )
    .addOption(
      new Option(
        '--live <rate>',
        'live data: append tags, opens and clicks to every team at <rate> records per second (a decimal > 0, e.g. 0.05, 1, 50), dated now; each response answers one version of the data (decisions §3 Revision 3)',
      ).argParser(liveRateArg),
    )
    .addOption(
      new Option(
        '--live-seed <n>',
        'with --live: seed of the appended records (default 1; same seed and clock, same records)',
      ).argParser(integer(0, 2 ** 31 - 1)),
    )
    .option('--log', 'log one JSON line per request on stdout (pino); off by default', false)
    .option('--verbose', 'the same as --log', false)
    .option('--quiet', 'no request logs (the default; wins over --log)', false)
    .option('--list-faults', 'list the injectable faults and exit', false)
    .option('--list-variants', 'list the variants and exit', false)
    .showHelpAfterError('(run tagtrack-server --help for usage)')
    .exitOverride();
}

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
  let server: TagtrackServer;
  let origin: string;
  let snapshotLine: string | undefined;
  try {
    const loaded = await datasetOf(opts);
    origin = loaded.origin;
    server = createServer({
      ...(loaded.dataset ? { dataset: loaded.dataset } : {}),
      ...(loaded.columnar ? { columnar: loaded.columnar } : {}),
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
    if (e instanceof DatasetFileError || e instanceof DatasetError) fail(e.message);
    // e.g. an option that contradicts a variant (--page-size 10 --variant page-size-7)
    if (e instanceof ServerOptionsError) fail(e.message);
    throw e;
  }

  let url: string;
  try {
    url = await server.listen(opts.port, opts.host);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') fail(`port ${opts.port} on ${opts.host} is already in use`);
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') {
      fail(`cannot listen on host ${opts.host}: ${err.code}`);
    }
    if (err.code === 'EACCES') fail(`no permission to listen on port ${opts.port}`);
    throw e;
  }

  const lines = [`tagtrack-server listening on ${url}`, `dataset: ${origin}`];
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
  if (origin.startsWith('canonical')) {
    lines.push(
      `demo credentials (${DEMO_CREDENTIALS.length} of the dataset's ${CANONICAL_CREDENTIALS.length}; all are in the conformance suite's canonical profile):`,
    );
    for (const c of DEMO_CREDENTIALS) {
      lines.push(`  ${c.label}\tauthId=${c.authId}\taccessKey=${c.accessKey}`);
    }
  } else {
    lines.push('sample credentials (one per team and account type; all are in the dataset):');
    for (const c of sampleCredentials(server.index!.dataset)) {
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
      return server.close().then(
        () => 0,
        () => 1,
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
