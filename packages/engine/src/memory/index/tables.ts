import type { AccountType, Dataset } from '@tagtrack/core';
import { compareMembers, compareStrings } from '@tagtrack/core';
import type { ResolvedDataset } from '@tagtrack/core/internal';
import { sortByKey } from '../sort.ts';
import { type EventIndex, indexEvents } from './event-index.ts';

/** Account types as small codes, for typed-array filters. */
export const ACCOUNT_CODES: Readonly<Record<AccountType, number>> = {
  admin: 0,
  manager: 1,
  user: 2,
};

/**
 * The tables every request reads, built eagerly by `buildIndex` (spec §5, §9, §10):
 * members and tags in the stable order of spec §5, each member's tags, and the event
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

  // Tag order (newest dateSent as shown first, ties by tagID): the stable ascending sort by epoch ms,
  // with each tag's member and ms along, read backwards. Each hot loop is a small function of
  // its own (quick to compile on a cold start), reading its arrays in order.
  const byMs = sortByKey(shownSeconds(res.tagMs), res.tagMember, true);
  const tagOrder = new Int32Array(T);
  const memberOfRank = new Int32Array(T);
  const memberTagStart = new Int32Array(M + 1);
  newestFirst(
    byMs.order,
    byMs.carried!,
    byMs.sortedKeys!,
    tagOrder,
    memberOfRank,
    memberTagStart,
    res,
  );
  const memberTagRanks = ranksByMember(memberOfRank, memberTagStart);

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
    opens: indexEvents(res.opens, 'openDate', T, P),
    clicks: indexEvents(res.clicks, 'clickDate', T, P),
  };
}

/**
 * The send instants as the responses show them (spec §5 Revision 3: order is defined on
 * the values as shown): epoch ms cut to the whole second, since `dateSent` is rendered at
 * seconds precision; so tags shown with the same `dateSent` tie, and ties go by tagID. `ms`
 * itself when every instant is a whole second (the usual case: no copy).
 */
function shownSeconds(ms: Float64Array): Float64Array {
  if (ms.every((v) => v % 1000 === 0)) return ms;
  return ms.map((v) => Math.floor(v / 1000) * 1000);
}

/**
 * Fills `tagOrder` (tag order: the tags of the ascending sort `ascending` read backwards, each
 * run of equal `dateSent` sorted by tagID as it ends) and the member of each rank, counted per
 * member into `memberCount[m + 1]`. `memberAscending` and `msAscending` are the tags' members
 * and (an order-preserving image of) their epoch ms along `ascending`.
 */
function newestFirst(
  ascending: Int32Array,
  memberAscending: Int32Array,
  msAscending: Float64Array | Int32Array,
  tagOrder: Int32Array,
  memberOfRank: Int32Array,
  memberCount: Int32Array,
  res: ResolvedDataset,
): void {
  const T = ascending.length;
  let run = 0; // the first rank of the current run of equal dateSent
  for (let r = 0, i = T - 1; r < T; r++, i--) {
    if (r > 0 && msAscending[i] !== msAscending[i + 1]) {
      if (r - run > 1) sortByTagID(tagOrder, memberOfRank, run, r, res);
      run = r;
    }
    tagOrder[r] = ascending[i]!;
    const m = memberAscending[i]!;
    memberOfRank[r] = m;
    memberCount[m + 1]!++;
  }
  if (T - run > 1) sortByTagID(tagOrder, memberOfRank, run, T, res);
}

/**
 * Each member's ranks ascending, `ranks[start[m] .. start[m+1])` (a counting sort of the ranks
 * by `memberOfRank`); turns the counts `start[m + 1]` into those starts.
 */
function ranksByMember(memberOfRank: Int32Array, start: Int32Array): Int32Array {
  const M = start.length - 1;
  for (let m = 0; m < M; m++) start[m + 1]! += start[m]!;
  const pos = start.slice(0, M);
  const ranks = new Int32Array(memberOfRank.length);
  for (let r = 0; r < memberOfRank.length; r++) ranks[pos[memberOfRank[r]!]!++] = r;
  return ranks;
}

/**
 * Sorts the tags of ranks `from .. to` in `tagOrder` (a run of equal `dateSent`) by tagID
 * (spec §5), with `memberOfRank` (the member of each rank) along.
 */
function sortByTagID(
  tagOrder: Int32Array,
  memberOfRank: Int32Array,
  from: number,
  to: number,
  res: ResolvedDataset,
): void {
  const tags = res.dataset.tags;
  const run = Array.from(tagOrder.subarray(from, to));
  run.sort((a, b) => compareStrings(tags[a]!.tagID, tags[b]!.tagID));
  for (let r = from; r < to; r++) {
    const t = run[r - from]!;
    tagOrder[r] = t;
    memberOfRank[r] = res.tagMember[t]!;
  }
}
