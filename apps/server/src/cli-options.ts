/**
 * The flags of `tagtrack-server` (main.ts runs them): their commander definitions, parsers
 * and the options object they give.
 */
import { readFileSync } from 'node:fs';
import type { PagingEnd } from '@tagtrack/core';
import { Command, InvalidArgumentError, Option } from 'commander';
import { FAULT_NAMES, type FaultName, isFaultName } from './faults/index.ts';
import { parseRate, type RateLimit } from './rate-limit.ts';
import { normalisePublicUrl } from './server.ts';
import { isVariantName, VARIANT_NAMES, type VariantName } from './variants/index.ts';

/** The parsed flags of `tagtrack-server`. */
export interface CliOptions {
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
  /** `--engine` (no default: memory unless `--database-url`). */
  engine?: 'memory' | 'pglite';
  databaseUrl?: string;
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

/** The `tagtrack-server` command: every flag, output through `io`, errors thrown (exitOverride). */
export function program(io: CliIo): Command {
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
      'Reference server of the Tag Tracking Reporting API (profile tagtrack/v1), answering from an in-memory index or a SQL database (PGlite or PostgreSQL)',
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
        'live data: append tags, opens and clicks to every team at <rate> records per second (a decimal > 0, e.g. 0.05, 1, 50), dated now; each response answers one version of the data (spec §5 Revision 3); with --engine pglite or --database-url, appended to the tables by INSERT',
      ).argParser(liveRateArg),
    )
    .addOption(
      new Option(
        '--live-seed <n>',
        'with --live: seed of the appended records (default 1; same seed and clock, same records)',
      ).argParser(integer(0, 2 ** 31 - 1)),
    )
    .addOption(
      new Option(
        '--engine <name>',
        'what answers: memory (the in-memory index, default) or pglite (embedded PostgreSQL, the dataset loaded into it)',
      ).choices(['memory', 'pglite']),
    )
    .option(
      '--database-url <url>',
      'answer from this PostgreSQL server (postgres://user:password@host:port/db): load --dataset/--seed/--scale into it when given, else serve the tagtrack tables already there',
    )
    .option('--log', 'log one JSON line per request on stdout (pino); off by default', false)
    .option('--verbose', 'the same as --log', false)
    .option('--quiet', 'no request logs (the default; wins over --log)', false)
    .option('--list-faults', 'list the injectable faults and exit', false)
    .option('--list-variants', 'list the variants and exit', false)
    .showHelpAfterError('(run tagtrack-server --help for usage)')
    .exitOverride();
}
