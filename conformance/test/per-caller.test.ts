import { createServer, type FaultName } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { callerClass } from '../src/check/callers.ts';
import type { ProfileInput } from '../src/profile/profile.ts';
import { type RunResult, runConformance } from '../src/run/runner.ts';
import { DECLARED, MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';

/**
 * Blind mode with several declared credentials runs every relation and law as one credential
 * of each distinct (team, account type, with/without a group) declared (`callers.ts`): a fault
 * only a manager's or user's answers show is caught, and the failure names that caller; with
 * one credential the run is what it was.
 */

async function run(
  options: { faults?: FaultName[]; credentials: ProfileInput['credentials']; only: string },
  extra: { authId?: string; accessKey?: string; mode?: 'blind' | 'fixture' } = {},
): Promise<RunResult> {
  const server = createServer({ publicUrl: MEMORY_BASE_URL, faults: options.faults ?? [] });
  try {
    return await runConformance({
      baseUrl: MEMORY_BASE_URL,
      fetch: (r) => server.fetch(r),
      profile: { ...profileFor(), credentials: options.credentials },
      mode: extra.mode ?? 'blind',
      seed: 7,
      numRuns: 4,
      only: options.only,
      ...(extra.authId === undefined
        ? {}
        : { authId: extra.authId, accessKey: extra.accessKey ?? '' }),
    });
  } finally {
    await server.close();
  }
}

describe('callerClass: team, account type and whether the caller has a group', () => {
  const m = (memberID: string, groupID?: string) => ({ memberID, groupID });
  const c = (accountType: 'admin' | 'manager' | 'user', memberID?: string) => ({
    label: 'x',
    authId: 'a',
    accessKey: 'k',
    teamID: 't1',
    accountType,
    memberID,
  });

  test('read from the declared member, else from what a user or manager sees', () => {
    expect(callerClass(c('admin', 'm1'), [m('m1', 'g1'), m('m2')])?.group).toBe('group');
    expect(callerClass(c('admin', 'm2'), [m('m1', 'g1'), m('m2')])?.group).toBe('no group');
    expect(callerClass(c('admin'), [m('m1', 'g1'), m('m2')])?.group).toBe('unknown');
    expect(callerClass(c('user'), [m('m1', '')])?.group).toBe('no group');
    expect(callerClass(c('user'), [m('m1', 'g1')])?.group).toBe('group');
    expect(callerClass(c('manager'), [m('m1')])?.group).toBe('no group');
    expect(callerClass(c('manager'), [m('m1', 'g1'), m('m2', 'g1')])?.group).toBe('group');
    expect(
      callerClass({ label: 'x', authId: 'a', accessKey: 'k' }, [m('m1', 'g1')]),
    ).toBeUndefined();
  });
});

describe('relations per caller in blind mode', () => {
  test('a fault only a manager or user sees is caught per caller, the failure naming a caller that is no admin; one admin credential passes it', async () => {
    // /contacts/{id} of a manager or user counts every tag of the team, unlike its list
    const faults: FaultName[] = ['contact-single-team-counters'];
    const only = 'REL-SINGLE-MATCHES-LIST';
    const [every, admin] = await Promise.all([
      run({ faults, credentials: DECLARED, only }),
      run(
        { faults, credentials: [], only },
        { authId: team1Admin.authId, accessKey: team1Admin.accessKey },
      ),
    ]);
    const check = every.checks.find((c) => c.id === only)!;
    expect(check.status).toBe('fail');
    const labels = new Set(DECLARED.map((c) => c.label));
    for (const f of check.failures) {
      const label = /^as ([\w-]+): /.exec(f.message)?.[1];
      expect(label !== undefined && labels.has(label), f.message).toBe(true);
      expect(label).not.toMatch(/-admin$/);
    }
    expect(admin.checks.find((c) => c.id === only)!.status).toBe('pass');
  }, 120_000);

  test('with one credential nothing changes: a declared admin alone sends what --auth-id sends, and no failure names a caller', async () => {
    const only = 'agg,rel';
    const declaredAdmin = DECLARED.filter((c) => c.label === 'team1-admin');
    const [declared, given] = await Promise.all([
      run({ credentials: declaredAdmin, only }),
      run(
        { credentials: [], only },
        { authId: team1Admin.authId, accessKey: team1Admin.accessKey },
      ),
    ]);
    expect(declared.requests.sent).toBe(given.requests.sent);
    expect(declared.checks.map((c) => [c.id, c.status, c.requests])).toEqual(
      given.checks.map((c) => [c.id, c.status, c.requests]),
    );
  }, 120_000);

  test('the checks comparing two callers skip with one credential, and pass against the reference server with the twelve', async () => {
    const only = [
      'REL-CALLER-WITHIN-ADMIN',
      'REL-MANAGER-GROUP-STATS',
      'REL-CONTACT-CALLER-TAGS',
      'REL-GROUP-NAME-OWN-TEAM',
    ];
    const [one, twelve] = await Promise.all([
      run(
        { credentials: [], only: only.join(',') },
        { authId: team1Admin.authId, accessKey: team1Admin.accessKey },
      ),
      run({ credentials: DECLARED, only: only.join(',') }),
    ]);
    expect(one.checks.map((c) => [c.id, c.status])).toEqual(only.map((id) => [id, 'skip']));
    expect(twelve.checks.map((c) => [c.id, c.status])).toEqual(only.map((id) => [id, 'pass']));
  }, 120_000);

  test('fixture mode runs the relations as the primary alone (the oracle judges every caller)', async () => {
    const only = 'REL-RANGE-SPLIT';
    const [fixture, blind] = await Promise.all([
      run({ credentials: profileFor().credentials, only }, { mode: 'fixture' }),
      run({ credentials: DECLARED, only }),
    ]);
    const requests = (r: RunResult) => r.checks.find((c) => c.id === only)!.requests;
    expect(fixture.checks[0]!.status).toBe('pass');
    expect(blind.checks[0]!.status).toBe('pass');
    // ten callers in blind mode, each walking its own lists, against one in fixture mode
    expect(requests(blind)).toBeGreaterThan(requests(fixture));
  }, 120_000);
});
