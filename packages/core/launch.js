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
 * The V8 flag giving the old generation `heapMB` MB (a function: of the command's `args`;
 * `[]` when it gives undefined). The user's choice wins: a `--max-old-space-size` in
 * `NODE_OPTIONS` (the child inherits it: `[]`) or in node's own arguments (passed on as given).
 */
function heapFlags(heapMB, args) {
  const mb = typeof heapMB === 'function' ? heapMB(args) : heapMB;
  if (mb === undefined) return [];
  if (/--max-old-space-size/.test(process.env.NODE_OPTIONS ?? '')) return [];
  const own = process.execArgv.filter((a) => a.startsWith('--max-old-space-size'));
  return own.length > 0 ? own : [`--max-old-space-size=${mb}`];
}

/** Set in the environment of a process the launcher started itself, so it does not start another. */
const LAUNCHED = 'TAGTRACK_LAUNCHED_WITH_HEAP';

/** Runs node with `nodeArgs` as a child with this process's stdio, forwarding signals and the exit code. */
function runChild(nodeArgs, env) {
  const child = spawn(process.execPath, nodeArgs, { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 1 : 128);
  });
}

/**
 * Starts a bin.
 * @param {object} bin
 * @param {string} bin.name the command's name, for messages (`tagtrack-conformance`)
 * @param {URL} bin.packageUrl the package's folder (`new URL('..', import.meta.url)` in bin/)
 * @param {string} bin.entry the entry's path inside src/ and dist/ without extension (`cli`)
 * @param {(entry: Record<string, unknown>, argv: string[]) => unknown} bin.start runs the built
 *   entry module with process.argv; what it resolves to, when a number, is the exit code
 * @param {number | ((args: string[]) => number | undefined)} [bin.heapMB] the V8 heap (old
 *   generation) the command runs with, in MB, or a function of its arguments giving it: a
 *   long-running command whose live data is bounded sets it, so that garbage is collected
 *   before the process grows past it (without it V8 lets a busy process grow towards a
 *   quarter of the machine's memory). Ignored when the user gave `--max-old-space-size`.
 * @returns {Promise<void>} once the CLI was started (a checkout's child may still run)
 */
export async function launch({ name, packageUrl, entry, start, heapMB }) {
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
    runChild(
      [
        ...heapFlags(heapMB, args),
        '--conditions=@tagtrack/source',
        '--import',
        tsx,
        source,
        ...args,
      ],
      process.env,
    );
    return;
  }
  if (!existsSync(fileURLToPath(dist))) {
    process.stderr.write(
      `${name}: dist/${entry}.js is missing; build the package first (pnpm build) or install tsx\n`,
    );
    process.exitCode = 1;
    return;
  }
  // this process runs the CLI itself when it already has a heap size of the user's
  const heap =
    process.env[LAUNCHED] === undefined &&
    !process.execArgv.some((a) => a.startsWith('--max-old-space-size'))
      ? heapFlags(heapMB, args)
      : [];
  if (heap.length > 0) {
    // the heap size is fixed when node starts: the bin runs again in a child that has it
    runChild([...heap, process.argv[1] ?? '', ...args], {
      ...process.env,
      [LAUNCHED]: '1',
    });
    return;
  }
  const code = await start(await import(dist.href), process.argv);
  if (typeof code === 'number') process.exitCode = code;
}
