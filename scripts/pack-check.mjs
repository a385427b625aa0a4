#!/usr/bin/env node
/**
 * Pack-and-install check (run by .ci/run; `pnpm pack:check`). Packs every public package
 * (`prepack` builds dist/), lints the tarballs with publint, installs them with npm in a fresh
 * temporary project (no workspace links, no build step of its own) and runs what a user runs:
 * - every bin with `--version` (the package's version) and `--help`;
 * - `tagtrack-server --engine pglite` (the SQL engine's files and PGlite shipped), and the
 *   suite in fixture mode passing against it;
 * - `tagtrack-server` on a free port, then `tagtrack-conformance run --mode fixture` against
 *   it with a custom check (`--checks`; must pass, exit 0, the check in every report) and
 *   against a second server started with a `--fault` (the check detecting it and the
 *   shipped vendor example must fail, exit 1);
 * - `tagtrack` (the client) with one request (`teams list`), answered with JSON records;
 * - a strict TypeScript check (`module: nodenext`) of a file importing core's, dataset's,
 *   engine's, client's, conformance's and server's types and core's `./openapi.json` export;
 * - the installed @tagtrack/conformance neither depends on nor imports @tagtrack/server.
 * Prints the tarball sizes, the installed size and the time taken. Exit 0 when all passed,
 * 1 otherwise. Credentials are passed through the environment and never printed.
 *
 * dist/ directories that did not exist before are removed at the end.
 *
 * Options: `--keep` leaves the temporary directory in place (its path is printed).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatSize, packAll, publicPackages, ROOT, run, treeSize } from './packages.mjs';

const { values: flags } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });

const started = Date.now();
const failures = [];

/** Seconds per section, in order (printed at the end: where the time goes). */
const phases = [];
let phase = { name: '', start: started };

/** Starts a section of the output (and of the time table). */
function section(name) {
  const now = Date.now();
  if (phase.name) phases.push([phase.name, (now - phase.start) / 1000]);
  phase = { name, start: now };
  process.stdout.write(`== ${name}\n`);
}

/** Records a failed expectation (the run goes on, so one report lists every problem). */
function expect(ok, what, detail = '') {
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${what}\n`);
  if (!ok) {
    failures.push(what);
    if (detail) process.stdout.write(`${detail.trim().replace(/^/gm, '     | ')}\n`);
  }
  return ok;
}

/**
 * Starts an installed `tagtrack-server` on a free port of 127.0.0.1 and resolves once it
 * printed its URL, with the admin credential of team 1 parsed from the banner (kept out of
 * the output). The caller stops it with `stop()`.
 */
function startServer(bin, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['--port', '0', '--quiet', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tagtrack-server printed no URL in 30 s: ${stderr}`));
    }, 30_000);
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.on('data', (d) => {
      stdout += d;
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      const admin = /^\s+\S*admin\S*\tauthId=(\S+)\taccessKey=(\S+)$/m.exec(stdout);
      if (url && admin && stdout.includes('OpenAPI document')) {
        clearTimeout(timer);
        const exited = new Promise((r) => child.once('close', r));
        resolve({
          url,
          authId: admin[1],
          accessKey: admin[2],
          banner: stdout,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`tagtrack-server exited with ${code} before listening: ${stderr}`));
    });
  });
}

/** An import of @tagtrack/server: static (`from '…'`), dynamic (`import('…')`) or bare. */
const SERVER_IMPORT = /(?:from\s*|import\s*\(\s*|import\s+)['"]@tagtrack\/server(?:\/[^'"]*)?['"]/;

/** The JavaScript and declaration files under `dir` that import @tagtrack/server (relative paths). */
async function serverImporters(dir, prefix = '') {
  const hits = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') {
        hits.push(...(await serverImporters(path, `${prefix}${entry.name}/`)));
      }
    } else if (
      /\.(?:m?js|d\.m?ts)$/.test(entry.name) &&
      SERVER_IMPORT.test(await readFile(path, 'utf8'))
    ) {
      hits.push(`${prefix}${entry.name}`);
    }
  }
  return hits;
}

/** A custom check for `--checks` (it passes against the reference server). */
const CUSTOM_CHECKS = `// A check of one's own for tagtrack-conformance --checks (written by scripts/pack-check.mjs).
import { defineCheck, Violation } from '@tagtrack/conformance';

export const checks = [
  defineCheck({
    id: 'PACKCHECK-TOTAL-COUNT',
    title: 'GET /teams answers 200 with X-Total-Count',
    clause: 'scripts/pack-check.mjs',
    endpoints: ['teams.list'],
    async run(ctx) {
      const x = await ctx.call('teams.list');
      ctx.compared();
      if (x.status !== 200 || x.responseHeaders['x-total-count'] === undefined) {
        throw new Violation(\`GET /teams answered \${x.status} without X-Total-Count\`, {
          kind: 'header',
          exchange: x,
        });
      }
    },
  }),
];
`;

/** The status of check `id` in the results.json at `file`, or undefined. */
async function statusIn(file, id) {
  try {
    const results = JSON.parse(await readFile(file, 'utf8'));
    return results.checks.find((c) => c.id === id)?.status;
  } catch {
    return undefined;
  }
}

const CHECK_TS = `// Strict nodenext import of the published types (written by scripts/pack-check.mjs).
import { type Tag, type StatsSummary, authorizationHeader, openApiDocument } from '@tagtrack/core';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { generateDataset } from '@tagtrack/dataset';
import { buildIndex } from '@tagtrack/engine';
import type { TagtrackClient } from '@tagtrack/client';
import { runConformance } from '@tagtrack/conformance';
import { createServer } from '@tagtrack/server';
import openapi from '@tagtrack/core/openapi.json' with { type: 'json' };
import corePackage from '@tagtrack/core/package.json' with { type: 'json' };

const tag: Tag['stats'] = {
  totalOpens: 0, uniqueOpens: 0, totalClicks: 0, uniqueClicks: 0,
  desktopOpens: 0, mobileOpens: 0, desktopClicks: 0, mobileClicks: 0,
};
const stats: StatsSummary['uniqueOpens'] = tag.uniqueOpens;
const header: string = authorizationHeader('id', 'key', '');
const version: string = openapi.openapi + corePackage.version;
const title: unknown = openApiDocument().info;
const first = CANONICAL_CREDENTIALS[0];
const index = buildIndex(generateDataset({ seed: 1, scale: 'tiny' }));
export const used = [stats, header, version, title, first, index, runConformance, createServer];
export type Client = TagtrackClient;
`;

const TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    resolveJsonModule: true,
    noEmit: true,
    skipLibCheck: false,
    types: ['node'],
  },
  files: ['check.ts'],
};

async function main() {
  const work = await mkdtemp(join(tmpdir(), 'tagtrack-pack-'));
  // dist/ directories the packing creates are removed at the end: a checkout runs sources,
  // and a dist/ left behind would only go stale.
  const builtHere = (await publicPackages())
    .map((p) => join(ROOT, p.dir, 'dist'))
    .filter((dist) => !existsSync(dist));
  try {
    const tarballs = join(work, 'tarballs');
    const project = join(work, 'project');
    await mkdir(tarballs);
    await mkdir(project);

    section('pack: pnpm pack, whose prepack builds dist/');
    const packages = await packAll(tarballs);

    section('publint: --strict on each tarball');
    const publint = join(ROOT, 'node_modules/.bin/publint');
    for (const p of packages) {
      const res = await run(publint, ['--strict', p.tarball]);
      expect(res.code === 0, `publint ${p.name}`, res.stdout + res.stderr);
    }

    section('install: npm install of the tarballs in a fresh project');
    await writeFile(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'tagtrack-pack-check', private: true, type: 'module' }, null, 2)}\n`,
    );
    const install = await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--no-package-lock',
        '--loglevel=error',
        ...packages.map((p) => p.tarball),
      ],
      { cwd: project },
    );
    if (
      !expect(install.code === 0, `npm install of the ${packages.length} tarballs`, install.stderr)
    )
      return;
    const installed = await treeSize(join(project, 'node_modules'));
    const bin = (name) => join(project, 'node_modules/.bin', name);

    section('bins: --version and --help');
    for (const p of packages) {
      for (const name of Object.keys(p.bin)) {
        const v = await run(bin(name), ['--version'], { cwd: project });
        expect(
          v.code === 0 && v.stdout.trim() === p.version,
          `${name} --version prints ${p.version}`,
          v.stdout + v.stderr,
        );
        const h = await run(bin(name), ['--help'], { cwd: project });
        expect(h.code === 0 && h.stdout.includes('Usage:'), `${name} --help`, h.stdout + h.stderr);
      }
    }

    section('independence: the conformance package does not need the server');
    const conformanceDir = join(project, 'node_modules/@tagtrack/conformance');
    const manifest = JSON.parse(await readFile(join(conformanceDir, 'package.json'), 'utf8'));
    expect(
      !('@tagtrack/server' in { ...manifest.dependencies, ...manifest.peerDependencies }),
      '@tagtrack/conformance has no (peer) dependency on @tagtrack/server',
    );
    const importers = await serverImporters(conformanceDir);
    expect(
      importers.length === 0,
      'no published module of @tagtrack/conformance imports @tagtrack/server',
      importers.join('\n'),
    );

    section('runs: tagtrack-server, tagtrack-conformance, tagtrack');
    const faults = await run(bin('tagtrack-server'), ['--list-faults'], { cwd: project });
    // `NAME<TAB>LAYER<TAB>DESCRIPTION<TAB>detected by ID, ...`: the first fault, a check detecting it
    const [fault, , , detected] = faults.stdout.split('\n')[0]?.split('\t') ?? [];
    const detector = /^detected by ([A-Z0-9-]+)/.exec(detected ?? '')?.[1];
    expect(
      faults.code === 0 && Boolean(fault) && Boolean(detector),
      `tagtrack-server --list-faults names a fault (${fault}) and a check detecting it (${detector})`,
    );
    await writeFile(join(project, 'custom-checks.mjs'), CUSTOM_CHECKS);
    const server = await startServer(bin('tagtrack-server'), []);
    try {
      expect(
        server.banner.includes('demo credentials'),
        `tagtrack-server serves the canonical dataset on ${server.url} and prints the demo credentials`,
      );
      const reports = join(work, 'reports');
      const pass = await run(
        bin('tagtrack-conformance'),
        [
          'run',
          '--mode',
          'fixture',
          '--num-runs',
          '3',
          '--seed',
          '1',
          '--checks',
          'custom-checks.mjs',
          '--report-dir',
          reports,
        ],
        { cwd: project, env: { TAGTRACK_BASE_URL: server.url } },
      );
      expect(
        pass.code === 0,
        'tagtrack-conformance run --mode fixture --checks custom-checks.mjs passes (exit 0)',
        pass.stdout + pass.stderr,
      );
      const written = await readdir(reports).catch(() => []);
      expect(
        ['results.json', 'junit.xml', 'report.html'].every((f) => written.includes(f)),
        `the run wrote results.json, junit.xml and report.html (${written.join(', ')})`,
      );
      const reported = await Promise.all(
        ['junit.xml', 'report.html'].map((f) =>
          readFile(join(reports, f), 'utf8').then(
            (text) => text.includes('PACKCHECK-TOTAL-COUNT'),
            () => false,
          ),
        ),
      );
      expect(
        (await statusIn(join(reports, 'results.json'), 'PACKCHECK-TOTAL-COUNT')) === 'pass' &&
          reported.every(Boolean),
        'the custom check PACKCHECK-TOTAL-COUNT passed and is in results.json, junit.xml and report.html',
      );
      const client = await run(bin('tagtrack'), ['teams', 'list', '--output', 'json'], {
        cwd: project,
        env: {
          TAGTRACK_BASE_URL: server.url,
          TAGTRACK_AUTH_ID: server.authId,
          TAGTRACK_ACCESS_KEY: server.accessKey,
        },
      });
      let members = [];
      try {
        const body = JSON.parse(client.stdout);
        members = Array.isArray(body) ? body : (body.data ?? []);
      } catch {}
      expect(
        client.code === 0 && members.length > 0 && typeof members[0]?.memberID === 'string',
        `tagtrack teams list answers ${members.length} members`,
        client.stderr,
      );
    } finally {
      await server.stop();
    }
    // the SQL engine from the installed tarballs: its sql/ files and PGlite must ship
    const sqlServer = await startServer(bin('tagtrack-server'), ['--engine', 'pglite']);
    try {
      expect(
        sqlServer.banner.includes('engine: pglite'),
        `tagtrack-server --engine pglite serves the canonical dataset from PGlite on ${sqlServer.url}`,
        sqlServer.banner,
      );
      const sqlRun = await run(
        bin('tagtrack-conformance'),
        ['run', '--mode', 'fixture', '--num-runs', '3', '--seed', '1', '--quiet'],
        { cwd: project, env: { TAGTRACK_BASE_URL: sqlServer.url } },
      );
      expect(
        sqlRun.code === 0,
        'tagtrack-conformance run --mode fixture passes against tagtrack-server --engine pglite (exit 0)',
        sqlRun.stdout + sqlRun.stderr,
      );
    } finally {
      await sqlServer.stop();
    }
    if (fault && detector) {
      const faulty = await startServer(bin('tagtrack-server'), ['--fault', fault]);
      try {
        // the check detecting the fault, and the shipped vendor example (the reference server
        // sends no X-Vendor-Version, so it fails too)
        const example = join(
          project,
          'node_modules/@tagtrack/conformance/examples/vendor-version-header.mjs',
        );
        const faultReports = join(work, 'fault-reports');
        const fail = await run(
          bin('tagtrack-conformance'),
          [
            'run',
            '--mode',
            'fixture',
            '--num-runs',
            '3',
            '--seed',
            '1',
            '--only',
            `${detector},ACME-VERSION-HEADER`,
            '--checks',
            example,
            '--report-dir',
            faultReports,
          ],
          { cwd: project, env: { TAGTRACK_BASE_URL: faulty.url } },
        );
        const results = join(faultReports, 'results.json');
        expect(
          fail.code === 1 && (await statusIn(results, detector)) === 'fail',
          `tagtrack-conformance fails against --fault ${fault}: ${detector} fails, exit ${fail.code} (expected 1)`,
          fail.stdout + fail.stderr,
        );
        expect(
          (await statusIn(results, 'ACME-VERSION-HEADER')) === 'fail',
          'the shipped example check (examples/vendor-version-header.mjs) runs and fails there',
        );
      } finally {
        await faulty.stop();
      }
    }

    section('tsc: strict TypeScript import (module nodenext)');
    await writeFile(join(project, 'check.ts'), CHECK_TS);
    await writeFile(join(project, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
    // The monorepo's own TypeScript and @types/node: the temporary project installs only the
    // tarballs (and their dependencies).
    const require = createRequire(join(ROOT, 'package.json'));
    const tsc = require.resolve('typescript/bin/tsc');
    const typeRoots = [join(ROOT, 'node_modules/@types')];
    const tscRun = await run(
      process.execPath,
      [tsc, '-p', 'tsconfig.json', '--typeRoots', typeRoots.join(',')],
      { cwd: project },
    );
    expect(
      tscRun.code === 0,
      'tsc --noEmit (strict, nodenext) of the published types',
      tscRun.stdout,
    );

    section('sizes: tarballs and installed size');
    for (const p of packages) {
      process.stdout.write(`  ${p.name}@${p.version}\ttarball ${formatSize(p.size)}\n`);
    }
    const total = packages.reduce((s, p) => s + p.size, 0);
    process.stdout.write(`  tarballs together ${formatSize(total)}\n`);
    process.stdout.write(
      `  installed node_modules (${packages.length} packages and dependencies) ${formatSize(installed)}\n`,
    );
  } finally {
    await Promise.all(builtHere.map((dist) => rm(dist, { recursive: true, force: true })));
    if (flags.keep) process.stdout.write(`kept ${work}\n`);
    else await rm(work, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (e) {
  failures.push(String(e));
  process.stderr.write(`pack-check: ${e instanceof Error ? e.message : e}\n`);
}
section('done');
process.stdout.write(
  `time per section: ${phases.map(([name, s]) => `${name.split(':')[0]} ${s.toFixed(0)} s`).join(', ')}\n`,
);
const seconds = ((Date.now() - started) / 1000).toFixed(0);
process.stdout.write(
  failures.length === 0
    ? `pack-check passed in ${seconds} s\n`
    : `pack-check FAILED (${failures.length}) in ${seconds} s:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`,
);
process.exitCode = failures.length === 0 ? 0 : 1;
