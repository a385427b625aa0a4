import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dataset } from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import {
  createServer,
  FAULTS,
  type FaultName,
  type ServerOptions,
  VARIANTS,
  type VariantName,
} from '@tagtrack/server';
import { afterAll, describe, expect, test } from 'vitest';
import type { SuiteCredential } from '../src/check/define.ts';
import { HttpClient } from '../src/http/client.ts';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import { type Profile, type ProfileInput, parseProfile } from '../src/profile/profile.ts';
import { ResultsJson } from '../src/report/index.ts';
import { preflight } from '../src/run/preflight.ts';
import { ConfigError, PreflightError, runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, profileFor, runCli, team1Admin } from './helpers.ts';

/**
 * A misconfiguration is a configuration error, never a verdict. The
 * preflight (preflight.ts) stops a run whose base URL serves no Tag Tracking API, whose
 * declared credentials are not all accepted or whose profile plainly contradicts the
 * implementation: exit 2, one line on stderr naming the cause, every report written, no check
 * passed or failed. And it never stops a run against a correct configuration, nor against a
 * server with a fault (the checks must judge those).
 */

const dirs: string[] = [];
const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A reference server on 127.0.0.1 port 0 (closed after the file); resolves its base URL. */
async function reference(options: ServerOptions = {}): Promise<string> {
  const server = createServer(options);
  servers.push(server);
  return server.listen(0, '127.0.0.1');
}

/** `handler` as an HTTP server on 127.0.0.1 port 0 (closed after the file); resolves its URL. */
async function serve(handler: (request: Request) => Promise<Response> | Response): Promise<string> {
  const server: Server = createHttpServer(async (req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const response = await handler(
      new Request(`http://${req.headers.host}${req.url}`, { method: req.method ?? 'GET', headers }),
    );
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => {
      out[k] = v;
    });
    res.writeHead(response.status, out).end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => new Promise((resolve) => server.close(() => resolve())) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A profile file holding `profile`; resolves its path. */
async function profileFile(profile: ProfileInput): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tagtrack-preflight-profile-'));
  dirs.push(dir);
  const file = join(dir, 'profile.json');
  await writeFile(file, JSON.stringify(profile));
  return file;
}

/**
 * Runs `tagtrack-conformance run` in this process against `baseUrl` with `args` and a report
 * directory, and asserts what a configuration error is: exit 2, one line on stderr (the cause,
 * matching `cause`), nothing on stdout but the report paths, the three reports written, and
 * in results.json `configError` set, `ok` false and every check an error naming the cause
 * (none passed or failed; a base URL that did not answer keeps the skips of the checks the
 * profile does not support). Resolves the parsed results.json.
 */
async function expectConfigError(
  baseUrl: string,
  args: readonly string[],
  cause: RegExp,
): Promise<ResultsJson> {
  const dir = await mkdtemp(join(tmpdir(), 'tagtrack-preflight-'));
  dirs.push(dir);
  const { code, stdout, stderr } = await runCli(
    ['run', '--base-url', baseUrl, '--seed', '1', '--report-dir', dir, ...args],
    { NO_COLOR: '1' },
  );
  expect(code, stderr).toBe(2);
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^tagtrack-conformance: /);
  expect(lines[0]).toMatch(cause);
  expect(stdout.trim()).toMatch(
    /^reports: \S+results\.json, \S+junit\.xml, \S+report\.html, \S+summary\.md$/,
  );
  expect((await readdir(dir)).sort()).toEqual([
    'junit.xml',
    'report.html',
    'results.json',
    'summary.md',
  ]);
  const results = ResultsJson.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
  expect(results.ok).toBe(false);
  expect(results.configError).toBe(lines[0]!.slice('tagtrack-conformance: '.length));
  expect(results.summary.pass + results.summary.fail).toBe(0);
  expect(results.checks.length).toBeGreaterThan(0);
  const unreachable = /cannot reach/.test(lines[0]!);
  for (const c of results.checks) {
    expect(c.failures).toEqual([]);
    if (unreachable && c.status === 'skip') continue;
    expect(c.status, c.id).toBe('error');
    expect(c.reason).toContain(results.configError);
  }
  const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
  expect(junit).toContain('name="configError"');
  expect(junit).not.toMatch(/<failure /);
  const html = await readFile(join(dir, 'report.html'), 'utf8');
  expect(html).toContain('configuration error, no check ran');
  return results;
}

/** The canonical profile with `change` applied (fixture mode's profile, written to a file). */
function canonicalWith(change: Partial<ProfileInput>): ProfileInput {
  return { ...canonicalProfile(), ...change };
}

const FIXTURE = ['--mode', 'fixture'];
const BLIND = [
  '--mode',
  'blind',
  '--auth-id',
  team1Admin.authId,
  '--access-key',
  team1Admin.accessKey,
];

describe('a misconfiguration is exit 2 with one line, reports written, no verdict (CLI in process)', () => {
  test('a base URL with a wrong path prefix (every request 404): no Tag Tracking API, two requests', async () => {
    const url = await reference();
    const results = await expectConfigError(
      `${url}/api/v2`,
      FIXTURE,
      /^tagtrack-conformance: no Tag Tracking API at http:\/\/127\.0\.0\.1:\d+\/api\/v2: GET \/teams answered 404, GET \/teams\/tags answered 404 \(is the base URL's path right\?\)$/,
    );
    expect(results.requests.sent).toBe(2);
  });

  test('one wrong access key among the declared credentials: the credential is named by label and authId, never by key', async () => {
    const url = await reference();
    const wrongKey = 'ffffffffffffffffffffffffffffffffffffffff';
    const profile = canonicalProfile();
    const credentials = profile.credentials!.map((c) =>
      c.label === 'team2-user' ? { ...c, accessKey: wrongKey } : c,
    );
    const team2User = credentials.find((c) => c.label === 'team2-user')!;
    const file = await profileFile({ ...profile, credentials });
    const results = await expectConfigError(
      url,
      [...FIXTURE, '--profile', file],
      new RegExp(
        `^tagtrack-conformance: credential team2-user \\(authId ${team2User.authId}\\) was rejected: GET /teams answered 401$`,
      ),
    );
    // one request per credential, nothing else
    expect(results.requests.sent).toBe(credentials.length);
    const written = JSON.stringify(results);
    expect(written).not.toContain(wrongKey);
    for (const c of canonicalProfile().credentials!) expect(written).not.toContain(c.accessKey);
  });

  test('several rejected credentials are named on the one line', async () => {
    const url = await reference();
    const profile = canonicalProfile();
    const wrong = new Set(['team1-manager', 'team2-admin']);
    const credentials = profile.credentials!.map((c) =>
      wrong.has(c.label) ? { ...c, accessKey: `${c.accessKey.slice(0, -1)}0` } : c,
    );
    await expectConfigError(
      url,
      [...FIXTURE, '--profile', await profileFile({ ...profile, credentials })],
      /credential team1-manager \(authId \w+\) was rejected: GET \/teams answered 401; credential team2-admin \(authId \w+\) was rejected: GET \/teams answered 401$/,
    );
  });

  test('a rejected --access-key (blind mode)', async () => {
    const url = await reference();
    await expectConfigError(
      url,
      ['--mode', 'blind', '--auth-id', team1Admin.authId, '--access-key', 'not-the-key'],
      new RegExp(`credential given \\(authId ${team1Admin.authId}\\) was rejected`),
    );
  });

  test('an unknown host: one line naming it', async () => {
    await expectConfigError(
      'http://nonexistent.invalid',
      BLIND,
      /^tagtrack-conformance: cannot reach http:\/\/nonexistent\.invalid\/teams: \S+/,
    );
  });

  test('a refused connection (a closed port): one line naming it', async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await expectConfigError(
      `http://127.0.0.1:${port}`,
      BLIND,
      /^tagtrack-conformance: cannot reach http:\/\/127\.0\.0\.1:\d+\/teams: ECONNREFUSED/,
    );
  });

  test.each([
    [
      'JSON of another API',
      () => Response.json({ hello: 1 }),
      /no Tag Tracking API at \S+: GET \/teams answered 200 with JSON, not the list envelope \{"data": \[\.\.\.\], "paging": \{\.\.\.\}\}$/,
    ],
    [
      'an HTML page (a web site, or a single-page app answering every path)',
      () =>
        new Response('<!doctype html><title>Welcome</title>', {
          headers: { 'content-type': 'text/html; charset=utf-8' },
        }),
      /no Tag Tracking API at \S+: GET \/teams answered 200 with Content-Type text\/html; charset=utf-8, not the list envelope/,
    ],
    [
      'a redirect (http to https, a login page)',
      () => new Response(null, { status: 301, headers: { location: 'https://example.com/' } }),
      /no Tag Tracking API at \S+: GET \/teams answered 301 \(a redirect to https:\/\/example\.com\/\): the suite follows no redirect/,
    ],
    [
      'another API that 404s every path with its own JSON',
      () => Response.json({ error: 'no route' }, { status: 404 }),
      /no Tag Tracking API at \S+: GET \/teams answered 404, GET \/teams\/tags answered 404/,
    ],
    [
      'a 405 without the profile’s error body',
      () => new Response('Method Not Allowed', { status: 405 }),
      /GET \/teams answered 405 without the JSON error body \{"statusCode", "error", "message"\} \(no Content-Type|Content-Type text\/plain/,
    ],
  ])('a server speaking something else, %s', async (_name, answer, cause) => {
    const url = await serve(answer);
    await expectConfigError(url, BLIND, cause);
  });

  test('page size: a server of 7 records per page against a profile of 250 names pageSize', async () => {
    const url = await reference({ pageSize: 7 });
    await expectConfigError(
      url,
      [...FIXTURE, '--profile', await profileFile(canonicalWith({ pageSize: 250 }))],
      /^tagtrack-conformance: profile declares "pageSize": 250, but GET \/teams\/tags answered 7 records with X-Total-Count 150: set "pageSize": 7$/,
    );
  });

  test('page size: a profile of 7 against a server of 250 asks for at least the page seen', async () => {
    const url = await reference();
    await expectConfigError(
      url,
      [...FIXTURE, '--profile', await profileFile(canonicalWith({ pageSize: 7 }))],
      /profile declares "pageSize": 7, but GET \/teams\/tags answered all 150 records on one page: set "pageSize" to the implementation's page size \(at least 150\)$/,
    );
  });

  test('paging end: an empty-page server against a no-content profile names pagingEnd', async () => {
    const url = await reference({ pagingEnd: 'empty-page' });
    await expectConfigError(
      url,
      [...FIXTURE, '--profile', await profileFile(canonicalWith({ pagingEnd: 'no-content' }))],
      /^tagtrack-conformance: profile declares "pagingEnd": "no-content", but GET \/teams\?cursor=6 answered 200 with "data": \[\] and the last page's nextURL \(GET \/teams\) is null: set "pagingEnd": "empty-page"$/,
    );
  });

  test('paging end: a no-content server of 7 per page against an empty-page profile names pagingEnd', async () => {
    const url = await reference({ pageSize: 7 });
    await expectConfigError(
      url,
      [
        ...FIXTURE,
        '--profile',
        await profileFile(canonicalWith({ pageSize: 7, pagingEnd: 'empty-page' })),
      ],
      /profile declares "pagingEnd": "empty-page", but GET \/teams\?cursor=6 answered 204 and the last page's nextURL \(GET \/teams\) points at cursor=6: set "pagingEnd": "no-content"$/,
    );
  });

  test('both options wrong: one line naming both', async () => {
    const url = await reference({ pageSize: 7, pagingEnd: 'empty-page' });
    await expectConfigError(
      url,
      BLIND,
      /profile declares "pageSize": 250, .*: set "pageSize": 7; profile declares "pagingEnd": "no-content", .*: set "pagingEnd": "empty-page"$/,
    );
  });

  test('rtn: a format the profile declares and the server refuses (400) names rtn', async () => {
    const server = createServer();
    servers.push(server);
    const url = await serve(async (request) => {
      const rtn = new URL(request.url).searchParams.get('rtn');
      if (rtn === 'html')
        return Response.json(
          { statusCode: 400, error: 'Bad Request', message: "unsupported rtn 'html'" },
          { status: 400 },
        );
      return server.fetch(request);
    });
    await expectConfigError(
      url,
      BLIND,
      /^tagtrack-conformance: profile declares "rtn": \["json","text","html"\], but GET \/teams\?rtn=html answered 400: set "rtn": \["json","text"\]$/,
    );
  });
});

/** The preflight alone against an in-memory reference server built with `options`. */
async function preflightOf(
  options: ServerOptions,
  profileInput: ProfileInput,
  dataset?: Dataset,
): Promise<{ problem: string | undefined; warnings: readonly string[]; requests: number }> {
  const server = createServer({
    publicUrl: MEMORY_BASE_URL,
    ...options,
    ...(dataset === undefined ? {} : { dataset }),
  });
  try {
    const profile: Profile = parseProfile(profileInput);
    const credentials: SuiteCredential[] = profile.credentials.map((c) => ({ ...c }));
    const primary = credentials.find((c) => c.label === 'team1-admin')!;
    const http = new HttpClient({
      baseUrl: MEMORY_BASE_URL,
      auth: profile.auth,
      fetch: (r) => server.fetch(r),
      timeoutMs: 10_000,
      credentials,
    });
    const found = await preflight({ http, profile, primary, credentials });
    return { problem: found.problem, warnings: found.warnings, requests: http.requestCount };
  } finally {
    await server.close();
  }
}

describe('the preflight passes every correct configuration and leaves every fault to the checks', () => {
  test.each([
    ['the reference profile', {}],
    ['page size 7', { pageSize: 7 }],
    ['empty-page', { pagingEnd: 'empty-page' }],
    ['page size 7 and empty-page', { pageSize: 7, pagingEnd: 'empty-page' }],
    ['page size 40 (the fault matrix)', { pageSize: 40 }],
    ['page size 1', { pageSize: 1 }],
  ] as [string, ServerOptions][])(
    '%s, declared alike: no problem, no warning, few requests',
    async (_name, options) => {
      const { problem, warnings, requests } = await preflightOf(options, profileFor(options));
      expect(problem).toBeUndefined();
      expect(warnings).toEqual([]);
      // one per credential, the tags' first page, at most two per list for the end, two rtn
      expect(requests).toBeLessThanOrEqual(canonicalProfile().credentials!.length + 1 + 4 + 2);
    },
  );

  test('an empty list is no evidence of a paging end: on a dataset without tags, /teams alone decides', async () => {
    const noTags = { ...canonicalDataset, tags: [], opens: [], clicks: [] } as Dataset;
    for (const pagingEnd of ['no-content', 'empty-page'] as const) {
      const right = await preflightOf({ pagingEnd }, { ...profileFor(), pagingEnd }, noTags);
      expect(right).toMatchObject({ problem: undefined, warnings: [] });
      const other = pagingEnd === 'no-content' ? 'empty-page' : 'no-content';
      const crossed = await preflightOf(
        { pagingEnd },
        { ...profileFor(), pagingEnd: other },
        noTags,
      );
      expect(crossed.problem).toMatch(
        new RegExp(`GET /teams\\?cursor=6 .*: set "pagingEnd": "${pagingEnd}"$`),
      );
    }
    // the empty tag list of this fault answers exactly as empty-page does; /teams shows both
    // signs disagree: the checks judge it
    const faulted = await preflightOf(
      { faults: ['no-content-as-empty-page'] },
      profileFor(),
      noTags,
    );
    expect(faulted.problem).toBeUndefined();
  });

  test.each(VARIANTS.map((v) => [v.name, v] as const))(
    'variant %s with its profile: no problem, no warning',
    async (name, variant) => {
      const { problem, warnings } = await preflightOf(
        { variants: [name as VariantName], ...('server' in variant ? variant.server : {}) },
        { ...canonicalProfile(), ...('profile' in variant ? variant.profile : {}) },
      );
      expect(problem).toBeUndefined();
      expect(warnings).toEqual([]);
    },
  );

  test.each(FAULTS.map((f) => [f.name] as const))(
    'fault %s (page size 40, as in the fault matrix): no configuration error',
    async (name) => {
      const options: ServerOptions = {
        faults: [name as FaultName],
        pageSize: 40,
        ...(name.startsWith('rate-limit-') ? { rateLimit: { limit: 30, windowMs: 1000 } } : {}),
      };
      const { problem } = await preflightOf(options, profileFor(options));
      expect(problem).toBeUndefined();
    },
  );

  test('a fault of one paging-end sign is a warning naming both signs, not a configuration error', async () => {
    const options: ServerOptions = { faults: ['no-content-as-empty-page'], pageSize: 40 };
    const { problem, warnings } = await preflightOf(options, profileFor(options));
    expect(problem).toBeUndefined();
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(
      /^profile declares "pagingEnd": "no-content"; GET \/teams\?cursor=6 answered 200 with "data": \[\], the last page's nextURL \(GET \/teams\) points at cursor=6: the signs disagree/,
    );
  });
});

describe('runConformance and the preflight', () => {
  test('a PreflightError caused by a ConfigError carries the result: every check an error "not run: …", configError set', async () => {
    const server = createServer({ publicUrl: MEMORY_BASE_URL, pageSize: 7 });
    const events: string[] = [];
    try {
      const error = await runConformance({
        baseUrl: MEMORY_BASE_URL,
        fetch: (r) => server.fetch(r),
        profile: canonicalProfile(),
        mode: 'fixture',
        onEvent: (e) => events.push(e.type),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PreflightError);
      expect((error as PreflightError).cause).toBeInstanceOf(ConfigError);
      const { result } = error as PreflightError;
      expect(result?.configError).toBe((error as PreflightError).message);
      expect(result?.ok).toBe(false);
      expect(
        result?.checks.every(
          (c) =>
            c.status === 'error' &&
            c.reason?.startsWith('not run: profile declares "pageSize": 250'),
        ),
      ).toBe(true);
      // the preflight's requests are the run's exchanges, numbered from 1
      expect(result?.exchanges.map((x) => x.id)).toEqual(result?.exchanges.map((_x, i) => i + 1));
      // no progress for a run that did not start (its cause is the one line)
      expect(events).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test.each([
    ['page size 7', { pageSize: 7 }],
    ['empty-page', { pagingEnd: 'empty-page' }],
  ] as [string, ServerOptions][])(
    'the reference server with %s and the right profile passes its paging checks',
    async (_name, options) => {
      const server = createServer({ publicUrl: MEMORY_BASE_URL, ...options });
      try {
        const result = await runConformance({
          baseUrl: MEMORY_BASE_URL,
          fetch: (r) => server.fetch(r),
          profile: profileFor(options),
          mode: 'fixture',
          only: 'PAGE',
          numRuns: 3,
          seed: 5,
        });
        expect(result.configError).toBeUndefined();
        expect(result.warnings).toBeUndefined();
        expect(result.ok).toBe(true);
        expect(result.summary.pass).toBeGreaterThan(5);
      } finally {
        await server.close();
      }
    },
  );
});
