import { type Command, InvalidArgumentError, Option } from 'commander';
import { absolutePath, type Rerun } from '../http/rerun.ts';

/** A commander parser of a positive integer option; the error names the option. */
export function positiveInt(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1)
      throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(v);
  };
}

/** A commander parser of a non-negative integer option; the error names the option. */
export function nonNegativeInt(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v.trim()))
      throw new InvalidArgumentError(`${name} must be a non-negative integer`);
    return Number(v);
  };
}

/**
 * The release-gate options (gates.ts, docs/conformance.md "Gates"), each with its variable:
 * `--max-inconclusive N`, `--max-skipped N`, `--require ID,...` (repeatable).
 */
export function gateOptions(): Option[] {
  return [
    new Option(
      '--max-inconclusive <n>',
      "gate: fail the run when more than n checks end inconclusive (default: the profile's maxInconclusive, else no bound)",
    )
      .argParser(nonNegativeInt('max-inconclusive'))
      .env('TAGTRACK_MAX_INCONCLUSIVE'),
    new Option(
      '--max-skipped <n>',
      "gate: fail the run when more than n checks are skipped, those the profile rules out not counted (default: the profile's maxSkipped)",
    )
      .argParser(nonNegativeInt('max-skipped'))
      .env('TAGTRACK_MAX_SKIPPED'),
    new Option(
      '--require <ids>',
      "gate: these requirement ids must pass, not merely not fail (comma-separated, repeatable; joined with the profile's require)",
    )
      .argParser((v: string, prev: string[] | undefined) => [
        ...(prev ?? []),
        ...v
          .split(',')
          .map((id) => id.trim())
          .filter((id) => id !== ''),
      ])
      .env('TAGTRACK_REQUIRE'),
  ];
}

/** The {@link gateOptions} values as `runConformance` options. */
export function gatesOf(opts: Record<string, unknown>) {
  return {
    maxInconclusive: opts.maxInconclusive as number | undefined,
    maxSkipped: opts.maxSkipped as number | undefined,
    require: opts.require as string[] | undefined,
  };
}

/** A commander parser of a positive number of seconds. */
export function seconds(name: string) {
  return (v: string): number => {
    if (!/^\d+(\.\d+)?$/.test(v.trim()) || Number(v) <= 0)
      throw new InvalidArgumentError(`${name} must be a positive number of seconds`);
    return Number(v);
  };
}

/**
 * The bounds every command that sends requests shares (`run`, `diff`): concurrency, request
 * budget, overall deadline, per-request timeout and body cap, each with its variable.
 */
export function boundOptions(): Option[] {
  return [
    new Option(
      '--concurrency <n>',
      'checks run at the same time (default: 1 rate-limited, 4 local, 2 remote)',
    )
      .argParser(positiveInt('concurrency'))
      .env('TAGTRACK_CONCURRENCY'),
    new Option('--max-requests <n>', 'request budget: the most valuable checks run first')
      .argParser(positiveInt('max-requests'))
      .env('TAGTRACK_MAX_REQUESTS'),
    new Option('--max-duration <sec>', 'overall deadline in seconds')
      .argParser(seconds('max-duration'))
      .env('TAGTRACK_MAX_DURATION'),
    new Option('--timeout <ms>', 'per-request timeout in milliseconds')
      .argParser(positiveInt('timeout'))
      .default(10_000)
      .env('TAGTRACK_TIMEOUT'),
    new Option('--max-body-bytes <n>', 'largest response body read (default 32 MiB)')
      .argParser(positiveInt('max-body-bytes'))
      .env('TAGTRACK_MAX_BODY_BYTES'),
  ];
}

/**
 * The credential options every command that signs requests shares (`run`, `diff`, `replay`):
 * `--auth-id` and `--access-key`, with their variables (`TAGTRACK_AUTH_ID`, `TAGTRACK_ACCESS_KEY`).
 */
export function credentialOptions(): Option[] {
  return [
    new Option('--auth-id <id>', 'authentication id of a working credential').env(
      'TAGTRACK_AUTH_ID',
    ),
    new Option('--access-key <key>', 'access key of that credential').env('TAGTRACK_ACCESS_KEY'),
  ];
}

/** The {@link boundOptions} values as `runConformance` options. */
export function boundsOf(opts: Record<string, unknown>) {
  return {
    concurrency: opts.concurrency as number | undefined,
    maxRequests: opts.maxRequests as number | undefined,
    maxDurationMs:
      opts.maxDuration === undefined ? undefined : Math.round((opts.maxDuration as number) * 1000),
    timeoutMs: opts.timeout as number,
    maxBodyBytes: opts.maxBodyBytes as number | undefined,
  };
}

/**
 * `-H, --header 'Name: value'` (repeatable; `TAGTRACK_HEADERS`, one header a line): extra
 * request headers, e.g. a gateway's key. One value may hold several lines.
 */
export function headerOption(): Option {
  return new Option(
    '-H, --header <header>',
    "extra request header 'Name: value' on every request, e.g. a gateway's key (repeatable; the variable takes one a line; values are secrets: never in a report; not Authorization)",
  )
    .argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v])
    .env('TAGTRACK_HEADERS');
}

/** RFC 9110 token: what a header name may hold. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The extra headers of `-H` and `TAGTRACK_HEADERS` (both: the variable's first, a `-H` of
 * the same name wins), by lower-case name, and where they came from (`argv` when any came
 * from the command line). A one-line usage message for a malformed header or for
 * `Authorization`, which the suite signs itself (spec §3).
 */
export function extraHeadersOf(
  opts: Record<string, unknown>,
  cmd: Command,
): { headers: Record<string, string>; from?: 'env' | 'argv' } | string {
  const given = (opts.header as string[] | undefined) ?? [];
  const source = cmd.getOptionValueSource('header');
  const fromEnv = process.env.TAGTRACK_HEADERS;
  const values =
    source === 'cli' && fromEnv !== undefined && fromEnv.trim() !== ''
      ? [fromEnv, ...given]
      : given;
  const headers: Record<string, string> = {};
  for (const line of values.flatMap((v) => v.split(/\r?\n/)).filter((l) => l.trim() !== '')) {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (!TOKEN.test(name))
      return `-H ${JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line.replace(/:.*/, ': …'))} is not 'Name: value'`;
    if (name.toLowerCase() === 'authorization')
      return '-H cannot set Authorization: the suite signs every request itself (spec §3); give the credential with --auth-id/--access-key or --profile';
    headers[name.toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (Object.keys(headers).length === 0) return { headers };
  return { headers, from: source === 'env' ? 'env' : 'argv' };
}

/** `--ca-file` and `--insecure` (`TAGTRACK_CA_FILE`, `TAGTRACK_INSECURE`): TLS of the requests. */
export function tlsOptions(): Option[] {
  return [
    new Option(
      '--ca-file <file>',
      "PEM file of CA certificates to trust besides Node's built-in ones (a private CA)",
    ).env('TAGTRACK_CA_FILE'),
    new Option(
      '--insecure',
      "do not verify the server's TLS certificate (prints a warning; for a test service only)",
    ).env('TAGTRACK_INSECURE'),
  ];
}

/** `--wait-for <sec>` (`TAGTRACK_WAIT_FOR`): wait for the base URL to answer before starting. */
export function waitForOption(): Option {
  return new Option(
    '--wait-for <sec>',
    'wait up to this many seconds for the base URL to answer (connection errors and 502/503/504 retried with backoff) before the preflight',
  )
    .argParser(seconds('wait-for'))
    .env('TAGTRACK_WAIT_FOR');
}

/**
 * Commander sets a boolean option to true whenever its variable is set, whatever the value;
 * `TAGTRACK_INSECURE` (and the like) is re-read strictly: true/false, 1/0, yes/no in any case.
 * Returns the value, or the usage message of a bad value.
 */
export function strictBoolean(
  opts: Record<string, unknown>,
  cmd: Command,
  key: string,
  variable: string,
): boolean | string {
  if (cmd.getOptionValueSource(key) !== 'env') return opts[key] === true;
  const v = (process.env[variable] ?? '').trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  return `${variable}=${JSON.stringify(process.env[variable] ?? '')} is not a boolean: use true/false, 1/0 or yes/no`;
}

/**
 * Where a command's credentials, extra headers and TLS settings came from, for the commands
 * it prints (see rerun.ts): the `--profile` file (absolute), the sources of `--auth-id` and
 * `--access-key`, the extra headers' names and source, `--ca-file` (absolute), `--insecure`.
 */
export function rerunOf(
  opts: Record<string, unknown>,
  cmd: Command,
  headers: { headers: Record<string, string>; from?: 'env' | 'argv' },
  insecure: boolean,
): Rerun {
  const authId = opts.authId as string | undefined;
  const from = (key: string): 'env' | 'argv' =>
    cmd.getOptionValueSource(key) === 'env' ? 'env' : 'argv';
  return {
    ...(opts.profile === undefined ? {} : { profile: absolutePath(opts.profile as string) }),
    ...(authId === undefined
      ? {}
      : {
          authId: from('authId') === 'env' ? { from: 'env' } : { from: 'argv', value: authId },
        }),
    ...(opts.accessKey === undefined ? {} : { accessKey: from('accessKey') }),
    ...(headers.from === undefined
      ? {}
      : { headers: { from: headers.from, names: Object.keys(headers.headers) } }),
    ...(opts.caFile === undefined ? {} : { caFile: absolutePath(opts.caFile as string) }),
    ...(insecure ? { insecure: true } : {}),
  };
}

/** The warning `--insecure` prints (stderr), once per command. */
export const INSECURE_WARNING =
  "tagtrack-conformance: warning: --insecure: the server's TLS certificate is not verified; anyone between you and it can read and change the requests (and the credentials' signatures)\n";

/**
 * `-q, --quiet` (or TAGTRACK_QUIET): `keeps` says what the subcommand still prints; errors
 * always go to stderr.
 */
export function quietOption(keeps: string): Option {
  return new Option('-q, --quiet', keeps).env('TAGTRACK_QUIET');
}

/** `--no-color`: no colours in what the subcommand prints (as NO_COLOR=1 does). */
export function noColorOption(): Option {
  return new Option('--no-color', 'no colours (as NO_COLOR=1 does)');
}

/** Applies `--no-color` (commander's `color: false`) to this process: NO_COLOR=1. */
export function applyNoColor(opts: { readonly color?: boolean }): void {
  if (opts.color === false) process.env.NO_COLOR = '1';
}
