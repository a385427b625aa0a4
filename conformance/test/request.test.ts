import { createServer, type TagtrackServer } from '@tagtrack/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runConformance } from '../src/run/runner.ts';
import { profileFor, runCli, team1Admin } from './helpers.ts';

/**
 * `tagtrack-conformance request`: the command that reproduces one request. A failure's
 * reproduce line, run as it is printed, sends the same request signed with the credential
 * its label names (read from the profile or the environment) and gets the same answer.
 */

let faulty: TagtrackServer;
let url: string;

beforeAll(async () => {
  faulty = createServer({ faults: ['bad-date-200'] });
  url = await faulty.listen(0, '127.0.0.1');
});

afterAll(async () => {
  await faulty.close();
});

/** Runs the CLI in-process; resolves its exit code, stdout and stderr. */
const cli = runCli;

/** The words of a shell line of single-quoted and bare words (what `reproduce` prints). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.replace(/ {2}#.*$/, '').matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g))
    words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!);
  return words;
}

describe('tagtrack-conformance request', () => {
  test("a failure's reproduce line, run as printed, gets the same answer (credential by label from the profile)", async () => {
    const result = await runConformance({
      baseUrl: url,
      profile: profileFor(),
      mode: 'fixture',
      only: 'INPUT-400-BAD-DATE',
      seed: 3,
      numRuns: 5,
    });
    const failure = result.checks[0]!.failures[0]!;
    expect(failure.reproduce).toMatch(/^tagtrack-conformance request GET '/);
    const exchange = result.exchanges.find((x) => x.id === failure.exchangeId)!;
    const words = shellWords(failure.reproduce!);
    expect(words.slice(0, 2)).toEqual(['tagtrack-conformance', 'request']);
    const out = await cli(words.slice(1));
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n')[0]).toBe(`HTTP ${exchange.status}`);
    expect(out.stdout).toContain(exchange.body.slice(0, 200));
  });

  test('signs with the --auth-id/--access-key pair from the environment (label given)', async () => {
    const env = { TAGTRACK_AUTH_ID: team1Admin.authId, TAGTRACK_ACCESS_KEY: team1Admin.accessKey };
    const given = await cli(
      ['request', 'GET', '/teams', '--base-url', url, '--credential', 'given'],
      env,
    );
    expect(given.code).toBe(0);
    expect(given.stdout).toMatch(/^HTTP 200\n/);
    const badProfile = await cli(['request', 'GET', '/teams', '--base-url', url], {
      ...env,
      TAGTRACK_PROFILE: '/nonexistent/profile.json',
    });
    expect(badProfile.code).toBe(2);
    expect(badProfile.stderr).toMatch(/nonexistent\/profile\.json/);
    const ok = await cli(['request', 'GET', '/teams?type=admin', '--base-url', url], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^HTTP 200\n/);
    expect(ok.stdout).toContain('"accountType":"admin"');
  });

  test('--no-credential sends no Authorization header (401); an unknown label is exit 2 naming the known ones, no key', async () => {
    const none = await cli(['request', 'GET', '/teams', '--base-url', url, '--no-credential']);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/^HTTP 401\n/);
    const unknown = await cli([
      'request',
      'GET',
      '/teams',
      '--base-url',
      url,
      '--credential',
      'nope',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no credential labelled "nope"; known: team1-admin, /);
    expect(unknown.stderr).not.toContain(team1Admin.accessKey);
    const unreachable = await cli(['request', 'GET', '/teams', '--base-url', 'http://127.0.0.1:9']);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
    expect(unreachable.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9\/teams/);
  });
});
