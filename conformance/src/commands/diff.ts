import type { EndpointId } from '@tagtrack/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { runDiff } from '../diff/differential.ts';
import { ConnectionError } from '../http/client.ts';
import { TlsConfigError, tlsFetch, waitForAnswer } from '../http/transport.ts';
import { loadProfile, ProfileError } from '../profile/profile.ts';
import { verdictOf, writeReports } from '../report/index.ts';
import { ConfigError, DEFAULT_NUM_RUNS, PreflightError, runConformance } from '../run/runner.ts';
import { selectEndpoints } from './endpoint-filter.ts';
import {
  boundOptions,
  boundsOf,
  credentialOptions,
  extraHeadersOf,
  headerOption,
  INSECURE_WARNING,
  positiveInt,
  rerunOf,
  strictBoolean,
  tlsOptions,
  waitForOption,
} from './options.ts';

const HELP_AFTER = `
Sends every request of a blind conformance run against --base-url (A) to --against (B) as
well, byte for byte, and compares the answers by meaning: only what the profile fixes is
compared (status, Content-Type media type and charset, X-Total-Count, Link, paging with its
cursors exactly, records), and what it leaves free (key order, extra fields, column order,
empty columns, timestamp form, contact ids, email spelling, HTML markup, transfer details,
extra headers and every header of a 204 but X-Total-Count and Link, Content-Type parameters
other than charset, the path form of paging URLs, the order of events with equal
timestamps, error message wording unless --compare-messages) is normalised away. Both sides
must accept the profile's credentials and use the same page size.

Uses: a vendor's implementation against the reference server loaded with the vendor's own
exported dataset (tagtrack-server --dataset FILE); release N against release N+1.

Exit codes: 0 no difference, 1 a difference, 2 usage, configuration or connection error.

Example:
  tagtrack-conformance diff --base-url http://127.0.0.1:8080 --against http://127.0.0.1:8081 \\
    --profile profile.json --report-dir diff-reports
`;

function url(name: string) {
  return (v: string): string => {
    try {
      new URL(v);
    } catch {
      throw new InvalidArgumentError(`${name} ${JSON.stringify(v)} is not a URL`);
    }
    return v;
  };
}

/**
 * Registers `diff` (the differential audit) on the CLI program; `done` receives the exit
 * code: 0 no difference, 1 a difference, 2 usage, configuration or connection error.
 */
export function addDiffCommand(program: Command, done: (code: number) => void): void {
  const command = program
    .command('diff')
    .description('send the same requests to two implementations and report every difference')
    .addOption(
      new Option(
        '--base-url <url>',
        'side A: the implementation the requests are generated against',
      )
        .argParser(url('--base-url'))
        .env('TAGTRACK_BASE_URL')
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--against <url>', 'side B: gets every request A gets')
        .argParser(url('--against'))
        .env('TAGTRACK_AGAINST')
        .makeOptionMandatory(),
    )
    .addOption(credentialOptions()[0]!)
    .addOption(credentialOptions()[1]!)
    .addOption(
      new Option('--profile <file>', 'JSON profile with the credentials both sides accept').env(
        'TAGTRACK_PROFILE',
      ),
    )
    .addOption(
      new Option('--num-runs <n>', 'fast-check runs per property check')
        .argParser(positiveInt('num-runs'))
        .default(DEFAULT_NUM_RUNS),
    )
    .addOption(
      new Option('--seed <n>', 'base seed of the generated requests (default: random, reported)')
        .argParser((v) => {
          if (!/^-?\d+$/.test(v)) throw new InvalidArgumentError('seed must be an integer');
          return Number(v);
        })
        .env('TAGTRACK_SEED'),
    )
    .addOption(
      new Option(
        '--only <pattern>',
        'only the requests of these requirement ids or areas, and only the answers of these endpoints (ids like contacts.list, teams.*, or paths)',
      ),
    )
    .addOption(
      new Option(
        '--exclude <patterns>',
        'leave out the requests of these checks and the answers of these endpoints (same syntax as --only)',
      ),
    )
    .addOption(
      new Option(
        '--compare-messages',
        'also compare error messages word for word (wording is free)',
      ),
    )
    .addOption(
      new Option('--report-dir <dir>', 'write results.json, junit.xml and report.html here').env(
        'TAGTRACK_REPORT_DIR',
      ),
    )
    .addHelpText('after', HELP_AFTER);
  for (const option of boundOptions()) command.addOption(option);
  command.addOption(headerOption());
  for (const option of tlsOptions()) command.addOption(option);
  command.addOption(waitForOption());
  command.addOption(
    new Option('-q, --quiet', 'print only the verdict lines (stdout) and errors (stderr)').env(
      'TAGTRACK_QUIET',
    ),
  );
  command.addOption(new Option('--no-color', 'no colours (as NO_COLOR=1 does)'));
  command.action(async (opts: Record<string, unknown>, cmd: Command) => {
    done(await diffCommand(opts, cmd));
  });
}

async function diffCommand(opts: Record<string, unknown>, cmd: Command): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`tagtrack-conformance: ${message}\n`);
    return 2;
  };
  const extra = extraHeadersOf(opts, cmd);
  if (typeof extra === 'string') return fail(extra);
  const insecure = strictBoolean(opts, cmd, 'insecure', 'TAGTRACK_INSECURE');
  if (typeof insecure === 'string') return fail(insecure);
  if (insecure) process.stderr.write(INSECURE_WARNING);
  const tls = { caFile: opts.caFile as string | undefined, insecure };
  try {
    if (opts.waitFor !== undefined) {
      // both sides must be up
      const transport = await tlsFetch(tls);
      for (const url of [opts.baseUrl as string, opts.against as string]) {
        const problem = await waitForAnswer({
          url,
          waitMs: (opts.waitFor as number) * 1000,
          timeoutMs: opts.timeout as number,
          fetch: transport,
          headers: extra.headers,
        });
        if (problem !== undefined)
          return fail(
            `${url} did not answer within ${opts.waitFor as number} s (--wait-for): ${problem}`,
          );
      }
    }
    const profile =
      opts.profile === undefined ? undefined : await loadProfile(opts.profile as string);
    // --only/--exclude: requirement ids and areas select the run's checks, endpoint ids and
    // paths (lower case, with a dot or a slash) the answers compared
    const only = splitNarrowing(opts.only as string | undefined);
    const exclude = splitNarrowing(opts.exclude as string | undefined);
    for (const x of [only, exclude]) if (typeof x === 'string') return fail(x);
    const o = only as Narrowing;
    const x = exclude as Narrowing;
    const bounds = boundsOf(opts);
    const result = await runDiff({
      baseUrl: opts.baseUrl as string,
      against: opts.against as string,
      authId: opts.authId as string | undefined,
      accessKey: opts.accessKey as string | undefined,
      profile,
      numRuns: opts.numRuns as number,
      seed: opts.seed as number | undefined,
      only: o.checks,
      exclude: x.checks,
      diffEndpoints: o.endpoints,
      skipEndpoints: x.endpoints,
      ...bounds,
      compareMessages: opts.compareMessages === true,
      headers: extra.headers,
      tls,
      rerun: rerunOf(opts, cmd, extra, insecure),
    });
    // each side's own verdict: A's from the run that made the requests, B's from the same
    // run (same seed and options) against B
    const againstRun = await runConformance({
      baseUrl: opts.against as string,
      authId: opts.authId as string | undefined,
      accessKey: opts.accessKey as string | undefined,
      profile,
      numRuns: opts.numRuns as number,
      seed: result.seed,
      only: o.checks,
      exclude: x.checks,
      ...bounds,
      headers: extra.headers,
      tls,
    }).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    const lines = [
      `diff ${result.baseUrl} (A) against ${result.against} (B), seed ${result.seed}: ${result.compared} requests compared, ${result.differing} answer(s) differ, ${result.causes.length} cause(s)`,
      `A's own verdict: ${verdictOf(result.run).line}`,
      `B's own verdict: ${againstRun instanceof Error ? `not judged (${againstRun.message})` : verdictOf(againstRun).line}`,
    ];
    for (const [i, c] of result.causes.entries()) {
      lines.push(
        `cause ${i + 1}: ${c.field} (${c.kind}) differs on ${c.answers} answer(s) of ${c.endpoints.length} endpoint(s): ${c.endpoints.join(', ')}`,
      );
      for (const e of c.examples) lines.push(`  e.g. ${e}`);
    }
    if (result.causes.length > 0)
      lines.push('every differing answer, with its reproduce lines: --report-dir');
    lines.push(result.ok ? 'NO DIFFERENCE' : 'DIFFERENCES FOUND');
    // --quiet: the two sides' verdicts and the diff's
    const shown = opts.quiet === true ? [lines[1]!, lines[2]!, lines.at(-1)!] : lines;
    process.stdout.write(`${shown.join('\n')}\n`);
    if (opts.reportDir !== undefined) {
      const paths = await writeReports(result, opts.reportDir as string);
      process.stdout.write(`reports: ${paths.join(', ')}\n`);
    }
    return result.ok ? 0 : 1;
  } catch (e) {
    if (
      e instanceof PreflightError ||
      e instanceof ConnectionError ||
      e instanceof ConfigError ||
      e instanceof ProfileError ||
      e instanceof TlsConfigError
    )
      return fail(e.message);
    throw e;
  }
}

/** `--only`/`--exclude` of diff split: check patterns (for the run) and catalogue endpoints. */
interface Narrowing {
  readonly checks: string | undefined;
  readonly endpoints: ReadonlySet<EndpointId> | undefined;
}

/** Splits `--only`/`--exclude` patterns (see {@link Narrowing}); a usage message for an unknown endpoint. */
function splitNarrowing(value: string | undefined): Narrowing | string {
  const patterns = (value ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const isEndpoint = (p: string) => p.startsWith('/') || (/^[a-z*]/.test(p) && p.includes('.'));
  const endpointPatterns = patterns.filter(isEndpoint);
  const checks = patterns.filter((p) => !isEndpoint(p));
  const endpoints = endpointPatterns.length === 0 ? undefined : selectEndpoints(endpointPatterns);
  if (typeof endpoints === 'string') return endpoints.replace('--endpoint', '--only/--exclude');
  return { checks: checks.length === 0 ? undefined : checks.join(','), endpoints };
}
