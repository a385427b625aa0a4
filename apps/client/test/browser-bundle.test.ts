import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pageOf, pagingOf, plainIndex, SIGNING_VECTORS, stringifyJson } from '@tagtrack/core';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { build, type Metafile } from 'esbuild';
import { chromium } from 'playwright-core';
import { build as viteBuild } from 'vite';
import { beforeAll, describe, expect, test } from 'vitest';
import type { PageInput, PageOutcome } from './browser/page.ts';

/**
 * A browser app importing `@tagtrack/core` (types,
 * signing, a zod schema) and the SDK's `createClient` bundles for the browser and runs there.
 */

const PAGE = fileURLToPath(new URL('./browser/page.ts', import.meta.url));
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

let bundle: string;
let metafile: Metafile;

beforeAll(async () => {
  // what a team's Vite or esbuild build does: the browser platform, no Node built-ins; the
  // `@tagtrack/source` condition bundles the workspace sources (a published install resolves
  // the same graph from dist/)
  const result = await build({
    entryPoints: [PAGE],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    conditions: ['@tagtrack/source'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]!.text;
  metafile = result.metafile;
});

describe('the browser bundle of core and the client SDK', () => {
  test('vite build of the same page succeeds: no Node built-in is reached (the reported "stat" is not exported by "__vite-browser-external")', async () => {
    const warnings: string[] = [];
    const output = await viteBuild({
      configFile: false,
      logLevel: 'silent',
      resolve: { conditions: ['@tagtrack/source', 'browser', 'module', 'import', 'default'] },
      build: {
        write: false,
        target: 'es2022',
        minify: false,
        lib: { entry: PAGE, formats: ['es'], fileName: 'page' },
        rollupOptions: {
          onwarn: (w) => {
            warnings.push(String(w.message));
          },
        },
      },
    });
    const results = Array.isArray(output) ? output : [output];
    const chunks = results.flatMap((r) =>
      'output' in r ? r.output.filter((o) => o.type === 'chunk') : [],
    );
    expect(chunks.length).toBeGreaterThan(0);
    const code = chunks.map((c) => ('code' in c ? c.code : '')).join('\n');
    expect(code).toContain('createClient');
    expect(code).not.toMatch(/__vite-browser-external|from ["']node:/);
    expect(warnings.filter((w) => /externalized for browser compatibility|node:/.test(w))).toEqual(
      [],
    );
  });

  test('esbuild --platform=browser bundles it: no node: module, no dataset, no engine in its graph', () => {
    const inputs = Object.keys(metafile.inputs);
    const imports = Object.values(metafile.inputs).flatMap((i) => i.imports.map((x) => x.path));
    expect(inputs.some((p) => p.includes('packages/core/src/signing.ts'))).toBe(true);
    expect(inputs.some((p) => p.includes('apps/client/src/client.ts'))).toBe(true);
    expect(imports.filter((p) => p.startsWith('node:'))).toEqual([]);
    expect(inputs.filter((p) => /packages\/(dataset|engine)\/|\.json$/.test(p))).toEqual([]);
  });

  test.skipIf(!existsSync(CHROMIUM))(
    'in headless Chromium the page signs every signing vector, parses a Tag record with core, and the SDK sends the signed request',
    async () => {
      const index = plainIndex(canonicalDataset);
      const caller = index.callerOf(CANONICAL_CREDENTIALS[0]!.memberID)!;
      const tags = index.tags(caller, {})!;
      const page = pageOf(tags.slice(0, 3), 0, 250);
      const input: PageInput = {
        tagJson: stringifyJson(tags[0]),
        tagsBody: stringifyJson({
          data: page.records,
          paging: pagingOf(page, (c) => `/x?cursor=${c}`),
        }),
      };
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      try {
        const tab = await browser.newPage();
        const errors: string[] = [];
        tab.on('pageerror', (e) => errors.push(e.message));
        await tab.setContent('<!doctype html><title>tagtrack in a browser</title>');
        await tab.addScriptTag({ content: bundle });
        const out = await tab.evaluate(
          (arg) =>
            (
              globalThis as unknown as { tagtrackPage: (i: PageInput) => Promise<PageOutcome> }
            ).tagtrackPage(arg),
          input,
        );
        expect(errors).toEqual([]);
        // the vectors' headers were computed with OpenSSL, not with this code base
        expect(out.signatures).toEqual(
          SIGNING_VECTORS.map((v) => ({ name: v.name, authorization: v.authorization })),
        );
        expect(out.parsed).toEqual({
          tagID: tags[0]!.tagID,
          uniqueOpens: tags[0]!.stats.uniqueOpens,
        });
        // no query string: the SDK signs the empty string, as the first vector does
        expect(SIGNING_VECTORS[0]!.query).toBe('');
        expect(out.clientAuthorization).toBe(SIGNING_VECTORS[0]!.authorization);
        expect(out.clientRecords).toBe(3);
      } finally {
        await browser.close();
      }
    },
  );
});
