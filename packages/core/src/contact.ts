import * as z from 'zod';
import { TagCounters } from './tag.ts';
import { Counter, Id, Timestamp } from './values.ts';

/** The `stats` of a contact: the tag counters plus `totalSent` (source: "Contact"; spec §10). */
export const ContactStats = TagCounters.extend({
  uniqueOpens: Counter.describe(
    'How many of the tags sent to the contact it opened at least once (spec §10 contact counters; laws REL-CONTACTS-TAGS, AGG-CONTACTS-SUM-TAGS)',
  ),
  uniqueClicks: Counter.describe(
    'How many of the tags sent to the contact it clicked at least once (spec §10 contact counters; laws REL-CONTACTS-TAGS, AGG-CONTACTS-SUM-TAGS)',
  ),
  totalSent: Counter.describe(
    'Number of tags sent to the contact (spec §10 contact counters; law REL-CONTACTS-TAGS)',
  ),
}).meta({ id: 'ContactStats' });
export type ContactStats = z.infer<typeof ContactStats>;

/** A contact (recipient) with its statistics (source: "Contact"; endpoints 15–17). */
export const Contact = z
  .object({
    contactID: Id.describe(
      'The contact: implementation-defined, stable and unique per normalised email, the same id as recipient.recipientID of endpoints 9 and 11 (spec §9)',
    ),
    name: z.string().describe('Recipient name'),
    email: z.string().describe('Email address (the contact is its trimmed, lowercased form)'),
    dateLastSent: Timestamp.describe(
      'Latest dateSent of the tags sent to the contact (spec §10 contact counters)',
    ),
    stats: ContactStats.describe(
      'The eight tag counters plus totalSent, over the tags sent to the contact and the contact’s events on them (spec §10)',
    ),
  })
  .meta({ id: 'Contact' });
export type Contact = z.infer<typeof Contact>;
