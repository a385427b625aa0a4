import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { createServer, type TagtrackServer } from '@tagtrack/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../src/checks/index.ts';
import { builtInChecks, defineCheck } from '../src/index.ts';
import {
  formatSummary,
  progressReporter,
  toHtml,
  toJUnit,
  toResultsJson,
} from '../src/report/index.ts';
import { ChecksError, loadChecks, validateChecks } from '../src/run/custom-checks.ts';
import type { RunResult } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, runCli, runInMemory } from './helpers.ts';

const EXAMPLE = fileURLToPath(new URL('../examples/vendor-version-header.mjs', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/tagtrack-conformance.js', import.meta.url));

/** A reference server whose every response carries `X-Vendor-Version: version`. */
function withVersionHeader(version: string) {
  const s = createServer({ publicUrl: MEMORY_BASE_URL });
  return {
    close: () => s.close(),
    fetch: async (request: Request) => {
      const res = await s.fetch(request);
      const headers = new Headers(res.headers);
      headers.set('X-Vendor-Version', version);
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    },
  };
}

let example: Awaited<ReturnType<typeof loadChecks>>;
let dir: string;

beforeAll(async () => {
  example = await loadChecks(EXAMPLE);
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-custom-checks-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the built-in checks plus the example, only the example selected. */
async function runExample(fetch?: (r: Request) => Promise<Response>): Promise<RunResult> {
  return runInMemory(
    {},
    {
      checks: [...builtInChecks, ...example],
      only: 'acme',
      ...(fetch === undefined ? {} : { fetch }),
    },
  );
}

describe('the vendor example (examples/vendor-version-header.mjs)', () => {
  test('loads as one check of its own area, acme, from its named export', () => {
    expect(example.map((c) => [c.id, c.area])).toEqual([['ACME-VERSION-HEADER', 'acme']]);
    expect(builtInChecks).toBe(ALL_CHECKS);
  });

  test('fails against the reference server, which sends no X-Vendor-Version, one failure counting the rest', async () => {
    const result = await runExample();
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([['ACME-VERSION-HEADER', 'fail']]);
    const [f, ...rest] = result.checks[0]!.failures;
    expect(rest).toEqual([]);
    expect(f!.kind).toBe('header');
    expect(f!.message).toMatch(/^GET \/teams answered 200 without x-vendor-version$/);
    expect(f!.repeats).toBe(4); // the 401, the 404 and two more lists
    expect(result.ok).toBe(false);
  });

  test('passes when every response carries a semantic version, fails on a value that is not one', async () => {
    const good = withVersionHeader('2.4.1');
    const bad = withVersionHeader('v2');
    try {
      const pass = await runExample(good.fetch);
      expect(pass.checks.map((c) => c.status)).toEqual(['pass']);
      expect(pass.ok).toBe(true);
      const fail = await runExample(bad.fetch);
      expect(fail.checks[0]!.failures[0]!.message).toMatch(
        /x-vendor-version "v2" is not a semantic version/,
      );
    } finally {
      await good.close();
      await bad.close();
    }
  });

  test('appears in every report like a built-in check: progress bars, console, results.json, junit.xml, report.html', async () => {
    const result = await runExample();
    // the live progress on a terminal: one bar per area, the vendor's area too
    let drawn = '';
    const tty = Object.assign(
      new Writable({
        write(chunk, _, done) {
          drawn += String(chunk);
          done();
        },
      }),
      { isTTY: true, columns: 120 },
    ) as unknown as NodeJS.WriteStream;
    const noColor = process.env.NO_COLOR;
    delete process.env.NO_COLOR; // bars are drawn on a terminal without NO_COLOR
    try {
      const progress = progressReporter(tty);
      progress({ type: 'start', checks: example });
      progress({ type: 'check', result: result.checks[0]! });
      progress({ type: 'end', result });
    } finally {
      if (noColor !== undefined) process.env.NO_COLOR = noColor;
    }
    expect(stripVTControlCharacters(drawn)).toMatch(/ acme +\|.*\| 1\/1 ACME-VERSION-HEADER fail/);
    const text = formatSummary(result);
    expect(text).toMatch(/│ acme\s+│ 0\s+│ 1\s+│/);
    expect(text).toContain('FAIL ACME-VERSION-HEADER: every response carries X-Vendor-Version');
    const json = toResultsJson(result);
    expect(json.checks.map((c) => [c.id, c.area, c.status])).toEqual([
      ['ACME-VERSION-HEADER', 'acme', 'fail'],
    ]);
    const xml = toJUnit(result);
    expect(xml).toMatch(/<testsuite name="acme" tests="1" failures="1"/);
    expect(xml).toContain('<testcase name="ACME-VERSION-HEADER: every response carries');
    const html = toHtml(result);
    expect(html).toMatch(/<article class="failure fail" id="ACME-VERSION-HEADER">/);
    expect(html).toContain('without x-vendor-version');
  });
});

describe('validateChecks names the check and what is wrong with it', () => {
  const run = async () => {};
  const base = { id: 'ACME-X', title: 't', clause: 'c', endpoints: ['teams.list' as const], run };
  test.each([
    ['not an array', { checks: 1 }, /checks must be an array of checks, got object/],
    [
      'no run',
      [{ ...base, run: undefined }],
      /check 1 \(ACME-X\) is not a check: .*run\(ctx\) must be a function/,
    ],
    [
      'a lower-case id',
      [{ ...base, id: 'acme-x' }],
      /check 1 \(acme-x\) is not a check: .*id must be upper-case words/,
    ],
    [
      'an unknown endpoint',
      [{ ...base, endpoints: ['teams.nope'] }],
      /check 1 \(ACME-X\) is not a check: .*endpoints/,
    ],
    [
      'a built-in id',
      [...ALL_CHECKS.slice(0, 2), { ...base, id: ALL_CHECKS[0]!.id }],
      /check 3 \(\S+\) uses the id of a built-in requirement/,
    ],
    ['an id twice', [base, { ...base }], /check 2 \(ACME-X\): two checks have the id ACME-X/],
  ])('%s', (_, checks, message) => {
    expect(() => validateChecks(checks)).toThrow(ChecksError);
    expect(() => validateChecks(checks)).toThrow(message);
  });

  test('a valid list keeps its order and gives plain objects their area', () => {
    const out = validateChecks([ALL_CHECKS[0], base, defineCheck({ ...base, id: 'REL-ACME-Y' })]);
    expect(out.map((c) => [c.id, c.area])).toEqual([
      [ALL_CHECKS[0]!.id, ALL_CHECKS[0]!.area],
      ['ACME-X', 'acme'],
      ['REL-ACME-Y', 'rel'],
    ]);
  });

  test('runConformance rejects an invalid checks option before sending a request', async () => {
    await expect(runInMemory({}, { checks: [{ ...base, run: 'no' } as never] })).rejects.toThrow(
      /check 1 \(ACME-X\) is not a check: .*run\(ctx\) must be a function/,
    );
  });
});

describe('loadChecks (--checks FILE)', () => {
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  const check = `{ id: 'ACME-Y', title: 't', clause: 'c', endpoints: [], async run() {} }`;

  test('a default export works as a named one', async () => {
    const path = await file('default.mjs', `export default [${check}];`);
    expect((await loadChecks(path)).map((c) => c.id)).toEqual(['ACME-Y']);
  });

  test.each([
    ['missing.mjs', undefined, /--checks \S+missing\.mjs: no such file/],
    ['none.mjs', 'export const other = 1;', /exports no checks: export an array named `checks`/],
    ['empty.mjs', 'export const checks = [];', /exports an empty list/],
    ['object.mjs', `export const checks = ${check};`, /must be an array of checks, got object/],
    ['syntax.mjs', 'export const checks = [;', /cannot import it: /],
  ])('%s is refused with a clear error', async (name, text, message) => {
    const path = text === undefined ? join(dir, name) : await file(name, text);
    await expect(loadChecks(path)).rejects.toThrow(ChecksError);
    await expect(loadChecks(path)).rejects.toThrow(message);
  });
});

/** The CLI with --checks: the example through the real bin (node imports the file), the rest in process. */
describe('the CLI with --checks', () => {
  let server: TagtrackServer;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer();
    baseUrl = await server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.close();
  });

  function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('TAGTRACK_')),
    );
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: { ...env, NO_COLOR: '1' } as Record<string, string>,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  test('runs the example next to the built-in checks and lists it in every report', async () => {
    const reports = join(dir, 'reports');
    const out = await cli([
      'run',
      '--base-url',
      baseUrl,
      '--mode',
      'fixture',
      '--only',
      'acme,AUTH-401-MISSING',
      '--checks',
      EXAMPLE,
      '--report-dir',
      reports,
      '--har',
      join(reports, 'exchanges.har'),
    ]);
    expect(out.stderr).not.toMatch(/tagtrack-conformance: /);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('FAIL ACME-VERSION-HEADER');
    const json = JSON.parse(await readFile(join(reports, 'results.json'), 'utf8'));
    expect(json.checks.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['AUTH-401-MISSING', 'pass'],
      ['ACME-VERSION-HEADER', 'fail'],
    ]);
    expect(await readFile(join(reports, 'junit.xml'), 'utf8')).toContain('<testsuite name="acme"');
    expect(await readFile(join(reports, 'report.html'), 'utf8')).toContain(
      'id="ACME-VERSION-HEADER"',
    );
    const har = JSON.parse(await readFile(join(reports, 'exchanges.har'), 'utf8'));
    expect(har.log.entries.length).toBe(json.exchangeCount);
  });

  test('requirements --checks lists the checks of your own after the built-in ones', async () => {
    const out = await runCli(['requirements', '--json', '--checks', EXAMPLE], { NO_COLOR: '1' });
    expect(out.code).toBe(0);
    const rows = JSON.parse(out.stdout) as { id: string; area: string; endpoints: string[] }[];
    expect(rows.map((r) => r.id)).toEqual([...ALL_CHECKS.map((c) => c.id), 'ACME-VERSION-HEADER']);
    expect(rows.at(-1)).toMatchObject({
      area: 'acme',
      endpoints: ['teams.list', 'teams.tags', 'contacts.list'],
    });
  });

  test('a file that is not a module of checks exits 2 naming the file and the problem', async () => {
    const path = join(dir, 'bad-checks.mjs');
    await writeFile(
      path,
      `export const checks = [{ id: 'AUTH-401-MISSING', title: 't', clause: 'c', endpoints: [], async run() {} }];`,
    );
    const out = await runCli(['run', '--base-url', baseUrl, '--checks', path], { NO_COLOR: '1' });
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      `tagtrack-conformance: --checks ${path}: check 1 (AUTH-401-MISSING) uses the id of a built-in requirement; give it an id of your own, with your own prefix (e.g. ACME-VERSION-HEADER)\n`,
    );
  });
});
