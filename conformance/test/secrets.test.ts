import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { createServer, type FaultName } from '@tagtrack/server';
import { afterAll, describe, expect, test } from 'vitest';
import { RECENT_HEADERS, SecretRedactor } from '../src/http/secrets.ts';
import * as reporters from '../src/report/index.ts';
import { type RunOptions, type RunResult, runConformance } from '../src/run/runner.ts';
import { failing, MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';

/**
 * Every artifact of a failing run (results.json,
 * junit.xml, report.html, HAR, console lines, the exchanges kept for them) is searched for
 * every access key, every signature the run sent and every base64 `authId:` prefix of the
 * declared credentials. None may appear.
 */

/** The stable base64 prefix of `authId:` (what every signed header of `authId` starts with). */
function base64Prefix(authId: string): string {
  const bytes = Buffer.byteLength(`${authId}:`);
  return Buffer.from(`${authId}:`)
    .toString('base64')
    .slice(0, Math.floor(bytes / 3) * 4);
}

/** The signature inside an Authorization value (`[scheme ]base64(authId:hex)` or `authId:hex`). */
function signatureOf(header: string): string | undefined {
  const token = header.replace(/^\s*[A-Za-z]+\s+/, '').trim();
  for (const pair of [Buffer.from(token, 'base64').toString('utf8'), token]) {
    const m = /:([0-9a-f]{40})$/i.exec(pair);
    if (m !== null) return m[1]!.toLowerCase();
  }
  return undefined;
}

interface Artifacts {
  readonly result: RunResult;
  /** Every artifact by name, as text. */
  readonly files: ReadonlyMap<string, string>;
  /** Every Authorization value that went on the wire. */
  readonly sent: readonly string[];
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Runs the suite in memory against `faults`, writes every report, captures the console. */
async function failingRun(faults: FaultName[], options: Partial<RunOptions>): Promise<Artifacts> {
  const server = createServer({ publicUrl: MEMORY_BASE_URL, faults });
  const sent: string[] = [];
  const progress: string[] = [];
  const stream = { write: (s: string) => progress.push(s), isTTY: false };
  try {
    const result = await runConformance({
      baseUrl: MEMORY_BASE_URL,
      fetch: (r) => {
        const h = r.headers.get('authorization');
        if (h !== null) sent.push(h);
        return server.fetch(r);
      },
      seed: 11,
      numRuns: 15,
      onEvent: reporters.progressReporter(stream as unknown as NodeJS.WriteStream),
      ...options,
    });
    const dir = await mkdtemp(join(tmpdir(), 'tagtrack-secrets-'));
    dirs.push(dir);
    await reporters.writeReports(result, dir);
    const writeHar = (reporters as Record<string, unknown>).writeHar as
      | ((r: RunResult, file: string) => Promise<void>)
      | undefined;
    if (writeHar !== undefined) await writeHar(result, join(dir, 'run.har'));
    const files = new Map<string, string>();
    for (const name of await readdir(dir)) files.set(name, await readFile(join(dir, name), 'utf8'));
    files.set('console (progress)', progress.join(''));
    files.set('console (summary)', reporters.formatSummary(result));
    files.set('exchanges kept for reports', JSON.stringify(result.exchanges));
    return { result, files, sent };
  } finally {
    await server.close();
  }
}

/** Asserts that no artifact holds an access key, a sent signature or header, or an authId prefix. */
function expectNoSecret(a: Artifacts): void {
  const secrets = new Map<string, string>();
  for (const c of CANONICAL_CREDENTIALS) {
    secrets.set(c.accessKey.toLowerCase(), `access key of ${c.label}`);
    secrets.set(base64Prefix(c.authId).toLowerCase(), `base64 authId: prefix of ${c.label}`);
  }
  for (const h of a.sent) {
    const sig = signatureOf(h);
    if (sig !== undefined) secrets.set(sig, `signature of ${JSON.stringify(h.slice(0, 12))}…`);
  }
  expect(secrets.size).toBeGreaterThan(20);
  const leaks: string[] = [];
  for (const [name, text] of a.files) {
    const lower = text.toLowerCase();
    for (const [secret, what] of secrets)
      if (lower.includes(secret)) leaks.push(`${name}: ${what}`);
    for (const h of a.sent)
      if (signatureOf(h) !== undefined && text.includes(h)) leaks.push(`${name}: signed header`);
  }
  expect([...new Set(leaks)]).toEqual([]);
}

describe('no secret in any artifact', () => {
  test('a failing fixture run: auth, oracle and property failures name credentials by label only', async () => {
    const run = await failingRun(
      [
        'signature-not-checked',
        'hex-case-sensitive',
        'auth-unpadded-accepted',
        'contacts-all-team-tags',
        'ignore-is-opened',
      ],
      {
        mode: 'fixture',
        profile: profileFor(),
        only: 'AUTH,ORACLE-CONTACTS,REL-FILTER-CONJUNCTION',
      },
    );
    // the run fails where secrets would show: wrong keys accepted, hex forms, a property
    // whose counterexample holds a credential
    expect(failing(run.result)).toEqual(
      expect.arrayContaining(['AUTH-401-WRONG-KEY', 'AUTH-HEX-ANY-CASE', 'ORACLE-CONTACTS']),
    );
    const oracle = run.result.checks.find((c) => c.id === 'ORACLE-CONTACTS')!;
    const property = oracle.failures.find((f) => f.counterexample !== undefined);
    expect(property?.counterexample).toMatch(/"<credential team\d-[\w-]+>"/);
    expect(run.files.get('results.json')).toMatch(
      /tagtrack-conformance request GET '\/[^']*' --base-url 'http:\/\/tagtrack\.memory' --credential '/,
    );
    // the failures did carry secrets before redaction (a signature in the hex-case message)
    expect(run.files.get('results.json')).toContain('<signature>');
    expectNoSecret(run);
  });

  test('a failing blind run with one admin credential given on the command line', async () => {
    const run = await failingRun(['signature-not-checked', 'hex-case-sensitive'], {
      mode: 'blind',
      authId: team1Admin.authId,
      accessKey: team1Admin.accessKey,
      only: 'AUTH',
    });
    expect(failing(run.result)).toEqual(
      expect.arrayContaining(['AUTH-401-WRONG-KEY', 'AUTH-HEX-ANY-CASE']),
    );
    expect(run.result.exchanges.map((x) => x.requestHeaders.authorization)).toContain(
      '<credential given>',
    );
    expectNoSecret(run);
  });
});

describe('SecretRedactor', () => {
  const c = { label: 'ops', authId: 'ABCDEFGHIJ0123456789', accessKey: 'f'.repeat(40) };
  const sig = '0123456789abcdef0123456789abcdef01234567';
  const header = Buffer.from(`${c.authId}:${sig}`).toString('base64');

  test('replaces access keys, sent headers, whole or partial signatures in any case, and base64 authId prefixes', () => {
    const r = new SecretRedactor([c]);
    r.addHeader(header, 'ops');
    expect(r.redact(`key ${c.accessKey}`)).toBe('key <access key of ops>');
    expect(r.redact(`sent ${header}`)).toBe('sent <credential ops>');
    expect(r.redact(`hex ${sig.toUpperCase()} and ${sig.slice(0, 19)}`)).toBe(
      'hex <signature> and <signature>',
    );
    expect(r.redact(`"${header.slice(0, 30)}"`)).toBe('"<credential ops>"');
    expect(r.redact(`Basic ${Buffer.from(`${c.authId}:x`).toString('base64')}`)).toBe(
      'Basic <credential ops>',
    );
  });

  test('leaves text without secrets as it is (ids, dates, hex that is no secret)', () => {
    const r = new SecretRedactor([c]);
    r.addHeader(header, 'ops');
    const text =
      'GET /teams/tags/5f1e2d3c4b5a69788796a5b4?start=2024-01-01 answered deadbeefdeadbeef';
    expect(r.redact(text)).toBe(text);
  });

  test('a probe header without a colon or with a scheme is learnt too', () => {
    const r = new SecretRedactor();
    r.addHeader(`${c.authId}:${sig}`);
    r.addHeader(`Bearer ${c.accessKey}`);
    expect(r.redact(`note ${c.authId}:${sig.slice(0, 19)}`)).toBe(`note ${c.authId}:<signature>`);
    expect(r.redact(`token ${c.accessKey}`)).toBe('token <redacted>');
  });

  /** The Authorization value of the suite's scheme for signature number `i` (40 hex digits). */
  const signed = (i: number) => {
    const hex = createHash('sha1').update(`request ${i}`).digest('hex');
    return { hex, header: Buffer.from(`${c.authId}:${hex}`).toString('base64') };
  };

  test('its memory is bounded: after 50,000 signed requests it holds no more entries than after the window, and keys and declared secrets are still redacted', () => {
    const r = new SecretRedactor([c]);
    r.addSecret('gateway-secret-0123', '<header x-gateway-key>');
    for (let i = 0; i < RECENT_HEADERS; i++) r.addHeader(signed(i).header, 'ops');
    const full = r.size;
    for (let i = RECENT_HEADERS; i < 50_000; i++) r.addHeader(signed(i).header, 'ops');
    expect(r.size).toBeLessThanOrEqual(full);
    // about 40 entries a value: far fewer than 50,000 values would take
    expect(r.size).toBeLessThan(RECENT_HEADERS * 60);
    expect(r.redact(`key ${c.accessKey} gw gateway-secret-0123`)).toBe(
      'key <access key of ops> gw <header x-gateway-key>',
    );
    // any value of the suite's scheme holds the credential's base64 authId prefix, whole, at
    // any time
    expect(r.redact(`echo ${signed(7).header}`)).toBe('echo <credential ops>');
  });

  test('the signature of the current request and of any within the last RECENT_HEADERS, whole or a piece of 15 characters (a window of 12 every 4), in any case, is redacted in text and in echoed answers', () => {
    const r = new SecretRedactor([c]);
    for (let i = 0; i < 3 * RECENT_HEADERS; i++) r.addHeader(signed(i).header, 'ops');
    const current = signed(3 * RECENT_HEADERS - 1);
    const recent = signed(2 * RECENT_HEADERS + 1);
    for (const { hex, header } of [current, recent]) {
      expect(r.redact(`sig ${hex.toUpperCase()}`)).toBe('sig <signature>');
      expect(r.redact(`piece ${hex.slice(17, 32)}`)).toBe('piece <signature>');
      expect(r.redact(`token piece ${header.slice(-24)}`)).toBe('token piece <credential ops>');
      expect(r.redactEchoesIn(`{"message":"bad ${hex}"}`, 401)).toBe(
        '{"message":"bad <signature>"}',
      );
    }
    // the same value sent again stays known while any of its sends is within the window
    const again = signed(0);
    r.addHeader(again.header, 'ops');
    for (let i = 0; i < RECENT_HEADERS - 1; i++)
      r.addHeader(signed(10 * RECENT_HEADERS + i).header, 'ops');
    expect(r.redact(`sig ${again.hex}`)).toBe('sig <signature>');
  });
});
