import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

/**
 * The verdict-change policy of `pnpm release:check` (scripts/verdict-changes.mjs,
 * docs/conformance.md "Verdict changes"): a change to a check, a law or the spec needs a
 * changeset saying whether verdicts changed, and one that names a change bumps the suite major.
 */
const SCRIPT = fileURLToPath(new URL('../../scripts/verdict-changes.mjs', import.meta.url));

let root: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: root });
const put = async (file: string, text: string) => {
  await mkdir(dirname(join(root, file)), { recursive: true });
  await writeFile(join(root, file), text);
};
const check = () =>
  new Promise<{ code: number; output: string }>((resolve) =>
    execFile('node', [SCRIPT, 'check', '--root', root], (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code), output: `${stdout}${stderr}` }),
    ),
  );
const changeset = (bump: string, verdict?: string) =>
  `---\n"@tagtrack/conformance": ${bump}\n---\n\nA change.\n${verdict === undefined ? '' : `\n### Verdict changes\n\n${verdict}\n`}`;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tagtrack-verdict-policy-'));
  git('init', '-q');
  await put(
    'conformance/package.json',
    '{ "name": "@tagtrack/conformance", "version": "0.1.0" }\n',
  );
  await put('conformance/src/checks/page/cursors.ts', 'export const rule = 1;\n');
  await put('conformance/src/report/html.ts', 'export const x = 1;\n');
  git('add', '-A');
  git('commit', '-qm', 'release 0.1.0');
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('release:check: verdict changes are declared', () => {
  test('a change to a check without a changeset saying whether verdicts changed is rejected', async () => {
    await put('conformance/src/checks/page/cursors.ts', 'export const rule = 2;\n');
    await put('.changeset/tweak.md', changeset('minor'));
    git('add', '-A');
    git('commit', '-qm', 'a check changes');
    const { code, output } = await check();
    expect(code).toBe(1);
    expect(output).toContain('conformance/src/checks/page/cursors.ts');
    expect(output).toContain('no changeset of the change says whether verdicts changed');
  });

  test('the same change with "Verdict changes: None" passes; a named change needs a major bump', async () => {
    await put('conformance/src/checks/page/cursors.ts', 'export const rule = 2;\n');
    await put('.changeset/tweak.md', changeset('minor', 'None: the messages only.'));
    expect(await check()).toMatchObject({ code: 0 });
    await put('.changeset/tweak.md', changeset('minor', 'PAGE-CURSOR-ARITHMETIC now fails X.'));
    const named = await check();
    expect(named.code).toBe(1);
    expect(named.output).toContain('must bump "@tagtrack/conformance": major (it has minor)');
    await put('.changeset/tweak.md', changeset('major', 'PAGE-CURSOR-ARITHMETIC now fails X.'));
    expect(await check()).toMatchObject({ code: 0 });
  });

  test('a change outside the checks, laws and spec needs no declaration', async () => {
    await put('conformance/src/report/html.ts', 'export const x = 2;\n');
    expect(await check()).toMatchObject({ code: 0 });
  });

  test('the range starts at the last release: a version bump resets it', async () => {
    await put('conformance/src/checks/page/cursors.ts', 'export const rule = 2;\n');
    git('add', '-A');
    git('commit', '-qm', 'undeclared');
    expect((await check()).code).toBe(1);
    await put(
      'conformance/package.json',
      '{ "name": "@tagtrack/conformance", "version": "1.0.0" }\n',
    );
    git('add', '-A');
    git('commit', '-qm', 'release 1.0.0');
    expect(await check()).toMatchObject({ code: 0 });
  });
});
