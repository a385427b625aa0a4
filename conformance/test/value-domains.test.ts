import { createServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';

/**
 * SCHEMA-VALUE-DOMAINS: a value that is well-formed and consistent
 * everywhere can still be impossible. The reference server's answers are rewritten on the
 * way to the suite (the same rewrite on every endpoint, so every relation between endpoints
 * still holds) and the check must fail in fixture mode and in blind mode with one admin
 * credential; the answers as served pass.
 */

/** Rewrites of JSON bodies, each making one kind of value impossible. */
const TAMPER: Record<string, (body: string, path: string) => string> = {
  'device capitalised ("Mobile")': (body) =>
    body.replaceAll('"device":"mobile"', '"device":"Mobile"'),
  'a device class outside the profile ("phone")': (body) =>
    body.replaceAll('"device":"tablet"', '"device":"phone"'),
  'every event dated in the year 2000, before its tag was sent': (body) =>
    body.replace(/"(openDate|clickDate)":"\d{4}/g, '"$1":"2000'),
  "a member's tags with uniqueOpens above totalOpens": (body, path) =>
    /^\/teams\/member\/[^/]+\/tags$/.test(path)
      ? body.replace(
          /"totalOpens":(\d+),"uniqueOpens":\d+/g,
          (_, t) => `"totalOpens":${t},"uniqueOpens":${Number(t) + 1}`,
        )
      : body,
  'stats with tags but dateLastSent null': (body, path) =>
    path.includes('stats') ? body.replace(/"dateLastSent":"[^"]*"/g, '"dateLastSent":null') : body,
};

async function run(mode: 'fixture' | 'blind', tamper?: (body: string, path: string) => string) {
  const server = createServer({ publicUrl: MEMORY_BASE_URL });
  try {
    return await runConformance({
      baseUrl: MEMORY_BASE_URL,
      fetch: async (request) => {
        const response = await server.fetch(request);
        if (tamper === undefined || response.status !== 200) return response;
        const headers = new Headers(response.headers);
        headers.delete('content-length');
        const body = tamper(await response.text(), new URL(request.url).pathname);
        return new Response(body, { status: response.status, headers });
      },
      profile: mode === 'blind' ? { ...profileFor(), credentials: [] } : profileFor(),
      mode,
      seed: 7,
      numRuns: 4,
      only: 'SCHEMA-VALUE-DOMAINS',
      ...(mode === 'blind' ? { authId: team1Admin.authId, accessKey: team1Admin.accessKey } : {}),
    });
  } finally {
    await server.close();
  }
}

describe('SCHEMA-VALUE-DOMAINS: possible values, not only well-formed ones', () => {
  test.each(['fixture', 'blind'] as const)('the answers as served pass (%s mode)', async (mode) => {
    const result = await run(mode);
    const check = result.checks.find((c) => c.id === 'SCHEMA-VALUE-DOMAINS')!;
    expect([check.status, check.failures.map((f) => f.message)]).toEqual(['pass', []]);
  });

  test.each(
    Object.entries(TAMPER).flatMap(([what, tamper]) =>
      (['fixture', 'blind'] as const).map((mode) => [what, mode, tamper] as const),
    ),
  )('%s fails it (%s mode)', async (what, mode, tamper) => {
    const result = await run(mode, tamper);
    const check = result.checks.find((c) => c.id === 'SCHEMA-VALUE-DOMAINS')!;
    expect(check.status).toBe('fail');
    const expected = /device/.test(what)
      ? /device/
      : /event/.test(what)
        ? /before the tag was sent/
        : /uniqueOpens/.test(what)
          ? /uniqueOpens \d+ > totalOpens/
          : /dateLastSent/;
    expect(check.failures.map((f) => f.message).join('\n')).toMatch(expected);
  });
});
