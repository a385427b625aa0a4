import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  type Caller,
  ENDPOINT_LIST,
  endpointById,
  type ReportingIndex,
  tableColumns,
  toTable,
  utcDay,
} from '@tagtrack/core';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { buildIndex } from '@tagtrack/engine';
import { createServer, type TagtrackServer } from '@tagtrack/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type CliIo, QUERY_FLAGS, runCli } from '../src/cli.ts';
import { contacts, fakeFetch, listHandler } from './fakes.ts';

const PAGE_SIZE = 7;
let server: TagtrackServer;
let baseUrl: string;
let index: ReportingIndex;
const admin = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;
let caller: Caller;

beforeAll(async () => {
  server = createServer({ pageSize: PAGE_SIZE });
  baseUrl = await server.listen(0, '127.0.0.1');
  index = buildIndex(canonicalDataset);
  caller = index.credential(admin.authId)!.caller;
});
afterAll(async () => {
  await server.close();
});

class Capture {
  text = '';
  constructor(readonly isTTY = false) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(
  argv: string[],
  options: {
    env?: Record<string, string>;
    tty?: boolean;
    noCredentials?: boolean;
    fetch?: typeof fetch;
  } = {},
): Promise<Run> {
  const stdout = new Capture();
  const stderr = new Capture(options.tty ?? false);
  const env = options.noCredentials
    ? {}
    : {
        TAGTRACK_BASE_URL: baseUrl,
        TAGTRACK_AUTH_ID: admin.authId,
        TAGTRACK_ACCESS_KEY: admin.accessKey,
      };
  const io: CliIo = { stdout, stderr, env: { ...env, ...options.env }, fetch: options.fetch };
  const code = await runCli(argv, io);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('tagtrack CLI output formats', () => {
  test('json: one page of records as a JSON array, with a hint on stderr when more pages exist', async () => {
    const run = await cli(['teams', 'list', '--type', 'user']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(index.members(caller, { type: 'user' }).slice(0, 7));
    const tags = await cli(['teams', 'tags', '--opened']);
    expect(JSON.parse(tags.stdout)).toEqual(index.tags(caller, { isOpened: true })!.slice(0, 7));
    expect(tags.stderr).toMatch(/^tagtrack: 7 of \d+ records; more with --cursor 7 or --all\n$/);
  });

  test('json --all follows every page; --cursor starts later', async () => {
    const run = await cli(['teams', 'tags', '--start', '2024-01-01', '--all']);
    expect(run.code).toBe(0);
    const all = index.tags(caller, { start: '2024-01-01' })!;
    expect(all.length).toBeGreaterThan(PAGE_SIZE);
    expect(JSON.parse(run.stdout)).toEqual(all);
    expect(run.stderr).toBe(''); // no progress line when stderr is not a TTY

    const later = await cli(['contacts', 'list', '--all', '--cursor', '10']);
    expect(JSON.parse(later.stdout)).toEqual(index.contacts(caller).slice(10));
  });

  test('json of a single record is the object', async () => {
    const member = index.members(caller)[2]!;
    const run = await cli(['teams', 'member', member.memberID]);
    expect(JSON.parse(run.stdout)).toEqual(member);
    const tag = index.tags(caller, {})![0]!;
    const day = utcDay(Date.parse(tag.dateSent));
    const daily = await cli(['tags', 'daily', tag.tagID, '--date', day]);
    expect(JSON.parse(daily.stdout)).toEqual(index.daily(caller, tag.tagID, day));
  });

  test('ndjson: one JSON record per line over all pages', async () => {
    const run = await cli(['contacts', 'list', '--all', '-o', 'ndjson']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(index.contacts(caller));
  });

  test("csv: core's flattened columns, header once, one row per record over all pages", async () => {
    const run = await cli(['teams', 'list', '--all', '--output', 'csv']);
    expect(run.code).toBe(0);
    const members = index.members(caller);
    expect(members.length).toBeGreaterThan(PAGE_SIZE - 2);
    const lines = run.stdout.trimEnd().split('\n');
    const endpoint = endpointById('teams.list');
    expect(lines[0]).toBe(tableColumns(endpoint).join(','));
    expect(lines).toHaveLength(members.length + 1);
    const firstRow = toTable(endpoint, members.slice(0, 1)).rows[0]!;
    expect(lines[1]).toBe(firstRow.join(','));
  });

  test('csv of aggregated stats has no date column; per-day stats keep it', async () => {
    const columns = tableColumns(endpointById('stats.team'));
    expect(columns).toContain('date');
    const agg = await cli(['stats', 'team', '--aggregate', '-o', 'csv']);
    expect(agg.code).toBe(0);
    const [head, row, ...rest] = agg.stdout.trimEnd().split('\n');
    expect(head).toBe(columns.filter((c) => c !== 'date').join(','));
    expect(row!.split(',')).toHaveLength(columns.length - 1);
    expect(rest).toEqual([]);
    const daily = await cli(['stats', 'team', '-o', 'csv']);
    expect(daily.code).toBe(0);
    expect(daily.stdout.split('\n')[0]).toBe(columns.join(','));
  });

  test('table: a bordered table with the flattened stats columns', async () => {
    const run = await cli(['stats', 'team', '--aggregate', '-o', 'table']);
    expect(run.code).toBe(0);
    const [agg] = index.stats(caller, { subject: { kind: 'team' }, aggregateData: true })!;
    expect(run.stdout).toMatch(/┌.*┐/);
    for (const column of tableColumns(endpointById('stats.team')))
      if (column !== 'date') expect(run.stdout).toContain(column);
    // aggregated stats carry no date: no date column
    expect(run.stdout.split('\n')[1]).not.toMatch(/\bdate\b/);
    expect(run.stdout).toContain(String(agg!.totalOpens));
    expect(run.stdout).toContain(agg!.dateLastSent!);
  });

  test('stats without a subcommand is team stats; stats group NAME resolves the name', async () => {
    const run = await cli(['stats', '--start', '2024-01-01', '--end', '2025-12-31', '--aggregate']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(
      index.stats(caller, {
        subject: { kind: 'team' },
        start: '2024-01-01',
        end: '2025-12-31',
        aggregateData: true,
      }),
    );
    const group = canonicalDataset.teams[0]!.groups[0]!;
    const byName = await cli(['stats', 'group', group.groupName, '--aggregate']);
    expect(JSON.parse(byName.stdout)).toEqual(
      index.stats(caller, {
        subject: { kind: 'group', group: group.groupName },
        aggregateData: true,
      }),
    );
  });

  test("--rtn text prints the server's TSV as is", async () => {
    const tag = index.tags(caller, {})![0]!;
    const run = await cli(['opens', 'tag', tag.tagID, '--rtn', 'text']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(tableColumns(endpointById('opens.tag')).join('\t'));
  });

  test('a progress line goes to stderr while following pages on a TTY only', async () => {
    const run = await cli(['teams', 'tags', '--all', '-o', 'ndjson'], { tty: true });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('teams.tags');
    expect(run.stderr).toMatch(/\d+\/\d+ records/);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(index.tags(caller, {})!.length);
  });
});

describe('tagtrack CLI credentials and exit codes', () => {
  test('flags win over the environment', async () => {
    const withBadEnv = await cli(
      ['contacts', 'list', '--access-key', admin.accessKey, '--auth-id', admin.authId],
      { env: { TAGTRACK_ACCESS_KEY: 'wrong', TAGTRACK_AUTH_ID: 'wrong' } },
    );
    expect(withBadEnv.code).toBe(0);
    const withBadFlag = await cli(['contacts', 'list', '--access-key', 'wrong']);
    expect(withBadFlag.code).toBe(1);
    expect(withBadFlag.stderr).toMatch(/^tagtrack: 401 Unauthorized: .+\n$/);
  });

  test('exit 1 with one error line for API errors (404, 400)', async () => {
    const missing = await cli(['teams', 'member', '000000000000000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(
      /^tagtrack: 404 Not Found: .+ \(GET http:\/\/127\.0\.0\.1:\d+\/teams\/member\/0+\)\n$/,
    );

    const range = await cli(['teams', 'tags', '--start', '2024-02-01', '--end', '2024-01-01']);
    expect(range.code).toBe(1);
    expect(range.stderr).toMatch(/^tagtrack: 400 Bad Request: .*start.*\n$/);
  });

  test('exit 1 when the server cannot be reached', async () => {
    const run = await cli([
      'teams',
      'list',
      '--base-url',
      'http://127.0.0.1:9',
      '--timeout',
      '2000',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^tagtrack: GET http:\/\/127\.0\.0\.1:9\/teams failed/);
  });

  test('exit 2 for usage errors: unknown option or command, bad values, missing credentials', async () => {
    const cases: [string[], RegExp, boolean?][] = [
      [['teams', 'tags', '--isOpen'], /unknown option '--isOpen'/],
      [['teams', 'lst'], /unknown command 'lst'/],
      [['teams', 'list', '--type', 'boss'], /--type.*boss.*admin, manager, user|Allowed choices/s],
      [['teams', 'tags', '--start', '2024-02-30'], /YYYY-MM-DD/],
      [['tags', 'daily', 'abc'], /required option '--date/],
      [['teams', 'member'], /missing required argument 'memberID'/],
      [['teams', 'list', '-o', 'xml'], /Allowed choices are json, ndjson, table, csv/],
      [['teams', 'member', 'x', '--all'], /--all: teams.member returns a single record/],
      [['teams', 'list'], /missing --base-url \(or TAGTRACK_BASE_URL\), --auth-id/, true],
    ];
    for (const [argv, message, noCredentials] of cases) {
      const run = await cli(argv, { noCredentials: noCredentials ?? false });
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr, argv.join(' ')).toMatch(message);
      expect(run.stderr.trimEnd().split('\n')[0], argv.join(' ')).toMatch(/^error: /);
      expect(run.stdout).toBe('');
    }
  });

  test('exit 0 for --help; exit 2 for a resource without an action', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('TAGTRACK_BASE_URL');
    const bare = await cli(['teams']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('member-tags');
  });

  test('bin/tagtrack.js runs the CLI from source and sets the exit code', async () => {
    const bin = fileURLToPath(new URL('../bin/tagtrack.js', import.meta.url));
    const env = {
      ...process.env,
      TAGTRACK_BASE_URL: baseUrl,
      TAGTRACK_AUTH_ID: admin.authId,
      TAGTRACK_ACCESS_KEY: admin.accessKey,
    };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [bin, 'teams', 'list', '-o', 'ndjson'],
      {
        env,
      },
    );
    expect(
      stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(index.members(caller).slice(0, PAGE_SIZE));
    const failed = await promisify(execFile)(process.execPath, [bin, 'teams', 'nope'], {
      env,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 2 });
  });
});

describe('tagtrack CLI paging end and common parameters (spec §5 Revision 2)', () => {
  test('every query parameter of every catalogue endpoint has a flag, or is the global --cursor / --rtn', () => {
    for (const e of ENDPOINT_LIST) {
      for (const q of e.query) {
        const covered = q === 'cursor' || q === 'rtn' || QUERY_FLAGS[q] !== undefined;
        expect(covered, `${e.id} ${q}`).toBe(true);
      }
    }
  });

  test('--total and --next are sent as given on every page of --all, which ends at the last page', async () => {
    const records = contacts(5);
    const f = fakeFetch(listHandler(records, 2, 'no-content'));
    const run = await cli(
      ['contacts', 'list', '--all', '--total', 'a b', '--next', '0', '-o', 'ndjson'],
      { fetch: f, env: { TAGTRACK_BASE_URL: 'http://127.0.0.1:9' } },
    );
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(records);
    expect(f.requests.map((r) => r.url.search)).toEqual([
      '?total=a%20b&next=0',
      '?cursor=2&total=a%20b&next=0',
      '?cursor=4&total=a%20b&next=0',
    ]);
  });

  test('a 204 (empty list, or a cursor past the end) prints an empty result and exits 0', async () => {
    const f = fakeFetch(listHandler(contacts(3), 2, 'no-content'));
    const env = { TAGTRACK_BASE_URL: 'http://127.0.0.1:9' };
    const one = await cli(['contacts', 'list', '--cursor', '3'], { fetch: f, env });
    expect(one).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
    const all = await cli(['contacts', 'list', '--all', '--cursor', '7', '-o', 'csv'], {
      fetch: f,
      env,
    });
    expect(all.code).toBe(0);
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(1); // the header only
    const text = await cli(['contacts', 'list', '--cursor', '3', '--rtn', 'text'], {
      fetch: f,
      env,
    });
    expect(text).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(f.requests.every((r) => r.url.searchParams.get('cursor') !== null)).toBe(true);
  });

  test('against the reference server: an empty filter result and a cursor past the end give [] with exit 0', async () => {
    const empty = await cli(['teams', 'tags', '--opened', '--unopened', '--all']);
    expect(empty).toMatchObject({ code: 0, stdout: '[]\n' });
    const past = await cli(['contacts', 'list', '--cursor', '100000']);
    expect(past).toMatchObject({ code: 0, stdout: '[]\n' });
    const pastAll = await cli(['contacts', 'list', '--all', '--cursor', '100000', '-o', 'ndjson']);
    expect(pastAll).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('tagtrack --version', () => {
  test('prints the package version and exits 0', async () => {
    const { version } = (await import('../package.json', { with: { type: 'json' } })).default;
    for (const flag of ['--version', '-V']) {
      const run = await cli([flag], { noCredentials: true });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
      expect(run.stderr).toBe('');
    }
  });
});
