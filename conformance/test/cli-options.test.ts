import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type TagtrackServer } from '@tagtrack/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { endpointsMatching, selectEndpoints } from '../src/commands/endpoint-filter.ts';
import { HttpClient } from '../src/http/client.ts';
import { ResultsJson } from '../src/report/index.ts';
import { failing, runCli, runInMemory, team1Admin } from './helpers.ts';

/**
 * The options users of peer tools expect, through the CLI in process: TLS (--ca-file,
 * --insecure), extra headers (-H, TAGTRACK_HEADERS; values secret), --wait-for, --quiet,
 * --no-color, --endpoint and --max-failures.
 */

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tagtrack-options-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A listening Node server (http or https) in front of a reference server; `handle` decides. */
interface Front {
  url: string;
  close: () => Promise<void>;
}

/** Serves `app` through a Node request: headers, method and URL as received. */
async function forward(
  app: TagtrackServer,
  base: string,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const answer = await app.fetch(
    new Request(new URL(req.url ?? '/', base), { method: req.method ?? 'GET', headers }),
  );
  const out: Record<string, string> = {};
  answer.headers.forEach((v, k) => {
    out[k] = v;
  });
  res.writeHead(answer.status, out);
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/**
 * A reference server behind a Node server on 127.0.0.1 port 0 (https with `tls`), whose
 * `gate` may answer a request first (a status) instead of the reference server.
 */
async function front(
  gate: (req: IncomingMessage) => number | undefined,
  tls?: { key: string; cert: string },
): Promise<Front> {
  let app: TagtrackServer | undefined;
  let url = '';
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const status = gate(req);
    if (status !== undefined) {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(`gate: ${status}`);
      return;
    }
    forward(app!, url, req, res).catch(() => res.destroy());
  };
  const server = tls === undefined ? createHttpServer(handler) : createHttpsServer(tls, handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = createServer({ publicUrl: url });
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await app!.close();
    },
  };
}

/** A self-signed certificate for 127.0.0.1 made by openssl: key, cert and the cert's file. */
async function selfSigned(): Promise<{ key: string; cert: string; certFile: string }> {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  await new Promise<void>((resolve, reject) =>
    execFile(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      (e) => (e === null ? resolve() : reject(e)),
    ),
  );
  return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8'), certFile };
}

const SMALL = ['--only', 'AUTH-401-MISSING', '--num-runs', '1', '--mode', 'fixture'];

describe('TLS: --ca-file and --insecure', () => {
  test('a self-signed server: exit 2 naming the TLS problem without its CA, the preflight passes with --ca-file and with --insecure', async () => {
    const { key, cert, certFile } = await selfSigned();
    const https = await front(() => undefined, { key, cert });
    try {
      const refused = await runCli(['run', '--base-url', https.url, ...SMALL]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/TLS: the server's certificate is not trusted: [A-Z_]+/);
      expect(refused.stderr).toContain('--ca-file FILE trusts the CA that signed it');

      const trusted = await runCli([
        'run',
        '--base-url',
        https.url,
        '--ca-file',
        certFile,
        ...SMALL,
      ]);
      expect(trusted.stderr).not.toContain('TLS');
      expect(trusted.code).toBe(0);
      expect(trusted.stdout).toMatch(/^PASS/m);

      const viaEnv = await runCli(['run', '--base-url', https.url, ...SMALL], {
        TAGTRACK_CA_FILE: certFile,
      });
      expect(viaEnv.code).toBe(0);

      const insecure = await runCli(['run', '--base-url', https.url, '--insecure', ...SMALL]);
      expect(insecure.code).toBe(0);
      expect(insecure.stderr).toContain(
        "warning: --insecure: the server's TLS certificate is not verified",
      );

      const request = await runCli([
        'request',
        'GET',
        '/teams',
        '--base-url',
        https.url,
        '--ca-file',
        certFile,
      ]);
      expect(request.code).toBe(0);
      expect(request.stdout.split('\n')[0]).toBe('HTTP 200');

      const noCa = await runCli([
        'run',
        '--base-url',
        https.url,
        '--ca-file',
        join(dir, 'none.pem'),
        ...SMALL,
      ]);
      expect(noCa.code).toBe(2);
      expect(noCa.stderr).toContain('none.pem: cannot read it (ENOENT)');
    } finally {
      await https.close();
    }
  });
});

describe('-H/--header: extra headers, values never recorded', () => {
  const KEY = 'gw-key-4f1c9a7e2b';
  let gateway: Front;
  const seen: (string | undefined)[] = [];
  beforeAll(async () => {
    gateway = await front((req) => {
      seen.push(req.headers['x-gateway-key'] as string | undefined);
      return req.headers['x-gateway-key'] === KEY ? undefined : 403;
    });
  });
  afterAll(() => gateway.close());

  test('a gateway key given by -H (or TAGTRACK_HEADERS) goes with every request and appears in no report, HAR or console line', async () => {
    const reports = join(dir, 'gateway');
    const har = join(dir, 'gateway.har');
    const out = await runCli([
      'run',
      '--base-url',
      gateway.url,
      ...SMALL,
      '-H',
      `X-Gateway-Key: ${KEY}`,
      '--report-dir',
      reports,
      '--har',
      har,
    ]);
    expect(out.stderr).not.toContain('tagtrack-conformance:');
    expect(out.code).toBe(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((v) => v === KEY)).toBe(true);
    const files = [...(await readdir(reports)).map((f) => join(reports, f)), har];
    const texts = [
      out.stdout,
      out.stderr,
      ...(await Promise.all(files.map((f) => readFile(f, 'utf8')))),
    ];
    for (const t of texts) expect(t).not.toContain(KEY);
    expect(await readFile(har, 'utf8')).toContain('x-gateway-key');
    const results = ResultsJson.parse(
      JSON.parse(await readFile(join(reports, 'results.json'), 'utf8')),
    );
    expect(results.rerun?.headers).toEqual({ from: 'argv', names: ['x-gateway-key'] });

    const viaEnv = await runCli(['run', '--base-url', gateway.url, ...SMALL], {
      TAGTRACK_HEADERS: `X-Gateway-Key: ${KEY}\nX-Other: 1`,
    });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stdout).not.toContain(KEY);

    const without = await runCli(['run', '--base-url', gateway.url, ...SMALL]);
    expect(without.code).toBe(2);
  });

  test('an exchange shows an extra header as <redacted>, its reproduce line reads TAGTRACK_HEADERS, and the redactor replaces the value anywhere', async () => {
    const http = new HttpClient({
      baseUrl: gateway.url,
      auth: 'hmac-sha1',
      timeoutMs: 60_000,
      headers: { 'x-gateway-key': KEY },
      rerun: { headers: { from: 'env', names: ['x-gateway-key'] } },
      fetch: async (r) => new Response(`echo ${r.headers.get('x-gateway-key')}`, { status: 418 }),
      ownFetch: false,
    });
    const ex = await http.request({
      path: '/teams',
      credential: null,
      headers: { accept: 'text/csv' },
    });
    expect(ex.body).toBe(`echo ${KEY}`);
    expect(ex.requestHeaders['x-gateway-key']).toBe('<redacted>');
    expect(http.exchanges[0]!.body).toBe('echo <header x-gateway-key>');
    const line = http.reproduce(ex);
    expect(line).toBe(
      `tagtrack-conformance request GET '/teams' --base-url '${gateway.url}' -H "$TAGTRACK_HEADERS" --no-credential --header 'accept: text/csv'`,
    );
    expect(http.redactor.redact(`the key ${KEY}.`)).toBe('the key <header x-gateway-key>.');
  });

  test('Authorization is refused (exit 2), as is a header that is not Name: value', async () => {
    const auth = await runCli([
      'run',
      '--base-url',
      gateway.url,
      '-H',
      'authorization: Basic eA==',
    ]);
    expect(auth.code).toBe(2);
    expect(auth.stderr).toBe(
      'tagtrack-conformance: -H cannot set Authorization: the suite signs every request itself (spec §3); give the credential with --auth-id/--access-key or --profile\n',
    );
    const bad = await runCli(['run', '--base-url', gateway.url, '-H', 'no colon here']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not 'Name: value'");
    for (const command of [
      ['request', 'GET', '/teams', '--base-url', gateway.url],
      ['diff', '--base-url', gateway.url, '--against', gateway.url],
    ]) {
      const refused = await runCli([...command, '-H', 'Authorization: x']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('-H cannot set Authorization');
    }
  });
});

describe('--wait-for', () => {
  test('waits through 503s until the base URL answers, then runs', async () => {
    let unavailable = 3;
    const starting = await front(() => (unavailable-- > 0 ? 503 : undefined));
    try {
      const out = await runCli(['run', '--base-url', starting.url, ...SMALL, '--wait-for', '60']);
      expect(out.stderr).not.toContain('tagtrack-conformance:');
      expect(out.code).toBe(0);
      expect(unavailable).toBeLessThan(0);
    } finally {
      await starting.close();
    }
  });

  test('a base URL that never answers: one line, exit 2', async () => {
    const closed = await front(() => undefined);
    const url = closed.url;
    await closed.close();
    const out = await runCli(['run', '--base-url', url, '--wait-for', '0.5']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(
      new RegExp(
        `^tagtrack-conformance: ${url.replace(/[.]/g, '\\.')} did not answer within 0\\.5 s \\(--wait-for\\): ECONNREFUSED[^\\n]*\\n$`,
      ),
    );
    const diff = await runCli(['diff', '--base-url', url, '--against', url, '--wait-for', '0.5']);
    expect(diff.code).toBe(2);
    expect(diff.stderr).toContain('did not answer within 0.5 s (--wait-for)');
  });
});

describe('--quiet, --no-color, --endpoint, --max-failures', () => {
  let faulty: TagtrackServer;
  let url: string;
  beforeAll(async () => {
    faulty = createServer({ faults: ['bad-date-200', 'unknown-param-ignored'] });
    url = await faulty.listen(0, '127.0.0.1');
  });
  afterAll(() => faulty.close());

  test('--quiet prints the verdict line only (and errors on stderr)', async () => {
    const out = await runCli([
      'run',
      '--base-url',
      url,
      '--mode',
      'fixture',
      '--only',
      'INPUT-400-BAD-DATE',
      '--num-runs',
      '1',
      '--quiet',
      '--report-dir',
      join(dir, 'quiet'),
    ]);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('FAIL under tagtrack/v1 Revision 3\n');
    expect(out.stderr).toBe('');
    expect(await readdir(join(dir, 'quiet'))).toContain('results.json');
    const viaEnv = await runCli(
      ['run', '--base-url', url, '--mode', 'fixture', '--only', 'AUTH-401-MISSING'],
      {
        TAGTRACK_QUIET: 'yes',
      },
    );
    expect(viaEnv.stdout.trim().split('\n')).toHaveLength(1);
  });

  test('--no-color wins over FORCE_COLOR', async () => {
    const colored = await runCli(
      ['run', '--base-url', url, '--mode', 'fixture', '--only', 'AUTH-401-MISSING'],
      {
        FORCE_COLOR: '1',
      },
    );
    expect(colored.stdout).toContain('\u001b[');
    const plain = await runCli(
      ['run', '--base-url', url, '--mode', 'fixture', '--only', 'AUTH-401-MISSING', '--no-color'],
      {
        FORCE_COLOR: '1',
      },
    );
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain('\u001b[');
  });

  test('every subcommand takes the output options: fixture, init and request print less with --quiet; all accept --no-color', async () => {
    const loud = await runCli(['fixture', '--out', join(dir, 'fixture-loud'), '--no-color']);
    expect(loud.code).toBe(0);
    expect(loud.stdout).toContain('wrote ');
    const quiet = await runCli(['fixture', '--out', join(dir, 'fixture-quiet'), '--quiet']);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');
    expect((await readdir(join(dir, 'fixture-quiet'))).sort()).toEqual(
      (await readdir(join(dir, 'fixture-loud'))).sort(),
    );
    const request = await runCli(['request', 'GET', '/teams', '--base-url', url, '--no-color']);
    expect(request.stdout.startsWith('HTTP ')).toBe(true);
    const body = await runCli(['request', 'GET', '/teams', '--base-url', url, '--quiet']);
    expect(body.code).toBe(request.code);
    expect(body.stdout.startsWith('HTTP ')).toBe(false);
    expect(request.stdout.endsWith(body.stdout)).toBe(true);
    const profile = join(dir, 'init-quiet.json');
    const init = await runCli(
      ['init', '--base-url', url, '--out', profile, '--quiet', '--no-color'],
      {
        TAGTRACK_AUTH_ID: team1Admin.authId,
        TAGTRACK_ACCESS_KEY: team1Admin.accessKey,
      },
    );
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).not.toContain('inferred from');
    expect(init.stdout).toMatch(/^wrote .*\nnext: .* run --base-url /);
    const requirements = await runCli(['requirements', '--no-color']);
    expect(requirements.code).toBe(0);
    expect(requirements.stdout).not.toContain('\u001b[');
  });

  test('--endpoint runs only the checks of the endpoints it names; a pattern naming none is a usage error listing them', async () => {
    const reports = join(dir, 'endpoint');
    const out = await runCli([
      'run',
      '--base-url',
      url,
      '--mode',
      'fixture',
      '--only',
      'INPUT',
      '--num-runs',
      '1',
      '--endpoint',
      '/teams/tags',
      '--endpoint',
      'contacts.get',
      '--report-dir',
      reports,
    ]);
    const results = ResultsJson.parse(
      JSON.parse(await readFile(join(reports, 'results.json'), 'utf8')),
    );
    expect(results.checks.length).toBeGreaterThan(0);
    for (const c of results.checks)
      expect(c.endpoints.some((e) => e === 'teams.tags' || e === 'contacts.get')).toBe(true);
    expect(out.code).toBe(1);

    const none = await runCli([
      'run',
      '--base-url',
      url,
      '--mode',
      'fixture',
      '--endpoint',
      'teams.tag',
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /^tagtrack-conformance: --endpoint "teams.tag" matches no endpoint; known endpoints: teams\.list \(\/teams\), .*contacts\.tag \(\/contacts\/tag\/\{tagID\}\)\n$/,
    );
  });

  test('endpoint patterns: ids in any case, globs, templates and concrete paths', () => {
    expect(endpointsMatching('TEAMS.TAGS')).toEqual(['teams.tags']);
    expect(endpointsMatching('opens.*')).toEqual(['opens.list', 'opens.tag']);
    expect(endpointsMatching('/teams/member/{memberID}/tags')).toEqual(['teams.memberTags']);
    expect(endpointsMatching('/contacts/abc?x=1')).toEqual(['contacts.get']);
    expect(endpointsMatching('/nope')).toEqual([]);
    expect(selectEndpoints(['teams.list, /stats'])).toEqual(new Set(['teams.list', 'stats.team']));
  });

  test('--max-failures N stops after N failed checks; the rest are reported as not run', async () => {
    const result = await runInMemory(
      { faults: ['bad-date-200', 'unknown-param-ignored', 'ignore-is-opened'] },
      {
        only: 'INPUT-400-BAD-DATE,INPUT-400-UNKNOWN-PARAM,REL-FILTER-CONJUNCTION',
        concurrency: 1,
        maxFailures: 2,
      },
    );
    expect(failing(result)).toHaveLength(2);
    const notRun = result.checks.filter((c) => c.status === 'skip');
    expect(notRun.map((c) => c.reason)).toEqual(['not run: 2 checks failed (--max-failures 2)']);

    const cli = await runCli([
      'run',
      '--base-url',
      url,
      '--mode',
      'fixture',
      '--only',
      'INPUT-400-BAD-DATE,INPUT-400-UNKNOWN-PARAM',
      '--concurrency',
      '1',
      '--max-failures',
      '1',
    ]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain('not run: 1 check failed (--max-failures 1)');
    const zero = await runCli([
      'run',
      '--base-url',
      url,
      '--mode',
      'fixture',
      '--max-failures',
      '0',
    ]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('max-failures must be a positive integer');
  });
});
