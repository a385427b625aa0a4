import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How the commands the suite prints start (reproduce lines, "run it again", `replay`, init's
 * "next:"): the way the current process was started, so that each runs as printed in a fresh
 * shell (docs/conformance.md "Every printed command runs as printed").
 */

/** The launcher of the CLI in this package: `conformance/bin/tagtrack-conformance.js`. */
export const BIN_PATH = fileURLToPath(
  new URL('../../bin/tagtrack-conformance.js', import.meta.url),
);

/** The installed command's name. */
export const BIN_NAME = 'tagtrack-conformance';

let current = BIN_NAME;

/** The words every printed command starts with, e.g. `tagtrack-conformance` (see {@link detectCommand}). */
export function suiteCommand(): string {
  return current;
}

/** Sets what printed commands start with (the CLI sets it once from {@link detectCommand}). */
export function setSuiteCommand(command: string): void {
  current = command;
}

/** `s` quoted for a POSIX shell when it holds anything but safe characters. */
function quote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}

function realpath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * The words a fresh shell starts this CLI with, from how this process was started (`argv`,
 * `env`):
 * - `argv[1]` a bare name (a caller of `main` naming the command, not a path): that name;
 * - run through `pnpm exec` (`npm_command=exec`, a pnpm user agent): `pnpm exec tagtrack-conformance`;
 * - through `npx` / `npm exec`: `npx tagtrack-conformance`;
 * - a `tagtrack-conformance` on `PATH` that is this package's bin (the same file once links
 *   are resolved), outside a package manager's own `node_modules/.bin` of a running script:
 *   `tagtrack-conformance`;
 * - else `node <absolute path of bin/tagtrack-conformance.js>` (a checkout, or an install
 *   whose bin is not on `PATH`).
 */
export function detectCommand(
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
  bin: string = BIN_PATH,
): string {
  const invoked = argv[1];
  if (invoked !== undefined && invoked !== '' && !invoked.includes('/') && !isAbsolute(invoked))
    return invoked;
  const agent = env.npm_config_user_agent ?? '';
  if (env.npm_command === 'exec' && agent.startsWith('pnpm/')) return `pnpm exec ${BIN_NAME}`;
  if (env.npm_command === 'exec' && agent.startsWith('npm/')) return `npx ${BIN_NAME}`;
  const target = realpath(bin);
  // a package script's PATH holds node_modules/.bin folders no fresh shell has
  const inScript = env.npm_lifecycle_event !== undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || (inScript && dir.split(sep).includes('node_modules'))) continue;
    const candidate = join(dir, BIN_NAME);
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    // the first on PATH is what the shell runs: ours, or another one
    return target !== undefined && realpath(candidate) === target ? BIN_NAME : `node ${quote(bin)}`;
  }
  return `node ${quote(bin)}`;
}
