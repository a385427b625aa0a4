#!/usr/bin/env node
/**
 * The API report of each library under packages/ (core, dataset, engine; CONVENTIONS "Packages
 * by purpose": a library's surface is committed and reviewed when it changes; the apps and
 * the suite may follow): `<package>/api-report.md` lists, per
 * entry of its `exports` map with a `@tagtrack/source` condition, every exported name and
 * what it is (`function`, `class`, `const`, `type`, `interface`, `enum`, `namespace`; a zod
 * schema is `const + type`). Read from the sources with the TypeScript compiler.
 *
 * Usage: `pnpm api-report` writes the reports; `pnpm api-report -- --check` writes nothing and
 * exits 1 when a committed report differs (a surface changed without its report).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { publicPackages, ROOT } from './packages.mjs';

const check = process.argv.slice(2).includes('--check');

/** What a symbol is, in words: the kinds of its declarations joined by ` + `. */
function kindOf(checker, symbol) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const kinds = new Set();
  for (const d of target.declarations ?? []) {
    if (ts.isFunctionDeclaration(d)) kinds.add('function');
    else if (ts.isClassDeclaration(d)) kinds.add('class');
    else if (ts.isVariableDeclaration(d)) kinds.add('const');
    else if (ts.isInterfaceDeclaration(d)) kinds.add('interface');
    else if (ts.isTypeAliasDeclaration(d)) kinds.add('type');
    else if (ts.isEnumDeclaration(d)) kinds.add('enum');
    else if (ts.isModuleDeclaration(d)) kinds.add('namespace');
    else kinds.add(ts.SyntaxKind[d.kind]);
  }
  return [...kinds].join(' + ');
}

async function reportOf(pkg, program) {
  const checker = program.getTypeChecker();
  const manifest = JSON.parse(await readFile(join(ROOT, pkg.dir, 'package.json'), 'utf8'));
  const lines = [
    `# API report: ${pkg.name}`,
    '',
    '<!-- Written by scripts/api-report.mjs (`pnpm api-report`); review its diff, do not edit. -->',
  ];
  for (const [entry, target] of Object.entries(manifest.exports ?? {})) {
    const source = typeof target === 'object' ? target['@tagtrack/source'] : undefined;
    if (source === undefined) continue;
    const file = program.getSourceFile(join(ROOT, pkg.dir, source));
    if (!file) throw new Error(`${pkg.name}: ${source} is not in the program`);
    const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(file));
    const name = entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`;
    lines.push('', `## \`${name}\` (${exports.length} names)`, '');
    for (const s of exports.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      lines.push(`- \`${s.name}\`: ${kindOf(checker, s)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const packages = (await publicPackages()).filter((p) => p.dir.startsWith('packages/'));
const roots = [];
for (const pkg of packages) {
  const manifest = JSON.parse(await readFile(join(ROOT, pkg.dir, 'package.json'), 'utf8'));
  for (const target of Object.values(manifest.exports ?? {})) {
    const source = typeof target === 'object' ? target['@tagtrack/source'] : undefined;
    if (source !== undefined) roots.push(join(ROOT, pkg.dir, source));
  }
}
const config = ts.getParsedCommandLineOfConfigFile(
  join(ROOT, 'tsconfig.base.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);
const program = ts.createProgram(roots, { ...config.options, noEmit: true, types: ['node'] });
let stale = 0;
for (const pkg of packages) {
  const path = join(ROOT, pkg.dir, 'api-report.md');
  const text = await reportOf(pkg, program);
  const same = existsSync(path) && (await readFile(path, 'utf8')) === text;
  if (check) {
    if (!same) {
      stale++;
      console.error(`${pkg.dir}/api-report.md is out of date: run \`pnpm api-report\``);
    } else console.log(`${pkg.dir}/api-report.md is up to date`);
  } else if (!same) {
    await writeFile(path, text);
    console.log(`${pkg.dir}/api-report.md written`);
  } else console.log(`${pkg.dir}/api-report.md unchanged`);
}
process.exitCode = stale === 0 ? 0 : 1;
