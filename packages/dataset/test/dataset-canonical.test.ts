import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Dataset, normaliseEmail, validateDataset } from '@tagtrack/core';
import { describe, expect, it } from 'vitest';
import { CANONICAL_CREDENTIALS, canonicalDataset, DEMO_CREDENTIALS } from '../src/canonical.ts';
import { generateCanonicalDataset } from '../src/generate.ts';
import { generatorProblems } from './dataset-checks.ts';

const JSON_PATH = fileURLToPath(new URL('../src/canonical.json', import.meta.url));

describe('canonical dataset', () => {
  it('equals what the generator makes from CANONICAL_SEED, with its edge cases (run `pnpm generate` after changing it)', () => {
    expect(canonicalDataset).toEqual(generateCanonicalDataset());
  });

  it('exercises the edge cases of Revision 2 the generator never hits (EDGE_CASES)', () => {
    const ds = canonicalDataset;
    expect(ds.tags.some((t) => t.subject.includes('\r\n'))).toBe(true);
    expect(ds.tags.some((t) => /\r(?!\n)/.test(t.subject))).toBe(true);
    const names = ds.teams[1]!.groups.map((g) => g.groupName);
    expect(new Set(names).size).toBeLessThan(names.length);
    const spelled = ds.tags[0]!.recipients.map((r) => r.email);
    expect(new Set(spelled.map(normaliseEmail)).size).toBe(spelled.length - 1);
    const instants = new Map<string, Set<string>>();
    for (const o of ds.opens) {
      const k = `${o.tagID} ${o.date}`;
      instants.set(k, (instants.get(k) ?? new Set()).add(normaliseEmail(o.email)));
    }
    expect([...instants.values()].some((emails) => emails.size > 1)).toBe(true);
  });

  it('is schema-valid and referentially consistent', () => {
    expect(Dataset.safeParse(canonicalDataset).success).toBe(true);
    // withEdgeCases breaks exactly these two invariants of the generator, on purpose
    expect(generatorProblems(canonicalDataset)).toEqual([
      `team ${canonicalDataset.teams[1]!.teamID}: group names repeat`,
      `tag ${canonicalDataset.tags[0]!.tagID}: repeated recipient`,
    ]);
    expect(validateDataset(canonicalDataset)).toEqual([]);
  });

  it('has 2 teams of 6 members, 300 tags, a few thousand events, and stays under 2 MB', () => {
    expect(canonicalDataset.teams).toHaveLength(2);
    expect(canonicalDataset.teams.flatMap((t) => t.members)).toHaveLength(12);
    expect(canonicalDataset.tags).toHaveLength(300);
    const events = canonicalDataset.opens.length + canonicalDataset.clicks.length;
    expect(events).toBeGreaterThan(1_500);
    expect(events).toBeLessThan(5_000);
    expect(statSync(JSON_PATH).size).toBeLessThan(2_000_000);
  });

  it('gives each team an admin, managers with and without a group, users with and without', () => {
    for (const team of canonicalDataset.teams) {
      const roles = team.members.map((m) => `${m.accountType}:${m.groupID !== undefined}`);
      expect(roles).toContain('manager:true');
      expect(roles).toContain('manager:false');
      expect(roles).toContain('user:true');
      expect(roles).toContain('user:false');
      expect(roles.filter((r) => r.startsWith('admin:'))).toHaveLength(1);
    }
  });
});

describe('CANONICAL_CREDENTIALS', () => {
  it('lists every credential of the dataset once, labelled by team, account type and group', () => {
    expect(CANONICAL_CREDENTIALS.map((c) => c.label)).toEqual([
      'team1-admin',
      'team1-manager',
      'team1-manager-nogroup',
      'team1-user',
      'team1-user-nogroup',
      'team1-user-group2',
      'team2-admin',
      'team2-manager',
      'team2-manager-nogroup',
      'team2-user',
      'team2-user-nogroup',
      'team2-user-group2',
    ]);
    expect(new Set(CANONICAL_CREDENTIALS.map((c) => c.authId))).toEqual(
      new Set(canonicalDataset.credentials.map((c) => c.authId)),
    );
    for (const c of CANONICAL_CREDENTIALS) {
      const member = canonicalDataset.teams
        .flatMap((t) => t.members)
        .find((m) => m.memberID === c.memberID);
      if (DEMO_CREDENTIALS.includes(c)) continue;
      expect(c.label.endsWith('-nogroup'), c.label).toBe(member?.groupID === undefined);
    }
  });

  it('DEMO_CREDENTIALS are the admin, a manager and a user per team, team1 then team2', () => {
    expect(DEMO_CREDENTIALS.map((c) => c.label)).toEqual([
      'team1-admin',
      'team1-manager',
      'team1-user',
      'team2-admin',
      'team2-manager',
      'team2-user',
    ]);
  });

  it('resolve to dataset credentials of members of the right team and account type', () => {
    for (const c of CANONICAL_CREDENTIALS) {
      const credential = canonicalDataset.credentials.find((d) => d.authId === c.authId);
      expect(credential, c.label).toEqual({
        authId: c.authId,
        accessKey: c.accessKey,
        memberID: c.memberID,
      });
      const team = canonicalDataset.teams.find((t) => t.teamID === c.teamID);
      const member = team?.members.find((m) => m.memberID === c.memberID);
      expect(member?.accountType, c.label).toBe(c.accountType);
      expect(c.label.startsWith(`team${canonicalDataset.teams.indexOf(team!) + 1}-`)).toBe(true);
    }
  });

  it('the demo credentials pick managers that have a group, and users in a group', () => {
    for (const c of DEMO_CREDENTIALS.filter((x) => x.accountType !== 'admin')) {
      const member = canonicalDataset.teams
        .flatMap((t) => t.members)
        .find((m) => m.memberID === c.memberID);
      expect(member?.groupID, c.label).toBeDefined();
    }
  });
});
