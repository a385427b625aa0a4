import { InvalidArgumentError, Option } from 'commander';

/** A commander parser of a positive integer option; the error names the option. */
export function positiveInt(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1)
      throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(v);
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
