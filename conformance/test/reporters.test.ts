import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeText } from 'entities';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { create } from 'xmlbuilder2';
import * as z from 'zod';
import { formatSummary } from '../src/report/console.ts';
import {
  ResultsJson,
  rerunCommand,
  toHar,
  toHtml,
  toJUnit,
  toResultsJson,
  writeHar,
  writeReports,
} from '../src/report/index.ts';
import { VERSION } from '../src/report/version.ts';
import type { RunResult } from '../src/run/runner.ts';
import { runInMemory, team1Admin } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * The HAR 1.2 fields a reader (a browser's network panel, a HAR viewer) requires, from the
 * specification (http://www.softwareishard.com/blog/har-12-spec/), written independently of
 * the exporter: `log.version`, `creator`, entries with request, response, cache and timings.
 */
const Pair = z.object({ name: z.string(), value: z.string() }).strict();
const HarSchema = z.object({
  log: z.object({
    version: z.literal('1.2'),
    creator: z.object({ name: z.string().min(1), version: z.string().min(1) }),
    entries: z.array(
      z.object({
        startedDateTime: z.iso.datetime({ offset: true }),
        time: z.number().nonnegative(),
        request: z.object({
          method: z.string(),
          url: z.url(),
          httpVersion: z.string(),
          cookies: z.array(z.unknown()),
          headers: z.array(Pair),
          queryString: z.array(Pair),
          headersSize: z.int(),
          bodySize: z.int(),
        }),
        response: z.object({
          status: z.int(),
          statusText: z.string(),
          httpVersion: z.string(),
          cookies: z.array(z.unknown()),
          headers: z.array(Pair),
          content: z.object({
            size: z.int().nonnegative(),
            mimeType: z.string(),
            text: z.string().optional(),
          }),
          redirectURL: z.string(),
          headersSize: z.int(),
          bodySize: z.int(),
        }),
        cache: z.object({}),
        timings: z.object({ send: z.number(), wait: z.number(), receive: z.number() }),
      }),
    ),
  }),
});

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
  await writeHar(result, join(dir, 'exchanges.har'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reporters', () => {
  test('results.json conforms to the ResultsJson schema and carries the failure with seed and a reproduce line', async () => {
    const json = ResultsJson.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
    expect(json.ok).toBe(false);
    expect(json.version).toBe(VERSION);
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

  test("junit.xml carries the run's properties, timestamps and counts on every testsuite", async () => {
    const xml = await readFile(join(dir, 'junit.xml'), 'utf8');
    const s = result.summary;
    const stamp = result.startedAt.slice(0, 19);
    expect(xml).toMatch(
      new RegExp(
        `<testsuites name="tagtrack-conformance" tests="${result.checks.length}" failures="${s.fail}" errors="${s.error}" skipped="${s.skip}" time="\\d+\\.\\d{3}" timestamp="${stamp}">`,
      ),
    );
    const suites = [
      ...xml.matchAll(
        /<testsuite name="(\w+)" tests="(\d+)" failures="(\d+)" errors="\d+" skipped="(\d+)" time="[\d.]+" timestamp="([^"]+)">/g,
      ),
    ];
    const areas = [...new Set(result.checks.map((c) => c.area))];
    expect(suites.map((m) => m[1])).toEqual(areas);
    for (const [, area, tests, failures, skipped, timestamp] of suites) {
      const checks = result.checks.filter((c) => c.area === area);
      expect([tests, failures, skipped, timestamp]).toEqual([
        String(checks.length),
        String(checks.filter((c) => c.status === 'fail').length),
        String(checks.filter((c) => c.status === 'skip').length),
        stamp,
      ]);
    }
    const properties = `<properties>
      <property name="seed" value="${result.seed}"/>
      <property name="baseUrl" value="http://tagtrack.memory"/>
      <property name="profile" value="${result.profile.name}"/>
      <property name="revision" value="tagtrack/v1 Revision 3"/>
      <property name="mode" value="fixture"/>
      <property name="numRuns" value="20"/>
      <property name="tool" value="tagtrack-conformance"/>
      <property name="toolVersion" value="${VERSION}"/>`;
    expect(xml.split(properties).length - 1).toBe(areas.length);
  });

  test('the console summary names the failing requirement in domain words and the verdict', () => {
    const text = formatSummary(result);
    expect(text).toContain('FAIL REL-TAG-COUNTERS-EVENTS');
    expect(text).toMatch(/reproduce: tagtrack-conformance request GET /);
    expect(text).toMatch(/fast-check: seed -?\d+/);
    expect(text.trim().endsWith('\nFAIL under tagtrack/v1 Revision 3')).toBe(true);
  });

  test('exchanges name the signing credential by its label; report.html shows no signed value', async () => {
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    const shown = result.exchanges.map((x) => x.requestHeaders.authorization).filter(Boolean);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toContain(`<credential ${team1Admin.label}>`);
    expect(html).not.toContain(team1Admin.accessKey);
    expect(html).not.toMatch(/authorization: [A-Za-z0-9+/]{20,}/);
  });

  test('report.html puts the verdict, the index and the areas first, then each failure with its message, seeds, reproduce line and exchange opened inline', async () => {
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    const order = [
      'id="summary"',
      'id="index"',
      'id="areas"',
      'id="failures"',
      'passing checks',
      'id="coverage"',
      'id="exchanges"',
    ];
    const at = order.map((marker) => html.indexOf(marker));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    const failing = result.checks.filter((c) => c.status === 'fail');
    const section = html.slice(html.indexOf('id="failures"'), html.indexOf('<h2>Checks</h2>'));
    for (const c of failing) {
      expect(section).toContain(`id="${c.id}"`);
      expect(section).toContain(`check seed ${c.seed}`);
      expect(section).toContain(escapeText(rerunCommand(result, c.id)));
      expect(rerunCommand(result, c.id)).toMatch(
        new RegExp(`--seed ${result.seed} --num-runs 20 --only '?${c.id}'?`),
      );
    }
    expect(section).toMatch(/reproduce: tagtrack-conformance request GET/);
    expect(section).toMatch(/fast-check: seed -?\d+/);
    // the first failure of each failing check has its exchange opened, the others closed
    const opened = section.match(/<details open class="exchange">/g) ?? [];
    expect(opened.length).toBe(
      failing.filter((c) => c.failures[0]?.exchangeId !== undefined).length,
    );
    expect(opened.length).toBeGreaterThan(0);
    // passing checks collapsed, not among the failures
    const passing = result.checks.find((c) => c.status === 'pass')!;
    expect(section).not.toContain(`id="${passing.id}"`);
    expect(html).toMatch(/<details class="checks"><summary>passing checks \(\d+\)<\/summary>/);
  });

  test('the HAR export is HAR 1.2 with every exchange, the query parsed and no credential', async () => {
    const text = await readFile(join(dir, 'exchanges.har'), 'utf8');
    const har = HarSchema.parse(JSON.parse(text));
    expect(har.log.creator).toEqual({ name: 'tagtrack-conformance', version: VERSION });
    expect(har.log.entries).toHaveLength(result.exchanges.length);
    result.exchanges.forEach((x, i) => {
      const entry = har.log.entries[i]!;
      expect([entry.request.method, entry.request.url, entry.response.status]).toEqual([
        x.method,
        x.url,
        x.status,
      ]);
      expect(entry.request.queryString).toEqual(
        [...new URL(x.url).searchParams].map(([name, value]) => ({ name, value })),
      );
    });
    expect(har.log.entries.some((e) => e.request.queryString.length > 0)).toBe(true);
    expect(text).not.toContain(team1Admin.accessKey);
    for (const e of har.log.entries)
      for (const h of e.request.headers)
        if (h.name.toLowerCase() === 'authorization') expect(h.value).toMatch(/^<[^<>]+>$/);
    // Authorization redacted even when an exchange holds a raw one
    const raw = {
      ...result,
      exchanges: [{ ...result.exchanges[0]!, requestHeaders: { authorization: 'Bearer s3cr3t' } }],
    };
    expect(JSON.stringify(toHar(raw))).not.toContain('s3cr3t');
  });

  test.skipIf(!existsSync(CHROMIUM))(
    'Chromium shows the first failure in the first screen (1280x800), its exchange opened, and replays the HAR',
    async () => {
      const t0 = performance.now();
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await page.goto(`file://${join(dir, 'report.html')}`);
        expect(await page.title()).toBe('tagtrack conformance report: FAIL');
        const first = page.locator('#failures .failure').first();
        const firstId = result.checks.find((c) => c.status === 'fail')!.id;
        expect(await first.getAttribute('id')).toBe(firstId);
        for (const part of [first.locator('h3'), first.locator('.message').first()]) {
          expect(await part.isVisible()).toBe(true);
          const box = (await part.boundingBox())!;
          expect(box.y).toBeGreaterThanOrEqual(0);
          expect(box.y + box.height).toBeLessThanOrEqual(800);
        }
        const firstFailure = result.checks.find((c) => c.id === firstId)!.failures[0]!;
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a reader sees
        expect(await first.locator('.message').first().innerText()).toBe(
          `[${firstFailure.kind}] ${firstFailure.message}`,
        );
        const exchange = first.locator('details.exchange').first();
        expect(await exchange.getAttribute('open')).toBe('');
        expect(await exchange.locator('pre').first().isVisible()).toBe(true);
        expect(await page.locator('table.matrix tr').count()).toBe(result.checks.length + 1);
        expect(await page.locator('table.matrix').isVisible()).toBe(false); // collapsed
        // the HAR replays in Chromium: a recorded URL answers the recorded body
        const entry = toHar(result).log.entries.find(
          (e) => e.response.status === 200 && e.request.url.includes('/teams/tags'),
        )!;
        const replay = await browser.newPage();
        await replay.routeFromHAR(join(dir, 'exchanges.har'), { notFound: 'abort' });
        const response = await replay.goto(entry.request.url);
        expect(response?.status()).toBe(200);
        expect(await response?.text()).toBe(entry.response.content.text);
      } finally {
        await browser.close();
      }
      console.info(`Chromium report test: ${Math.round(performance.now() - t0)} ms`);
    },
    60_000,
  );
});

test('report.html lists errors and stale expected-failure entries among the failures, expected failures in a section of their own', () => {
  const [a, b, c] = result.checks.filter((x) => x.status === 'pass' || x.status === 'fail');
  const changed: RunResult = {
    ...result,
    checks: result.checks.map((x) =>
      x === a
        ? { ...x, status: 'error', reason: 'TypeError: boom', failures: [] }
        : x === b
          ? { ...x, status: 'pass', failures: [], expectedFailure: '' }
          : x === c
            ? { ...x, status: 'fail', expectedFailure: 'lands in 2.4' }
            : x,
    ),
    staleExpectedFailures: [b!.id],
  };
  const html = toHtml(changed);
  const failures = html.slice(
    html.indexOf('<section id="failures">'),
    html.indexOf('<section id="expected-failures">'),
  );
  expect(failures).toContain(`<article class="failure error" id="${a!.id}">`);
  expect(failures).toContain('[error] </span>TypeError: boom');
  expect(failures).toMatch(new RegExp(`STALE</span> <code>${b!.id}</code>`));
  expect(failures).toContain('listed in the expected-failures file but passed: remove the entry');
  expect(failures).not.toContain(`id="${c!.id}"`);
  const expected = html.slice(
    html.indexOf('<section id="expected-failures">'),
    html.indexOf('<h2>Checks</h2>'),
  );
  expect(expected).toContain(`<article class="failure xfail" id="${c!.id}">`);
  expect(expected).toContain('listed in the expected-failures file: lands in 2.4; not counted');
});

test('an interrupted run says so in the verdict of report.html and as a JUnit property', () => {
  const stopped: RunResult = { ...result, ok: false, interrupted: 'SIGINT' };
  expect(toHtml(stopped)).toMatch(
    /<p class="verdict fail">FAIL: 2 of \d+ checks did not pass; the run was interrupted: SIGINT \(/,
  );
  expect(toJUnit(stopped)).toContain('<property name="interrupted" value="SIGINT"/>');
  expect(toJUnit(result)).not.toContain('name="interrupted"');
});

test('toResultsJson leaves out the exchanges but counts them', () => {
  const json = toResultsJson(result);
  expect(json.exchangeCount).toBe(result.exchanges.length);
  expect(json).not.toHaveProperty('exchanges');
});
