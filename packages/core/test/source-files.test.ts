import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

/**
 * No source file of the workspace is over {@link MAX_LINES} lines; a file that
 * grows past it is split by concern (a thin public file plus its internals in a folder of
 * its name, e.g. `builder.ts` + `builder/`). Reads every `.ts`/`.tsx`/`.js`/`.mjs` file under
 * `packages/*\/src`, `apps/*\/src` and `conformance/src`.
 */

const MAX_LINES = 500;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCE = /\.(ts|tsx|js|mjs)$/;

/** The source roots: each package's and app's `src`, and the suite's. */
function sourceRoots(): string[] {
  const under = (dir: string) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(dir, d.name, 'src'));
  return [...under('packages'), ...under('apps'), join('conformance', 'src')].filter((d) =>
    existsSync(join(ROOT, d)),
  );
}

/** Every source file below `dir` (relative to the repository root). */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => SOURCE.test(f) && !f.split(/[\\/]/).includes('node_modules'))
    .map((f) => join(dir, f));
}

/** Lines of a text: `wc -l`'s count, plus a last line without a newline. */
function lineCount(text: string): number {
  if (text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

describe('source file size', () => {
  const roots = sourceRoots();

  test('finds the source roots of every package, app and the suite', () => {
    expect(roots).toEqual(
      expect.arrayContaining([join('packages', 'core', 'src'), join('conformance', 'src')]),
    );
    expect(roots.some((r) => r.startsWith('apps'))).toBe(true);
  });

  test(`no source file is over ${MAX_LINES} lines`, () => {
    const over = roots
      .flatMap(sourceFiles)
      .map((file) => ({ file, lines: lineCount(readFileSync(join(ROOT, file), 'utf8')) }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${relative('.', f.file)}: ${f.lines} lines`);
    expect(over).toEqual([]);
  });

  test('lineCount counts every line, a last one without a newline too', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a\n')).toBe(1);
    expect(lineCount('a\nb')).toBe(2);
    expect(lineCount('a\nb\n')).toBe(2);
  });
});
