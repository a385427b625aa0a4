import {
  type ClickGroup,
  contactCountersOverTheirTags,
  normaliseEmail,
  type OpenGroup,
  plainEventsSteps,
  recipientEmails,
  TimeSlice,
} from '@tagtrack/core';
import fc from 'fast-check';
import { judgedCredentials } from '../../check/callers.ts';
import { comparable } from '../../check/compare.ts';
import { unlessTooLong } from '../../check/context/caller-lists.ts';
import type { CheckContext, SampledList } from '../../check/context.ts';
import { type Check, defineCheck, lawCheck } from '../../check/define.ts';
import { describe, ensure, listDifferenceKind, Violation } from '../../check/failure.ts';
import {
  type ContactRecord,
  firstDifference,
  flattenEventsInSlices,
  type TagRecord,
} from '../../check/sample.ts';
import { applyLaw, collect, sliced } from '../../check/slices.ts';
import type { Exchange } from '../../http/client.ts';

/** Lists at most this many id inconsistencies (one is enough to fail; more is noise). */
const MAX_LISTED = 5;

/**
 * One credential's view of contact ids: its /contacts list by normalised email, checked for
 * duplicates (one id per email, one email per id). Fails into `ctx` and returns the map.
 */
async function listedIds(
  ctx: CheckContext,
  credential: (typeof ctx.credentials)[number],
): Promise<{ ids: Map<string, string>; exchange: Exchange | undefined; records: ContactRecord[] }> {
  const w = await ctx.walk('contacts.list', { credential });
  const ids = new Map<string, string>();
  const emailOfId = new Map<string, string>();
  for (const c of w.records) {
    const email = normaliseEmail(c.email);
    const known = ids.get(email);
    if (known !== undefined && known !== c.contactID)
      ctx.fail(
        `${describe(w.pages[0]!)}: contact ${email} is listed twice, with ids ${known} and ${c.contactID}`,
        { kind: 'extra', exchange: w.pages[0] },
      );
    const other = emailOfId.get(c.contactID);
    if (other !== undefined && other !== email)
      ctx.fail(
        `${describe(w.pages[0]!)}: contact id ${c.contactID} is given to two emails, ${other} and ${email}`,
        { kind: 'value', exchange: w.pages[0] },
      );
    ids.set(email, c.contactID);
    emailOfId.set(c.contactID, email);
  }
  return { ids, exchange: w.pages[0], records: w.records };
}

/**
 * REL-CONTACTS-TAGS on a seeded sample of the contacts (a /contacts list longer than the
 * run's `--sample-above`; coverage.ts): the list's `paging.cursors.total` is the number of
 * recipients of the visible tags, every sampled contact is one of them, and each sampled
 * contact's counters and dateLastSent are core's law over its visible tags and their events
 * (the law run on the tags' recipients and the events restricted to the sampled emails: the
 * contact record of an email depends only on the tags sent to it and its own events).
 * Throws a {@link Violation} (the credential's failure in the check's loop).
 */
async function sampledContactsLaw(
  label: string,
  list: SampledList<ContactRecord>,
  read: {
    readonly tags: readonly TagRecord[];
    readonly openGroups: readonly (OpenGroup | ClickGroup)[];
    readonly clickGroups: readonly (OpenGroup | ClickGroup)[];
  },
): Promise<void> {
  const exchange = list.pages[0];
  const recipients = recipientEmails(read.tags);
  ensure(
    list.total === recipients.length,
    () =>
      `${describe(exchange!)}: paging.cursors.total says ${list.total} contacts, expected the ${recipients.length} recipients of the visible tags`,
    { kind: list.total < recipients.length ? 'missing' : 'extra', exchange },
  );
  const sampled = new Set(list.records.map((c) => normaliseEmail(c.email)));
  const only = (e: { readonly email: string }) => sampled.has(normaliseEmail(e.email));
  const problem = await applyLaw(contactCountersOverTheirTags, {
    contacts: list.records,
    // the whole lists narrowed to the sample in time slices (a step per tag, per event)
    tags: await collect(read.tags, (t) => ({ ...t, recipients: t.recipients.filter(only) })),
    opens: await collect(await sliced(plainEventsSteps(read.openGroups)), (e) =>
      only(e) ? e : undefined,
    ),
    clicks: await collect(await sliced(plainEventsSteps(read.clickGroups)), (e) =>
      only(e) ? e : undefined,
    ),
  });
  ensure(problem === undefined, () => `${problem} as ${label}`, {
    kind: problem?.includes('dateLastSent')
      ? 'value'
      : problem?.includes('not a recipient')
        ? 'extra'
        : 'counter',
    exchange,
  });
}

/**
 * Contacts across endpoints (spec §10: a contact is a normalised email; §8 Revision 2:
 * its id is implementation-defined but stable, unique per normalised email and the same in
 * every endpoint; §2: contacts and counters over the caller's visible tags).
 */
export const checks: readonly Check[] = [
  lawCheck(contactCountersOverTheirTags, {
    wholeLists: true,
    also: 'for every credential',
    perCaller: false, // asks as every credential itself
    async run(ctx) {
      await ctx.each(
        await judgedCredentials(ctx),
        async (credential) => {
          const tags = (await ctx.walk('teams.tags', { credential })).records;
          const openGroups = (await ctx.walk('opens.list', { credential })).records;
          const clickGroups = (await ctx.walk('clicks.list', { credential })).records;
          const w = await ctx.sampledList('contacts.list', { credential }, 'contacts');
          if (w.sampled) {
            await sampledContactsLaw(credential.label, w, { tags, openGroups, clickGroups });
            return;
          }
          const contacts = w.records;
          // every list indexed once (sets): the check is linear in tags, events and contacts
          const expectedEmails = recipientEmails(tags);
          const expectedSet = new Set(expectedEmails);
          const emails = contacts.map((c) => normaliseEmail(c.email));
          const emailSet = new Set(emails);
          const extra = emails.find((e) => !expectedSet.has(e));
          const missing = expectedEmails.find((e) => !emailSet.has(e));
          ensure(
            extra === undefined && missing === undefined && emails.length === expectedEmails.length,
            () =>
              `${describe(w.pages[0]!)}: ${emails.length} contacts, expected the ${expectedEmails.length} recipients of the visible tags` +
              (extra ? `; ${extra} is not a recipient of a visible tag` : '') +
              (missing ? `; recipient ${missing} is missing` : ''),
            { kind: listDifferenceKind(expectedEmails, emails), exchange: w.pages[0] },
          );
          // the counters and dateLastSent of every contact over its visible tags (core's law,
          // in time slices)
          const problem = await applyLaw(contactCountersOverTheirTags, {
            contacts,
            tags,
            opens: await sliced(plainEventsSteps(openGroups)),
            clicks: await sliced(plainEventsSteps(clickGroups)),
          });
          ensure(problem === undefined, () => `${problem} as ${credential.label}`, {
            kind: problem?.includes('dateLastSent') ? 'value' : 'counter',
            exchange: w.pages[0],
          });
        },
        // each credential's verdict rests on its own four walks: confirmed on still data
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'REL-CONTACTS-OF-TAG',
    title: '/contacts/tag/{tagID} lists exactly the tag’s recipients, as /contacts has them',
    clause: 'spec §2 endpoint 17; spec §10 (contact = normalised email), §5 (contacts by email)',
    endpoints: ['contacts.tag', 'contacts.list', 'teams.tags'],
    async run(ctx) {
      const tags = (await ctx.walk('teams.tags')).records;
      if (tags.length === 0) ctx.skip('no tag is visible to the credential');
      // each contact by normalised email, the first listed (one lookup per contact of a tag)
      const contacts = new Map<string, ContactRecord>();
      for (const c of (await ctx.walk('contacts.list')).records) {
        const email = normaliseEmail(c.email);
        if (!contacts.has(email)) contacts.set(email, c);
      }
      await ctx.property(fc.constantFrom(...tags), async (tag) => {
        const w = await ctx.walk('contacts.tag', { pathParams: { tagID: tag.tagID } });
        const got = w.records.map((c) => normaliseEmail(c.email));
        const expected = recipientEmails([tag]);
        ensure(
          got.join() === expected.join(),
          () =>
            `${describe(w.pages[0]!)}: contacts [${got.join(', ')}], expected the tag's recipients by email [${expected.join(', ')}]`,
          { kind: listDifferenceKind(expected, got), exchange: w.pages[0] },
        );
        for (const c of w.records) {
          // the same contact is the same normalised email (spec §10)
          const email = normaliseEmail(c.email);
          const listed = contacts.get(email);
          const diff = firstDifference(
            comparable('contacts.list', [listed])[0],
            comparable('contacts.tag', [c])[0],
          );
          ensure(
            diff === undefined,
            () => `contact ${email} of tag ${tag.tagID} differs from its /contacts record: ${diff}`,
            { kind: 'value', exchange: w.pages[0] },
          );
        }
      });
    },
  }),
  defineCheck({
    id: 'REL-CONTACT-IDS-CONSISTENT',
    title:
      'a contact has one id, unique to its normalised email: the same in /contacts, /contacts/{id}, /contacts/tag/{id} and as recipientID in /opens and /clicks',
    clause:
      'spec §9 Revision 2 (contact ids: stable, unique per normalised email, the same in every endpoint)',
    endpoints: ['contacts.list', 'contacts.get', 'contacts.tag', 'opens.list', 'clicks.list'],
    perCaller: false, // asks as every credential itself
    async run(ctx) {
      let compared = 0;
      const teamIds = new Map<string, Map<string, { id: string; label: string }>>();
      for (const credential of await judgedCredentials(ctx)) {
        // a credential whose list is too long to read whole is left out (caller-lists.ts)
        const listed = await unlessTooLong(ctx, () => listedIds(ctx, credential));
        if (listed === undefined) continue;
        const { ids, exchange, records } = listed;
        // one team, one id per email, whoever asks (ids of different teams are not compared)
        if (credential.teamID !== undefined) {
          const team = teamIds.get(credential.teamID) ?? new Map();
          teamIds.set(credential.teamID, team);
          await ctx.each(
            ids,
            ([email, id]) => {
              const seen = team.get(email);
              if (seen === undefined) team.set(email, { id, label: credential.label });
              compared++;
              if (seen !== undefined && seen.id !== id)
                throw new Violation(
                  `contact ${email} has id ${seen.id} in /contacts as ${seen.label} but ${id} as ${credential.label} of the same team`,
                  { kind: 'value', exchange },
                );
            },
            { list: MAX_LISTED },
          );
        }
        // every event's recipient carries the contact's id
        for (const kind of ['opens', 'clicks'] as const) {
          // event by event: a long list is verified on a seeded sample of its pages
          const w = await ctx.sampledList(
            kind === 'opens' ? 'opens.list' : 'clicks.list',
            { credential },
            kind === 'opens' ? 'open groups' : 'click groups',
          );
          const slice = new TimeSlice();
          for (const e of await flattenEventsInSlices(w.records, slice)) {
            if (slice.step()) await slice.pause();
            const email = normaliseEmail(e.recipient.email);
            const id = ids.get(email);
            if (id === undefined) continue; // a missing contact is REL-CONTACTS-TAGS's to report
            compared++;
            if (e.recipient.recipientID !== id) {
              ctx.fail(
                `${describe(w.pages[0]!)}: recipientID ${e.recipient.recipientID} of ${email} (tag ${e.tagID}) is not its contact id ${id} in /contacts`,
                {
                  kind: 'value',
                  exchange: w.pages[0],
                  expected: id,
                  actual: e.recipient.recipientID,
                },
              );
              break; // one per list is enough
            }
          }
        }
        ctx.stopAt(MAX_LISTED);
        // the single contact and the contacts of a tag, sampled
        const tags = (await ctx.walk('teams.tags', { credential })).records;
        const targets = [
          ...(records.length > 0
            ? [fc.constantFrom(...records).map((c) => ({ contact: c, tagID: undefined }))]
            : []),
          ...(tags.length > 0
            ? [fc.constantFrom(...tags).map((t) => ({ contact: undefined, tagID: t.tagID }))]
            : []),
        ];
        if (targets.length === 0) continue;
        await ctx.property(fc.oneof(...targets), async ({ contact, tagID }) => {
          if (contact !== undefined) {
            const ex = await ctx.call('contacts.get', {
              pathParams: { contactID: contact.contactID },
              credential,
            });
            const data = ctx.single('contacts.get', ex);
            compared++;
            ensure(
              data.contactID === contact.contactID &&
                normaliseEmail(data.email) === normaliseEmail(contact.email),
              () =>
                `${describe(ex)} answered contact ${normaliseEmail(data.email)} with id ${data.contactID}, expected ${normaliseEmail(contact.email)} with the id /contacts lists`,
              { kind: 'value', exchange: ex },
            );
            return;
          }
          const w = await ctx.walk('contacts.tag', { pathParams: { tagID: tagID! }, credential });
          for (const c of w.records) {
            const email = normaliseEmail(c.email);
            const id = ids.get(email);
            if (id === undefined) continue;
            compared++;
            ensure(
              c.contactID === id,
              () =>
                `${describe(w.pages[0]!)}: contact ${email} has id ${c.contactID}, but ${id} in /contacts`,
              { kind: 'value', exchange: w.pages[0], expected: id, actual: c.contactID },
            );
          }
        });
      }
      if (compared === 0) ctx.skip('no contact is visible to any credential: no id to compare');
    },
  }),
];
