// The launcher behind the bins of the tagtrack packages (`tagtrack-conformance`, `tagtrack`,
// `tagtrack-server`): Node-only, outside core's browser-safe import graph (nothing in src/
// imports it). An installed package (no src/) runs its built dist/ entry. In a checkout of the
// monorepo (src/ present and tsx resolvable) it runs the TypeScript source through tsx with the
// `@tagtrack/source` condition instead, so a stale dist/ is never run there.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The tsx loader's URL when `source` exists and tsx resolves, else undefined. */
function tsxLoader(source) {
  if (!existsSync(source)) return undefined;
  try {
    return import.meta.resolve('tsx');
  } catch {
    return undefined;
  }
}

/**
 * Starts a bin.
 * @param {object} bin
 * @param {string} bin.name the command's name, for messages (`tagtrack-conformance`)
 * @param {URL} bin.packageUrl the package's folder (`new URL('..', import.meta.url)` in bin/)
 * @param {string} bin.entry the entry's path inside src/ and dist/ without extension (`cli`)
 * @param {(entry: Record<string, unknown>, argv: string[]) => unknown} bin.start runs the built
 *   entry module with process.argv; what it resolves to, when a number, is the exit code
 * @returns {Promise<void>} once the CLI was started (a checkout's child may still run)
 */
export async function launch({ name, packageUrl, entry, start }) {
  const dist = new URL(`dist/${entry}.js`, packageUrl);
  const source = fileURLToPath(new URL(`src/${entry}.ts`, packageUrl));
  const args = process.argv.slice(2);
  // `--version` (or `-V`) alone prints the package's version without loading the CLI or tsx:
  // the same line the CLI prints, in the time node takes to start
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    const { version } = JSON.parse(readFileSync(new URL('package.json', packageUrl), 'utf8'));
    process.stdout.write(`${version}\n`);
    return;
  }
  const tsx = tsxLoader(source);
  if (tsx !== undefined) {
    const child = spawn(
      process.execPath,
      ['--conditions=@tagtrack/source', '--import', tsx, source, ...args],
      { stdio: 'inherit' },
    );
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      process.on(signal, () => child.kill(signal));
    }
    child.on('exit', (code, signal) => {
      process.exitCode = code ?? (signal === null ? 1 : 128);
    });
    return;
  }
  if (!existsSync(fileURLToPath(dist))) {
    process.stderr.write(
      `${name}: dist/${entry}.js is missing; build the package first (pnpm build) or install tsx\n`,
    );
    process.exitCode = 1;
    return;
  }
  const code = await start(await import(dist.href), process.argv);
  if (typeof code === 'number') process.exitCode = code;
}
