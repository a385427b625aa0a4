import { isAbsolute, resolve } from 'node:path';
import { suiteCommand } from './invocation.ts';

/**
 * Where a run took what it needs to reach the implementation, as the commands it prints
 * (reproduce lines, "run it again", replay hints) name it: never a secret, only where the
 * secret is read from. A command printed by a run runs as printed in the shell the run
 * started in (the same working directory and environment).
 *
 * - `profile`: the profile file the run read (absolute path); absent when the run used none,
 *   or the shipped canonical profile (fixture mode's default, which every command defaults to).
 * - `authId`/`accessKey`: where the `--auth-id`/`--access-key` pair came from: `env`
 *   (`TAGTRACK_AUTH_ID`/`TAGTRACK_ACCESS_KEY`) or `argv` (the command line; an auth id is no
 *   secret and is printed as it was given, an access key never: the commands then read it from
 *   `TAGTRACK_ACCESS_KEY`, which the shell must export).
 * - `headers`: the names of the extra headers (`-H`, `TAGTRACK_HEADERS`; their values are
 *   secrets) and where they came from, as for the access key.
 * - `caFile` (absolute path) and `insecure`: the TLS settings of the run.
 */
export interface Rerun {
  readonly profile?: string | undefined;
  readonly authId?: { readonly from: 'env' } | { readonly from: 'argv'; readonly value: string };
  readonly accessKey?: 'env' | 'argv' | undefined;
  readonly headers?: { readonly from: 'env' | 'argv'; readonly names: readonly string[] };
  readonly caFile?: string | undefined;
  readonly insecure?: boolean | undefined;
}

/** A word quoted for POSIX shells: `'…'`, a `'` inside written `'\''`. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `file` made absolute against the working directory (a printed path runs from anywhere). */
export function absolutePath(file: string): string {
  return isAbsolute(file) ? file : resolve(file);
}

/**
 * The shell words that give a printed command the run's credentials, extra headers and TLS
 * settings, in this order: `--profile 'FILE'`, `--auth-id "$TAGTRACK_AUTH_ID"` (or the
 * given id), `--access-key "$TAGTRACK_ACCESS_KEY"` (`"${TAGTRACK_ACCESS_KEY:?…}"` when the
 * run got the key on its command line: the shell then says which variable to export),
 * `-H "$TAGTRACK_HEADERS"` (likewise), `--ca-file 'FILE'`, `--insecure`. No secret: values
 * are read from the environment when the command runs.
 */
export function rerunWords(rerun: Rerun | undefined): string[] {
  if (rerun === undefined) return [];
  const words: string[] = [];
  if (rerun.profile !== undefined) words.push('--profile', shellQuote(rerun.profile));
  if (rerun.authId !== undefined)
    words.push(
      '--auth-id',
      rerun.authId.from === 'env' ? '"$TAGTRACK_AUTH_ID"' : shellQuote(rerun.authId.value),
    );
  if (rerun.accessKey !== undefined)
    words.push(
      '--access-key',
      rerun.accessKey === 'env'
        ? '"$TAGTRACK_ACCESS_KEY"'
        : `"\${TAGTRACK_ACCESS_KEY:?export the access key the run was given}"`,
    );
  if (rerun.headers !== undefined && rerun.headers.names.length > 0)
    words.push(
      '-H',
      rerun.headers.from === 'env'
        ? '"$TAGTRACK_HEADERS"'
        : `"\${TAGTRACK_HEADERS:?export the extra headers the run was given, one Name: value a line}"`,
    );
  if (rerun.caFile !== undefined) words.push('--ca-file', shellQuote(rerun.caFile));
  if (rerun.insecure === true) words.push('--insecure');
  return words;
}

/**
 * What the person who started a run must do before its printed commands run, one line; or
 * undefined when nothing (every secret the commands read is in the environment already).
 */
export function rerunNote(rerun: Rerun | undefined): string | undefined {
  const missing = [
    ...(rerun?.accessKey === 'argv' ? ['TAGTRACK_ACCESS_KEY (the access key)'] : []),
    ...(rerun?.headers?.from === 'argv' ? ['TAGTRACK_HEADERS (the extra headers)'] : []),
  ];
  return missing.length === 0
    ? undefined
    : `the printed commands read ${missing.join(' and ')} from the environment, never from the line itself: export ${missing.length === 1 ? 'it' : 'them'} to run them (a secret on a command line is visible to other users of the machine)`;
}

/**
 * The command that runs one check of a run again: `tagtrack-conformance run` with the run's
 * base URL, mode, seed and fast-check runs, `--only ID` and {@link rerunWords}.
 */
export function runAgainCommand(
  result: {
    readonly baseUrl: string;
    readonly mode: string;
    readonly seed: number;
    readonly numRuns: number;
    readonly rerun?: Rerun | undefined;
  },
  id: string,
): string {
  return [
    `${suiteCommand()} run`,
    `--base-url ${shellQuote(result.baseUrl)}`,
    `--mode ${result.mode}`,
    `--seed ${result.seed}`,
    `--num-runs ${result.numRuns}`,
    `--only ${shellQuote(id)}`,
    ...rerunWords(result.rerun),
  ].join(' ');
}
