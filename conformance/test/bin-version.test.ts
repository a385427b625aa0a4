import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

/**
 * The three launchers answer `--version` (and `-V`) alone from their package.json without
 * loading the CLI (a fast cold start): the line the CLI itself prints, exit 0.
 */

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url);

const BINS = [
  ['conformance/bin/tagtrack-conformance.js', 'conformance/package.json'],
  ['apps/server/bin/tagtrack-server.js', 'apps/server/package.json'],
  ['apps/client/bin/tagtrack.js', 'apps/client/package.json'],
] as const;

describe('bin --version', () => {
  for (const [bin, pkg] of BINS) {
    test(`${bin} prints its package's version`, async () => {
      const { version } = JSON.parse(readFileSync(new URL(pkg, ROOT), 'utf8')) as {
        version: string;
      };
      for (const flag of ['--version', '-V']) {
        const { stdout, stderr } = await run(process.execPath, [new URL(bin, ROOT).pathname, flag]);
        expect(stdout).toBe(`${version}\n`);
        expect(stderr).toBe('');
      }
    });
  }

  test('any other arguments go to the CLI (the launcher answers --version only when alone)', async () => {
    const { stdout } = await run(process.execPath, [
      new URL('conformance/bin/tagtrack-conformance.js', ROOT).pathname,
      'requirements',
      '--help',
    ]);
    expect(stdout).toMatch(/list every requirement id/);
  });
});
