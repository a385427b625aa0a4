import { contactOf, recipientEmails } from '../aggregate/rules.ts';
import { parseTimestampMs } from '../aggregate/time.ts';
import type { Contact } from '../contact.ts';
import { normaliseEmail } from '../dataset/schema.ts';
import type { TeamMember } from '../member.ts';
import type { StatsSummary } from '../stats.ts';
import { TAG_COUNTER_FIELDS, type Tag } from '../tag.ts';
import { firstOf, sameInstant, statsDifference, steppedLaw } from './helpers.ts';
import type { Law, LawEvent } from './types.ts';

/*
 * Laws between the answers of two callers (docs/spec.md §4, cited spec §4): what a
 * caller sees of its team is the team's admin's view cut down to the caller's scope, and
 * every answer is computed within the caller's own scope and team.
 */

/** What one caller lists: its members (1), tags (2) and contacts (15). */
export interface CallerLists {
  readonly members: readonly TeamMember[];
  readonly tags: readonly Tag[];
  readonly contacts: readonly Contact[];
}

/** A manager's or user's lists (`view`, of caller `caller`) and its team admin's (`admin`). */
export interface CallersView {
  readonly caller: string;
  readonly view: CallerLists;
  readonly admin: CallerLists;
}

/** One stats request's aggregated record as a caller and as its team's admin; `subject` names it. */
export interface StatsAsTwoCallers {
  readonly subject: string;
  readonly caller: string;
  readonly asCaller: StatsSummary;
  readonly asAdmin: StatsSummary;
}

/** A contact's record as `caller` (16), and that caller's tags (2) and their events (9, 11). */
export interface CallerContact {
  readonly caller: string;
  readonly contact: Contact;
  readonly tags: readonly Tag[];
  readonly opens: readonly LawEvent[];
  readonly clicks: readonly LawEvent[];
}

/**
 * The members `/teams/group/{segment}` answered `caller` (none for a 404) and the memberIDs
 * the caller sees (its `/teams`).
 */
export interface GroupNameAnswer {
  readonly caller: string;
  readonly segment: string;
  readonly visible: readonly string[];
  readonly answered: readonly TeamMember[];
}

/** The contact counters a law compares (every counter of a contact's `stats`). */
const CONTACT_COUNTERS = ['totalSent', ...TAG_COUNTER_FIELDS] as const;

/** A member's fields by meaning: a group omitted or sent empty is no group (spec §9). */
function memberDifference(admin: TeamMember, caller: TeamMember): string | undefined {
  const group = (m: TeamMember) => (m.groupID === undefined || m.groupID === '' ? '' : m.groupID);
  const name = (m: TeamMember) => (group(m) === '' ? '' : (m.groupName ?? ''));
  for (const [field, a, b] of [
    ['firstname', admin.firstname, caller.firstname],
    ['lastname', admin.lastname, caller.lastname],
    ['email', normaliseEmail(admin.email), normaliseEmail(caller.email)],
    ['accountType', admin.accountType, caller.accountType],
    ['groupID', group(admin), group(caller)],
    ['groupName', name(admin), name(caller)],
  ] as const)
    if (a !== b) return `${field} ${JSON.stringify(b)}, the admin sees ${JSON.stringify(a)}`;
  return undefined;
}

/** A tag's fields by meaning: recipients as a set of normalised emails, dateSent an instant. */
function tagDifference(admin: Tag, caller: Tag): string | undefined {
  if (admin.subject !== caller.subject)
    return `subject ${JSON.stringify(caller.subject)}, the admin sees ${JSON.stringify(admin.subject)}`;
  if (!sameInstant(admin.dateSent, caller.dateSent))
    return `dateSent ${caller.dateSent}, the admin sees ${admin.dateSent}`;
  const a = recipientEmails([admin]).join(', ');
  const b = recipientEmails([caller]).join(', ');
  if (a !== b) return `recipients [${b}], the admin sees [${a}]`;
  return firstOf(TAG_COUNTER_FIELDS, (k) =>
    admin.stats[k] === caller.stats[k]
      ? undefined
      : `stats.${k} ${caller.stats[k]}, the admin sees ${admin.stats[k]}`,
  );
}

/** Whether timestamp `a` is at or before `b`. */
function notAfter(a: string, b: string): boolean {
  return parseTimestampMs(a) <= parseTimestampMs(b);
}

export const callerWithinAdmin: Law<CallersView> = {
  id: 'REL-CALLER-WITHIN-ADMIN',
  title:
    'what a manager or user sees is within what the team’s admin sees: each member and tag it lists the admin lists with the same fields and counters; each contact it lists the admin lists, with counters and dateLastSent no greater (over fewer tags)',
  clause:
    'spec §4 (admin: the whole team; manager, user: part of it; contacts and counters over visible tags)',
  endpoints: ['teams.list', 'teams.tags', 'contacts.list'],
  check: ({ caller, view, admin }) => {
    const members = new Map(admin.members.map((m) => [m.memberID, m]));
    const tags = new Map(admin.tags.map((t) => [t.tagID, t]));
    const contacts = new Map(admin.contacts.map((c) => [normaliseEmail(c.email), c]));
    return (
      firstOf(view.members, (m) => {
        const a = members.get(m.memberID);
        if (a === undefined) return `${caller} sees member ${m.memberID}, whom the admin does not`;
        const d = memberDifference(a, m);
        return d && `member ${m.memberID} as ${caller}: ${d}`;
      }) ??
      firstOf(view.tags, (t) => {
        const a = tags.get(t.tagID);
        if (a === undefined) return `${caller} sees tag ${t.tagID}, which the admin does not`;
        const d = tagDifference(a, t);
        return d && `tag ${t.tagID} as ${caller}: ${d}`;
      }) ??
      firstOf(view.contacts, (c) => {
        const email = normaliseEmail(c.email);
        const a = contacts.get(email);
        if (a === undefined) return `${caller} sees contact ${email}, whom the admin does not`;
        const k = CONTACT_COUNTERS.find((f) => c.stats[f] > a.stats[f]);
        if (k !== undefined)
          return `contact ${email} as ${caller}: stats.${k} ${c.stats[k]} > ${a.stats[k]} as the admin, who sees every tag sent to it`;
        return notAfter(c.dateLastSent, a.dateLastSent)
          ? undefined
          : `contact ${email} as ${caller}: dateLastSent ${c.dateLastSent} is after ${a.dateLastSent} as the admin`;
      })
    );
  },
};

export const managerGroupStatsAsAdmin: Law<StatsAsTwoCallers> = {
  id: 'REL-MANAGER-GROUP-STATS',
  title:
    'a manager’s stats of its own group (/stats/group/{groupID}, and its team stats /stats: its group and self) equal the team admin’s stats of that group, for the same window and type',
  clause:
    'spec §4 (manager: the own group and self), §10 (group stats = merge of its members’ stats), §6 (type)',
  endpoints: ['stats.group', 'stats.team'],
  check: ({ subject, caller, asCaller, asAdmin }) => {
    const d = statsDifference(asAdmin, asCaller);
    return d && `${subject} as ${caller}: ${d} as the admin`;
  },
};

export const contactCountsCallerTags: Law<CallerContact> = steppedLaw({
  id: 'REL-CONTACT-CALLER-TAGS',
  title:
    'a contact’s record (/contacts/{contactID}) for each caller counts only the tags that caller sees: totalSent, events and unique counters over them, dateLastSent the latest of them',
  clause:
    'spec §4 Revision 2 (contacts of a manager or user carry counters over that caller’s visible tags only), §10 (contact counters)',
  endpoints: ['contacts.get', 'teams.tags', 'opens.list', 'clicks.list'],
  *steps({ caller, contact, tags, opens, clicks }) {
    const email = normaliseEmail(contact.email);
    // the plain rule on the tags sent to the contact and its own events: the same record as
    // on every tag and event (the others count for nothing), one pass over each list
    const sentTo: (typeof tags)[number][] = [];
    for (const t of tags) {
      if (t.recipients.some((r) => normaliseEmail(r.email) === email)) sentTo.push(t);
      yield;
    }
    const own = function* (events: readonly LawEvent[]) {
      const out: LawEvent[] = [];
      for (const e of events) {
        if (normaliseEmail(e.email) === email) out.push(e);
        yield;
      }
      return out;
    };
    const expected = contactOf(email, sentTo, yield* own(opens), yield* own(clicks));
    if (expected === undefined)
      return `contact ${contact.contactID} (${email}) answers ${caller} though no tag it sees was sent to it`;
    const k = CONTACT_COUNTERS.find((f) => contact.stats[f] !== expected.stats[f]);
    if (k !== undefined)
      return `contact ${contact.contactID} (${email}) as ${caller}: stats.${k} ${contact.stats[k]}, expected ${expected.stats[k]} over the ${expected.stats.totalSent} tags ${caller} sees sent to it`;
    return sameInstant(contact.dateLastSent, expected.dateLastSent)
      ? undefined
      : `contact ${contact.contactID} (${email}) as ${caller}: dateLastSent ${contact.dateLastSent}, expected ${expected.dateLastSent} over the tags ${caller} sees`;
  },
});

export const groupNameInCallerTeam: Law<GroupNameAnswer> = {
  id: 'REL-GROUP-NAME-OWN-TEAM',
  title:
    'a group name resolves among the caller’s visible groups of its own team: /teams/group/{name} lists only members the caller sees, never another team’s group',
  clause:
    'spec §4 Revision 2 (group segment: resolution among the groups of the caller’s team the caller may see), §4 (a caller never sees anything of another team)',
  endpoints: ['teams.group', 'teams.list'],
  check: ({ caller, segment, visible, answered }) => {
    const seen = new Set(visible);
    const other = answered.find((m) => !seen.has(m.memberID));
    return other === undefined
      ? undefined
      : `group name ${JSON.stringify(segment)} asked by ${caller} resolved to group ${other.groupID ?? '(none)'} of member ${other.memberID}, whom ${caller} does not see (another team's group, or one outside its scope)`;
  },
};
