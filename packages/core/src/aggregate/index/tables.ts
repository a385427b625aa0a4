import type { Dataset } from '../../dataset/schema.ts';
import type { AccountType } from '../../member.ts';
import type { ResolvedDataset } from '../resolve.ts';
import { compareMembers, compareStrings } from '../rules.ts';
import { groupStable, sortIndicesByKey } from '../sort.ts';
import { type EventIndex, indexEvents } from './event-index.ts';

/** Account types as small codes, for typed-array filters. */
export const ACCOUNT_CODES: Readonly<Record<AccountType, number>> = {
  admin: 0,
  manager: 1,
  user: 2,
};

/**
 * The tables every request reads, built eagerly by `buildIndex` (decisions §3, §8, §9):
 * members and tags in the stable order of decisions §3, each member's tags, and the event
 * indexes of opens and clicks. Members, tags and recipient entries are numbered as in the
 * {@link ResolvedDataset}. Immutable once built.
 */
export interface Tables {
  readonly res: ResolvedDataset;
  readonly dataset: Dataset;
  readonly memberCount: number;
  /** {@link ACCOUNT_CODES} of each member. */
  readonly memberType: Uint8Array;
  /** Per team and per (global) group, its members in member order. */
  readonly teamMembers: readonly Int32Array[];
  readonly groupMembers: readonly Int32Array[];
  /** Tag indices in tag order (newest first, then tagID), and the rank of each tag. */
  readonly tagOrder: Int32Array;
  readonly tagRank: Int32Array;
  /** Per member, tag ranks ascending (newest first): `memberTagRanks[memberTagStart[m] ..]`. */
  readonly memberTagStart: Int32Array;
  readonly memberTagRanks: Int32Array;
  readonly opens: EventIndex;
  readonly clicks: EventIndex;
}

/** Builds the {@link Tables} of a resolved (valid) dataset. */
export function buildTables(res: ResolvedDataset): Tables {
  const M = res.members.length;
  const T = res.dataset.tags.length;
  const P = res.recipPos.length;

  // Members: account types, member order, team and group member lists.
  const memberType = new Uint8Array(M);
  for (let m = 0; m < M; m++) memberType[m] = ACCOUNT_CODES[res.members[m]!.accountType];
  const order = Array.from({ length: M }, (_, m) => m);
  order.sort((a, b) => compareMembers(res.members[a]!, res.members[b]!));
  const teamLists: number[][] = res.dataset.teams.map(() => []);
  const groupLists: number[][] = res.groups.map(() => []);
  for (const m of order) {
    teamLists[res.memberTeam[m]!]!.push(m);
    const g = res.memberGroup[m]!;
    if (g >= 0) groupLists[g]!.push(m);
  }

  // Tag order: newest dateSent first, ties by tagID.
  let maxMs = -Infinity;
  for (let t = 0; t < T; t++) if (res.tagMs[t]! > maxMs) maxMs = res.tagMs[t]!;
  const desc = new Float64Array(T);
  for (let t = 0; t < T; t++) desc[t] = maxMs - res.tagMs[t]!;
  const tagOrder = sortIndicesByKey(desc);
  const tags = res.dataset.tags;
  for (let i = 0; i < T; ) {
    let j = i + 1;
    while (j < T && res.tagMs[tagOrder[j]!] === res.tagMs[tagOrder[i]!]) j++;
    if (j - i > 1) {
      const run = Array.from(tagOrder.subarray(i, j));
      run.sort((a, b) => compareStrings(tags[a]!.tagID, tags[b]!.tagID));
      tagOrder.set(run, i);
    }
    i = j;
  }
  const tagRank = new Int32Array(T);
  for (let r = 0; r < T; r++) tagRank[tagOrder[r]!] = r;
  const memberTags = groupStable(T, M, (r) => res.tagMember[tagOrder[r]!]!);

  return {
    res,
    dataset: res.dataset,
    memberCount: M,
    memberType,
    teamMembers: teamLists.map((l) => Int32Array.from(l)),
    groupMembers: groupLists.map((l) => Int32Array.from(l)),
    tagOrder,
    tagRank,
    memberTagStart: memberTags.start,
    memberTagRanks: memberTags.items,
    opens: indexEvents(res.opens, 'openDate', T, res.tagMember, M, P),
    clicks: indexEvents(res.clicks, 'clickDate', T, res.tagMember, M, P),
  };
}
