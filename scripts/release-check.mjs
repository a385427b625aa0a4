#!/usr/bin/env node
/**
 * The checks of `pnpm release` before `changeset publish`: packs every public package the way
 * it will be published (`pnpm pack`, whose `prepack` builds dist/), then lints each tarball
 * with publint (`--strict`: warnings fail) and "Are the types wrong?" (`attw`, profile
 * `esm-only`: the packages are ESM only, so CommonJS resolution is not checked).
 * Exit 0 when every tarball passed both, 1 otherwise.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatSize, packAll, ROOT, run } from './packages.mjs';

const dest = await mkdtemp(join(tmpdir(), 'tagtrack-release-'));
let failed = 0;
try {
  const packages = await packAll(dest);
  for (const p of packages) {
    process.stdout.write(`== ${p.name}@${p.version} (${formatSize(p.size)})\n`);
    for (const [tool, args] of [
      ['publint', ['--strict', p.tarball]],
      ['attw', ['--profile', 'esm-only', '--format', 'ascii', p.tarball]],
    ]) {
      const res = await run(join(ROOT, 'node_modules/.bin', tool), args, { inherit: true });
      if (res.code !== 0) {
        failed++;
        process.stdout.write(`FAIL ${tool} ${p.name} (exit ${res.code})\n`);
      }
    }
  }
} finally {
  await rm(dest, { recursive: true, force: true });
}
process.stdout.write(
  failed === 0 ? 'release checks passed\n' : `release checks: ${failed} failed\n`,
);
process.exitCode = failed === 0 ? 0 : 1;
