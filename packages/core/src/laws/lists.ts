import { contactsOfSteps } from '../aggregate/contacts.ts';
import {
  compareMembers,
  compareStrings,
  compareTags,
  recipientEmails,
} from '../aggregate/rules.ts';
import { parseTimestampMs } from '../aggregate/time.ts';
import type { Contact } from '../contact.ts';
import { normaliseEmail } from '../dataset/schema.ts';
import type { TeamMember } from '../member.ts';
import type { Steps } from '../slices.ts';
import { TAG_COUNTER_FIELDS, type Tag } from '../tag.ts';
import {
  firstOfSteps,
  outOfOrderSteps,
  sameInstant,
  steppedLaw,
  TAG_ENDPOINTS,
} from './helpers.ts';
import type { ContactView, EventGroupsView, EventList, Law } from './types.ts';

/*
 * Laws of a caller's contacts against its tags and events (docs/spec.md §10, cited
 * spec §10) and of the order of every list (§5, cited spec §5).
 */

// ---- contacts (spec §10 contact counters, §2 visible tags, §3 order) --------------------

export const contactCountersOverTheirTags: Law<ContactView> = steppedLaw({
  id: 'REL-CONTACTS-TAGS',
  title:
    'contacts are exactly the visible tags’ recipients, with counters over the visible tags sent to each: totalSent those tags, totals its events on them, unique counters the tags it opened (clicked), dateLastSent the latest',
  clause: 'spec §10 (contact counters), §4 (contacts of visible tags, counters over visible tags)',
  endpoints: ['contacts.list', 'teams.tags', 'opens.list', 'clicks.list'],
  // linear: the expected contacts are computed once (contactsOf), then each contact is one
  // lookup; contactOf, the plain rule, would rescan every tag and event per contact
  *steps({ contacts, tags, opens, clicks }) {
    const want = yield* contactsOfSteps(tags, opens, clicks);
    const got = new Set<string>();
    for (const c of contacts) {
      got.add(normaliseEmail(c.email));
      yield;
    }
    let missing: string | undefined;
    for (const e of want.keys()) {
      if (!got.has(e) && (missing === undefined || compareStrings(e, missing) < 0)) missing = e;
      yield;
    }
    if (missing !== undefined) return `recipient ${missing} of a visible tag is not a contact`;
    const extra = yield* firstOfSteps(got, (e) => (want.has(e) ? undefined : e));
    if (extra !== undefined) return `contact ${extra} is not a recipient of a visible tag`;
    return yield* firstOfSteps(contacts, (c) => {
      const email = normaliseEmail(c.email);
      const expected = want.get(email)!;
      const field = (Object.keys(expected.stats) as (keyof Contact['stats'])[]).find(
        (k) => c.stats[k] !== expected.stats[k],
      );
      if (field !== undefined)
        return `contact ${c.contactID} (${email}): stats.${field} ${c.stats[field]}, expected ${expected.stats[field]} over the ${expected.stats.totalSent} visible tags sent to it`;
      return sameInstant(c.dateLastSent, expected.dateLastSent)
        ? undefined
        : `contact ${c.contactID} (${email}): dateLastSent ${c.dateLastSent}, expected ${expected.dateLastSent}`;
    });
  },
});

export const contactSumsEqualTagSums: Law<Pick<ContactView, 'contacts' | 'tags'>> = steppedLaw({
  id: 'AGG-CONTACTS-SUM-TAGS',
  title:
    'contact counters summed over all contacts equal the tag counters summed over the visible tags (totalSent: their recipients)',
  clause: 'spec §10 (contact counters, per tag)',
  endpoints: ['contacts.list', 'teams.tags'],
  *steps({ contacts, tags }) {
    function* sum<T>(xs: readonly T[], f: (x: T) => number): Steps<number> {
      let s = 0;
      for (const x of xs) {
        s += f(x);
        yield;
      }
      return s;
    }
    const sent = yield* sum(tags, (t) => recipientEmails([t]).length);
    const gotSent = yield* sum(contacts, (c) => c.stats.totalSent);
    if (gotSent !== sent)
      return `contacts' totalSent sums to ${gotSent}, but the visible tags have ${sent} recipients`;
    for (const k of TAG_COUNTER_FIELDS) {
      const a = yield* sum(contacts, (c) => c.stats[k]);
      const b = yield* sum(tags, (t) => t.stats[k]);
      if (a !== b) return `contacts' ${k} sums to ${a}, the visible tags' to ${b}`;
    }
    return undefined;
  },
});

export const contactsByEmail: Law<Pick<ContactView, 'contacts'>> = steppedLaw({
  id: 'PAGE-ORDER-CONTACTS',
  title: 'contacts come by normalised email, each once (code-unit order)',
  clause: 'spec §5 (order)',
  endpoints: ['contacts.list', 'contacts.tag'],
  steps: ({ contacts }) =>
    outOfOrderSteps(
      contacts,
      (a, b) => compareStrings(normaliseEmail(a.email), normaliseEmail(b.email)) < 0,
      (a, b, i) => `contact ${i} (${b.email}) comes after ${a.email}`,
    ),
});

// ---- ordered lists (spec §5, order) ----------------------------------------------------

export const tagsNewestFirst: Law<readonly Pick<Tag, 'tagID' | 'dateSent'>[]> = steppedLaw({
  id: 'PAGE-ORDER-TAGS',
  title: 'tags come newest dateSent first, then by tagID (code-unit order)',
  clause: 'spec §5 (order)',
  endpoints: TAG_ENDPOINTS,
  steps: (tags) =>
    outOfOrderSteps(
      tags,
      (a, b) => compareTags(a, b) < 0,
      (a, b) => `tag ${b.tagID} (sent ${b.dateSent}) comes after tag ${a.tagID} (${a.dateSent})`,
    ),
});

export const membersByName: Law<
  readonly Pick<TeamMember, 'memberID' | 'lastname' | 'firstname'>[]
> = steppedLaw({
  id: 'PAGE-ORDER-MEMBERS',
  title: 'members come by lastname, then firstname, then memberID (code-unit order)',
  clause: 'spec §5 (order)',
  endpoints: ['teams.list', 'teams.group'],
  steps: (members) =>
    outOfOrderSteps(
      members,
      (a, b) => compareMembers(a, b) < 0,
      (a, b) =>
        `member ${b.memberID} (${b.lastname}, ${b.firstname}) comes after ${a.memberID} (${a.lastname}, ${a.firstname})`,
    ),
});

export const eventsOldestFirst: Law<EventList> = steppedLaw({
  id: 'PAGE-ORDER-EVENTS',
  title: 'events come oldest first (events of the same instant in any order)',
  clause: 'spec §5 (order) and its Revision 2 (ties among events free)',
  endpoints: ['opens.tag', 'clicks.tag', 'opens.list', 'clicks.list'],
  steps: (events) => {
    const date = (e: EventList[number]) => ('openDate' in e ? e.openDate : e.clickDate);
    return outOfOrderSteps(
      events,
      (a, b) => parseTimestampMs(date(a)) <= parseTimestampMs(date(b)),
      (a, b, i) => `event ${i} (${date(b)}) comes after an event of ${date(a)}`,
    );
  },
});

export const eventGroupsInTagOrder: Law<EventGroupsView> = steppedLaw({
  id: 'PAGE-ORDER-EVENT-GROUPS',
  title: 'event groups come in the tag order, one group per tag',
  clause: 'spec §5 (order)',
  endpoints: ['opens.list', 'clicks.list', 'teams.tags'],
  *steps({ tags, groups }) {
    const rank = new Map<string, number>();
    for (const [i, t] of tags.entries()) {
      rank.set(t.tagID, i);
      yield;
    }
    const unknown = yield* firstOfSteps(groups, (g) => (rank.has(g.tagID) ? undefined : g.tagID));
    if (unknown !== undefined) return `event group of tag ${unknown}, which is not among the tags`;
    return yield* outOfOrderSteps(
      groups,
      (a, b) => rank.get(a.tagID)! < rank.get(b.tagID)!,
      (a, b) => `event group of tag ${b.tagID} comes after the group of tag ${a.tagID}`,
    );
  },
});
