import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { create } from 'xmlbuilder2';
import { formatSummary } from '../src/reporters/console.ts';
import { ResultsJson, toResultsJson, writeReports } from '../src/reporters/index.ts';
import type { RunResult } from '../src/runner.ts';
import { runInMemory, team1Admin } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';

let result: RunResult;
let dir: string;

beforeAll(async () => {
  // a run with real failures: the tablet fault breaks the device counters (found by a sweep),
  // the isOpened fault the filter relation (found by a property, with seed and counterexample)
  result = await runInMemory(
    { faults: ['tablet-not-mobile', 'ignore-is-opened'] },
    {
      only: 'REL-TAG-COUNTERS-EVENTS,REL-FILTER-CONJUNCTION,AUTH-401-MISSING,SCHEMA-JSON-ENVELOPE,RATE',
      numRuns: 20,
    },
  );
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-reports-'));
  await writeReports(result, dir);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reporters', () => {
  test('results.json conforms to the ResultsJson schema and carries the failure with seed and a reproduce line', async () => {
    const json = ResultsJson.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
    expect(json.ok).toBe(false);
    const failed = json.checks.find((c) => c.id === 'REL-TAG-COUNTERS-EVENTS')!;
    expect(failed.status).toBe('fail');
    const f = failed.failures[0]!;
    expect(f.message).toMatch(
      /tag \w+: mobile(Opens|Clicks) \d+, but \d+ of its (opens|clicks) are from a mobile or tablet/,
    );
    const property = json.checks.find((c) => c.id === 'REL-FILTER-CONJUNCTION')!.failures[0]!;
    expect(property.message).toMatch(/isOpened/);
    expect(property.seed).toBeTypeOf('number');
    expect(JSON.parse(property.counterexample!)).toHaveProperty('filters');
    expect(f.reproduce).toMatch(
      /^tagtrack-conformance request GET '\/[^']*' --base-url 'http:\/\/tagtrack\.memory' --credential '[\w-]+'$/,
    );
    expect(f.curl).toBeUndefined();
    expect(json.checks.find((c) => c.id === 'RATE-429-HEADERS')!.status).toBe('skip');
    expect(JSON.stringify(json)).not.toContain(team1Admin.accessKey);
  });

  test('junit.xml parses, with one testcase per check and a failure element for the failing one', async () => {
    const xml = await readFile(join(dir, 'junit.xml'), 'utf8');
    const doc = create(xml).end({ format: 'object' }) as Record<string, unknown>;
    expect(doc).toHaveProperty('testsuites');
    const testcases = xml.match(/<testcase /g) ?? [];
    expect(testcases).toHaveLength(result.checks.length);
    expect(xml).toMatch(/<failure message="tag [^"]*: mobile(Opens|Clicks) \d+/);
    expect(xml).toMatch(/<skipped message="the profile declares no rate limit"/);
  });

  test('the console summary names the failing requirement in domain words and the verdict', () => {
    const text = formatSummary(result);
    expect(text).toContain('FAIL REL-TAG-COUNTERS-EVENTS');
    expect(text).toMatch(/reproduce: tagtrack-conformance request GET /);
    expect(text).toMatch(/fast-check: seed -?\d+/);
    expect(text.trim().endsWith('FAIL')).toBe(true);
  });

  test('exchanges name the signing credential by its label; report.html shows no signed value', async () => {
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    const shown = result.exchanges.map((x) => x.requestHeaders.authorization).filter(Boolean);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toContain(`<credential ${team1Admin.label}>`);
    expect(html).not.toContain(team1Admin.accessKey);
    expect(html).not.toMatch(/authorization: [A-Za-z0-9+/]{20,}/);
  });

  test.skipIf(!existsSync(CHROMIUM))(
    'report.html opens in headless Chromium and shows the summary and the coverage matrix',
    async () => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      });
      try {
        const page = await browser.newPage();
        await page.goto(`file://${join(dir, 'report.html')}`);
        expect(await page.title()).toBe('tagtrack conformance report: FAIL');
        const summary = page.locator('#summary');
        expect(await summary.isVisible()).toBe(true);
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a reader sees
        expect(await summary.innerText()).toContain('FAIL: some required checks did not pass');
        expect(await page.locator('#summary table tr').count()).toBeGreaterThan(2);
        expect(await page.locator('table.matrix tr').count()).toBe(result.checks.length + 1);
        expect(await page.locator('details').count()).toBe(result.exchanges.length);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});

test('toResultsJson leaves out the exchanges but counts them', () => {
  const json = toResultsJson(result);
  expect(json.exchangeCount).toBe(result.exchanges.length);
  expect(json).not.toHaveProperty('exchanges');
});
