import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { createServer, type ServerOptions } from '@tagtrack/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  accessKeyVariable,
  inferProfile,
  initCredentials,
  keepDeclared,
} from '../src/commands/init.ts';
import { loadProfile } from '../src/profile/profile.ts';
import { runConformance } from '../src/run/runner.ts';
import { failing, MEMORY_BASE_URL, runCli, team1Admin } from './helpers.ts';

/**
 * `tagtrack-conformance init`: the profile it infers from the reference server's
 * answers is the one the server was built with, and a blind run with it passes.
 */

const given = (labels?: readonly string[]) =>
  CANONICAL_CREDENTIALS.filter((c) => labels === undefined || labels.includes(c.label)).map(
    (c) => ({ label: c.label, authId: c.authId, accessKey: c.accessKey }),
  );

/** The server's option sets, each with the profile fields init must infer from its answers. */
const OPTION_SETS: readonly {
  name: string;
  server: ServerOptions;
  expected: Record<string, unknown>;
  only?: string;
}[] = [
  {
    name: 'default',
    server: {},
    expected: {
      pageSize: 250,
      pagingEnd: 'no-content',
      memberWithoutGroup: 'omit',
      rateLimit: null,
    },
  },
  { name: 'pageSize 7', server: { pageSize: 7 }, expected: { pageSize: 7 } },
  {
    name: 'pagingEnd empty-page',
    server: { pagingEnd: 'empty-page' },
    expected: { pagingEnd: 'empty-page' },
  },
  {
    name: 'memberWithoutGroup empty',
    server: { memberWithoutGroup: 'empty' },
    expected: { memberWithoutGroup: 'empty' },
  },
  {
    name: 'rate limit 40 per second',
    server: { rateLimit: { limit: 40, windowMs: 1000 } },
    expected: { rateLimit: { limit: 40, windowMs: 1000, retryAfter: true } },
    // every request of a run is paced to 40/s: the rate checks and the paging ones
    only: 'RATE,PAGE,AUTH-401-MISSING',
  },
];

describe('init infers the options of the reference server, and a blind run with them passes', () => {
  for (const set of OPTION_SETS) {
    test(set.name, async () => {
      const server = createServer({ publicUrl: MEMORY_BASE_URL, ...set.server });
      try {
        const fetch = (r: Request) => server.fetch(r);
        const { profile, inferred } = await inferProfile({
          baseUrl: MEMORY_BASE_URL,
          fetch,
          credentials: given(['team1-admin', 'team1-user']),
        });
        expect(profile).toMatchObject({ rtn: ['json', 'text', 'html'], ...set.expected });
        // every inferred value is explained by the answers it rests on
        for (const i of inferred) expect(i.evidence, i.field).toMatch(/\S/);
        const result = await runConformance({
          baseUrl: MEMORY_BASE_URL,
          fetch,
          profile,
          mode: 'blind',
          seed: 11,
          numRuns: 3,
          ...(set.only === undefined ? {} : { only: set.only }),
        });
        expect(failing(result)).toEqual([]);
        expect(result.ok).toBe(true);
      } finally {
        await server.close();
      }
    });
  }
});

describe('init with the twelve canonical credentials', () => {
  test('account types, member ids and team grouping are the canonical ones', async () => {
    const server = createServer({ publicUrl: MEMORY_BASE_URL });
    try {
      const { profile } = await inferProfile({
        baseUrl: MEMORY_BASE_URL,
        fetch: (r) => server.fetch(r),
        credentials: given(),
      });
      expect(profile.credentials).toHaveLength(12);
      const teamLabel = new Map<string, string>();
      for (const c of profile.credentials) {
        const canonical = CANONICAL_CREDENTIALS.find((k) => k.label === c.label)!;
        expect(c.accountType, c.label).toBe(canonical.accountType);
        if (c.memberID !== undefined) expect(c.memberID, c.label).toBe(canonical.memberID);
        // one inferred label per canonical team, and another for the other team
        const label = teamLabel.get(canonical.teamID) ?? c.teamID!;
        teamLabel.set(canonical.teamID, label);
        expect(c.teamID, c.label).toBe(label);
      }
      expect(new Set(teamLabel.values()).size).toBe(2);
    } finally {
      await server.close();
    }
  });

  test('two users of one team see no common member: two team labels, both users', async () => {
    const server = createServer({ publicUrl: MEMORY_BASE_URL });
    try {
      const { profile, unknown } = await inferProfile({
        baseUrl: MEMORY_BASE_URL,
        fetch: (r) => server.fetch(r),
        credentials: given(['team1-user', 'team1-user-nogroup']),
      });
      expect(profile.credentials.map((c) => c.accountType)).toEqual(['user', 'user']);
      expect(new Set(profile.credentials.map((c) => c.teamID)).size).toBe(2);
      expect(unknown.join('\n')).toMatch(/teamID: the API shows no team id/);
    } finally {
      await server.close();
    }
  });
});

describe('init credentials', () => {
  test('--credential LABEL:AUTHID takes the key from TAGTRACK_ACCESS_KEY_<LABEL>', async () => {
    expect(accessKeyVariable('team1-admin')).toBe('TAGTRACK_ACCESS_KEY_TEAM1_ADMIN');
    expect(
      await initCredentials(
        { credential: [`team1-admin:${team1Admin.authId}`] },
        { TAGTRACK_ACCESS_KEY_TEAM1_ADMIN: team1Admin.accessKey },
      ),
    ).toEqual([
      { label: 'team1-admin', authId: team1Admin.authId, accessKey: team1Admin.accessKey },
    ]);
    expect(await initCredentials({ credential: ['a:B'] }, {})).toBe(
      '--credential a: set its access key in TAGTRACK_ACCESS_KEY_A',
    );
    expect(await initCredentials({ credential: ['nocolon'] }, {})).toMatch(/is not LABEL:AUTHID/);
    expect(await initCredentials({ credential: [] }, {})).toMatch(/^no credential/);
    // the pair of TAGTRACK_AUTH_ID/TAGTRACK_ACCESS_KEY is added as `given` unless already listed
    const listed = await initCredentials(
      {
        credential: [`team1-admin:${team1Admin.authId}`],
        authId: team1Admin.authId,
        accessKey: team1Admin.accessKey,
      },
      { TAGTRACK_ACCESS_KEY_TEAM1_ADMIN: team1Admin.accessKey },
    );
    expect(listed).toHaveLength(1);
    expect(await initCredentials({ credential: [], authId: 'A', accessKey: 'K' }, {})).toEqual([
      { label: 'given', authId: 'A', accessKey: 'K' },
    ]);
  });
});

describe('init --credentials-file', () => {
  test('reads a list or a profile; no key reaches the output; a bad entry is named', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tagtrack-init-file-'));
    const server = createServer();
    try {
      const baseUrl = await server.listen(0, '127.0.0.1');
      const list = join(dir, 'credentials.json');
      await writeFile(list, JSON.stringify(given()));
      expect(await initCredentials({ credential: [], credentialsFile: list })).toEqual(given());
      const asProfile = join(dir, 'profile-in.json');
      await writeFile(
        asProfile,
        JSON.stringify({ pageSize: 7, credentials: given(['team2-user']) }),
      );
      expect(await initCredentials({ credential: [], credentialsFile: asProfile })).toEqual(
        given(['team2-user']),
      );
      const bad = join(dir, 'bad.json');
      await writeFile(bad, JSON.stringify([{ label: 'x', authId: 'y' }]));
      expect(await initCredentials({ credential: [], credentialsFile: bad })).toMatch(
        /entry 0 needs non-empty label, authId and accessKey/,
      );
      const out = join(dir, 'profile.json');
      const r = await runCli([
        'init',
        '--base-url',
        baseUrl,
        '--credentials-file',
        list,
        '--out',
        out,
      ]);
      expect(r.code).toBe(0);
      for (const c of CANONICAL_CREDENTIALS) {
        expect(r.stdout).not.toContain(c.accessKey);
        expect(r.stderr).not.toContain(c.accessKey);
      }
      expect((await loadProfile(out)).credentials).toHaveLength(12);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the init command over a socket', () => {
  let dir: string;
  const server = createServer();
  let baseUrl: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tagtrack-init-'));
    baseUrl = await server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('writes a valid profile with mode 0600, explains each value, never prints a key', async () => {
    const out = join(dir, 'profile.json');
    const env = { TAGTRACK_ACCESS_KEY_TEAM1_ADMIN: team1Admin.accessKey };
    const args = [
      'init',
      '--base-url',
      baseUrl,
      '--credential',
      `team1-admin:${team1Admin.authId}`,
    ];
    const r = await runCli([...args, '--out', out], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}pageSize: 250 {2}\(GET \/contacts answered 250 records/m);
    expect(r.stdout).toMatch(
      /^ {2}pagingEnd: "no-content" {2}\(GET \/teams\?cursor=6 answered 204/m,
    );
    expect(r.stdout).toMatch(/wrote .*profile\.json \(file mode 0600/);
    expect(r.stdout).not.toContain(team1Admin.accessKey);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const profile = await loadProfile(out);
    expect(profile.credentials).toEqual([
      {
        label: 'team1-admin',
        authId: team1Admin.authId,
        accessKey: team1Admin.accessKey,
        teamID: 'team-1',
        accountType: 'admin',
        memberID: team1Admin.memberID,
      },
    ]);
    // an existing file is not overwritten without --force
    const again = await runCli([...args, '--out', out], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists: pass --force/);
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(profile);
  });

  test('a rejected credential is named by label and authId, exit 2', async () => {
    const r = await runCli(
      ['init', '--base-url', baseUrl, '--credential', 'wrong:NOPE', '--out', join(dir, 'x.json')],
      { TAGTRACK_ACCESS_KEY_WRONG: 'not-the-key' },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'tagtrack-conformance init: credential wrong (authId NOPE) was rejected: GET /teams answered 401\n',
    );
  });
});

describe('init keeps what a credentials file declares', () => {
  test('team ids (for the whole inferred team), account types and member ids of the file win over the inferred ones', () => {
    const inferred = [
      { label: 'a', authId: 'A', accessKey: 'k', teamID: 'team-1', accountType: 'admin' as const },
      { label: 'b', authId: 'B', accessKey: 'k', teamID: 'team-1', accountType: 'user' as const },
      { label: 'c', authId: 'C', accessKey: 'k', teamID: 'team-2' },
    ];
    const declared = new Map([
      ['A', { teamID: 'acme-eu' }],
      ['C', { accountType: 'manager', memberID: 'm7' }],
    ]);
    expect(keepDeclared(inferred, declared)).toEqual([
      { label: 'a', authId: 'A', accessKey: 'k', teamID: 'acme-eu', accountType: 'admin' },
      { label: 'b', authId: 'B', accessKey: 'k', teamID: 'acme-eu', accountType: 'user' },
      {
        label: 'c',
        authId: 'C',
        accessKey: 'k',
        teamID: 'team-2',
        accountType: 'manager',
        memberID: 'm7',
      },
    ]);
  });
});
