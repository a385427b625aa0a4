import * as z from 'zod';
import type { AccountType } from '../member.ts';
import data from './canonical.json' with { type: 'json' };
import { Dataset, type DatasetMember } from './schema.ts';

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
 * Three credentials per team of the canonical dataset, in team order: the admin, a manager
 * WITH a group, and a user (one in a group when there is one), labelled `team1-admin`,
 * `team1-manager`, `team1-user`, `team2-admin`, ... (decisions §1, §2).
 */
export const CANONICAL_CREDENTIALS: readonly CanonicalCredential[] =
  canonicalCredentials(canonicalDataset);

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
  dataset.teams.forEach((team, t) => {
    const picks: [AccountType, (m: DatasetMember) => boolean][] = [
      ['admin', (m) => m.accountType === 'admin'],
      ['manager', (m) => m.accountType === 'manager' && m.groupID !== undefined],
      ['user', (m) => m.accountType === 'user' && m.groupID !== undefined],
    ];
    for (const [accountType, matches] of picks) {
      const member =
        team.members.find(matches) ?? team.members.find((m) => m.accountType === accountType);
      const credential = dataset.credentials.find((c) => c.memberID === member?.memberID);
      if (member === undefined || credential === undefined) {
        throw new Error(`canonical dataset: team ${team.teamID} has no ${accountType} credential`);
      }
      out.push({
        teamID: team.teamID,
        accountType,
        memberID: member.memberID,
        authId: credential.authId,
        accessKey: credential.accessKey,
        label: `team${t + 1}-${accountType}`,
      });
    }
  });
  return out;
}
