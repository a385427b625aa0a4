import type { Dataset } from '../../dataset/schema.ts';
import type { AccountType } from '../../member.ts';
import type { ResolvedDataset } from '../resolve.ts';
import { compareMembers, compareStrings } from '../rules.ts';
import { sortByKey } from '../sort.ts';
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
  /** Tag indices in tag order (newest first, then tagID). */
  readonly tagOrder: Int32Array;
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

  // Tag order (newest dateSent first, ties by tagID): the stable ascending sort by epoch ms,
  // with each tag's member and ms along, read backwards; then each run of equal dateSent
  // sorted by tagID. Along it, the member of each rank, counted per member; then each
  // member's ranks ascending (a counting sort). Every pass reads its arrays in order.
  const byMs = sortByKey(res.tagMs, res.tagMember, true);
  const ascending = byMs.order;
  const memberAscending = byMs.carried!;
  const msAscending = byMs.sorted!;
  const tagOrder = new Int32Array(T);
  const memberOfRank = new Int32Array(T);
  const memberTagStart = new Int32Array(M + 1);
  let firstTie = T; // the first rank whose tag has the dateSent of the next one
  for (let r = 0, i = T - 1; r < T; r++, i--) {
    tagOrder[r] = ascending[i]!;
    if (i > 0 && msAscending[i] === msAscending[i - 1] && r < firstTie) firstTie = r;
    const m = memberAscending[i]!;
    memberOfRank[r] = m;
    memberTagStart[m + 1]!++;
  }
  if (firstTie < T) sortTiesByTagID(tagOrder, memberOfRank, msAscending, firstTie, res);
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
    memberTagStart,
    memberTagRanks,
    opens: indexEvents(res.opens, 'openDate', T, res.tagMember, M, P),
    clicks: indexEvents(res.clicks, 'clickDate', T, res.tagMember, M, P),
  };
}

/**
 * Sorts each run of tags with equal `dateSent` in `tagOrder` from rank `from` on by tagID
 * (decisions §3), with `memberOfRank` (the member of each rank) along; `msAscending` is the
 * tags' epoch ms in ascending order (`tagOrder` read backwards).
 */
function sortTiesByTagID(
  tagOrder: Int32Array,
  memberOfRank: Int32Array,
  msAscending: Float64Array,
  from: number,
  res: ResolvedDataset,
): void {
  const tags = res.dataset.tags;
  const T = tagOrder.length;
  for (let i = from; i < T; ) {
    let j = i + 1;
    const ms = msAscending[T - 1 - i]!;
    while (j < T && msAscending[T - 1 - j] === ms) j++;
    if (j - i > 1) {
      const run = Array.from(tagOrder.subarray(i, j));
      run.sort((a, b) => compareStrings(tags[a]!.tagID, tags[b]!.tagID));
      for (let r = i; r < j; r++) {
        const t = run[r - i]!;
        tagOrder[r] = t;
        memberOfRank[r] = res.tagMember[t]!;
      }
    }
    i = j;
  }
}
