import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN_PATH, detectCommand } from '../src/http/invocation.ts';

/**
 * Printed commands start the way the process was started (docs/conformance.md "Every printed
 * command runs as printed"): through pnpm exec or npx, the installed bin on PATH, else
 * `node <absolute bin path>`.
 */
describe('detectCommand', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tagtrack-invocation-'));
    await mkdir(join(dir, 'ours'));
    await mkdir(join(dir, 'other'));
    await mkdir(join(dir, 'node_modules', '.bin'), { recursive: true });
    await symlink(BIN_PATH, join(dir, 'ours', 'tagtrack-conformance'));
    await symlink(BIN_PATH, join(dir, 'node_modules', '.bin', 'tagtrack-conformance'));
    await writeFile(join(dir, 'other', 'tagtrack-conformance'), '#!/bin/sh\nexit 0\n');
    await chmod(join(dir, 'other', 'tagtrack-conformance'), 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const argv = ['/usr/bin/node', '/somewhere/conformance/src/cli.ts'];

  test('pnpm exec and npx are named as such', () => {
    const pnpm = { npm_command: 'exec', npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20' };
    expect(detectCommand(argv, pnpm)).toBe('pnpm exec tagtrack-conformance');
    const npx = { npm_command: 'exec', npm_config_user_agent: 'npm/11.1.0 node/v20' };
    expect(detectCommand(argv, npx)).toBe('npx tagtrack-conformance');
  });

  test('the bin name when this package is the first tagtrack-conformance on PATH', () => {
    expect(detectCommand(argv, { PATH: join(dir, 'ours') })).toBe('tagtrack-conformance');
  });

  test('node <absolute bin> when none is on PATH, another one comes first, or only a running script put it there', () => {
    const node = `node ${BIN_PATH}`;
    expect(detectCommand(argv, { PATH: '/nonexistent' })).toBe(node);
    expect(detectCommand(argv, { PATH: `${join(dir, 'other')}:${join(dir, 'ours')}` })).toBe(node);
    const script = { PATH: join(dir, 'node_modules', '.bin'), npm_lifecycle_event: 'test' };
    expect(detectCommand(argv, script)).toBe(node);
  });

  test('a bare name in argv[1] (a caller of main naming the command) is kept', () => {
    expect(detectCommand(['node', 'tagtrack-conformance'], { PATH: '' })).toBe(
      'tagtrack-conformance',
    );
  });
});
