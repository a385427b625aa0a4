import { readFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { ConnectionError } from '../http/client.ts';
import { type Rerun, rerunNote } from '../http/rerun.ts';
import { TlsConfigError } from '../http/transport.ts';
import { loadProfile, ProfileError, type ProfileInput } from '../profile/profile.ts';
import { failureText, ResultsJson } from '../report/index.ts';
import { ExpectedFailuresError } from '../run/expected-failures.ts';
import { ConfigError, PreflightError, runConformance } from '../run/runner.ts';
import {
  credentialOptions,
  extraHeadersOf,
  headerOption,
  INSECURE_WARNING,
  rerunOf,
  strictBoolean,
  tlsOptions,
} from './options.ts';

/**
 * `tagtrack-conformance replay results.json [--check ID]`: reruns the checks that failed in a
 * recorded run (every failed or errored check not listed as an expected failure, or those
 * `--check` names), with the run's base seed and fast-check runs (so each check draws the
 * same cases) and, for each failed property, its recorded seed and shrink path (fast-check
 * then runs only the shrunk counterexample), and prints their failures.
 *
 * The run's settings come from results.json: base URL (unless `--base-url`), mode, seed,
 * num-runs, the profile without its credentials (results.json never holds an access key),
 * and where the run took its credentials, extra headers and TLS settings (`rerun`, see
 * rerun.ts): its `--profile` file, its auth id when given on the command line, its
 * `--ca-file` and `--insecure`. The secrets come from the environment as for `run`
 * (`TAGTRACK_ACCESS_KEY`, `TAGTRACK_HEADERS`) or the options; the options win over results.json.
 *
 * Exit codes: 1 a check fails again (the last line says whether the recorded failures came
 * back), 0 every replayed check passes now, 2 usage: no such file, not a results.json, no
 * such check, a check that did not fail, nothing failed, a secret the run had and the
 * environment lacks, or a run that cannot start (unreachable, no credential).
 */

/** The options of `replay` as commander parses them. */
interface ReplayOptions {
  readonly check?: readonly string[];
  readonly baseUrl?: string;
  readonly profile?: string;
  readonly authId?: string;
  readonly accessKey?: string;
  readonly timeout?: number;
  readonly header?: readonly string[];
  readonly caFile?: string;
  readonly insecure?: boolean;
}

/** Registers `replay` on the `tagtrack-conformance` program; `done` receives its exit code. */
export function addReplayCommand(
  program: Command,
  done: (code: number) => void,
  canonicalProfileFile: string,
): void {
  program
    .command('replay')
    .description(
      'rerun the failed checks of a results.json with their recorded seeds and shrink paths, and print their failures',
    )
    .argument('<results>', 'results.json of the run (written by run --report-dir)')
    .addOption(
      new Option(
        '--check <id>',
        'requirement id of a failed check to rerun (repeatable, comma-separated; default: every check that failed)',
      ).argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]),
    )
    .addOption(
      new Option('--base-url <url>', 'base URL (default: the one in results.json)').env(
        'TAGTRACK_BASE_URL',
      ),
    )
    .addOption(
      new Option('--profile <file>', 'JSON profile with the credentials').env('TAGTRACK_PROFILE'),
    )
    .addOption(credentialOptions()[0]!)
    .addOption(credentialOptions()[1]!)
    .addOption(
      new Option('--timeout <ms>', 'per-request timeout in milliseconds')
        .argParser((v) => Number(v))
        .env('TAGTRACK_TIMEOUT'),
    )
    .addOption(headerOption())
    .addOption(tlsOptions()[0]!)
    .addOption(tlsOptions()[1]!)
    .addOption(
      new Option('-q, --quiet', 'print only the verdict lines (stdout) and errors (stderr)').env(
        'TAGTRACK_QUIET',
      ),
    )
    .addOption(new Option('--no-color', 'no colours (as NO_COLOR=1 does)'))
    .action(async (file: string, opts: ReplayOptions, cmd: Command) => {
      if ((opts as { color?: boolean }).color === false) process.env.NO_COLOR = '1';
      done(await replayCommand(file, opts, canonicalProfileFile, cmd));
    });
}

async function replayCommand(
  file: string,
  opts: ReplayOptions,
  canonicalProfileFile: string,
  cmd: Command,
): Promise<number> {
  let recorded: ResultsJson;
  try {
    const parsed = ResultsJson.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!parsed.success)
      return usage(
        `${file} is not a results.json: ${parsed.error.issues
          .slice(0, 2)
          .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
          .join('; ')}`,
      );
    recorded = parsed.data;
  } catch (e) {
    return usage(`cannot read ${file}: ${(e as Error).message}`);
  }
  const known = new Set(recorded.checks.map((c) => c.id));
  const asked = (opts.check ?? [])
    .flatMap((c) => c.split(','))
    .map((c) => c.trim())
    .filter((c) => c !== '');
  for (const id of asked)
    if (!known.has(id))
      return usage(`${file} has no check ${id} (its checks: ${recorded.checks.length})`);
  const failed = (c: ResultsJson['checks'][number]) => c.status === 'fail' || c.status === 'error';
  const checks =
    asked.length > 0
      ? asked.map((id) => recorded.checks.find((c) => c.id === id)!)
      : recorded.checks.filter((c) => failed(c) && c.expectedFailure === undefined);
  if (checks.length === 0) return usage(`no check failed in ${file}: nothing to replay`);
  for (const check of checks)
    if (!failed(check))
      return usage(
        `${check.id} did not fail in ${file} (status ${check.status}): nothing to replay`,
      );
  if (opts.timeout !== undefined && !(Number.isInteger(opts.timeout) && opts.timeout > 0))
    return usage('--timeout must be a positive integer');

  // where the run took its credentials, headers and TLS settings; the options win
  const recordedRerun = (recorded.rerun ?? {}) as Rerun;
  const options = opts as unknown as Record<string, unknown>;
  const extra = extraHeadersOf(options, cmd);
  if (typeof extra === 'string') return usage(extra);
  const insecureOption = strictBoolean(options, cmd, 'insecure', 'TAGTRACK_INSECURE');
  if (typeof insecureOption === 'string') return usage(insecureOption);
  const insecure = insecureOption || recordedRerun.insecure === true;
  if (insecure) process.stderr.write(INSECURE_WARNING);
  const authId =
    opts.authId ?? (recordedRerun.authId?.from === 'argv' ? recordedRerun.authId.value : undefined);
  if (
    recordedRerun.accessKey !== undefined &&
    opts.accessKey === undefined &&
    opts.profile === undefined
  )
    return usage(
      `the run was given an access key${authId === undefined ? '' : ` for ${authId}`}: set TAGTRACK_ACCESS_KEY (or pass --access-key, or --profile) to replay it`,
    );
  if (recordedRerun.headers !== undefined && extra.from === undefined)
    return usage(
      `the run sent extra headers (${recordedRerun.headers.names.join(', ')}): set TAGTRACK_HEADERS (one 'Name: value' a line) or pass -H to replay it`,
    );
  const profileFile =
    opts.profile ??
    recordedRerun.profile ??
    (recorded.mode === 'fixture' ? canonicalProfileFile : undefined);
  const caFile = opts.caFile ?? recordedRerun.caFile;
  const rerun: Rerun = {
    ...rerunOf({ ...options, authId, caFile }, cmd, extra, insecure),
    ...(opts.profile === undefined && recordedRerun.profile !== undefined
      ? { profile: recordedRerun.profile }
      : {}),
    ...(opts.authId === undefined && recordedRerun.authId !== undefined
      ? { authId: recordedRerun.authId }
      : {}),
    ...(opts.caFile === undefined && recordedRerun.caFile !== undefined
      ? { caFile: recordedRerun.caFile }
      : {}),
  };

  // each failed property by its index in its check, with the seed and path that shrank to it
  const replay = new Map<string, { seed: number; path?: string }>();
  for (const check of checks)
    for (const f of check.failures) {
      if (f.property === undefined || f.seed === undefined) continue;
      replay.set(`${check.id}#${f.property}`, {
        seed: f.seed,
        ...(f.path === undefined || f.path === '' ? {} : { path: f.path }),
      });
    }
  const out = process.stdout;
  // --quiet: the replay's verdict lines only
  const detail =
    (opts as { quiet?: boolean }).quiet === true ? { write: (_s: string) => true } : out;
  try {
    const profile: ProfileInput =
      profileFile === undefined
        ? { ...(recorded.profile as ProfileInput), credentials: [] }
        : await loadProfile(profileFile);
    const baseUrl = opts.baseUrl ?? recorded.baseUrl;
    const properties = [...replay.values()];
    detail.write(
      `replaying ${checks.map((c) => c.id).join(', ')} against ${baseUrl} (${recorded.mode} mode, seed ${recorded.seed}, ${recorded.numRuns} runs${
        properties.length === 0
          ? ''
          : `; ${properties.map((r) => `property seed ${r.seed} path ${JSON.stringify(r.path ?? '')}`).join(', ')}`
      })\n`,
    );
    const result = await runConformance({
      baseUrl,
      authId,
      accessKey: authId === undefined && opts.accessKey === undefined ? undefined : opts.accessKey,
      profile,
      mode: recorded.mode,
      seed: recorded.seed,
      numRuns: recorded.numRuns,
      ids: checks.map((c) => c.id),
      concurrency: 1,
      replay,
      headers: extra.headers,
      tls: { caFile, insecure },
      rerun,
      ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout }),
    });
    let again = 0;
    let asRecorded = 0;
    const verdicts: string[] = [];
    for (const check of checks) {
      const now = result.checks.find((c) => c.id === check.id)!;
      detail.write(
        `${now.status.toUpperCase()} ${now.id}${now.reason ? ` (${now.reason})` : ''}\n`,
      );
      for (const f of now.failures) detail.write(`  ${failureText(f, '  ')}\n`);
      const back = check.failures.filter((f) => now.failures.some((n) => n.message === f.message));
      if (now.status === 'pass') {
        verdicts.push(`not reproduced: ${check.id} passes now`);
        continue;
      }
      again++;
      if (back.length > 0) asRecorded++;
      verdicts.push(
        back.length > 0
          ? `reproduced: ${back.length} of ${check.failures.length} recorded failures came back${checks.length === 1 ? '' : ` (${check.id})`}`
          : `not reproduced: ${check.id} ${now.status === 'error' ? 'errs' : 'fails'}, but not as recorded`,
      );
    }
    if (again > 0) {
      const note = rerunNote(rerun);
      if (note !== undefined) process.stderr.write(`tagtrack-conformance: note: ${note}\n`);
    }
    if (checks.length > 1)
      verdicts.push(
        `replayed ${checks.length} checks: ${again} failed again (${asRecorded} as recorded), ${checks.length - again} pass now`,
      );
    out.write(`${verdicts.join('\n')}\n`);
    return again > 0 ? 1 : 0;
  } catch (e) {
    if (
      e instanceof PreflightError ||
      e instanceof ConnectionError ||
      e instanceof ConfigError ||
      e instanceof ProfileError ||
      e instanceof ExpectedFailuresError ||
      e instanceof TlsConfigError
    )
      return usage(e.message);
    throw e;
  }
}

function usage(message: string): number {
  process.stderr.write(`tagtrack-conformance: ${message}\n`);
  return 2;
}
