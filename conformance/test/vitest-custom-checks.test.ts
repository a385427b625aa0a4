import { fileURLToPath } from 'node:url';
import { createServer } from '@tagtrack/server';
import { afterAll, expect, test } from 'vitest';
import { builtInChecks, loadChecks } from '../src/index.ts';
import { defineConformanceSuite } from '../src/vitest.ts';
import { MEMORY_BASE_URL, team1Admin } from './helpers.ts';

// A vendor's suite with a check of their own, against a server that sends the header.
const server = createServer({ publicUrl: MEMORY_BASE_URL });
afterAll(async () => {
  await server.close();
});

const acme = await loadChecks(
  fileURLToPath(new URL('../examples/vendor-version-header.mjs', import.meta.url)),
);
let statuses: [string, string][] = [];
const NAME = 'reference server with X-Vendor-Version (custom check)';

defineConformanceSuite(
  {
    baseUrl: MEMORY_BASE_URL,
    fetch: async (r) => {
      const res = await server.fetch(r);
      const headers = new Headers(res.headers);
      headers.set('X-Vendor-Version', '2.4.1');
      return new Response(res.body, { status: res.status, headers });
    },
    authId: team1Admin.authId,
    accessKey: team1Admin.accessKey,
    mode: 'blind',
    checks: [...builtInChecks, ...acme],
    only: 'acme,AUTH-401-MISSING',
    seed: 1,
  },
  {
    name: NAME,
    onResult: (result) => {
      statuses = result.checks.map((c) => [c.id, c.status]);
    },
  },
);

test('defineConformanceSuite registers a test for a check of your own, next to the built-in ones', ({
  task,
}) => {
  const suite = task.file.tasks.find((t) => t.name === NAME);
  expect(suite?.type).toBe('suite');
  const names = suite?.type === 'suite' ? suite.tasks.map((t) => t.name) : [];
  expect(names).toEqual([
    expect.stringMatching(/^AUTH-401-MISSING: /),
    'ACME-VERSION-HEADER: every response carries X-Vendor-Version with a semantic version',
  ]);
});

test('the check of your own ran and passed against a server that sends the header', () => {
  expect(statuses).toEqual([
    ['AUTH-401-MISSING', 'pass'],
    ['ACME-VERSION-HEADER', 'pass'],
  ]);
});
