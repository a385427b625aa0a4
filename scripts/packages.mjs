/**
 * The publishable packages of the workspace and how to pack them, shared by
 * scripts/pack-check.mjs (CI: install the tarballs in a fresh project) and
 * scripts/release-check.mjs (release: publint and attw on the tarballs).
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is in scripts/). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Workspace directories that may hold a publishable package (pnpm-workspace.yaml). */
const WORKSPACE_DIRS = [
  'packages/core',
  'packages/dataset',
  'packages/engine',
  'apps/server',
  'apps/client',
  'conformance',
];

/**
 * The public packages: `{ dir, name, version, bin }` for every workspace package without
 * `"private": true`, in dependency order (core first). `bin` maps command names to files.
 */
export async function publicPackages() {
  const out = [];
  for (const dir of WORKSPACE_DIRS) {
    const manifest = JSON.parse(await readFile(join(ROOT, dir, 'package.json'), 'utf8'));
    if (manifest.private === true) continue;
    out.push({ dir, name: manifest.name, version: manifest.version, bin: manifest.bin ?? {} });
  }
  return out;
}

/**
 * Runs `command args` and resolves with `{ code, stdout, stderr }` (never rejects on a
 * non-zero exit; rejects when the command cannot be started or outlives `timeoutMs`).
 * With `inherit: true` the output goes to this process's stdout/stderr instead.
 */
export function run(
  command,
  args,
  { cwd = ROOT, env = {}, inherit = false, timeoutMs = 300_000 } = {},
) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: inherit ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')}: no exit after ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `npx -y pnpm@10` (corepack is not relied on), as command and leading arguments. */
export const PNPM = ['npx', ['-y', 'pnpm@10']];

/**
 * Packs every public package into `dest` with `pnpm pack`, two at a time (the builds are
 * independent: the `@tagtrack/source` condition resolves workspace imports to sources). Each
 * package's `prepack` script builds dist/ (emit only, `tsc --noCheck`: `pnpm typecheck` and
 * `pnpm build` check the types); pnpm rewrites `workspace:` and `catalog:` ranges. Returns
 * the packages with `tarball` (absolute path) and `size` (bytes). Throws when a pack fails,
 * with its output.
 */
export async function packAll(dest) {
  const packages = await publicPackages();
  const [cmd, pre] = PNPM;
  const queue = [...packages];
  const packOne = async () => {
    for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
      const res = await run(cmd, [...pre, 'pack', '--pack-destination', dest], {
        cwd: join(ROOT, p.dir),
      });
      if (res.code !== 0) {
        throw new Error(
          `pnpm pack of ${p.name} failed (exit ${res.code}):\n${res.stdout}${res.stderr}`,
        );
      }
    }
  };
  await Promise.all([packOne(), packOne()]);
  const files = await readdir(dest);
  return Promise.all(
    packages.map(async (p) => {
      const base = `${p.name.replace(/^@/, '').replace('/', '-')}-${p.version}.tgz`;
      if (!files.includes(base)) throw new Error(`pnpm pack wrote no ${base} in ${dest}`);
      const tarball = join(dest, base);
      return { ...p, tarball, size: (await stat(tarball)).size };
    }),
  );
}

/** Total size in bytes of the regular files under `dir` (apparent size, symlinks not followed). */
export async function treeSize(dir) {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await treeSize(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

/** `bytes` as kB (1000 bytes) with one decimal, or MB above 1 MB. */
export function formatSize(bytes) {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}
