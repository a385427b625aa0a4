import type { Dataset, DatasetEvent, DatasetMember, DatasetTag } from '../dataset/schema.ts';
import { normaliseEmail } from '../dataset/schema.ts';
import type { Group } from '../member.ts';
import { parseTimestampMs } from './time.ts';

/** At most this many problems are listed; the rest are counted in one last line. */
export const MAX_PROBLEMS = 1000;

/** Device codes of the columnar event store (spec §9). */
export const DEVICE_DESKTOP = 0;
export const DEVICE_MOBILE = 1;
export const DEVICE_NONE = 2;

/**
 * The events an {@link EventColumns} was built from, read one at a time (a dataset's event
 * array, or a columnar store that materialises event `i` on demand: `columnar/`).
 */
export interface EventSource {
  readonly length: number;
  at(index: number): DatasetEvent | undefined;
}

/**
 * The recipients of each tag by position in the tag's list (`tag.recipients` of a dataset in
 * memory, or columns: `columnar/`). Tag `t` is the dataset's `tags[t]`.
 */
export interface RecipientSource {
  /** How many recipients tag `t` lists. */
  count(t: number): number;
  /** The name of recipient `pos` of tag `t`, as written. */
  nameOf(t: number, pos: number): string;
  /** The email of recipient `pos` of tag `t`, as written. */
  emailOf(t: number, pos: number): string;
  /** `normaliseEmail` of {@link emailOf} (spec §10 contact key). */
  normalisedEmailOf(t: number, pos: number): string;
  /**
   * Optional: an integer equal for two recipients exactly when their normalised emails are
   * equal (compared instead of the strings).
   */
  normalisedKeyOf?(t: number, pos: number): number;
}

/** The {@link RecipientSource} of tags in memory (`tag.recipients`). */
export function recipientsOfTags(tags: readonly DatasetTag[]): RecipientSource {
  return {
    count: (t) => tags[t]!.recipients.length,
    nameOf: (t, pos) => tags[t]!.recipients[pos]!.name,
    emailOf: (t, pos) => tags[t]!.recipients[pos]!.email,
    normalisedEmailOf: (t, pos) => normalised(tags[t]!.recipients[pos]!.email),
  };
}

/** Events in columns: tag index, recipient entry, epoch ms and device code per event. */
export interface EventColumns {
  readonly source: EventSource;
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
  /** Each tag's recipients as listed. */
  readonly recipients: RecipientSource;
  /**
   * Recipient entries: the distinct normalised emails of each tag. Tag `t` owns entries
   * `recipStart[t] .. recipStart[t+1]`; an entry belongs to exactly one tag.
   */
  readonly recipStart: Int32Array;
  /** Position in the tag's recipients of the first recipient with the entry's email. */
  readonly recipPos: Int32Array;
  /** Normalised email of each entry (the contact key, spec §10). */
  readonly recipEmail: string[];
  /**
   * The {@link RecipientSource.normalisedKeyOf} of each entry, when the recipients have keys
   * (equal keys: equal normalised emails).
   */
  readonly entryKey?: Int32Array;
  readonly opens: EventColumns;
  readonly clicks: EventColumns;
}

/** Device code of a `device` value (spec §9: tablet counts as mobile). */
function deviceCode(d: string): number {
  return d === 'desktop'
    ? DEVICE_DESKTOP
    : d === 'mobile' || d === 'tablet'
      ? DEVICE_MOBILE
      : DEVICE_NONE;
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
 * Resolves every reference of `dataset` (spec §10 event log) and collects referential
 * problems: duplicate team, member, group (within a team), tag and auth ids; groupIDs not of
 * the member's team; tags of unknown members; events of unknown tags, of emails not among the
 * tag's recipients, dated before the tag was sent; invalid timestamps; credentials of unknown
 * members. Never throws on a schema-valid dataset. `recipients` are the tags' recipients
 * (default: `tag.recipients`; a columnar store passes its columns).
 */
export function resolveDataset(
  dataset: Dataset,
  recipients: RecipientSource = recipientsOfTags(dataset.tags),
): ResolvedDataset {
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
  const keyed = recipients.normalisedKeyOf !== undefined;
  /** The {@link RecipientSource.normalisedKeyOf} of each entry (when the source has keys). */
  let entryKey = new Int32Array(0);
  let totalRecipients = 0;
  for (let t = 0; t < tags.length; t++) totalRecipients += recipients.count(t);
  let recipPos = new Int32Array(totalRecipients);
  if (keyed) entryKey = new Int32Array(totalRecipients);
  const recipEmail: string[] = [];
  /**
   * The recipient entry of an event's email on tag `t` (entries `from .. to`), or -1 when
   * the email is not a recipient: first compared with the recipients' emails as written,
   * starting after entry `hint` (events of a tag usually come recipient by recipient), then
   * normalised.
   */
  const entryOf = (email: string, t: number, from: number, to: number, hint: number): number => {
    const first = hint < from ? from : hint + 1;
    for (let k = first; k < to; k++) if (recipients.emailOf(t, recipPos[k]!) === email) return k;
    for (let k = from; k < first && k < to; k++) {
      if (recipients.emailOf(t, recipPos[k]!) === email) return k;
    }
    const norm = normalised(email);
    for (let k = from; k < to; k++) if (recipEmail[k] === norm) return k;
    return -1;
  };

  /**
   * A scanner of the events of one kind into columns: `scan(i, t)` resolves event `i` as
   * one of tag `t` (-1: unknown tagID) and returns false when it has a problem, which it
   * adds to the problems when `report`.
   */
  const scanner = (source: readonly DatasetEvent[], kind: 'open' | 'click') => {
    const n = source.length;
    const cols: EventColumns = {
      source,
      tag: new Int32Array(n),
      entry: new Int32Array(n),
      ms: new Float64Array(n),
      device: new Uint8Array(n),
    };
    // The tag of the previous event, and its email and entry: events usually come grouped
    // by tag and recipient.
    let curT = -1;
    let from = 0;
    let to = 0;
    let prevEmail: string | undefined;
    let k = -1;
    const scan = (i: number, t: number, report: boolean): boolean => {
      const e = source[i]!;
      if (t !== curT) {
        curT = t;
        prevEmail = undefined;
        k = -1;
        if (t >= 0) {
          from = recipStart[t]!;
          to = recipStart[t + 1]!;
        }
      }
      const when = parseTimestampMs(e.date);
      cols.ms[i] = when;
      cols.device[i] = deviceCode(e.device);
      if (t < 0) {
        cols.tag[i] = -1;
        cols.entry[i] = -1;
        if (report) problems.add(`${kind} #${i} refers to unknown tagID '${e.tagID}'`);
        return false;
      }
      cols.tag[i] = t;
      const email = e.email;
      if (email !== prevEmail) {
        k = entryOf(email, t, from, to, k);
        prevEmail = email;
      }
      cols.entry[i] = k;
      let ok = true;
      if (k < 0) {
        ok = false;
        if (report) {
          problems.add(`${kind} #${i} of tag '${e.tagID}': email '${email}' is not a recipient`);
        }
      }
      if (Number.isNaN(when)) {
        ok = false;
        if (report) problems.add(`${kind} #${i} of tag '${e.tagID}' has invalid date '${e.date}'`);
      } else if (when < tagMs[t]!) {
        ok = false;
        if (report) {
          problems.add(`${kind} #${i} of tag '${e.tagID}' is dated before the tag was sent`);
        }
      }
      return ok;
    };
    return { cols, scan };
  };
  type Scanner = ReturnType<typeof scanner>;

  /** Scans events `from ..` of `source` in order, finding each one's tag by its tagID. */
  const scanRest = (sc: Scanner, source: readonly DatasetEvent[], from: number): void => {
    let prevTagID: string | undefined;
    let t = -1;
    for (let i = from; i < source.length; i++) {
      const tagID = source[i]!.tagID;
      if (tagID !== prevTagID) {
        prevTagID = tagID;
        // Events usually come tag by tag in the tags' order: try the next tag before the map
        // (only without duplicate tagIDs, where the map and the position agree).
        const next = uniqueTagIDs ? tags[t + 1] : undefined;
        t = next !== undefined && next.tagID === tagID ? t + 1 : (tagIndex.get(tagID) ?? -1);
      }
      sc.scan(i, t, true);
    }
  };

  let opensScan = scanner(dataset.opens, 'open');
  let clicksScan = scanner(dataset.clicks, 'click');
  /** How far the sweep along the tags got in each event list, and whether it met a problem. */
  const sweep = { opens: 0, clicks: 0, trouble: false };
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
    const count = recipients.count(t);
    if (keyed && count <= 32) {
      // Distinct normalised emails by their keys (a linear scan of the usual short lists).
      for (let pos = 0; pos < count; pos++) {
        const key = recipients.normalisedKeyOf!(t, pos);
        let dup = false;
        for (let i = first; i < r && !dup; i++) dup = entryKey[i] === key;
        if (dup) continue;
        entryKey[r] = key;
        recipEmail.push(recipients.normalisedEmailOf(t, pos));
        recipPos[r] = pos;
        r++;
      }
      recipStart[t + 1] = r;
    }
    // Distinct normalised emails: a linear scan for the usual short lists, a set for long ones.
    const seen = count > 32 ? new Set<string>() : undefined;
    for (let pos = keyed && count <= 32 ? count : 0; pos < count; pos++) {
      const email = recipients.normalisedEmailOf(t, pos);
      let dup = false;
      if (seen) {
        dup = seen.has(email);
        seen.add(email);
      } else for (let i = first; i < r && !dup; i++) dup = recipEmail[i] === email;
      if (dup) continue;
      if (keyed) entryKey[r] = recipients.normalisedKeyOf!(t, pos);
      recipEmail.push(email);
      recipPos[r] = pos;
      r++;
    }
    recipStart[t + 1] = r;
    // The tag's events, while they come next in each list (usually all of them: events are
    // usually listed tag by tag in the tags' order), while its recipients are in cache.
    if (!sweep.trouble) {
      const tagID = tag.tagID;
      const { opens: os, clicks: cs } = dataset;
      while (sweep.opens < os.length && os[sweep.opens]!.tagID === tagID) {
        if (!opensScan.scan(sweep.opens++, t, false)) sweep.trouble = true;
      }
      while (sweep.clicks < cs.length && cs[sweep.clicks]!.tagID === tagID) {
        if (!clicksScan.scan(sweep.clicks++, t, false)) sweep.trouble = true;
      }
    }
  }
  recipStart[tags.length] = r;
  if (r < totalRecipients) recipPos = recipPos.slice(0, r);

  const uniqueTagIDs = tagIndex.size === tags.length;
  if (sweep.trouble || !uniqueTagIDs) {
    // Start over in plain event order, so problems are reported in that order.
    opensScan = scanner(dataset.opens, 'open');
    clicksScan = scanner(dataset.clicks, 'click');
    sweep.opens = 0;
    sweep.clicks = 0;
  }
  scanRest(opensScan, dataset.opens, sweep.opens);
  scanRest(clicksScan, dataset.clicks, sweep.clicks);
  const opens = opensScan.cols;
  const clicks = clicksScan.cols;

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
    recipients,
    recipStart,
    recipPos,
    recipEmail,
    ...(keyed ? { entryKey } : {}),
    opens,
    clicks,
  };
}
