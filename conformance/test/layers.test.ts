import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

/**
 * The layers of src/ (src/README.md): each folder imports only the folders it may, so the
 * suite reads top-down (commands -> run -> checks -> check -> http -> profile). madge's graph
 * of src/ with the repository's `.madgerc` (type imports included).
 */

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(`${ROOT}package.json`);
const madge = require('madge') as (
  path: string,
  config: object,
) => Promise<{ obj(): Record<string, string[]> }>;

/** What each folder may import besides itself (src/README.md's table). */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  profile: [],
  http: ['profile'],
  check: ['http', 'profile'],
  checks: ['check', 'http', 'profile'],
  run: ['checks', 'check', 'http', 'profile'],
  report: ['run', 'checks', 'check', 'http', 'profile'],
  diff: ['run', 'checks', 'check', 'http', 'profile'],
  commands: ['report', 'diff', 'run', 'checks', 'check', 'http', 'profile'],
};

/** The root's files: the entry points, which may import any layer. */
const ENTRY_POINTS = ['cli.ts', 'demo.ts', 'index.ts', 'vitest.ts'];

describe('conformance/src layers', () => {
  test('every import goes down the table of src/README.md, and the root holds only entry points', async () => {
    const config = JSON.parse(readFileSync(`${ROOT}.madgerc`, 'utf8')) as object;
    const graph = (await madge(SRC, config)).obj();
    const wrong: string[] = [];
    for (const [file, deps] of Object.entries(graph)) {
      const [from, ...rest] = file.split('/');
      if (rest.length === 0) {
        expect(ENTRY_POINTS, `${file} in the root`).toContain(file);
        continue;
      }
      const allowed = MAY_IMPORT[from!];
      expect(allowed, `${from}/ is in src/README.md's table`).toBeDefined();
      for (const dep of deps) {
        const to = dep.includes('/') ? dep.split('/')[0]! : '(root)';
        if (to !== from && !allowed!.includes(to)) wrong.push(`${file} -> ${dep}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
