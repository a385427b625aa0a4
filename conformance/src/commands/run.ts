import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { DataMode } from '../check/watermark.ts';
import { ALL_CHECKS } from '../checks/index.ts';
import { ConnectionError } from '../http/client.ts';
import { suiteCommand } from '../http/invocation.ts';
import { absolutePath, rerunNote, shellQuote } from '../http/rerun.ts';
import { TlsConfigError, tlsFetch, waitForAnswer } from '../http/transport.ts';
import { loadProfile, ProfileError } from '../profile/profile.ts';
import {
  formatSummary,
  progressReporter,
  toMarkdown,
  useColor,
  writeHar,
  writeReports,
} from '../report/index.ts';
import { ChecksError, loadChecks } from '../run/custom-checks.ts';
import { ExpectedFailuresError, loadExpectedFailures } from '../run/expected-failures.ts';
import { ConfigError, PreflightError, type RunResult, runConformance } from '../run/runner.ts';
import { selectEndpoints } from './endpoint-filter.ts';
import { collectGarbageEarly } from './heap.ts';
import { extraHeadersOf, gatesOf, INSECURE_WARNING, rerunOf } from './options.ts';

/**
 * `tagtrack-conformance run`: reads the options (after `buildProgram` parsed them), runs the
 * suite against the base URL, prints the summary and writes the reports; resolves the exit
 * code ({@link EXIT}).
 */

/** Exit codes: 0 every required check passed, 1 a check failed, 2 usage/configuration/connection. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** The canonical profile shipped with the package (fixture mode's default). */
export const CANONICAL_PROFILE_FILE = fileURLToPath(
  new URL('../../fixtures/canonical-profile.json', import.meta.url),
);

/** Runs `run` with its parsed options (or the usage message of a bad one); resolves the exit code. */
export async function runCommand(
  opts: Record<string, unknown> | string,
  cmd: Command,
): Promise<number> {
  if (typeof opts === 'string') return usage(opts);
  // garbage is collected before the heap grows far past the live data (bounded memory)
  collectGarbageEarly();
  const baseUrl = opts.baseUrl as string | undefined;
  if (baseUrl === undefined) return usage('missing --base-url (or TAGTRACK_BASE_URL)');
  try {
    new URL(baseUrl);
  } catch {
    return usage(`--base-url ${JSON.stringify(baseUrl)} is not a URL`);
  }
  const mode = opts.mode as 'blind' | 'fixture';
  if (opts.color === false) process.env.NO_COLOR = '1';
  const quiet = opts.quiet === true;
  const extra = extraHeadersOf(opts, cmd);
  if (typeof extra === 'string') return usage(extra);
  const endpoints =
    opts.endpoint === undefined ? undefined : selectEndpoints(opts.endpoint as string[]);
  if (typeof endpoints === 'string') return usage(endpoints);
  const insecure = opts.insecure === true;
  const tls = { caFile: opts.caFile as string | undefined, insecure };
  if (insecure) process.stderr.write(INSECURE_WARNING);
  const rerun = rerunOf(opts, cmd, extra, insecure);
  try {
    if (opts.waitFor !== undefined) {
      const problem = await waitForAnswer({
        url: baseUrl,
        waitMs: (opts.waitFor as number) * 1000,
        timeoutMs: opts.timeout as number,
        fetch: await tlsFetch(tls),
        headers: extra.headers,
      });
      if (problem !== undefined)
        return usage(
          `${baseUrl} did not answer within ${opts.waitFor as number} s (--wait-for): ${problem}`,
        );
    }
    const profileFile =
      (opts.profile as string | undefined) ??
      (mode === 'fixture' ? CANONICAL_PROFILE_FILE : undefined);
    const profile = profileFile === undefined ? undefined : await loadProfile(profileFile);
    const expectedFailures =
      opts.expectedFailures === undefined
        ? undefined
        : await loadExpectedFailures(opts.expectedFailures as string);
    const own = opts.checks === undefined ? [] : await loadChecks(opts.checks as string);
    const stderr = process.stderr;
    const stopped = stopOnSignals(stderr);
    const result = await runConformance({
      ...(own.length === 0 ? {} : { checks: [...ALL_CHECKS, ...own] }),
      baseUrl,
      authId: opts.authId as string | undefined,
      accessKey: opts.accessKey as string | undefined,
      profile,
      mode,
      numRuns: opts.numRuns as number,
      seed: opts.seed as number | undefined,
      only: opts.only as string | undefined,
      exclude: opts.exclude as string | undefined,
      rateLimit: opts.rateLimit as number | undefined,
      timeoutMs: opts.timeout as number,
      retries: opts.retries as number | undefined,
      maxBodyBytes: opts.maxBodyBytes as number | undefined,
      cacheBytes: opts.cacheBytes as number | undefined,
      sampleAbove: opts.sampleAbove as number | undefined,
      maxCallers: opts.maxCallers as number | undefined,
      expectedFailures,
      bail: opts.bail === true,
      probeMethods: opts.probeMethods === true,
      concurrency: opts.concurrency as number | undefined,
      maxRequests: opts.maxRequests as number | undefined,
      maxDurationMs:
        opts.maxDuration === undefined
          ? undefined
          : Math.round((opts.maxDuration as number) * 1000),
      maxResponseTimeMs: opts.maxResponseTime as number | undefined,
      data: opts.data as DataMode | undefined,
      attempts: opts.attempts as number | undefined,
      signal: stopped.signal,
      endpoints: endpoints === undefined ? undefined : [...endpoints],
      maxFailures: opts.maxFailures as number | undefined,
      ...gatesOf(opts),
      headers: extra.headers,
      tls,
      rerun,
      ...(quiet ? {} : { onEvent: progressReporter(stderr) }),
    }).finally(stopped.dispose);
    const summary = formatSummary(result, useColor(process.stdout));
    if (!quiet)
      for (const w of result.warnings ?? []) stderr.write(`tagtrack-conformance: warning: ${w}\n`);
    // --quiet: the verdict only (the summary's last line)
    process.stdout.write(`${quiet ? summary.slice(summary.lastIndexOf('\n') + 1) : summary}\n`);
    await writeRunReports(result, { ...opts, quiet });
    if (!quiet && !result.ok) {
      if (
        opts.reportDir !== undefined &&
        result.checks.some(
          (c) => (c.status === 'fail' || c.status === 'error') && c.expectedFailure === undefined,
        )
      )
        process.stdout.write(
          `rerun every failed check: ${suiteCommand()} replay ${shellQuote(absolutePath(join(opts.reportDir as string, 'results.json')))}\n`,
        );
      const note = rerunNote(rerun);
      if (note !== undefined) stderr.write(`tagtrack-conformance: note: ${note}\n`);
    }
    if (opts.har !== undefined) {
      await writeHar(result, opts.har as string);
      if (!quiet) process.stdout.write(`har: ${opts.har as string}\n`);
    }
    if (result.interrupted !== undefined) {
      stderr.write(
        `tagtrack-conformance: interrupted (${result.interrupted}): unfinished checks are reported as errors\n`,
      );
      // a signal asked this process to end: with every report written, it ends now, not once
      // its sockets and timers let go and a heap of a large run is torn down
      if (stopped.signalled()) await endProcess(EXIT.usage);
      return EXIT.usage;
    }
    return result.ok ? EXIT.ok : EXIT.failed;
  } catch (e) {
    // no answer from the base URL, or a misconfiguration the preflight found: the reports
    // still say so, check by check (none run) and in `configError`
    if (e instanceof PreflightError) await writeRunReports(e.result, opts);
    if (
      e instanceof PreflightError ||
      e instanceof ConnectionError ||
      e instanceof ConfigError ||
      e instanceof ProfileError ||
      e instanceof ExpectedFailuresError ||
      e instanceof ChecksError ||
      e instanceof TlsConfigError
    ) {
      return usage(e.message);
    }
    throw e;
  }
}

/**
 * Writes the reports `--report-dir` and `--report-md` ask for and prints their paths; the
 * Markdown summary keeps out the access key given on the command line.
 */
async function writeRunReports(result: RunResult, opts: Record<string, unknown>): Promise<void> {
  const markdown = { secrets: [opts.accessKey as string | undefined] };
  const paths: string[] = [];
  if (opts.reportDir !== undefined)
    paths.push(...(await writeReports(result, opts.reportDir as string, markdown)));
  if (opts.reportMd !== undefined) {
    const file = opts.reportMd as string;
    await mkdir(dirname(resolve(file)), { recursive: true });
    await writeFile(file, toMarkdown(result, markdown));
    paths.push(file);
  }
  if (paths.length > 0 && opts.quiet !== true)
    process.stdout.write(`reports: ${paths.join(', ')}\n`);
}

/**
 * Ends the process with `code` once stdout and stderr have written what they hold (a write
 * callback runs when its data is flushed): what a signal asks for, without waiting for idle
 * keep-alive sockets or the teardown of the heap.
 */
async function endProcess(code: number): Promise<never> {
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  process.exit(code);
}

/** Prints `message` as the CLI's one-line usage error; returns {@link EXIT}`.usage`. */
export function usage(message: string): number {
  process.stderr.write(`tagtrack-conformance: ${message}\n`);
  return EXIT.usage;
}

/**
 * SIGINT and SIGTERM stop the run (its signal aborts with the signal's name) so it reports
 * what it has; a second one exits at once (130 for SIGINT, 143 for SIGTERM).
 */
function stopOnSignals(stderr: NodeJS.WritableStream): {
  signal: AbortSignal;
  /** Whether SIGINT or SIGTERM arrived (the run was stopped by one). */
  signalled: () => boolean;
  dispose: () => void;
} {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(name === 'SIGINT' ? 130 : 143);
    stderr.write(`tagtrack-conformance: ${name}: stopping, writing the reports of what ran\n`);
    controller.abort(name);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    signalled: () => controller.signal.aborted,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
