import type { Contact } from '../contact.ts';
import type { Dataset } from '../dataset/schema.ts';
import type { Click, ClickGroup, DailyCounts, EventRecipient, Open, OpenGroup } from '../events.ts';
import type { AccountType, TeamMember } from '../member.ts';
import { missingParameter } from '../params.ts';
import { emptyStats, type StatsSummary } from '../stats.ts';
import type { Tag } from '../tag.ts';
import { DAY_MS, formatTimestamp, type Timestamp } from '../values.ts';
import { contactIdOfNormalised } from './contact-id.ts';
import {
  DEVICE_DESKTOP,
  DEVICE_MOBILE,
  type EventColumns,
  type ResolvedDataset,
  resolveDataset,
} from './resolve.ts';
import {
  compareMembers,
  compareStrings,
  type MemberWithoutGroup,
  renderMember,
  resolveGroup,
  windowBounds,
} from './rules.ts';
import { groupStable, partitionPoint, sortIndicesByKey } from './sort.ts';
import { dayNumber, dayOf, dayString } from './time.ts';
import type {
  Answer,
  Caller,
  DayWindow,
  EndpointRequest,
  ReportingIndex,
  StatsQuery,
  TagQuery,
} from './types.ts';
import { DatasetError } from './validate.ts';

/** Options of {@link buildIndex}. */
export interface BuildIndexOptions {
  /** Rendering of a member without a group (decisions §8 option); default `'omit'`. */
  readonly memberWithoutGroup?: MemberWithoutGroup;
}

const ACCOUNT_CODES: Record<AccountType, number> = { admin: 0, manager: 1, user: 2 };

/** A stamp array: marks indices as seen in the current generation without clearing. */
class Stamps {
  readonly mark: Int32Array;
  readonly slot: Int32Array;
  private gen = 0;
  constructor(size: number) {
    this.mark = new Int32Array(size);
    this.slot = new Int32Array(size);
  }
  next(): number {
    if (this.gen >= 0x7ffffff0) {
      this.mark.fill(0);
      this.gen = 0;
    }
    return ++this.gen;
  }
}

/** Prefix sums (length entries + 1) of totalSent, totalOpens, totalClicks, uniqueOpens, uniqueClicks. */
type Prefix = readonly [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];

/**
 * Per-day stats of a set of tags (decisions §3, §9): ascending day numbers with prefix sums
 * of the counters, so a window is two binary searches and an aggregate one subtraction.
 * Entries `[from, to)` of shared arrays.
 */
class StatsSeries {
  constructor(
    readonly day: Int32Array,
    readonly prefix: Prefix,
    /** The newest tag of each day. */
    readonly lastTag: Int32Array,
    readonly from: number,
    readonly to: number,
  ) {}
}

/** Per-tag counters of the index (decisions §8, §9). */
interface TagCounterColumns {
  readonly to: Int32Array;
  readonly tc: Int32Array;
  readonly uo: Int32Array;
  readonly uc: Int32Array;
}

/** The arrays of `n` series entries (days) and their prefix sums. */
function seriesArrays(n: number): { day: Int32Array; prefix: Prefix; lastTag: Int32Array } {
  const p = () => new Float64Array(n + 1);
  return { day: new Int32Array(n), prefix: [p(), p(), p(), p(), p()], lastTag: new Int32Array(n) };
}

/** Builds day entries of tags given in tag order (newest first) into the arrays at `at`. */
function fillSeries(
  tagsNewestFirst: ArrayLike<number>,
  from: number,
  to: number,
  tagMs: Float64Array,
  counters: TagCounterColumns,
  out: ReturnType<typeof seriesArrays>,
  at: number,
): number {
  const [pSent, pOpens, pClicks, pUo, pUc] = out.prefix;
  let k = at - 1;
  let lastDay = Number.NaN;
  for (let i = to - 1; i >= from; i--) {
    const t = tagsNewestFirst[i]!;
    const d = dayOf(tagMs[t]!);
    if (d !== lastDay) {
      k++;
      lastDay = d;
      out.day[k] = d;
      pSent[k + 1] = pSent[k]!;
      pOpens[k + 1] = pOpens[k]!;
      pClicks[k + 1] = pClicks[k]!;
      pUo[k + 1] = pUo[k]!;
      pUc[k + 1] = pUc[k]!;
    }
    out.lastTag[k] = t;
    pSent[k + 1]! += 1;
    pOpens[k + 1]! += counters.to[t]!;
    pClicks[k + 1]! += counters.tc[t]!;
    pUo[k + 1]! += counters.uo[t]!;
    pUc[k + 1]! += counters.uc[t]!;
  }
  return k + 1;
}

/** What a caller sees (decisions §2), with lazily built per-scope indexes. */
interface Scope {
  readonly key: string;
  readonly team: number;
  readonly admin: boolean;
  /** Visible members in member order. */
  readonly members: Int32Array;
  /** The one visible member, or -1 when several (then `flag` marks them). */
  readonly single: number;
  readonly flag: Uint8Array | null;
  tagRanks?: Int32Array;
  openRanks?: Int32Array;
  clickRanks?: Int32Array;
  contacts?: ScopeContacts;
  readonly series: Map<string, StatsSeries>;
}

/** Contacts of a scope in email order with counters over the scope's tags (decisions §9). */
interface ScopeContacts {
  /** The contacts in email order. */
  readonly order: Int32Array;
  /** Position in `order` of each contact of the scope. */
  readonly position: Map<number, number>;
  /** CONTACT_FIELDS counters per position: sent, to, uo, tc, uc, do, mo, dc, mc. */
  readonly counters: Int32Array;
  /** The first tag in tag order (the latest) sent to the contact. */
  readonly bestTag: Int32Array;
  readonly records: (Contact | undefined)[];
  /** Position of each contact id (decisions §8), built on the scope's first endpoint 16 request. */
  byId?: Map<string, number>;
}

const CONTACT_FIELDS = 9;

/**
 * The contacts (distinct normalised emails, decisions §9), interned as the scopes' contacts
 * requests first reach their recipient entries, so no request pays for other scopes.
 */
class ContactTable {
  readonly index = new Map<string, number>();
  readonly email: string[] = [];
  /** The contact id of each contact, memoised. */
  readonly ids: (string | undefined)[] = [];
  /** The contact of each recipient entry, -1 until interned. */
  private readonly ofEntry: Int32Array;
  /** Stamps over contacts (at most one per entry). */
  readonly stamps: Stamps;
  constructor(private readonly recipEmail: readonly string[]) {
    this.ofEntry = new Int32Array(recipEmail.length).fill(-1);
    this.stamps = new Stamps(recipEmail.length);
  }
  /** The contact of recipient entry `k`. */
  of(k: number): number {
    let c = this.ofEntry[k]!;
    if (c < 0) {
      const email = this.recipEmail[k]!;
      c = this.index.get(email) ?? -1;
      if (c < 0) {
        c = this.email.length;
        this.email.push(email);
        this.index.set(email, c);
      }
      this.ofEntry[k] = c;
    }
    return c;
  }
  /** The contact id of contact `c` (decisions §8). */
  id(c: number): string {
    let id = this.ids[c];
    if (id === undefined) {
      id = contactIdOfNormalised(this.email[c]!);
      this.ids[c] = id;
    }
    return id;
  }
}

/** Kind of events: its columns and the name of its date field in API records. */
type EventKind = 'opens' | 'clicks';

/** The events of one kind with their date order, per-tag and per-member lists. */
interface EventIndex {
  readonly cols: EventColumns;
  /** `openDate` or `clickDate`. */
  readonly dateField: 'openDate' | 'clickDate';
  /** Event indices in date order (stable: ties by input order). */
  readonly byDate: Int32Array;
  /** Per tag, event indices in date order: `tagEvents[tagStart[t] .. tagStart[t+1])`. */
  readonly tagStart: Int32Array;
  readonly tagEvents: Int32Array;
  /** Per member, date ranks ascending. */
  readonly memberStart: Int32Array;
  readonly memberRanks: Int32Array;
  /** Per tag: total events, distinct entries (unique), desktop and mobile events. */
  readonly total: Int32Array;
  readonly unique: Int32Array;
  readonly desktop: Int32Array;
  readonly mobile: Int32Array;
  /** Whether recipient entry `k` has at least one event of this kind. */
  readonly seen: Uint8Array;
}

/** Exclusive prefix sums of `counts` in place (`counts[g]` becomes the start of group `g`). */
function startsOf(counts: Int32Array): void {
  let sum = 0;
  for (let g = 0; g < counts.length; g++) {
    const c = counts[g]!;
    counts[g] = sum;
    sum += c;
  }
}

/**
 * Indexes the events of one kind: sorts them by date, lists them per tag and per member
 * (both in date order, by one counting pass and one scatter pass) and counts them per tag
 * and per recipient entry.
 */
function indexEvents(
  cols: EventColumns,
  dateField: EventIndex['dateField'],
  tagCount: number,
  tagMember: Int32Array,
  memberCount: number,
  entryCount: number,
): EventIndex {
  const { tag, entry, device } = cols;
  const n = tag.length;
  const byDate = sortIndicesByKey(cols.ms);
  const tagStart = new Int32Array(tagCount + 1);
  const memberStart = new Int32Array(memberCount + 1);
  const desktop = new Int32Array(tagCount);
  const mobile = new Int32Array(tagCount);
  const unique = new Int32Array(tagCount);
  const seen = new Uint8Array(entryCount);
  for (let e = 0; e < n; e++) {
    const t = tag[e]!;
    tagStart[t]!++;
    memberStart[tagMember[t]!]!++;
    const k = entry[e]!;
    if (seen[k] === 0) {
      seen[k] = 1;
      unique[t]!++;
    }
    const d = device[e];
    if (d === DEVICE_DESKTOP) desktop[t]!++;
    else if (d === DEVICE_MOBILE) mobile[t]!++;
  }
  const total = tagStart.slice(0, tagCount);
  startsOf(tagStart);
  startsOf(memberStart);
  const tagPos = tagStart.slice(0, tagCount);
  const memberPos = memberStart.slice(0, memberCount);
  const tagEvents = new Int32Array(n);
  const memberRanks = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const e = byDate[r]!;
    const t = tag[e]!;
    tagEvents[tagPos[t]!++] = e;
    memberRanks[memberPos[tagMember[t]!]!++] = r;
  }
  return {
    cols,
    dateField,
    byDate,
    tagStart,
    tagEvents,
    memberStart,
    memberRanks,
    total,
    unique,
    desktop,
    mobile,
    seen,
  };
}

/**
 * Builds the reporting indexes of a dataset once (decisions §2, §3, §8, §9) and returns a
 * {@link ReportingIndex} answering every endpoint in time about proportional to the answer.
 *
 * Built eagerly: each tag's recipient entries (its distinct normalised emails), per-tag
 * counters, tag order, per-member tag lists, per-tag and per-member event
 * lists in date order, per-member day stats. Built on first use and cached, each in time
 * about proportional to what it covers: the per-scope (team, group, member) merges of
 * these, including a scope's contacts with their counters (decisions §9) and their ids.
 * Throws {@link DatasetError} listing the problems when `validateDataset` finds any.
 * Returned records are shared between calls and must not be mutated.
 */
export function buildIndex(dataset: Dataset, options: BuildIndexOptions = {}): ReportingIndex {
  const res = resolveDataset(dataset);
  if (res.problems.length > 0) throw new DatasetError(res.problems);
  return new Index(res, options.memberWithoutGroup ?? 'omit');
}

class Index implements ReportingIndex {
  readonly dataset: Dataset;
  private readonly res: ResolvedDataset;
  private readonly withoutGroup: MemberWithoutGroup;
  private readonly memberCount: number;
  private readonly memberType: Uint8Array;
  private readonly teamMembers: Int32Array[];
  private readonly groupMembers_: Int32Array[];
  /** Tag indices in tag order (newest first, then tagID), and the rank of each tag. */
  private readonly tagOrder: Int32Array;
  private readonly tagRank: Int32Array;
  /** Per member, tag ranks ascending (newest first). */
  private readonly memberTagStart: Int32Array;
  private readonly memberTagRanks: Int32Array;
  private readonly opens: EventIndex;
  private readonly clicks: EventIndex;
  private readonly memberSeries: StatsSeries[];
  private readonly credentials: Map<string, { accessKey: string; caller: Caller }>;

  private readonly entryStamps: Stamps;
  private readonly tagStamps: Stamps;
  private readonly scopes = new Map<string, Scope>();
  private readonly memberRecords: (TeamMember | undefined)[];
  private readonly tagRecords: (Tag | undefined)[];
  private readonly timestamps: (Timestamp | undefined)[];
  /** The contact id of each recipient entry, memoised. */
  private readonly entryIds: (string | undefined)[];
  private contactTable: ContactTable | undefined;

  constructor(res: ResolvedDataset, withoutGroup: MemberWithoutGroup) {
    this.dataset = res.dataset;
    this.res = res;
    this.withoutGroup = withoutGroup;
    const M = res.members.length;
    const T = res.dataset.tags.length;
    const P = res.recipPos.length;
    this.memberCount = M;
    this.memberRecords = new Array(M);
    this.tagRecords = new Array(T);
    this.timestamps = new Array(T);
    this.entryIds = new Array(P);
    this.entryStamps = new Stamps(P);
    this.tagStamps = new Stamps(T);

    // Members: account types, member order, team and group member lists.
    this.memberType = new Uint8Array(M);
    for (let m = 0; m < M; m++) this.memberType[m] = ACCOUNT_CODES[res.members[m]!.accountType];
    const order = Array.from({ length: M }, (_, m) => m);
    order.sort((a, b) => compareMembers(res.members[a]!, res.members[b]!));
    const teamLists: number[][] = res.dataset.teams.map(() => []);
    const groupLists: number[][] = res.groups.map(() => []);
    for (const m of order) {
      teamLists[res.memberTeam[m]!]!.push(m);
      const g = res.memberGroup[m]!;
      if (g >= 0) groupLists[g]!.push(m);
    }
    this.teamMembers = teamLists.map((l) => Int32Array.from(l));
    this.groupMembers_ = groupLists.map((l) => Int32Array.from(l));

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
    this.tagOrder = tagOrder;
    this.tagRank = new Int32Array(T);
    for (let r = 0; r < T; r++) this.tagRank[tagOrder[r]!] = r;
    const memberTags = groupStable(T, M, (r) => res.tagMember[tagOrder[r]!]!);
    this.memberTagStart = memberTags.start;
    this.memberTagRanks = memberTags.items;

    // Events: date order, per-tag and per-member lists, per-tag counters (decisions §8, §9).
    // Recipient entries are the distinct normalised emails of one tag, so "distinct
    // recipients" = distinct entries.
    this.opens = indexEvents(res.opens, 'openDate', T, res.tagMember, M, P);
    this.clicks = indexEvents(res.clicks, 'clickDate', T, res.tagMember, M, P);

    // Per-member day stats: one flat array, member m owning a contiguous range.
    const out = seriesArrays(T);
    const counters = this.counters();
    const newestFirst = new Int32Array(T);
    for (let i = 0; i < T; i++) newestFirst[i] = tagOrder[this.memberTagRanks[i]!]!;
    this.memberSeries = new Array(M);
    let at = 0;
    for (let m = 0; m < M; m++) {
      const end = fillSeries(
        newestFirst,
        this.memberTagStart[m]!,
        this.memberTagStart[m + 1]!,
        res.tagMs,
        counters,
        out,
        at,
      );
      this.memberSeries[m] = new StatsSeries(out.day, out.prefix, out.lastTag, at, end);
      at = end;
    }

    this.credentials = new Map();
    for (const cred of res.dataset.credentials) {
      const caller = this.callerOf(cred.memberID);
      if (caller && !this.credentials.has(cred.authId)) {
        this.credentials.set(cred.authId, { accessKey: cred.accessKey, caller });
      }
    }
  }

  private counters(): TagCounterColumns {
    return {
      to: this.opens.total,
      tc: this.clicks.total,
      uo: this.opens.unique,
      uc: this.clicks.unique,
    };
  }

  // ---- identity -------------------------------------------------------------------------

  credential(authId: string): { readonly accessKey: string; readonly caller: Caller } | undefined {
    return this.credentials.get(authId);
  }

  callerOf(memberID: string): Caller | undefined {
    const m = this.res.memberIndex.get(memberID);
    if (m === undefined) return undefined;
    const member = this.res.members[m]!;
    return {
      memberID,
      teamID: this.dataset.teams[this.res.memberTeam[m]!]!.teamID,
      accountType: member.accountType,
    };
  }

  // ---- scoping (decisions §2) ------------------------------------------------------------

  private scopeOf(caller: Caller): Scope {
    const team = this.res.teamIndex.get(caller.teamID);
    const self = this.res.memberIndex.get(caller.memberID);
    let key: string;
    if (team === undefined) key = 'none';
    else if (caller.accountType === 'admin') key = `t${team}`;
    else if (self === undefined || this.res.memberTeam[self] !== team) key = 'none';
    else if (caller.accountType === 'manager' && this.res.memberGroup[self]! >= 0) {
      key = `g${this.res.memberGroup[self]}`;
    } else key = `m${self}`;
    let scope = this.scopes.get(key);
    if (scope) return scope;
    let members: Int32Array;
    if (key === 'none') members = new Int32Array(0);
    else if (key[0] === 't') members = this.teamMembers[team!]!;
    else if (key[0] === 'g') members = this.groupMembers_[this.res.memberGroup[self!]!]!;
    else members = Int32Array.of(self!);
    let flag: Uint8Array | null = null;
    if (members.length !== 1) {
      flag = new Uint8Array(this.memberCount);
      for (const m of members) flag[m] = 1;
    }
    scope = {
      key,
      team: team ?? -1,
      admin: key[0] === 't',
      members,
      single: members.length === 1 ? members[0]! : -1,
      flag,
      series: new Map(),
    };
    this.scopes.set(key, scope);
    return scope;
  }

  private sees(scope: Scope, m: number): boolean {
    return scope.flag === null ? m === scope.single : scope.flag[m] === 1;
  }

  private visibleMember(scope: Scope, memberID: string): number | undefined {
    const m = this.res.memberIndex.get(memberID);
    return m !== undefined && this.sees(scope, m) ? m : undefined;
  }

  private visibleTag(scope: Scope, tagID: string): number | undefined {
    const t = this.res.tagIndex.get(tagID);
    return t !== undefined && this.sees(scope, this.res.tagMember[t]!) ? t : undefined;
  }

  /** Tag ranks of a scope, ascending (tag order). */
  private scopeTagRanks(scope: Scope): Int32Array {
    if (scope.tagRanks) return scope.tagRanks;
    scope.tagRanks = this.mergeRanks(scope.members, this.memberTagStart, this.memberTagRanks);
    return scope.tagRanks;
  }

  private scopeEventRanks(scope: Scope, kind: 'opens' | 'clicks'): Int32Array {
    const idx = this[kind];
    if (kind === 'opens') {
      scope.openRanks ??= this.mergeRanks(scope.members, idx.memberStart, idx.memberRanks);
      return scope.openRanks;
    }
    scope.clickRanks ??= this.mergeRanks(scope.members, idx.memberStart, idx.memberRanks);
    return scope.clickRanks;
  }

  private mergeRanks(members: Int32Array, start: Int32Array, ranks: Int32Array): Int32Array {
    if (members.length === 1) {
      const m = members[0]!;
      return ranks.subarray(start[m]!, start[m + 1]!);
    }
    let n = 0;
    for (const m of members) n += start[m + 1]! - start[m]!;
    const out = new Int32Array(n);
    let k = 0;
    for (const m of members) {
      out.set(ranks.subarray(start[m]!, start[m + 1]!), k);
      k += start[m + 1]! - start[m]!;
    }
    return out.sort();
  }

  // ---- rendering -------------------------------------------------------------------------

  private memberRecord(m: number): TeamMember {
    let rec = this.memberRecords[m];
    if (!rec) {
      const team = this.dataset.teams[this.res.memberTeam[m]!]!;
      rec = renderMember(this.res.members[m]!, team, this.withoutGroup);
      this.memberRecords[m] = rec;
    }
    return rec;
  }

  private dateSentOf(t: number): Timestamp {
    let ts = this.timestamps[t];
    if (ts === undefined) {
      const raw = this.dataset.tags[t]!.dateSent;
      ts = raw.length === 20 ? raw : formatTimestamp(this.res.tagMs[t]!);
      this.timestamps[t] = ts;
    }
    return ts;
  }

  /**
   * A tag's recipients, each normalised email once with the first entry's name and email as
   * written (decisions §3 Revision 2).
   */
  private recipientsOf(t: number): Tag['recipients'] {
    const { recipStart, recipPos } = this.res;
    const all = this.dataset.tags[t]!.recipients;
    const out: Tag['recipients'] = [];
    for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
      const r = all[recipPos[k]!]!;
      out.push({ name: r.name, email: r.email });
    }
    return out;
  }

  private tagRecord(t: number): Tag {
    let rec = this.tagRecords[t];
    if (!rec) {
      const tag = this.dataset.tags[t]!;
      rec = {
        tagID: tag.tagID,
        subject: tag.subject,
        dateSent: this.dateSentOf(t),
        recipients: this.recipientsOf(t),
        stats: {
          totalOpens: this.opens.total[t]!,
          uniqueOpens: this.opens.unique[t]!,
          totalClicks: this.clicks.total[t]!,
          uniqueClicks: this.clicks.unique[t]!,
          desktopOpens: this.opens.desktop[t]!,
          mobileOpens: this.opens.mobile[t]!,
          desktopClicks: this.clicks.desktop[t]!,
          mobileClicks: this.clicks.mobile[t]!,
        },
      };
      this.tagRecords[t] = rec;
    }
    return rec;
  }

  /** The contact id of recipient entry `k` (decisions §8), memoised. */
  private entryId(k: number): string {
    let id = this.entryIds[k];
    if (id === undefined) {
      id = contactIdOfNormalised(this.res.recipEmail[k]!);
      this.entryIds[k] = id;
    }
    return id;
  }

  private contacts_(): ContactTable {
    this.contactTable ??= new ContactTable(this.res.recipEmail);
    return this.contactTable;
  }

  /** The recipient name of contact `c` on tag `t` (its first entry with that email). */
  private recipientName(t: number, c: number): string {
    const { recipStart, recipPos } = this.res;
    const table = this.contacts_();
    for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
      if (table.of(k) === c) return this.dataset.tags[t]!.recipients[recipPos[k]!]!.name;
    }
    return '';
  }

  /** The details of event `e` (`openDate` or `clickDate` first, then the location fields). */
  private eventDetails(idx: EventIndex, e: number): Record<string, string> {
    const s = idx.cols.source[e]!;
    const date = s.date.length === 20 ? s.date : formatTimestamp(idx.cols.ms[e]!);
    // One literal per kind, then the same fields in the same order: two stable shapes.
    const out: Record<string, string> =
      idx.dateField === 'openDate' ? { openDate: date } : { clickDate: date };
    out.counry = s.counry;
    out.region = s.region;
    out.city = s.city;
    out.latitude = s.latitude;
    out.longitude = s.longitude;
    out.device = s.device;
    out.os = s.os;
    out.browser = s.browser;
    return out;
  }

  private eventRecipient(idx: EventIndex, e: number): EventRecipient {
    const k = idx.cols.entry[e]!;
    const t = idx.cols.tag[e]!;
    return {
      recipientID: this.entryId(k),
      name: this.dataset.tags[t]!.recipients[this.res.recipPos[k]!]!.name,
      email: this.res.recipEmail[k]!,
    };
  }

  // ---- members (endpoints 1, 3, 5) -------------------------------------------------------

  members(caller: Caller, query: { type?: AccountType | undefined } = {}): TeamMember[] {
    return this.renderMembers(this.scopeOf(caller).members, query.type);
  }

  private renderMembers(list: Int32Array, type: AccountType | undefined): TeamMember[] {
    const out: TeamMember[] = [];
    const code = type === undefined ? -1 : ACCOUNT_CODES[type];
    for (const m of list)
      if (code < 0 || this.memberType[m] === code) out.push(this.memberRecord(m));
    return out;
  }

  member(caller: Caller, memberID: string): TeamMember | undefined {
    const m = this.visibleMember(this.scopeOf(caller), memberID);
    return m === undefined ? undefined : this.memberRecord(m);
  }

  /**
   * The group a segment names among the groups the caller may see, and its visible members,
   * or `undefined` (decisions §2, §4 Revision 2): an admin sees every group of the team,
   * others a group only when they see at least one of its members; an exact groupID first,
   * else the exact groupName, the lowest groupID among groups sharing it.
   */
  private visibleGroup(
    scope: Scope,
    segment: string,
  ): { group: number; members: Int32Array } | undefined {
    if (scope.team < 0) return undefined;
    const candidates: { group: number; members: Int32Array }[] = [];
    for (const g of this.res.teamGroups[scope.team]!) {
      const all = this.groupMembers_[g]!;
      const members = scope.admin ? all : all.filter((m) => this.sees(scope, m));
      if (scope.admin || members.length > 0) candidates.push({ group: g, members });
    }
    const chosen = resolveGroup(
      candidates.map((c) => this.res.groups[c.group]!.group),
      segment,
    );
    return chosen && candidates.find((c) => this.res.groups[c.group]!.group === chosen);
  }

  groupMembers(
    caller: Caller,
    group: string,
    query: { type?: AccountType | undefined } = {},
  ): TeamMember[] | undefined {
    const found = this.visibleGroup(this.scopeOf(caller), group);
    return found && this.renderMembers(found.members, query.type);
  }

  // ---- tags (endpoints 2, 4) -------------------------------------------------------------

  tags(caller: Caller, query: TagQuery): Tag[] | undefined {
    const scope = this.scopeOf(caller);
    let ranks: Int32Array;
    if (query.memberID !== undefined) {
      const m = this.visibleMember(scope, query.memberID);
      if (m === undefined) return undefined;
      ranks = this.memberTagRanks.subarray(this.memberTagStart[m]!, this.memberTagStart[m + 1]!);
    } else ranks = this.scopeTagRanks(scope);
    const { tagOrder } = this;
    const tagMs = this.res.tagMs;
    const { startMs, endMs } = windowBounds(query);
    const from = partitionPoint(0, ranks.length, (i) => tagMs[tagOrder[ranks[i]!]!]! >= endMs);
    const out: Tag[] = [];
    for (let i = from; i < ranks.length; i++) {
      const t = tagOrder[ranks[i]!]!;
      if (tagMs[t]! < startMs) break;
      if (query.isOpened && this.opens.unique[t] === 0) continue;
      if (query.isUnopened && this.opens.total[t] !== 0) continue;
      if (query.isClicked && this.clicks.unique[t] === 0) continue;
      if (query.isUnclicked && this.clicks.total[t] !== 0) continue;
      out.push(this.tagRecord(t));
    }
    return out;
  }

  // ---- stats (endpoints 6, 7, 8, 13) -----------------------------------------------------

  stats(caller: Caller, query: StatsQuery): StatsSummary[] | undefined {
    const scope = this.scopeOf(caller);
    const typeCode = query.type === undefined ? -1 : ACCOUNT_CODES[query.type];
    let series: StatsSeries;
    const subject = query.subject;
    if (subject.kind === 'member') {
      const m = this.visibleMember(scope, subject.memberID);
      if (m === undefined) return undefined;
      if (typeCode >= 0 && this.memberType[m] !== typeCode) {
        return query.aggregateData ? [emptyStats()] : [];
      }
      series = this.memberSeries[m]!;
    } else if (subject.kind === 'group') {
      const found = this.visibleGroup(scope, subject.group);
      if (!found) return undefined;
      const g = found.group;
      series = this.scopeSeries(
        scope,
        `g${g}:${typeCode}`,
        (m) => this.res.memberGroup[m] === g && (typeCode < 0 || this.memberType[m] === typeCode),
      );
    } else {
      series =
        scope.single >= 0 && typeCode < 0
          ? this.memberSeries[scope.single]!
          : this.scopeSeries(
              scope,
              `t:${typeCode}`,
              (m) => typeCode < 0 || this.memberType[m] === typeCode,
            );
    }
    return this.querySeries(series, query);
  }

  private scopeSeries(scope: Scope, key: string, keep: (member: number) => boolean): StatsSeries {
    const cached = scope.series.get(key);
    if (cached) return cached;
    const ranks = this.scopeTagRanks(scope);
    const newestFirst: number[] = [];
    for (const r of ranks) {
      const t = this.tagOrder[r]!;
      if (keep(this.res.tagMember[t]!)) newestFirst.push(t);
    }
    const n = newestFirst.length;
    const out = seriesArrays(n);
    const end = fillSeries(newestFirst, 0, n, this.res.tagMs, this.counters(), out, 0);
    const series = new StatsSeries(out.day, out.prefix, out.lastTag, 0, end);
    scope.series.set(key, series);
    return series;
  }

  private querySeries(s: StatsSeries, query: StatsQuery): StatsSummary[] {
    const startDay = query.start === undefined ? -Infinity : dayNumber(query.start);
    const endDay = query.end === undefined ? Infinity : dayNumber(query.end);
    const lo = partitionPoint(s.from, s.to, (i) => s.day[i]! < startDay);
    const hi = partitionPoint(lo, s.to, (i) => s.day[i]! <= endDay);
    const [pSent, pOpens, pClicks, pUo, pUc] = s.prefix;
    const record = (a: number, b: number): StatsSummary => ({
      totalSent: pSent[b]! - pSent[a]!,
      totalOpens: pOpens[b]! - pOpens[a]!,
      totalClicks: pClicks[b]! - pClicks[a]!,
      uniqueOpens: pUo[b]! - pUo[a]!,
      uniqueClicks: pUc[b]! - pUc[a]!,
      dateLastSent: this.dateSentOf(s.lastTag[b - 1]!),
    });
    if (query.aggregateData) return [lo < hi ? record(lo, hi) : emptyStats()];
    const out: StatsSummary[] = [];
    for (let i = lo; i < hi; i++) out.push({ ...record(i, i + 1), date: dayString(s.day[i]!) });
    return out;
  }

  // ---- events (endpoints 9, 10, 11, 12, 14) ----------------------------------------------

  private eventGroups(
    caller: Caller,
    window: DayWindow,
    kind: EventKind,
  ): { tagID: string; events: unknown[] }[] {
    const scope = this.scopeOf(caller);
    const idx = this[kind];
    const ranks = this.scopeEventRanks(scope, kind);
    const { startMs, endMs } = windowBounds(window);
    const { byDate } = idx;
    const { ms, tag } = idx.cols;
    const lo = partitionPoint(0, ranks.length, (i) => ms[byDate[ranks[i]!]!]! < startMs);
    const hi = partitionPoint(lo, ranks.length, (i) => ms[byDate[ranks[i]!]!]! < endMs);
    const stamps = this.tagStamps;
    const gen = stamps.next();
    const groupRanks: number[] = [];
    for (let i = lo; i < hi; i++) {
      const t = tag[byDate[ranks[i]!]!]!;
      if (stamps.mark[t] !== gen) {
        stamps.mark[t] = gen;
        groupRanks.push(this.tagRank[t]!);
      }
    }
    const sortedRanks = Int32Array.from(groupRanks).sort();
    const groups: { tagID: string; events: unknown[] }[] = [];
    for (let g = 0; g < sortedRanks.length; g++) {
      const t = this.tagOrder[sortedRanks[g]!]!;
      stamps.slot[t] = g;
      groups.push({ tagID: this.dataset.tags[t]!.tagID, events: [] });
    }
    for (let i = lo; i < hi; i++) {
      const e = byDate[ranks[i]!]!;
      groups[stamps.slot[tag[e]!]!]!.events.push({
        recipient: this.eventRecipient(idx, e),
        details: this.eventDetails(idx, e),
      });
    }
    return groups;
  }

  clickGroups(caller: Caller, window: DayWindow): ClickGroup[] {
    return this.eventGroups(caller, window, 'clicks').map((g) => ({
      tagID: g.tagID,
      clicks: g.events as ClickGroup['clicks'],
    }));
  }

  openGroups(caller: Caller, window: DayWindow): OpenGroup[] {
    return this.eventGroups(caller, window, 'opens').map((g) => ({
      tagID: g.tagID,
      opens: g.events as OpenGroup['opens'],
    }));
  }

  /** The events of one visible tag, oldest first, as records: the details, then `tagID`. */
  private tagEventList(caller: Caller, tagID: string, kind: EventKind): unknown[] | undefined {
    const t = this.visibleTag(this.scopeOf(caller), tagID);
    if (t === undefined) return undefined;
    const idx = this[kind];
    const { tagStart, tagEvents } = idx;
    const out: unknown[] = [];
    for (let k = tagStart[t]!; k < tagStart[t + 1]!; k++) {
      out.push({ ...this.eventDetails(idx, tagEvents[k]!), tagID });
    }
    return out;
  }

  tagClicks(caller: Caller, tagID: string): Click[] | undefined {
    return this.tagEventList(caller, tagID, 'clicks') as Click[] | undefined;
  }

  tagOpens(caller: Caller, tagID: string): Open[] | undefined {
    return this.tagEventList(caller, tagID, 'opens') as Open[] | undefined;
  }

  daily(caller: Caller, tagID: string, date: string): DailyCounts | undefined {
    const t = this.visibleTag(this.scopeOf(caller), tagID);
    if (t === undefined) return undefined;
    const dayStart = dayNumber(date) * DAY_MS;
    const count = (idx: EventIndex): number => {
      const { tagStart, tagEvents, cols } = idx;
      const a = tagStart[t]!;
      const b = tagStart[t + 1]!;
      const lo = partitionPoint(a, b, (k) => cols.ms[tagEvents[k]!]! < dayStart);
      const stamps = this.entryStamps;
      const gen = stamps.next();
      let n = 0;
      for (let k = lo; k < b; k++) {
        const e = tagEvents[k]!;
        if (cols.ms[e]! >= dayStart + DAY_MS) break;
        const entry = cols.entry[e]!;
        if (stamps.mark[entry] !== gen) {
          stamps.mark[entry] = gen;
          n++;
        }
      }
      return n;
    };
    return { opens: count(this.opens), clicks: count(this.clicks) };
  }

  // ---- contacts (endpoints 15, 16, 17) ---------------------------------------------------

  /**
   * The contacts of a scope (decisions §9), built on its first contacts request from the
   * scope's tags (in tag order, so a contact's first tag is its latest) with their
   * recipient entries and events, then ordered by email: time about proportional to the
   * scope's recipients and events.
   */
  private scopeContacts(scope: Scope): ScopeContacts {
    if (scope.contacts) return scope.contacts;
    const { recipStart } = this.res;
    const table = this.contacts_();
    const ranks = this.scopeTagRanks(scope);
    const stamps = table.stamps;
    const gen = stamps.next();
    const slotContact: number[] = [];
    const slotTag: number[] = [];
    for (const r of ranks) {
      const t = this.tagOrder[r]!;
      for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
        const c = table.of(k);
        if (stamps.mark[c] !== gen) {
          stamps.mark[c] = gen;
          stamps.slot[c] = slotContact.length;
          slotContact.push(c);
          slotTag.push(t);
        }
      }
    }
    const n = slotContact.length;
    const acc = new Int32Array(n * CONTACT_FIELDS);
    const opens = this.opens;
    const clicks = this.clicks;
    const addEvents = (idx: EventIndex, t: number, total: number) => {
      const { tagStart, tagEvents, cols } = idx;
      for (let i = tagStart[t]!; i < tagStart[t + 1]!; i++) {
        const e = tagEvents[i]!;
        const base = stamps.slot[table.of(cols.entry[e]!)]! * CONTACT_FIELDS;
        acc[base + total]!++;
        const d = cols.device[e];
        if (d === DEVICE_DESKTOP) acc[base + total + 4]!++;
        else if (d === DEVICE_MOBILE) acc[base + total + 5]!++;
      }
    };
    for (const r of ranks) {
      const t = this.tagOrder[r]!;
      for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
        const base = stamps.slot[table.of(k)]! * CONTACT_FIELDS;
        acc[base]!++;
        acc[base + 2]! += opens.seen[k]!;
        acc[base + 4]! += clicks.seen[k]!;
      }
      addEvents(opens, t, 1);
      addEvents(clicks, t, 3);
    }
    // Email order: a native sort of the strings, then each email's contact by lookup.
    const emails = slotContact.map((c) => table.email[c]!).sort();
    const order = new Int32Array(n);
    const counters = new Int32Array(n * CONTACT_FIELDS);
    const bestTag = new Int32Array(n);
    const position = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const c = table.index.get(emails[i]!)!;
      const slot = stamps.slot[c]!;
      order[i] = c;
      position.set(c, i);
      counters.set(
        acc.subarray(slot * CONTACT_FIELDS, slot * CONTACT_FIELDS + CONTACT_FIELDS),
        i * CONTACT_FIELDS,
      );
      bestTag[i] = slotTag[slot]!;
    }
    scope.contacts = { order, position, counters, bestTag, records: new Array(n) };
    return scope.contacts;
  }

  private contactRecord(sc: ScopeContacts, i: number): Contact {
    let rec = sc.records[i];
    if (!rec) {
      const c = sc.order[i]!;
      const t = sc.bestTag[i]!;
      const v = sc.counters.subarray(i * CONTACT_FIELDS, i * CONTACT_FIELDS + CONTACT_FIELDS);
      rec = {
        contactID: this.contacts_().id(c),
        name: this.recipientName(t, c),
        email: this.contacts_().email[c]!,
        dateLastSent: this.dateSentOf(t),
        stats: {
          totalOpens: v[1]!,
          uniqueOpens: v[2]!,
          totalClicks: v[3]!,
          uniqueClicks: v[4]!,
          desktopOpens: v[5]!,
          mobileOpens: v[6]!,
          desktopClicks: v[7]!,
          mobileClicks: v[8]!,
          totalSent: v[0]!,
        },
      };
      sc.records[i] = rec;
    }
    return rec;
  }

  contacts(caller: Caller): Contact[] {
    const sc = this.scopeContacts(this.scopeOf(caller));
    const out: Contact[] = new Array(sc.order.length);
    for (let i = 0; i < sc.order.length; i++) out[i] = this.contactRecord(sc, i);
    return out;
  }

  contact(caller: Caller, contactID: string): Contact | undefined {
    const sc = this.scopeContacts(this.scopeOf(caller));
    if (!sc.byId) {
      sc.byId = new Map();
      const table = this.contacts_();
      for (let i = 0; i < sc.order.length; i++) sc.byId.set(table.id(sc.order[i]!), i);
    }
    const i = sc.byId.get(contactID);
    return i === undefined ? undefined : this.contactRecord(sc, i);
  }

  tagContacts(caller: Caller, tagID: string): Contact[] | undefined {
    const scope = this.scopeOf(caller);
    const t = this.visibleTag(scope, tagID);
    if (t === undefined) return undefined;
    const sc = this.scopeContacts(scope);
    const { recipStart } = this.res;
    const table = this.contacts_();
    const positions = new Int32Array(recipStart[t + 1]! - recipStart[t]!);
    for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
      positions[k - recipStart[t]!] = sc.position.get(table.of(k))!;
    }
    positions.sort();
    return Array.from(positions, (i) => this.contactRecord(sc, i));
  }

  // ---- dispatch --------------------------------------------------------------------------

  answer(caller: Caller, request: EndpointRequest): Answer {
    const { pathParams: p, query: q } = request;
    const list = (records: readonly unknown[] | undefined, what: string): Answer =>
      records === undefined ? notFound(what) : { kind: 'list', records };
    const single = (record: unknown, what: string): Answer =>
      record === undefined ? notFound(what) : { kind: 'single', record };
    const window: DayWindow = { start: q.start, end: q.end };
    const filters = {
      isOpened: q.isOpened,
      isUnopened: q.isUnopened,
      isClicked: q.isClicked,
      isUnclicked: q.isUnclicked,
    };
    switch (request.endpoint) {
      case 'teams.list':
        return list(this.members(caller, { type: q.type }), 'members');
      case 'teams.tags':
        return list(this.tags(caller, { ...window, ...filters }), 'tags');
      case 'teams.member': {
        const id = p.memberID;
        return single(
          id === undefined ? undefined : this.member(caller, id),
          describe('member', id),
        );
      }
      case 'teams.memberTags': {
        const id = p.memberID;
        return list(
          id === undefined ? undefined : this.tags(caller, { ...window, ...filters, memberID: id }),
          describe('member', id),
        );
      }
      case 'teams.group': {
        const g = p.group;
        return list(
          g === undefined ? undefined : this.groupMembers(caller, g, { type: q.type }),
          describe('group', g),
        );
      }
      case 'stats.team':
      case 'stats.teamAlias':
        return list(
          this.stats(caller, {
            ...window,
            subject: { kind: 'team' },
            aggregateData: q.aggregateData,
            type: q.type,
          }),
          'stats',
        );
      case 'stats.group': {
        const g = p.group;
        return list(
          g === undefined
            ? undefined
            : this.stats(caller, {
                ...window,
                subject: { kind: 'group', group: g },
                aggregateData: q.aggregateData,
                type: q.type,
              }),
          describe('group', g),
        );
      }
      case 'stats.member': {
        const id = p.memberID;
        return list(
          id === undefined
            ? undefined
            : this.stats(caller, {
                ...window,
                subject: { kind: 'member', memberID: id },
                aggregateData: q.aggregateData,
              }),
          describe('member', id),
        );
      }
      case 'clicks.list':
        return list(this.clickGroups(caller, window), 'clicks');
      case 'opens.list':
        return list(this.openGroups(caller, window), 'opens');
      case 'clicks.tag': {
        const id = p.tagID;
        return list(id === undefined ? undefined : this.tagClicks(caller, id), describe('tag', id));
      }
      case 'opens.tag': {
        const id = p.tagID;
        return list(id === undefined ? undefined : this.tagOpens(caller, id), describe('tag', id));
      }
      case 'tags.daily': {
        const id = p.tagID;
        if (q.date === undefined) throw missingParameter('date');
        return single(
          id === undefined ? undefined : this.daily(caller, id, q.date),
          describe('tag', id),
        );
      }
      case 'contacts.list':
        return list(this.contacts(caller), 'contacts');
      case 'contacts.get': {
        const id = p.contactID;
        return single(
          id === undefined ? undefined : this.contact(caller, id),
          describe('contact', id),
        );
      }
      case 'contacts.tag': {
        const id = p.tagID;
        return list(
          id === undefined ? undefined : this.tagContacts(caller, id),
          describe('tag', id),
        );
      }
    }
  }
}

/** Names what was not found; unknown and out-of-scope ids get the same words (decisions §2). */
function describe(kind: string, id: string | undefined): string {
  return id === undefined
    ? `${kind} not found (no ${kind} id given)`
    : `${kind} ${JSON.stringify(id)} not found`;
}

function notFound(message: string): Answer {
  return { kind: 'not_found', message };
}
