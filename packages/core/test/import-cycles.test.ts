import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

/**
 * `pnpm lint` runs `pnpm lint:cycles`: madge, with the repository's `.madgerc` (TypeScript
 * files, type-only imports included), over every package's `src`, failing on any import
 * cycle. These tests hold the check to that: it finds a cycle closed only by `import type`,
 * passes once the cycle is cut, and `lint:cycles` names the `src` of every package and app
 * and the suite.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(join(ROOT, 'package.json'));
type MadgeResult = { circular(): string[][] };
const madge = require('madge') as (path: string, config: object) => Promise<MadgeResult>;

let dir: string;
let config: object;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-cycles-'));
  config = JSON.parse(await readFile(join(ROOT, '.madgerc'), 'utf8')) as object;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the import-cycle check of pnpm lint', () => {
  test('finds a cycle closed only by type imports, and none once it is cut', async () => {
    await writeFile(
      join(dir, 'errors.ts'),
      "import type { Result } from './runner.ts';\nexport class RunError extends Error { result?: Result }\n",
    );
    await writeFile(
      join(dir, 'runner.ts'),
      "import { RunError } from './errors.ts';\nexport interface Result { ok: boolean }\nexport const fail = () => new RunError();\n",
    );
    expect((await madge(dir, config)).circular()).toEqual([['errors.ts', 'runner.ts']]);

    await writeFile(join(dir, 'errors.ts'), 'export class RunError extends Error {}\n');
    expect((await madge(dir, config)).circular()).toEqual([]);
  });

  test('pnpm lint runs it over the src of every package and app and the suite', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.lint).toContain('pnpm lint:cycles');
    const cycles = pkg.scripts['lint:cycles']!;
    expect(cycles).toMatch(/^madge --circular /);
    const roots = ['packages', 'apps'].flatMap((d) =>
      readdirSync(join(ROOT, d))
        .map((name) => `${d}/${name}/src`)
        .filter((src) => existsSync(join(ROOT, src))),
    );
    for (const src of [...roots, 'conformance/src']) expect(cycles.split(' '), src).toContain(src);
  });
});
