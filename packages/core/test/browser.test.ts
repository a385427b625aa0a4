import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

/**
 * `@tagtrack/core` runs in a browser. Its import graph, walked from each entry over
 * relative imports, names no Node built-in (`node:` or bare), no dataset JSON and no
 * `@tagtrack/dataset` or `@tagtrack/engine`. (apps/client/test/browser-bundle.test.ts bundles
 * it with esbuild for the browser and runs it in Chromium.)
 */

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const ENTRIES = ['index.ts', 'testing.ts', 'internal.ts'];

/** The files reachable from `entry` and every module specifier they import, by file. */
function importGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const queue = [join(SRC, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (graph.has(file)) continue;
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const specifiers = info.importedFiles.map((f) => f.fileName);
    graph.set(file, specifiers);
    for (const s of specifiers) {
      if (s.startsWith('.') && s.endsWith('.ts')) queue.push(join(dirname(file), s));
    }
  }
  return graph;
}

describe.each(ENTRIES)("core's import graph from src/%s", (entry) => {
  const graph = importGraph(entry);
  const imports = [...graph].flatMap(([file, specifiers]) =>
    specifiers.map((s) => `${relative(SRC, file)}: ${s}`),
  );
  const bare = (line: string) => line.slice(line.indexOf(': ') + 2);

  test('reaches the modules it exports (the walk follows imports)', () => {
    expect(graph.size).toBeGreaterThan(entry === 'index.ts' ? 30 : 3);
  });

  test('imports no Node built-in module (node: or bare)', () => {
    expect(imports.filter((l) => bare(l).startsWith('node:') || isBuiltin(bare(l)))).toEqual([]);
  });

  test('imports no JSON file, no dataset and no engine package', () => {
    expect(imports.filter((l) => /\.json$|^@tagtrack\/(dataset|engine)/.test(bare(l)))).toEqual([]);
  });

  test('stays inside src/ and imports only what core depends on', () => {
    const manifest = JSON.parse(readFileSync(join(SRC, '../package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    const allowed = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
    const packageOf = (s: string) =>
      s
        .split('/')
        .slice(0, s.startsWith('@') ? 2 : 1)
        .join('/');
    const outside = imports.filter((l) => {
      const s = bare(l);
      return s.startsWith('.') ? false : !allowed.includes(packageOf(s));
    });
    expect(outside).toEqual([]);
    expect([...graph.keys()].filter((f) => relative(SRC, f).startsWith('..'))).toEqual([]);
  });
});
