import type { Dataset } from '../../dataset/schema.ts';
import type { AccountType } from '../../member.ts';
import type { ResolvedDataset } from '../resolve.ts';
import { compareMembers, compareStrings } from '../rules.ts';
import { sortIndicesByKey } from '../sort.ts';
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
  const tagOrder = tagOrderOf(res);
  // Tag ranks, and each member's tag ranks ascending (a counting sort of the ranks by member).
  const tagRank = new Int32Array(T);
  const memberOfRank = new Int32Array(T);
  const memberTagStart = new Int32Array(M + 1);
  for (let r = 0; r < T; r++) {
    const t = tagOrder[r]!;
    tagRank[t] = r;
    const m = res.tagMember[t]!;
    memberOfRank[r] = m;
    memberTagStart[m + 1]!++;
  }
  for (let m = 0; m < M; m++) memberTagStart[m + 1]! += memberTagStart[m]!;
  const memberPos = memberTagStart.slice(0, M);
  const memberTagRanks = new Int32Array(T);
  for (let r = 0; r < T; r++) memberTagRanks[memberPos[memberOfRank[r]!]!++] = r;

  return {
    res,
    dataset: res.dataset,
    memberCount: M,
    memberType,
    teamMembers: teamLists.map((l) => Int32Array.from(l)),
    groupMembers: groupLists.map((l) => Int32Array.from(l)),
    tagOrder,
    tagRank,
    memberTagStart,
    memberTagRanks,
    opens: indexEvents(res.opens, 'openDate', T, res.tagMember, M, P),
    clicks: indexEvents(res.clicks, 'clickDate', T, res.tagMember, M, P),
  };
}

/**
 * Tag indices in tag order (decisions §3): newest `dateSent` first (a radix sort of the
 * epoch ms), ties by tagID (each run of equal `dateSent` sorted by string comparison).
 */
function tagOrderOf(res: ResolvedDataset): Int32Array {
  const { tagMs } = res;
  const tags = res.dataset.tags;
  const T = tagMs.length;
  let maxMs = -Infinity;
  for (let t = 0; t < T; t++) if (tagMs[t]! > maxMs) maxMs = tagMs[t]!;
  const desc = new Float64Array(T);
  for (let t = 0; t < T; t++) desc[t] = maxMs - tagMs[t]!;
  const tagOrder = sortIndicesByKey(desc);
  // `desc` along the order: each run of equal keys is sorted by tagID.
  let i = 0;
  let key = T > 0 ? desc[tagOrder[0]!]! : 0;
  for (let j = 1; j <= T; j++) {
    const next = j < T ? desc[tagOrder[j]!]! : Number.NaN;
    if (next === key) continue;
    if (j - i > 1) {
      const run = Array.from(tagOrder.subarray(i, j));
      run.sort((a, b) => compareStrings(tags[a]!.tagID, tags[b]!.tagID));
      tagOrder.set(run, i);
    }
    i = j;
    key = next;
  }
  return tagOrder;
}
