import { readFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { ExpectedFailuresError } from '../expected-failures.ts';
import { ConnectionError } from '../http.ts';
import { loadProfile, ProfileError, type ProfileInput } from '../profile.ts';
import { failureText, ResultsJson } from '../reporters/index.ts';
import { ConfigError, runConformance } from '../runner.ts';
import { credentialOptions } from './options.ts';

/**
 * `tagtrack-conformance replay results.json --check ID`: reruns one check that failed in a
 * recorded run, with the run's base seed and fast-check runs (so the check draws the same
 * cases) and, for each failed property, its recorded seed and shrink path (fast-check then
 * runs only the shrunk counterexample), and prints its failures.
 *
 * The run's settings come from results.json: base URL (unless `--base-url`), mode, seed,
 * num-runs, and the profile without its credentials (results.json never holds an access
 * key). Credentials come as for `run`: `--profile` (`TAGTRACK_PROFILE`; fixture mode's
 * default is the shipped canonical profile) or `--auth-id`/`--access-key`
 * (`TAGTRACK_AUTH_ID`/`TAGTRACK_ACCESS_KEY`).
 *
 * Exit codes: 1 the check fails again (the last line says whether the recorded failure came
 * back), 0 it passes now, 2 usage: no such file, not a results.json, no such check, a check
 * that did not fail, or a run that cannot start (unreachable, no credential).
 */

/** The options of `replay` as commander parses them. */
interface ReplayOptions {
  readonly check: string;
  readonly baseUrl?: string;
  readonly profile?: string;
  readonly authId?: string;
  readonly accessKey?: string;
  readonly timeout?: number;
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
      'rerun one failed check of a results.json with its recorded seed and shrink path, and print its failures',
    )
    .argument('<results>', 'results.json of the run (written by run --report-dir)')
    .requiredOption('--check <id>', 'requirement id of the failed check to rerun')
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
    .action(async (file: string, opts: ReplayOptions) => {
      done(await replayCommand(file, opts, canonicalProfileFile));
    });
}

async function replayCommand(
  file: string,
  opts: ReplayOptions,
  canonicalProfileFile: string,
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
  const check = recorded.checks.find((c) => c.id === opts.check);
  if (check === undefined)
    return usage(`${file} has no check ${opts.check} (its checks: ${recorded.checks.length})`);
  if (check.status !== 'fail' && check.status !== 'error')
    return usage(
      `${opts.check} did not fail in ${file} (status ${check.status}): nothing to replay`,
    );
  if (opts.timeout !== undefined && !(Number.isInteger(opts.timeout) && opts.timeout > 0))
    return usage('--timeout must be a positive integer');

  // each failed property by its index in the check, with the seed and path that shrank to it
  const replay = new Map<string, { seed: number; path?: string }>();
  for (const f of check.failures) {
    if (f.property === undefined || f.seed === undefined) continue;
    replay.set(`${check.id}#${f.property}`, {
      seed: f.seed,
      ...(f.path === undefined || f.path === '' ? {} : { path: f.path }),
    });
  }
  const out = process.stdout;
  try {
    const profileFile =
      opts.profile ?? (recorded.mode === 'fixture' ? canonicalProfileFile : undefined);
    const profile: ProfileInput =
      profileFile === undefined
        ? { ...(recorded.profile as ProfileInput), credentials: [] }
        : await loadProfile(profileFile);
    const baseUrl = opts.baseUrl ?? recorded.baseUrl;
    out.write(
      `replaying ${check.id} against ${baseUrl} (${recorded.mode} mode, seed ${recorded.seed}, ${recorded.numRuns} runs${
        replay.size === 0
          ? ''
          : `; ${[...replay.values()].map((r) => `property seed ${r.seed} path ${JSON.stringify(r.path ?? '')}`).join(', ')}`
      })\n`,
    );
    const result = await runConformance({
      baseUrl,
      authId: opts.authId,
      accessKey:
        opts.authId === undefined && opts.accessKey === undefined ? undefined : opts.accessKey,
      profile,
      mode: recorded.mode,
      seed: recorded.seed,
      numRuns: recorded.numRuns,
      ids: [check.id],
      concurrency: 1,
      replay,
      ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout }),
    });
    const now = result.checks[0]!;
    out.write(`${now.status.toUpperCase()} ${now.id}${now.reason ? ` (${now.reason})` : ''}\n`);
    for (const f of now.failures) out.write(`  ${failureText(f, '  ')}\n`);
    const again = check.failures.filter((f) => now.failures.some((n) => n.message === f.message));
    if (now.status === 'pass') {
      out.write(`not reproduced: ${check.id} passes now\n`);
      return 0;
    }
    out.write(
      again.length > 0
        ? `reproduced: ${again.length} of ${check.failures.length} recorded failures came back\n`
        : `not reproduced: ${check.id} ${now.status === 'error' ? 'errs' : 'fails'}, but not as recorded\n`,
    );
    return 1;
  } catch (e) {
    if (
      e instanceof ConnectionError ||
      e instanceof ConfigError ||
      e instanceof ProfileError ||
      e instanceof ExpectedFailuresError
    )
      return usage(e.message);
    throw e;
  }
}

function usage(message: string): number {
  process.stderr.write(`tagtrack-conformance: ${message}\n`);
  return 2;
}
