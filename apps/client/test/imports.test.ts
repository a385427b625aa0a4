import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, expect, test } from 'vitest';

/** The SDK and signing path must run outside Node (browsers, Deno, Bun): no Node-only imports. */
const SDK_FILES = [
  'client.ts',
  'call.ts',
  'transport.ts',
  'pacing.ts',
  'types.ts',
  'paginate.ts',
  'errors.ts',
  'index.ts',
];
const NODE_BUILTINS = new Set(builtinModules);

function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const re =
    /(?:^|\s)(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(re)) specifiers.push((m[1] ?? m[2] ?? m[3])!);
  return specifiers;
}

describe('SDK imports', () => {
  test('the import scanner sees node: and bare builtin specifiers', () => {
    expect(
      importsOf("import { a } from 'node:fs';\nexport * from \"path\";\nawait import('os');"),
    ).toEqual(['node:fs', 'path', 'os']);
  });

  test.each(SDK_FILES)('src/%s imports nothing Node-only', (file) => {
    const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
    const specifiers = importsOf(source);
    expect(specifiers.length).toBeGreaterThan(0);
    const nodeOnly = specifiers.filter((s) => s.startsWith('node:') || NODE_BUILTINS.has(s));
    expect(nodeOnly).toEqual([]);
    // relative imports stay inside the SDK files (never cli.ts, which may use Node)
    for (const s of specifiers.filter((x) => x.startsWith('.'))) {
      expect(SDK_FILES).toContain(s.replace(/^\.\//, ''));
    }
    expect(source).not.toMatch(/\bprocess\.|\bBuffer\b|\brequire\(/);
  });
});
