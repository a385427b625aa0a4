import type { AccountType } from '@tagtrack/core';
import { Dataset, type DatasetMember } from '@tagtrack/core';
import * as z from 'zod';
import data from './canonical.json' with { type: 'json' };

/**
 * The canonical dataset: 2 teams of 6 members (admin, manager with a group, manager without
 * a group, user without a group, users in groups), 300 tags and about 2,500 events, generated
 * by `pnpm generate` from `CANONICAL_SEED` at `CANONICAL_SCALE` (see generate.ts) plus the
 * edge cases of `EDGE_CASES` (edge-cases.ts), and committed as `canonical.json`. Parsed with the {@link Dataset} schema once, at import.
 */
export const canonicalDataset: Dataset = parseCanonical(data);

/** A credential of the canonical dataset, labelled for humans, e.g. `team1-manager`. */
export interface CanonicalCredential {
  readonly teamID: string;
  readonly accountType: AccountType;
  readonly memberID: string;
  readonly authId: string;
  readonly accessKey: string;
  /** `team<N>-<accountType>`, N counting teams from 1 in dataset order. */
  readonly label: string;
}

/**
 * Every credential of the canonical dataset (12: six per team), team by team, each team's
 * members in dataset order by account type (admin, managers, users), labelled by team, account
 * type and group (spec §3, §4):
 * - `team<N>-<accountType>`: the team's admin; its first manager WITH a group; its first user
 *   in a group (the three demo credentials of a team, labels unchanged since 0.1);
 * - `team<N>-<accountType>-nogroup`: a manager or user without a group;
 * - `team<N>-<accountType>-group<G>`: another member of that type in the team's G-th group
 *   (counting groups from 1 in dataset order), `-<K>` appended if that is still not unique.
 * N counts teams from 1 in dataset order. Throws when a team has no admin, manager or user.
 */
export const CANONICAL_CREDENTIALS: readonly CanonicalCredential[] =
  canonicalCredentials(canonicalDataset);

/** The three demo credentials of each team (`team<N>-admin`, `-manager`, `-user`): what the reference server prints. */
export const DEMO_CREDENTIALS: readonly CanonicalCredential[] = CANONICAL_CREDENTIALS.filter((c) =>
  /^team\d+-(admin|manager|user)$/.test(c.label),
);

function parseCanonical(raw: unknown): Dataset {
  const parsed = Dataset.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `canonical.json does not match the Dataset schema (regenerate it with \`pnpm generate\`):\n${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}

function canonicalCredentials(dataset: Dataset): CanonicalCredential[] {
  const out: CanonicalCredential[] = [];
  const TYPES: readonly AccountType[] = ['admin', 'manager', 'user'];
  dataset.teams.forEach((team, t) => {
    const prefix = `team${t + 1}`;
    const credentialOf = (m: DatasetMember) =>
      dataset.credentials.find((c) => c.memberID === m.memberID);
    for (const accountType of TYPES) {
      const members = team.members.filter(
        (m) => m.accountType === accountType && credentialOf(m) !== undefined,
      );
      // the demo pick: the admin; a manager WITH a group; a user in a group (else the first)
      const demo =
        (accountType === 'admin' ? undefined : members.find((m) => m.groupID !== undefined)) ??
        members[0];
      if (demo === undefined) {
        throw new Error(`canonical dataset: team ${team.teamID} has no ${accountType} credential`);
      }
      const labels = new Set<string>();
      for (const member of [demo, ...members.filter((m) => m !== demo)]) {
        const g = team.groups.findIndex((x) => x.groupID === member.groupID);
        let label =
          member === demo
            ? `${prefix}-${accountType}`
            : `${prefix}-${accountType}-${g < 0 ? 'nogroup' : `group${g + 1}`}`;
        for (let k = 2; labels.has(label); k++) label = `${label.replace(/-\d+$/, '')}-${k}`;
        labels.add(label);
        const credential = credentialOf(member)!;
        out.push({
          teamID: team.teamID,
          accountType,
          memberID: member.memberID,
          authId: credential.authId,
          accessKey: credential.accessKey,
          label,
        });
      }
    }
  });
  return out;
}
