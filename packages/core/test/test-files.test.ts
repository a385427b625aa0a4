import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

/**
 * How the workspace's test files declare tests. `@fast-check/vitest`'s own `test` (and `it`)
 * runs every test declared with it as a property over `fc.gen()`, `numRuns` times: 100 in
 * `pnpm test` (vitest.setup.ts), even when the test draws nothing. So a test file takes its
 * plain tests from `vitest` and only the properties from `@fast-check/vitest`, imported as
 * `import { fc, test as fcTest } from '@fast-check/vitest'` and used as `fcTest.prop(…)`.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const THIS_FILE = join('packages', 'core', 'test', 'test-files.test.ts');
const TEST_FILE = /\.(ts|tsx|mts)$/;

/** The folders holding tests: each package's and app's `src` and `test`, and the suite's. */
function testRoots(): string[] {
  const under = (dir: string) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => [join(dir, d.name, 'src'), join(dir, d.name, 'test')]);
  return [
    ...under('packages'),
    ...under('apps'),
    join('conformance', 'src'),
    join('conformance', 'test'),
  ].filter((d) => existsSync(join(ROOT, d)));
}

/** Every TypeScript file below `dir` (relative to the repository root). */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => TEST_FILE.test(f) && !f.split(/[\\/]/).includes('node_modules'))
    .map((f) => join(dir, f));
}

/** An import from `@fast-check/vitest`; group 1 holds its names. */
const FAST_CHECK_IMPORT = /import\s*\{([^}]*)\}\s*from\s*'@fast-check\/vitest';?/g;

/** The names a file imports from `@fast-check/vitest`, as written (`fc`, `test as fcTest`). */
function fastCheckImports(text: string): string[] {
  return [...text.matchAll(FAST_CHECK_IMPORT)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((s) => s.trim().replace(/\s+/g, ' '))
      .filter((s) => s !== ''),
  );
}

describe('test declarations', () => {
  const files = testRoots()
    .flatMap(filesUnder)
    .map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }))
    // this file quotes the import in its comments and patterns
    .filter(({ file, text }) => file !== THIS_FILE && fastCheckImports(text).length > 0);

  test('finds the test files that import @fast-check/vitest', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  test('a plain test is declared with vitest: @fast-check/vitest gives fc and fcTest.prop only', () => {
    const problems = files.flatMap(({ file, text }) => {
      const found: string[] = [];
      for (const name of fastCheckImports(text))
        if (name !== 'fc' && name !== 'test as fcTest')
          found.push(
            `${file}: imports ${name} from @fast-check/vitest (runs a plain test numRuns times)`,
          );
      const body = text.replace(FAST_CHECK_IMPORT, '');
      for (const m of body.matchAll(/\bfcTest\b(?!\.prop\b)[^\n]*/g))
        found.push(`${file}: fcTest used other than as fcTest.prop: ${m[0]}`);
      return found;
    });
    expect(problems).toEqual([]);
  });
});
