import type { Dataset, DatasetEvent, DatasetMember } from '../dataset/schema.ts';
import { normaliseEmail } from '../dataset/schema.ts';
import type { Group } from '../member.ts';
import { parseTimestampMs } from './time.ts';

/** At most this many problems are listed; the rest are counted in one last line. */
export const MAX_PROBLEMS = 1000;

/** Device codes of the columnar event store (decisions §8). */
export const DEVICE_DESKTOP = 0;
export const DEVICE_MOBILE = 1;
export const DEVICE_NONE = 2;

/** Events in columns: tag index, recipient entry, epoch ms and device code per event. */
export interface EventColumns {
  readonly source: readonly DatasetEvent[];
  readonly tag: Int32Array;
  /** The recipient entry (see `ResolvedDataset.recipStart`) the event's email matches. */
  readonly entry: Int32Array;
  readonly ms: Float64Array;
  readonly device: Uint8Array;
}

/**
 * A dataset with every reference resolved to an integer index (the first phase of
 * `buildIndex`, and all of `validateDataset`). Problems are collected, not thrown.
 */
export interface ResolvedDataset {
  readonly dataset: Dataset;
  readonly problems: string[];
  readonly teamIndex: Map<string, number>;
  readonly members: DatasetMember[];
  readonly memberIndex: Map<string, number>;
  readonly memberTeam: Int32Array;
  /** Global group index of each member, -1 without (or with an unknown) group. */
  readonly memberGroup: Int32Array;
  readonly groups: { readonly group: Group; readonly team: number }[];
  /** Global group indices of each team, in the team's order. */
  readonly teamGroups: number[][];
  readonly tagIndex: Map<string, number>;
  readonly tagMember: Int32Array;
  readonly tagMs: Float64Array;
  /**
   * Recipient entries: the distinct normalised emails of each tag. Tag `t` owns entries
   * `recipStart[t] .. recipStart[t+1]`; an entry belongs to exactly one tag.
   */
  readonly recipStart: Int32Array;
  /** Position in `tag.recipients` of the first recipient with the entry's email. */
  readonly recipPos: Int32Array;
  /** Normalised email of each entry (the contact key, decisions §9). */
  readonly recipEmail: string[];
  readonly opens: EventColumns;
  readonly clicks: EventColumns;
}

/**
 * `normaliseEmail(email)`, returning `email` itself when it is already normalised, so the
 * index keeps no second copy of the usual (already lowercase, trimmed) email strings.
 */
function normalised(email: string): string {
  const norm = normaliseEmail(email);
  return norm === email ? email : norm;
}

class Problems {
  readonly list: string[] = [];
  private dropped = 0;
  add(message: string): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push(message);
    else this.dropped++;
  }
  finish(): string[] {
    if (this.dropped > 0) this.list.push(`… and ${this.dropped} more problems`);
    return this.list;
  }
}

/**
 * Resolves every reference of `dataset` (decisions §9 event log) and collects referential
 * problems: duplicate team, member, group (within a team), tag and auth ids; groupIDs not of
 * the member's team; tags of unknown members; events of unknown tags, of emails not among the
 * tag's recipients, dated before the tag was sent; invalid timestamps; credentials of unknown
 * members. Never throws on a schema-valid dataset.
 */
export function resolveDataset(dataset: Dataset): ResolvedDataset {
  const problems = new Problems();
  const teamIndex = new Map<string, number>();
  const members: DatasetMember[] = [];
  const memberIndex = new Map<string, number>();
  const memberTeamList: number[] = [];
  const memberGroupList: number[] = [];
  const groups: { group: Group; team: number }[] = [];
  const teamGroups: number[][] = [];

  dataset.teams.forEach((team, ti) => {
    if (teamIndex.has(team.teamID)) problems.add(`duplicate teamID '${team.teamID}'`);
    else teamIndex.set(team.teamID, ti);
    const local = new Map<string, number>();
    const own: number[] = [];
    for (const group of team.groups) {
      if (local.has(group.groupID)) {
        problems.add(`duplicate groupID '${group.groupID}' in team '${team.teamID}'`);
        continue;
      }
      local.set(group.groupID, groups.length);
      own.push(groups.length);
      groups.push({ group, team: ti });
    }
    teamGroups.push(own);
    for (const member of team.members) {
      if (memberIndex.has(member.memberID)) {
        problems.add(`duplicate memberID '${member.memberID}'`);
        continue;
      }
      let g = -1;
      if (member.groupID !== undefined) {
        const found = local.get(member.groupID);
        if (found === undefined) {
          problems.add(
            `member '${member.memberID}' has groupID '${member.groupID}', not a group of team '${team.teamID}'`,
          );
        } else g = found;
      }
      memberIndex.set(member.memberID, members.length);
      members.push(member);
      memberTeamList.push(ti);
      memberGroupList.push(g);
    }
  });

  const tags = dataset.tags;
  const tagIndex = new Map<string, number>();
  const tagMember = new Int32Array(tags.length);
  const tagMs = new Float64Array(tags.length);
  const recipStart = new Int32Array(tags.length + 1);
  let totalRecipients = 0;
  for (const t of tags) totalRecipients += t.recipients.length;
  let recipPos = new Int32Array(totalRecipients);
  const recipEmail: string[] = [];
  let r = 0;
  for (let t = 0; t < tags.length; t++) {
    const tag = tags[t]!;
    const known = tagIndex.size;
    tagIndex.set(tag.tagID, t);
    if (tagIndex.size === known) problems.add(`duplicate tagID '${tag.tagID}'`);
    const m = memberIndex.get(tag.memberID);
    if (m === undefined) problems.add(`tag '${tag.tagID}' has unknown memberID '${tag.memberID}'`);
    tagMember[t] = m ?? -1;
    const ms = parseTimestampMs(tag.dateSent);
    if (Number.isNaN(ms)) problems.add(`tag '${tag.tagID}' has invalid dateSent '${tag.dateSent}'`);
    tagMs[t] = ms;
    recipStart[t] = r;
    const first = r;
    const recipients = tag.recipients;
    // Distinct normalised emails: a linear scan for the usual short lists, a set for long ones.
    const seen = recipients.length > 32 ? new Set<string>() : undefined;
    for (let pos = 0; pos < recipients.length; pos++) {
      const email = normalised(recipients[pos]!.email);
      let dup = false;
      if (seen) {
        dup = seen.has(email);
        seen.add(email);
      } else for (let i = first; i < r && !dup; i++) dup = recipEmail[i] === email;
      if (dup) continue;
      recipEmail.push(email);
      recipPos[r] = pos;
      r++;
    }
  }
  recipStart[tags.length] = r;
  recipPos = recipPos.slice(0, r);

  /**
   * The recipient entry of an event's email on tag `t`: first compared with the recipients'
   * emails as written (events usually spell them the same way), else normalised; -1 when the
   * email is not a recipient of the tag.
   */
  const entryOf = (t: number, email: string): number => {
    const recipients = tags[t]!.recipients;
    const from = recipStart[t]!;
    const to = recipStart[t + 1]!;
    for (let k = from; k < to; k++) {
      if (recipients[recipPos[k]!]!.email === email) return k;
    }
    const norm = normalised(email);
    for (let k = from; k < to; k++) if (recipEmail[k] === norm) return k;
    return -1;
  };

  const columns = (source: readonly DatasetEvent[], kind: 'open' | 'click'): EventColumns => {
    const n = source.length;
    const tag = new Int32Array(n);
    const entry = new Int32Array(n);
    const ms = new Float64Array(n);
    const device = new Uint8Array(n);
    let prevTagID = '';
    let prevTag: number | undefined;
    for (let i = 0; i < n; i++) {
      const e = source[i]!;
      const tagID = e.tagID;
      let t: number | undefined;
      if (tagID === prevTagID) t = prevTag;
      else {
        t = tagIndex.get(tagID);
        prevTagID = tagID;
        prevTag = t;
      }
      const when = parseTimestampMs(e.date);
      ms[i] = when;
      const d = e.device;
      device[i] =
        d === 'desktop'
          ? DEVICE_DESKTOP
          : d === 'mobile' || d === 'tablet'
            ? DEVICE_MOBILE
            : DEVICE_NONE;
      if (t === undefined) {
        tag[i] = -1;
        entry[i] = -1;
        problems.add(`${kind} #${i} refers to unknown tagID '${tagID}'`);
        continue;
      }
      tag[i] = t;
      const k = entryOf(t, e.email);
      entry[i] = k;
      if (k < 0) {
        problems.add(`${kind} #${i} of tag '${tagID}': email '${e.email}' is not a recipient`);
      }
      if (Number.isNaN(when)) {
        problems.add(`${kind} #${i} of tag '${tagID}' has invalid date '${e.date}'`);
      } else if (when < tagMs[t]!) {
        problems.add(`${kind} #${i} of tag '${tagID}' is dated before the tag was sent`);
      }
    }
    return { source, tag, entry, ms, device };
  };
  const opens = columns(dataset.opens, 'open');
  const clicks = columns(dataset.clicks, 'click');

  const authIds = new Set<string>();
  for (const cred of dataset.credentials) {
    if (authIds.has(cred.authId)) problems.add(`duplicate authId '${cred.authId}'`);
    authIds.add(cred.authId);
    if (!memberIndex.has(cred.memberID)) {
      problems.add(`credential '${cred.authId}' has unknown memberID '${cred.memberID}'`);
    }
  }

  return {
    dataset,
    problems: problems.finish(),
    teamIndex,
    members,
    memberIndex,
    memberTeam: Int32Array.from(memberTeamList),
    memberGroup: Int32Array.from(memberGroupList),
    groups,
    teamGroups,
    tagIndex,
    tagMember,
    tagMs,
    recipStart,
    recipPos,
    recipEmail,
    opens,
    clicks,
  };
}
