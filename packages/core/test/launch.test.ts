import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const run = promisify(execFile);
const LAUNCH = fileURLToPath(new URL('../launch.js', import.meta.url));

/** Prints the V8 old-generation limit of the process it runs in, in MB. */
const PRINT = `process.stdout.write(String(Math.round((await import('node:v8')).getHeapStatistics().heap_size_limit / 1048576)))`;
/** A checkout's source runs as the entry script; an installed package's dist exports main. */
const ENTRY = {
  checkout: `await (async () => { ${PRINT}; })();\nexport {};\n`,
  installed: `export async function main() { ${PRINT}; return 0; }\n`,
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-launch-'));
  // a checkout (src/ present: run through tsx) and an installed package (dist/ only)
  for (const [name, file] of [
    ['checkout', 'src/cli.ts'],
    ['installed', 'dist/cli.js'],
  ] as const) {
    await mkdir(join(dir, name, 'bin'), { recursive: true });
    await mkdir(join(dir, name, file.split('/')[0]!), { recursive: true });
    await writeFile(join(dir, name, file), ENTRY[name]);
    await writeFile(join(dir, name, 'package.json'), '{"version":"0.0.0","type":"module"}');
    await writeFile(
      join(dir, name, 'bin', 'cmd.js'),
      `import { launch } from ${JSON.stringify(LAUNCH)};
await launch({ name: 'cmd', packageUrl: new URL('..', import.meta.url), entry: 'cli', start: (cli) => cli.main(), heapMB: 200 });
`,
    );
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The heap limit (MB) the command's CLI ran with (`node` started with `nodeArgs`). */
async function heapOf(
  kind: 'checkout' | 'installed',
  env: NodeJS.ProcessEnv = {},
  nodeArgs: string[] = [],
) {
  const { stdout } = await run(process.execPath, [...nodeArgs, join(dir, kind, 'bin', 'cmd.js')], {
    env: { ...process.env, ...env },
  });
  return Number(stdout);
}

describe('launch: the heap a bin asks for', () => {
  test.each(['checkout', 'installed'] as const)(
    'in a %s the CLI runs with the heap the bin asks for, unless the user gave one',
    async (kind) => {
      // the limit is the old generation asked for plus the young generation (a few tens of MB)
      const asked = await heapOf(kind);
      expect(asked).toBeGreaterThanOrEqual(200);
      expect(asked).toBeLessThan(300);
      const own = await heapOf(kind, { NODE_OPTIONS: '--max-old-space-size=600' });
      expect(own).toBeGreaterThanOrEqual(600);
      expect(own).toBeLessThan(700);
      const given = await heapOf(kind, {}, ['--max-old-space-size=500']);
      expect(given).toBeGreaterThanOrEqual(500);
      expect(given).toBeLessThan(600);
    },
    60_000,
  );
});
