import type { EventRecipient, Tag, TeamMember } from '@tagtrack/core';
import {
  formatTimestamp,
  type MemberWithoutGroup,
  renderMember,
  type Timestamp,
} from '@tagtrack/core';
import { contactIdOfNormalised } from '@tagtrack/core/internal';
import type { EventIndex } from './event-index.ts';
import type { Tables } from './tables.ts';

/**
 * The API records of members, tags and events (spec §5, §9), rendered on first use and
 * memoised per member, tag and recipient entry. Returned records are shared and must not be
 * mutated. (Contact records depend on the scope: `contacts.ts`.)
 */
export class Records {
  private readonly members: (TeamMember | undefined)[];
  private readonly tags: (Tag | undefined)[];
  private readonly timestamps: (Timestamp | undefined)[];
  /** The contact id of each recipient entry. */
  private readonly entryIds: (string | undefined)[];

  constructor(
    private readonly tables: Tables,
    private readonly withoutGroup: MemberWithoutGroup,
  ) {
    const { res } = tables;
    this.members = new Array(res.members.length);
    this.tags = new Array(res.dataset.tags.length);
    this.timestamps = new Array(res.dataset.tags.length);
    this.entryIds = new Array(res.recipPos.length);
  }

  /** Member `m` as a {@link TeamMember} (group fields per the `memberWithoutGroup` option). */
  member(m: number): TeamMember {
    let rec = this.members[m];
    if (!rec) {
      const { res, dataset } = this.tables;
      rec = renderMember(res.members[m]!, dataset.teams[res.memberTeam[m]!]!, this.withoutGroup);
      this.members[m] = rec;
    }
    return rec;
  }

  /** The `dateSent` of tag `t` in canonical form (kept as written when already canonical). */
  dateSent(t: number): Timestamp {
    let ts = this.timestamps[t];
    if (ts === undefined) {
      const raw = this.tables.dataset.tags[t]!.dateSent;
      ts = raw.length === 20 ? raw : formatTimestamp(this.tables.res.tagMs[t]!);
      this.timestamps[t] = ts;
    }
    return ts;
  }

  /**
   * A tag's recipients, each normalised email once with the first entry's name and email as
   * written (spec §5 Revision 2).
   */
  private recipients(t: number): Tag['recipients'] {
    const { recipStart, recipPos, recipients } = this.tables.res;
    const out: Tag['recipients'] = [];
    for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
      const pos = recipPos[k]!;
      out.push({ name: recipients.nameOf(t, pos), email: recipients.emailOf(t, pos) });
    }
    return out;
  }

  /** Tag `t` as a {@link Tag}, with the counters of the event indexes (spec §9, §10). */
  tag(t: number): Tag {
    let rec = this.tags[t];
    if (!rec) {
      const { dataset, opens, clicks } = this.tables;
      const tag = dataset.tags[t]!;
      rec = {
        tagID: tag.tagID,
        subject: tag.subject,
        dateSent: this.dateSent(t),
        recipients: this.recipients(t),
        stats: {
          totalOpens: opens.total[t]!,
          uniqueOpens: opens.unique[t]!,
          totalClicks: clicks.total[t]!,
          uniqueClicks: clicks.unique[t]!,
          desktopOpens: opens.desktop[t]!,
          mobileOpens: opens.mobile[t]!,
          desktopClicks: clicks.desktop[t]!,
          mobileClicks: clicks.mobile[t]!,
        },
      };
      this.tags[t] = rec;
    }
    return rec;
  }

  /** The contact id of recipient entry `k` (spec §9), memoised. */
  private entryId(k: number): string {
    let id = this.entryIds[k];
    if (id === undefined) {
      id = contactIdOfNormalised(this.tables.res.recipEmail[k]!);
      this.entryIds[k] = id;
    }
    return id;
  }

  /** The details of event `e` (`openDate` or `clickDate` first, then the location fields). */
  eventDetails(idx: EventIndex, e: number): Record<string, string> {
    const s = idx.cols.source.at(e)!;
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

  /** The recipient of event `e`: its entry's contact id, the entry's name, normalised email. */
  eventRecipient(idx: EventIndex, e: number): EventRecipient {
    const { res } = this.tables;
    const k = idx.cols.entry[e]!;
    const t = idx.cols.tag[e]!;
    return {
      recipientID: this.entryId(k),
      name: res.recipients.nameOf(t, res.recipPos[k]!),
      email: res.recipEmail[k]!,
    };
  }
}
