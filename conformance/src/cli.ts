import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DATA_MODES, DEFAULT_ATTEMPTS } from './check/watermark.ts';
import { addDiffCommand } from './commands/diff.ts';
import { addFixtureCommand } from './commands/fixture.ts';
import { addInitCommand } from './commands/init.ts';
import {
  applyNoColor,
  credentialOptions,
  gateOptions,
  headerOption,
  noColorOption,
  tlsOptions,
  waitForOption,
} from './commands/options.ts';
import { addReplayCommand } from './commands/replay.ts';
import { addRequestCommand } from './commands/request.ts';
import { requirementsCommand } from './commands/requirements.ts';
import { CANONICAL_PROFILE_FILE, EXIT, runCommand } from './commands/run.ts';
import { detectCommand, setSuiteCommand } from './http/invocation.ts';
import { DEFAULT_RETRIES } from './http/retry.ts';
import { VERSION } from './report/version.ts';
import { DEFAULT_NUM_RUNS } from './run/runner.ts';

export { CANONICAL_PROFILE_FILE, EXIT } from './commands/run.ts';

export { VERSION };

/** The boolean options `run` also reads from the environment, with their variables. */
export const BOOLEAN_ENV = {
  bail: 'TAGTRACK_BAIL',
  probeMethods: 'TAGTRACK_PROBE_METHODS',
  insecure: 'TAGTRACK_INSECURE',
  quiet: 'TAGTRACK_QUIET',
} as const;

const TRUE_WORDS = ['true', '1', 'yes'];
const FALSE_WORDS = ['false', '0', 'no'];

/**
 * A boolean environment variable: true/false/1/0/yes/no in any case; undefined for anything
 * else (the caller reports it).
 */
export function parseBooleanEnv(value: string): boolean | undefined {
  const v = value.trim().toLowerCase();
  if (TRUE_WORDS.includes(v)) return true;
  if (FALSE_WORDS.includes(v)) return false;
  return undefined;
}

function positiveInt(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1)
      throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(v);
  };
}

/** A positive integer, or `all`/`Infinity` for no bound. */
function positiveIntOrAll(name: string) {
  return (v: string): number => {
    if (/^(all|infinity)$/i.test(v.trim())) return Number.POSITIVE_INFINITY;
    return positiveInt(name)(v.trim());
  };
}

function nonNegativeInt(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v.trim()))
      throw new InvalidArgumentError(`${name} must be a non-negative integer`);
    return Number(v);
  };
}

function integer(v: string): number {
  if (!/^-?\d+$/.test(v)) throw new InvalidArgumentError('seed must be an integer');
  return Number(v);
}

function seconds(v: string): number {
  if (!/^\d+(\.\d+)?$/.test(v.trim()) || Number(v) <= 0)
    throw new InvalidArgumentError('max-duration must be a positive number of seconds');
  return Number(v);
}

function rate(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(v.trim());
  if (m === null || Number(m[1]) <= 0)
    throw new InvalidArgumentError('rate limit must look like 5/s (requests per second)');
  return Number(m[1]);
}

const HELP_AFTER = `
Every option can also be set by an environment variable (shown in brackets); the command line wins.

Modes:
  blind    any implementation with any data; needs one working credential. Ids are
           discovered from the list endpoints.
  fixture  the implementation loaded the canonical dataset; adds exact expected answers
           (core's plain rules as the oracle) and scoping checks with the admin/manager/user
           credentials of both teams. Without --profile it uses the shipped
           fixtures/canonical-profile.json.

Profile (JSON, validated): { name, auth: "hmac-sha1"|"bearer", pageSize, pagingEnd:
"no-content"|"empty-page", memberWithoutGroup: "omit"|"empty", rateLimit: {limit, windowMs, retryAfter}|null, rtn: ["json","text","html"],
credentials: [{label, authId, accessKey, teamID?, accountType?, memberID?}] }. Checks of
options the profile does not support are reported as skip.

Expected failures (JSON): ["REQ-ID", {"id": "REQ-ID", "reason": "…"}]. Listed failures do not
fail the run; a listed check that passes does (remove the entry).

Boolean variables (TAGTRACK_BAIL, TAGTRACK_PROBE_METHODS, TAGTRACK_INSECURE, TAGTRACK_QUIET)
take true/false, 1/0 or yes/no in any case; any other value is a usage error. --only and
--exclude take comma-separated ids or areas (substring, or glob with * and ?); a pattern that
matches no check is a usage error. --endpoint takes endpoint ids (teams.tags, glob opens.*)
or paths (/teams/tags); one naming no endpoint is a usage error listing them. There is no
method filter: the suite sends GET and HEAD only.

Extra headers (-H 'Name: value', repeatable; TAGTRACK_HEADERS one a line) go with every
request, e.g. a gateway's key; their values are secrets, shown nowhere. -H cannot set
Authorization (exit 2): the suite signs. --ca-file trusts a private CA, --insecure skips TLS
verification (with a warning). --wait-for SEC retries connection errors and 502/503/504 with
backoff until the base URL answers, else exits 2.

Transport faults are not verdicts: a GET that times out (--timeout, per try), has its
connection reset or gets a 502, 503 or 504 is sent again, --retries times at most (default 2),
after a backoff of 250 ms doubling, or the server's Retry-After (at most 30 s). Only the
answer it finally got is compared; a check that needed retries is marked "retried" in every
report. A request that got no answer on any try is an error naming the cause and the tries;
a 502/503/504 on every try is judged as the 5xx it is. A 500 is an answer: never retried.

Every command the run prints (reproduce lines, "run it again", the replay line) runs as
printed in this shell: it reads the credentials where the run read them (--profile FILE by
its absolute path, or "$TAGTRACK_AUTH_ID"/"$TAGTRACK_ACCESS_KEY"; a key given on the command
line is read from TAGTRACK_ACCESS_KEY, which you then export), never a secret on the line.

The run is read-only (GET and HEAD) unless --probe-methods (or TAGTRACK_PROBE_METHODS=true).

Concurrency: checks run --concurrency at a time (default 1 when a rate limit is declared or
given, 4 for localhost/127.0.0.1, 2 for any other host); every request is paced to the one
rate, and a seed gives the same results whatever the concurrency. --max-requests spends the
budget on the most valuable checks first (oracle, scope, counters, auth) and reports the rest
as not run. --max-duration, SIGINT (Ctrl-C) or SIGTERM stop the run: unfinished checks are
reported as "error: interrupted", every report is written, and the exit code is 2 (a second
Ctrl-C exits at once, without reports). A 5xx answer to any request fails the run.

Data that changes during the run (a live staging or production service, spec §5
Revision 3): --data auto (blind mode's default) reads each credential's stats watermark
(GET /stats?aggregateData=true) once at the start; a failing check reads it again and, if
it moved, runs again on its own until an attempt reads still data (--attempts, default 3).
A check whose data changed during every attempt is "inconclusive": never a pass, never a
fail, listed loudly; alone it does not fail the run (exit 0). --data still never reads a
watermark (fixture mode's default: the canonical dataset does not change); --data watch is
auto that refuses to run when no watermark can be read.

Exit codes: 0 every required check passed, 1 a check failed (or a stale expected-failure
entry, or a 5xx answer), 2 usage, configuration or connection error, or an interrupted run.

Example:
  tagtrack-conformance run --base-url http://127.0.0.1:8080 --mode fixture --report-dir reports
`;

/** Builds the commander program; `run` resolves the exit code through `done`. */
export function buildProgram(done: (code: number) => void): Command {
  const program = new Command('tagtrack-conformance')
    .description(
      'Conformance suite for implementations of the Tag Tracking Reporting API (profile tagtrack/v1)',
    )
    .version(VERSION, '-V, --version', 'print the version and exit')
    .exitOverride()
    // one line per error; commander's "(Did you mean …?)" joins it
    .configureOutput({
      outputError: (s, write) =>
        write(
          s
            .split('\n')
            .filter((l) => l.trim() !== '')
            .join(' ')
            .concat('\n'),
        ),
    });
  program
    .command('run')
    .description('run the conformance checks against an implementation')
    .addOption(
      new Option('--base-url <url>', 'base URL of the implementation').env('TAGTRACK_BASE_URL'),
    )
    .addOption(credentialOptions()[0]!)
    .addOption(credentialOptions()[1]!)
    .addOption(
      new Option('--profile <file>', 'JSON profile: options the implementation chose').env(
        'TAGTRACK_PROFILE',
      ),
    )
    .addOption(
      new Option('--mode <mode>', 'blind or fixture')
        .choices(['blind', 'fixture'])
        .default('blind')
        .env('TAGTRACK_MODE'),
    )
    .addOption(
      new Option('--num-runs <n>', 'fast-check runs per property check')
        .argParser(positiveInt('num-runs'))
        .default(DEFAULT_NUM_RUNS)
        .env('TAGTRACK_NUM_RUNS'),
    )
    .addOption(
      new Option('--seed <n>', 'base seed of the generated parameters (default: random, reported)')
        .argParser(integer)
        .env('TAGTRACK_SEED'),
    )
    .addOption(
      new Option(
        '--only <pattern>',
        'only requirement ids or areas matching (substring or glob, comma-separated)',
      ).env('TAGTRACK_ONLY'),
    )
    .addOption(
      new Option(
        '--exclude <patterns>',
        'leave out requirement ids or areas matching (same syntax as --only)',
      ).env('TAGTRACK_EXCLUDE'),
    )
    .addOption(
      new Option(
        '--rate-limit <n/s>',
        'pace requests to this rate (default: the profile’s rate limit)',
      )
        .argParser(rate)
        .env('TAGTRACK_RATE_LIMIT'),
    )
    .addOption(
      new Option('--timeout <ms>', 'per-request timeout in milliseconds')
        .argParser(positiveInt('timeout'))
        .default(10_000)
        .env('TAGTRACK_TIMEOUT'),
    )
    .addOption(
      new Option(
        '--retries <n>',
        'retries of a request that timed out, had its connection reset or got a 502/503/504 (never a 500)',
      )
        .argParser(nonNegativeInt('retries'))
        .default(DEFAULT_RETRIES)
        .env('TAGTRACK_RETRIES'),
    )
    .addOption(
      new Option('--max-body-bytes <n>', 'largest response body read (default 32 MiB)')
        .argParser(positiveInt('max-body-bytes'))
        .env('TAGTRACK_MAX_BODY_BYTES'),
    )
    .addOption(
      new Option(
        '--cache-bytes <n>',
        'bytes the run keeps of answers (compressed), walked lists and discoveries (default 128 MiB; within it every answer is kept, so the same seed sends the same requests)',
      )
        .argParser(positiveInt('cache-bytes'))
        .env('TAGTRACK_CACHE_BYTES'),
    )
    .addOption(
      new Option(
        '--sample-above <n>',
        'records of a list a law verifies whole (default 5000); a longer list is verified on a seeded sample of about as many, its coverage stated',
      )
        .argParser(positiveInt('sample-above'))
        .env('TAGTRACK_SAMPLE_ABOVE'),
    )
    .addOption(
      new Option(
        '--max-callers <n>',
        'distinct callers (team, account type, group holding) blind mode judges per-caller and caller-pairing checks as (default 12; "all" for every one); with more declared, a seeded sample covering every account type and group holding, its coverage stated',
      )
        .argParser(positiveIntOrAll('max-callers'))
        .env('TAGTRACK_MAX_CALLERS'),
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        'checks run at the same time (default: 1 rate-limited, 4 local, 2 remote)',
      )
        .argParser(positiveInt('concurrency'))
        .env('TAGTRACK_CONCURRENCY'),
    )
    .addOption(
      new Option(
        '--max-requests <n>',
        'request budget: the most valuable checks run first, the rest are reported as not run',
      )
        .argParser(positiveInt('max-requests'))
        .env('TAGTRACK_MAX_REQUESTS'),
    )
    .addOption(
      new Option(
        '--max-duration <sec>',
        'overall deadline in seconds: stop, write every report, exit 2',
      )
        .argParser(seconds)
        .env('TAGTRACK_MAX_DURATION'),
    )
    .addOption(
      new Option(
        '--max-response-time <ms>',
        'also check that every response arrives within this many ms (RATE-RESPONSE-TIME)',
      )
        .argParser(positiveInt('max-response-time'))
        .env('TAGTRACK_MAX_RESPONSE_TIME'),
    )
    .addOption(
      new Option('--expected-failures <file>', 'JSON list of requirement ids expected to fail').env(
        'TAGTRACK_EXPECTED_FAILURES',
      ),
    )
    .addOption(
      new Option(
        '--report-dir <dir>',
        'write results.json, junit.xml, report.html and summary.md here',
      ).env('TAGTRACK_REPORT_DIR'),
    )
    .addOption(
      new Option(
        '--report-md <file>',
        'write the Markdown summary here (for a pull-request comment or $GITHUB_STEP_SUMMARY)',
      ).env('TAGTRACK_REPORT_MD'),
    )
    .addOption(
      new Option(
        '--checks <file>',
        'ES module exporting checks of your own (`checks` or default: an array), run after the built-in ones',
      ).env('TAGTRACK_CHECKS'),
    )
    .addOption(
      new Option(
        '--har <file>',
        'write every request and response as HAR 1.2 (credentials redacted)',
      ).env('TAGTRACK_HAR'),
    )
    .addOption(
      new Option(
        '--data <mode>',
        'still, watch or auto: whether the data may change during the run (default: auto in blind mode, still in fixture mode)',
      )
        .choices(DATA_MODES)
        .env('TAGTRACK_DATA'),
    )
    .addOption(
      new Option(
        '--attempts <n>',
        `runs of a failing check made again when its data moved (default ${DEFAULT_ATTEMPTS})`,
      )
        .argParser(positiveInt('attempts'))
        .env('TAGTRACK_ATTEMPTS'),
    )
    .addOption(new Option('--bail', 'stop after the first failing check').env('TAGTRACK_BAIL'))
    .addOption(
      new Option('--probe-methods', 'also send POST/PUT/DELETE/PATCH to check the 405 answers').env(
        'TAGTRACK_PROBE_METHODS',
      ),
    )
    .addOption(
      new Option(
        '--endpoint <pattern>',
        'only checks of these catalogue endpoints: ids (teams.tags, glob teams.*) or paths (/teams/tags); comma-separated, repeatable',
      )
        .argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v])
        .env('TAGTRACK_ENDPOINT'),
    )
    .addOption(
      new Option(
        '--max-failures <n>',
        'stop after this many failed checks (--bail is 1); the rest are reported as not run',
      )
        .argParser(positiveInt('max-failures'))
        .env('TAGTRACK_MAX_FAILURES'),
    )
    .addOption(gateOptions()[0]!)
    .addOption(gateOptions()[1]!)
    .addOption(gateOptions()[2]!)
    .addOption(headerOption())
    .addOption(tlsOptions()[0]!)
    .addOption(tlsOptions()[1]!)
    .addOption(waitForOption())
    .addOption(
      new Option(
        '-q, --quiet',
        'print only the verdict line (stdout) and errors (stderr): no progress, no summary',
      ).env('TAGTRACK_QUIET'),
    )
    .addOption(new Option('--no-color', 'no colours (as NO_COLOR=1 does)'))
    .addHelpText('after', HELP_AFTER)
    .action(async (opts: Record<string, unknown>, cmd: Command) => {
      done(await runCommand(booleansFromEnv(opts, cmd), cmd));
    });
  addFixtureCommand(program, done);
  addInitCommand(program, done);
  program
    .command('requirements')
    .description('list every requirement id with its area, clause and endpoints')
    .option('--json', 'print JSON instead of tab-separated lines')
    .option('--checks <file>', 'also list the checks of your own this ES module exports')
    .addOption(noColorOption())
    .action(async (opts: { json?: boolean; checks?: string; color?: boolean }) => {
      applyNoColor(opts);
      done(await requirementsCommand(Boolean(opts.json), opts.checks));
    });
  addRequestCommand(program, done);
  addReplayCommand(program, done, CANONICAL_PROFILE_FILE);
  addDiffCommand(program, done);
  return program;
}

/**
 * Commander sets a boolean option to true whenever its variable is set, whatever the value;
 * re-read those variables strictly. Returns the options, or the usage message of a bad value.
 */
function booleansFromEnv(
  opts: Record<string, unknown>,
  cmd: Command,
): Record<string, unknown> | string {
  const out = { ...opts };
  for (const [key, variable] of Object.entries(BOOLEAN_ENV)) {
    if (cmd.getOptionValueSource(key) !== 'env') continue;
    const value = parseBooleanEnv(process.env[variable] ?? '');
    if (value === undefined)
      return `${variable}=${JSON.stringify(process.env[variable] ?? '')} is not a boolean: use true/false, 1/0 or yes/no`;
    out[key] = value;
  }
  return out;
}

function onStdoutError(e: NodeJS.ErrnoException): void {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
  throw e;
}

/** Runs the CLI with `argv` (as process.argv); resolves the exit code. */
export async function main(argv: readonly string[] = process.argv): Promise<number> {
  // a closed pipe (`tagtrack-conformance requirements | head`) ends output quietly
  if (!process.stdout.listeners('error').includes(onStdoutError))
    process.stdout.on('error', onStdoutError);
  // printed commands start the way this process was started (http/invocation.ts)
  setSuiteCommand(detectCommand(argv));
  let code: number = EXIT.ok;
  const program = buildProgram((c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv]);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT.ok;
      return EXIT.usage;
    }
    throw e;
  }
  return code;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`tagtrack-conformance: ${(e as Error)?.stack ?? String(e)}\n`);
      process.exitCode = EXIT.usage;
    },
  );
}
