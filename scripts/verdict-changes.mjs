#!/usr/bin/env node
/**
 * The verdict-change policy (docs/conformance.md "Verdict changes"): a change to what any check
 * accepts or rejects is announced.
 *
 * `node scripts/verdict-changes.mjs check [--base REF] [--root DIR]` (run by `pnpm
 * release:check` and CI): when a file that decides verdicts changed between REF and the
 * working tree (a check, the check API's comparisons, a law of core, the profile's revisions,
 * docs/spec.md; see VERDICT_PATHS), a changeset added or edited in that range must declare
 * whether verdicts changed, in a `### Verdict changes` section: `None…` or the change. A
 * changeset whose section names a change must bump `@tagtrack/conformance` `major` (the
 * package's semver policy: the verdict is its interface). Every changeset with the section is
 * checked for that bump. REF defaults to the last release: the last commit that changed the
 * `version` of conformance/package.json (else the repository's first commit). Exit 0 when
 * the policy holds, 1 naming what is missing, 2 on a usage or git error.
 *
 * `node scripts/verdict-changes.mjs version` (`pnpm version-packages`): reads the pending
 * changesets' Verdict changes sections, runs `changeset version`, and writes a `### Verdict
 * changes` heading into the new release of every package's CHANGELOG.md (`None.` when no
 * changeset named one), so each release says whether verdicts changed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Paths (prefixes) whose change can change a verdict. */
export const VERDICT_PATHS = [
  'conformance/src/checks/',
  'conformance/src/check/compare.ts',
  'conformance/src/check/sample.ts',
  'conformance/src/check/walk.ts',
  'conformance/src/profile/revisions.ts',
  'packages/core/src/laws/',
  'docs/spec.md',
];

const HEADING = /^#{2,4}\s+Verdict changes\s*$/im;

/** The Verdict changes section of a changeset's text (trimmed), or undefined when it has none. */
export function verdictSection(text) {
  const m = HEADING.exec(text);
  if (m === null) return undefined;
  const rest = text.slice(m.index + m[0].length);
  const next = /^#{1,4}\s/m.exec(rest);
  return (next === null ? rest : rest.slice(0, next.index)).trim();
}

/** The bump a changeset's front matter gives `pkg`, or undefined. */
export function bumpOf(text, pkg) {
  const front = /^---\n([\s\S]*?)\n---/.exec(text);
  if (front === null) return undefined;
  const line = front[1]
    .split('\n')
    .map((l) => /^\s*["']?([^"':]+)["']?\s*:\s*(\w+)/.exec(l))
    .find((m) => m !== null && m[1] === pkg);
  return line?.[2];
}

/** Whether a Verdict changes section says none changed. */
const declaresNone = (section) => /^none\b/i.test(section);

function git(root, args) {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
}

/** The last release: the last commit that changed conformance/package.json's version. */
function lastRelease(root) {
  const hit = git(root, [
    'log',
    '-1',
    '--format=%H',
    '-G',
    '"version"',
    '--',
    'conformance/package.json',
  ]);
  return hit !== '' ? hit : git(root, ['rev-list', '--max-parents=0', 'HEAD']).split('\n')[0];
}

/**
 * The problems of the range `base`..working tree under the policy, one line each (empty: it
 * holds): verdict files changed without a changeset declaring, sections that name a change
 * without a major bump.
 */
export function policyProblems(root, base) {
  const changed = git(root, ['diff', '--name-only', base, '--'])
    .split('\n')
    .concat(git(root, ['ls-files', '--others', '--exclude-standard']).split('\n'))
    .filter((f) => f !== '');
  const verdictFiles = changed.filter((f) => VERDICT_PATHS.some((p) => f.startsWith(p)));
  const changesets = changed.filter(
    (f) =>
      /^\.changeset\/[^/]+\.md$/.test(f) && !f.endsWith('README.md') && existsSync(join(root, f)),
  );
  const problems = [];
  const declaring = [];
  for (const f of changesets) {
    const text = readFileSync(join(root, f), 'utf8');
    const section = verdictSection(text);
    if (section === undefined) continue;
    declaring.push(f);
    if (section === '')
      problems.push(`${f}: the Verdict changes section is empty: write "None" or the change`);
    else if (!declaresNone(section) && bumpOf(text, '@tagtrack/conformance') !== 'major')
      problems.push(
        `${f}: its Verdict changes section names a change, so it must bump "@tagtrack/conformance": major (it has ${bumpOf(text, '@tagtrack/conformance') ?? 'none'})`,
      );
  }
  if (verdictFiles.length > 0 && declaring.length === 0)
    problems.push(
      `${verdictFiles.length} file${verdictFiles.length === 1 ? '' : 's'} that decide verdicts changed since ${base.slice(0, 12)} (${verdictFiles.slice(0, 5).join(', ')}${verdictFiles.length > 5 ? ', …' : ''}), and no changeset of the change says whether verdicts changed: add one (pnpm changeset) with a "### Verdict changes" section, "None" or the change (then "@tagtrack/conformance": major)`,
    );
  return problems;
}

/** The changesets pending in `.changeset/` with their Verdict changes sections. */
function pendingSections(root) {
  const dir = join(root, '.changeset');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .map((f) => ({ file: f, section: verdictSection(readFileSync(join(dir, f), 'utf8')) }));
}

/** Writes the Verdict changes heading into the newest release of each CHANGELOG.md. */
function writeVerdictHeadings(root, sections) {
  const named = sections.filter((s) => s.section !== undefined && !declaresNone(s.section));
  const body =
    named.length === 0
      ? 'None.'
      : named.map((s) => `- ${s.section.replace(/\n(?!\s*$)/g, '\n  ')}`).join('\n');
  for (const dir of [
    'packages/core',
    'packages/dataset',
    'packages/engine',
    'apps/server',
    'apps/client',
    'conformance',
  ]) {
    const file = join(root, dir, 'CHANGELOG.md');
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const m = /^## .+$/m.exec(text);
    if (m === null) continue;
    const at = m.index + m[0].length;
    const after = text.slice(at);
    if (/^\s*### Verdict changes/.test(after)) continue;
    writeFileSync(file, `${text.slice(0, at)}\n\n### Verdict changes\n\n${body}\n${after}`);
  }
}

function main(argv) {
  const [command, ...rest] = argv;
  const opt = (name) => {
    const i = rest.indexOf(name);
    return i < 0 ? undefined : rest[i + 1];
  };
  const root = opt('--root') ?? fileURLToPath(new URL('..', import.meta.url));
  if (command === 'check') {
    let base;
    try {
      base = opt('--base') ?? process.env.RELEASE_BASE ?? lastRelease(root);
      git(root, ['rev-parse', '--verify', `${base}^{commit}`]);
    } catch (e) {
      process.stderr.write(
        `verdict-changes: cannot read the base of the release (${e.message.split('\n')[0]})\n`,
      );
      return 2;
    }
    const problems = policyProblems(root, base);
    for (const p of problems) process.stderr.write(`verdict-changes: ${p}\n`);
    if (problems.length === 0) process.stdout.write('verdict changes: declared\n');
    return problems.length === 0 ? 0 : 1;
  }
  if (command === 'version') {
    const sections = pendingSections(root);
    const res = spawnSync('changeset', ['version'], { cwd: root, stdio: 'inherit', shell: true });
    if (res.status !== 0) return res.status ?? 1;
    writeVerdictHeadings(root, sections);
    return 0;
  }
  process.stderr.write('usage: verdict-changes.mjs check [--base REF] [--root DIR] | version\n');
  return 2;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv.slice(2));
