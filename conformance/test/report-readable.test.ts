import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bodyView, pathInMessage, prettyJson, WINDOW_CONTEXT } from '../src/report/body.ts';
import { formatSummary } from '../src/report/console.ts';
import {
  countsOf,
  failedChecks,
  MARKDOWN_MAX_CHARS,
  mdCode,
  ResultsJson,
  rerunCommand,
  skipGroupOf,
  toHtml,
  toJUnit,
  toMarkdown,
  toResultsJson,
  verdictOf,
  writeReports,
} from '../src/report/index.ts';
import type { CheckResult, RunResult } from '../src/run/runner.ts';
import { type FaultName, runInMemory, team1Admin } from './helpers.ts';

/** Reports a person reads (verdict, index, bodies, Markdown summary). */

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Faults of the reference server that together fail 20 and more requirements. */
const MANY_FAULTS: FaultName[] = [
  'tablet-not-mobile',
  'ignore-is-opened',
  'scope-leak-team',
  'html-unescaped',
  'end-day-exclusive',
  'page-overlap',
  'unknown-param-ignored',
  'json-content-type-text',
  'aggregate-drops-record',
  'unique-opens-as-total',
];

let expected: RunResult;
let blind: RunResult;

beforeAll(async () => {
  // one check failing as listed, one passing
  expected = await runInMemory(
    { faults: ['unknown-param-ignored'] },
    {
      only: 'INPUT-400-UNKNOWN-PARAM,INPUT-400-BAD-ENUM',
      expectedFailures: [{ id: 'INPUT-400-UNKNOWN-PARAM', reason: 'typos accepted' }],
    },
  );
  blind = await runInMemory(
    {},
    {
      mode: 'blind',
      profile: undefined,
      authId: team1Admin.authId,
      accessKey: team1Admin.accessKey,
      numRuns: 2,
    },
  );
});

describe('an expected failure is counted apart from the failures in every format', () => {
  test('run summary and results.json: fail 0, expectedFailures 1, the counts add up to the checks', () => {
    expect(expected.ok).toBe(true);
    expect(expected.summary).toMatchObject({ pass: 1, fail: 0, error: 0, expectedFailures: 1 });
    const json = ResultsJson.parse(JSON.parse(JSON.stringify(toResultsJson(expected))));
    expect(json.summary).toMatchObject({ pass: 1, fail: 0, error: 0, expectedFailures: 1 });
    const s = json.summary;
    expect(s.pass + s.fail + s.error + s.skip + (s.inconclusive ?? 0) + s.expectedFailures).toBe(
      json.checks.length,
    );
    expect(countsOf(expected)).toMatchObject({ fail: 0, expectedFailures: 1, total: 2 });
  });

  test('console: "0 failed", the expected failure marked and not counted, then an amber PASS naming it', () => {
    const text = formatSummary(expected);
    expect(text).toMatch(
      /2 checks, 1 passed, 0 failed, 0 errors, 0 skipped, 1 expected failure \(not counted as failures\)/,
    );
    expect(text).toMatch(/^EXPECTED FAIL INPUT-400-UNKNOWN-PARAM: an unknown query parameter /m);
    expect(text).not.toContain('not checked');
    expect(text).toContain('(listed in the expected-failures file: typos accepted; not counted)');
    expect(text).not.toMatch(/^FAIL /m);
    expect(text.trim().split('\n').at(-1)).toBe(
      'PASS (fixture, 1 expected failure) under tagtrack/v1 Revision 3',
    );
  });

  test('junit.xml: no failure, the testcase skipped as type expected-failure, the count as a property', () => {
    const xml = toJUnit(expected);
    expect(xml).toMatch(
      /<testsuites name="tagtrack-conformance" tests="2" failures="0" errors="0"/,
    );
    expect(xml).not.toContain('<failure');
    expect(xml).toMatch(
      /<skipped type="expected-failure" message="expected failure: typos accepted \(GET \/[^"]+ answered 200/,
    );
    expect(xml).toContain('<property name="expectedFailures" value="1"/>');
  });

  test('report.html: a counts table with 0 failed and 1 expected failure, listed apart in the index', () => {
    const html = toHtml(expected);
    const counts = html.slice(html.indexOf('<table id="counts">'));
    const cells = [
      ...counts.slice(0, counts.indexOf('</table>')).matchAll(/<t[dh][^>]*>([^<]*)</g),
    ];
    const row = Object.fromEntries(
      cells.slice(0, cells.length / 2).map((h, i) => [h[1], cells[cells.length / 2 + i]![1]]),
    );
    expect(row).toMatchObject({ passed: '1', failed: '0', 'expected failures': '1' });
    expect(html).toContain('<p class="verdict partial">PASS (fixture, 1 expected failure)');
    expect(html).toContain('Expected failures, not counted (1 requirement)');
    expect(html).not.toContain('<section id="failures">');
    expect(html).toContain('<article class="failure xfail" id="INPUT-400-UNKNOWN-PARAM">');
  });

  test('summary.md: the counts row and a section of expected failures, no failure', () => {
    const md = toMarkdown(expected);
    expect(md.split('\n')[0]).toBe('## tagtrack conformance: PASS (fixture, 1 expected failure)');
    expect(md).toContain('| 1 | 0 | 0 | 1 | 0 | 0 | 2 |');
    expect(md).toContain('### Expected failures (1): listed, not counted');
    expect(md).toContain('**`INPUT-400-UNKNOWN-PARAM`**');
    expect(md).toContain('Expected: typos accepted');
    expect(md).not.toContain('### Failures');
  });
});

describe('the verdict says what was not checked', () => {
  test('a blind run with skips: an amber "PASS (blind, N skipped)" naming the skips by reason', () => {
    expect(blind.ok).toBe(true);
    const v = verdictOf(blind);
    const n = blind.summary.skip;
    expect(n).toBeGreaterThanOrEqual(10);
    expect(v.tone).toBe('partial');
    expect(v.label).toBe(`PASS (blind, ${n} skipped)`);
    expect(v.notChecked).toMatch(
      new RegExp(
        `^blind mode: ${n} checks skipped — 6 need fixture mode, \\d+ need more credentials, `,
      ),
    );
    const html = toHtml(blind);
    expect(html).toContain(`<p class="verdict partial">PASS (blind, ${n} skipped): `);
    expect(html).toContain(`<p class="not-checked">Not checked: blind mode: ${n} checks skipped`);
    expect(html).toContain(
      `<title>tagtrack conformance report: PASS (blind, ${n} skipped)</title>`,
    );
    expect(formatSummary(blind).trim().split('\n').at(-1)).toBe(
      `PASS (blind, ${n} skipped) under tagtrack/v1 Revision 3`,
    );
    expect(toMarkdown(blind)).toContain(`**Not checked:** blind mode: ${n} checks skipped`);
  });

  test('a pass whose only skips are ruled out by the profile is a green PASS; a fail is FAIL', () => {
    const ruledOut: RunResult = {
      ...blind,
      mode: 'fixture',
      checks: blind.checks.map((c) =>
        c.status === 'skip' ? { ...c, reason: 'the profile declares no rate limit' } : c,
      ),
    };
    const v = verdictOf(ruledOut);
    expect([v.tone, v.label]).toEqual(['pass', 'PASS']);
    expect(v.notChecked).toMatch(/checks skipped — \d+ do not apply to the profile$/);
    expect(toHtml(ruledOut)).toContain(
      '<p class="verdict pass">PASS: every check that applies passed',
    );
    const failed = verdictOf({ ...blind, ok: false });
    expect([failed.tone, failed.label]).toEqual(['fail', 'FAIL']);
  });

  test('skip reasons are grouped by what would let the check run', () => {
    expect(skipGroupOf('fixture mode only (needs the canonical dataset loaded)')).toBe('fixture');
    expect(skipGroupOf('needs two declared credentials with different scopes')).toBe('credentials');
    expect(skipGroupOf('opt-in: run with --probe-methods')).toBe('opt-in');
    expect(skipGroupOf('off: give --max-response-time MS to check response times')).toBe('opt-in');
    expect(skipGroupOf("the profile's paging end is no-content, not empty-page")).toBe('profile');
    expect(skipGroupOf('the profile declares no rate limit')).toBe('profile');
    expect(skipGroupOf('the run sends its requests through a fetch function')).toBe('other');
  });
});

describe('bodies next to a failure', () => {
  test('prettyJson of a whole document is JSON.stringify(value, null, 2)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        (v) => prettyJson(JSON.stringify(v)).lines.join('\n') === JSON.stringify(v, null, 2),
      ),
      { numRuns: 500 },
    );
  });

  test('prettyJson of a cut document lays out the lines of the whole one, the last line partial', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (v, k) => {
        const text = JSON.stringify(v);
        const whole = prettyJson(text).lines;
        const cut = prettyJson(text.slice(0, k % (text.length + 1))).lines;
        expect(cut.slice(0, -1)).toEqual(whole.slice(0, cut.length - 1));
      }),
      { numRuns: 500 },
    );
  });

  test('prettyJson maps every path to the line its value (or key) starts on', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ memberID: fc.string(), stats: fc.record({ n: fc.nat() }) }), {
          minLength: 1,
        }),
        (records) => {
          const { lines, paths } = prettyJson(JSON.stringify({ data: records, paging: {} }));
          records.forEach((r, i) => {
            expect(lines[paths.get(`.data[${i}].memberID`)!]!.trim()).toBe(
              `"memberID": ${JSON.stringify(r.memberID)},`,
            );
            expect(lines[paths.get(`.data[${i}].stats.n`)!]!.trim()).toBe(`"n": ${r.stats.n}`);
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  test('the window is cut around the field the message names, inside the envelope, even in a cut body', () => {
    const records = Array.from({ length: 200 }, (_, i) => ({
      memberID: `m${String(i).padStart(3, '0')}`,
      firstname: 'Ada',
    }));
    const body = JSON.stringify({ data: records, paging: { cursors: { total: 200 } } });
    for (const text of [body, body.slice(0, 4000)]) {
      const view = bodyView(
        text,
        'GET /teams: they differ at [57].memberID: expected "x", got "m057"',
      );
      expect(view.json).toBe(true);
      expect(view.lines[view.mark!]!.trim()).toBe('"memberID": "m057",');
      expect([view.from, view.to]).toEqual([
        view.mark! - WINDOW_CONTEXT,
        view.mark! + WINDOW_CONTEXT + 1,
      ]);
      expect(view.lines.length).toBeGreaterThan(view.to);
    }
    expect(pathInMessage('record [0].stats.uniqueOpens: expected 3, got 6')).toBe(
      '[0].stats.uniqueOpens',
    );
    // no path: the line holding an id the message names
    const byId = bodyView(body, 'member m120 is out of order');
    expect(byId.mark).toBeUndefined();
    const hex = JSON.stringify([{ tagID: 'a'.repeat(24) }, { tagID: 'b'.repeat(24) }]);
    const tagged = bodyView(hex, `tag ${'b'.repeat(24)}: uniqueOpens 6 > 4 recipients`);
    expect(tagged.lines[tagged.mark!]).toContain('b'.repeat(24));
    // not JSON: as it came, the first lines
    const text = bodyView('a\tb\n1\t2\n', 'x');
    expect([text.json, text.lines, text.from, text.to]).toEqual([
      false,
      ['a\tb', '1\t2', ''],
      0,
      3,
    ]);
  });
});

describe('the Markdown summary', () => {
  const base = (): CheckResult => expected.checks.find((c) => c.id === 'INPUT-400-UNKNOWN-PARAM')!;

  /** A failing run of `n` made-up requirements, each with one long failure. */
  function manyFailures(n: number, message: string): RunResult {
    const c = base();
    const checks = Array.from({ length: n }, (_, i) => ({
      ...c,
      id: `MADE-UP-${i}`,
      expectedFailure: undefined,
      failures: [{ ...c.failures[0]!, message: `${message} ${i}` }],
    }));
    return { ...expected, ok: false, checks, staleExpectedFailures: [] };
  }

  test(`stays under ${MARKDOWN_MAX_CHARS} characters with a "… N more" line counting what it left out`, () => {
    const md = toMarkdown(manyFailures(400, 'x'.repeat(300)));
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    const listed = md.match(/^- \*\*`MADE-UP-\d+`\*\*/gm)!.length;
    const more = Number(/^… (\d+) more \(this summary stops at 60,000 characters\)/m.exec(md)![1]);
    expect(listed).toBeGreaterThan(50);
    expect(listed + more).toBe(400);
    // the entries kept are whole, the first ones
    expect(md).toContain('**`MADE-UP-0`**');
    expect(md).not.toContain(`**\`MADE-UP-${listed}\`**`);
    const small = toMarkdown(manyFailures(400, 'y'), { maxChars: 5_000 });
    expect(small.length).toBeLessThanOrEqual(5_000);
    expect(small).toMatch(/^… \d+ more /m);
    expect(toMarkdown(manyFailures(3, 'z'))).not.toMatch(/more \(this summary stops/);
  });

  test('escapes what the implementation wrote; holds no access key, no signature, no password', () => {
    const hostile = `<img src=x onerror=alert(1)> | *bold* \`tick\` ${team1Admin.accessKey} s3cr3t-given`;
    const run = {
      ...manyFailures(1, hostile),
      baseUrl: 'http://vendor:hunter2@api.example.test/v1',
    };
    const md = toMarkdown(run, { secrets: ['s3cr3t-given'] });
    expect(md).not.toContain('<img');
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt; \\| \\*bold\\* \\`tick\\`');
    expect(md).not.toContain(team1Admin.accessKey);
    expect(md).not.toContain('s3cr3t-given');
    expect(md).not.toContain('hunter2');
    expect(md).toContain('`http://api.example.test/v1`');
    // an access key given on the command line: the commands read it from the environment
    const given = toMarkdown(
      { ...run, rerun: { accessKey: 'argv' } },
      { secrets: ['s3cr3t-given'] },
    );
    expect(given).toContain(
      'Before running these commands: the printed commands read TAGTRACK\\_ACCESS\\_KEY',
    );
    expect(given).toContain('--access-key "${TAGTRACK_ACCESS_KEY:?'); // in a code span: as written
    expect(given).not.toContain('s3cr3t-given');
    const html = toHtml(run);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  test('a failing run: each failing requirement with its first message, reproduce line and rerun command', async () => {
    const result = await runInMemory(
      { faults: ['tablet-not-mobile', 'unknown-param-ignored'] },
      { only: 'REL-TAG-COUNTERS-EVENTS,INPUT-400-UNKNOWN-PARAM,AUTH-401-MISSING', numRuns: 5 },
    );
    const md = toMarkdown(result);
    expect(md.split('\n')[0]).toBe('## tagtrack conformance: FAIL');
    expect(md).toContain('❌ **FAIL** under tagtrack/v1 Revision 3: 2 of 3 checks did not pass');
    expect(md).toContain('| 1 | 2 | 0 | 0 | 0 | 0 | 3 |');
    for (const c of failedChecks(result)) {
      const at = md.indexOf(`- **\`${c.id}\`** `);
      expect(at).toBeGreaterThan(0);
      const next = md.indexOf('\n- **', at + 1);
      const entry = md.slice(at, next < 0 ? undefined : next);
      expect(entry).toContain(`[${c.failures[0]!.kind}] `);
      expect(entry).toContain(`reproduce: \`${c.failures[0]!.reproduce}\``);
      expect(entry).toContain(`run it again: ${mdCode(rerunCommand(result, c.id))}`);
    }
    expect(md).not.toContain(team1Admin.accessKey);
    const dir = await mkdtemp(join(tmpdir(), 'tagtrack-md-'));
    try {
      const paths = await writeReports(result, dir);
      expect(paths.map((p) => p.slice(dir.length + 1))).toContain('summary.md');
      expect(await readFile(join(dir, 'summary.md'), 'utf8')).toBe(md);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('report.html of a run with many failures', () => {
  let many: RunResult;
  let dir: string;

  beforeAll(async () => {
    many = await runInMemory({ faults: MANY_FAULTS }, { numRuns: 2 });
    dir = await mkdtemp(join(tmpdir(), 'tagtrack-readable-'));
    await writeReports(many, dir);
  }, 300_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('the index lists every failed requirement with its count, each linking to the one article of that id', async () => {
    const failing = failedChecks(many);
    expect(failing.length).toBeGreaterThanOrEqual(20);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    const index = html.slice(html.indexOf('<nav id="index">'), html.indexOf('</nav>'));
    const links = [
      ...index.matchAll(
        /<a href="#([^"]+)"><code>([^<]+)<\/code><\/a><span class="n">(\d+)<\/span>/g,
      ),
    ];
    expect(links.map((m) => m[1])).toEqual(failing.map((c) => c.id));
    for (const [, href, code, n] of links) {
      expect(code).toBe(href);
      const c = failing.find((x) => x.id === href)!;
      expect(Number(n)).toBeGreaterThanOrEqual(c.failures.length);
      expect(html.split(`id="${href}"`).length - 1).toBe(1);
      expect(html).toContain(`<article class="failure fail" id="${href}">`);
    }
    expect(html.indexOf('<nav id="index">')).toBeLessThan(html.indexOf('<section id="failures">'));
  });

  test.skipIf(!existsSync(CHROMIUM))(
    'in Chromium at 1280x800: the index on the first screen, no sideways scroll, every index link scrolls to its failure',
    async () => {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await page.goto(`file://${join(dir, 'report.html')}`);
        const index = (await page.locator('#index').boundingBox())!;
        expect(index.y).toBeGreaterThanOrEqual(0);
        expect(index.y + index.height).toBeLessThanOrEqual(800);
        const verdict = (await page.locator('.verdict').boundingBox())!;
        expect(verdict.y + verdict.height).toBeLessThanOrEqual(index.y);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          1280,
        );
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await page.screenshot({ path: '/tmp/tagtrack-report-first-screen.png' });
        await page.screenshot({ path: '/tmp/tagtrack-report-full-page.png', fullPage: true });
        const links = page.locator('#index a');
        const count = await links.count();
        expect(count).toBe(failedChecks(many).length);
        for (let i = 0; i < count; i++) {
          const link = links.nth(i);
          const id = (await link.getAttribute('href'))!.slice(1);
          await link.click();
          const box = (await page.locator(`article[id="${id}"] h3`).boundingBox())!;
          expect(box.y).toBeGreaterThanOrEqual(0);
          expect(box.y).toBeLessThan(800);
          await page.evaluate(() => window.scrollTo(0, 0));
        }
        // every window of a body is within the page's width, its marked line too
        expect(await page.locator('pre.body mark').count()).toBeGreaterThan(0);
        const size = (file: string) => {
          const png = readFileSync(file);
          return `${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`;
        };
        console.info(
          `report.html with ${count} failing requirements: ${(await readFile(join(dir, 'report.html'))).length} bytes, page ${height} px tall; ` +
            `screenshots /tmp/tagtrack-report-first-screen.png ${size('/tmp/tagtrack-report-first-screen.png')}, ` +
            `/tmp/tagtrack-report-full-page.png ${size('/tmp/tagtrack-report-full-page.png')}`,
        );
      } finally {
        await browser.close();
      }
    },
  );
});
