import * as z from 'zod';
import { TagCounters } from './tag.ts';
import { Counter, Id, Timestamp } from './values.ts';

/** The `stats` of a contact: the tag counters plus `totalSent` (source: "Contact"; decisions §9). */
export const ContactStats = TagCounters.extend({ totalSent: Counter }).meta({ id: 'ContactStats' });
export type ContactStats = z.infer<typeof ContactStats>;

/** A contact (recipient) with its statistics (source: "Contact"; endpoints 15–17). */
export const Contact = z
  .object({
    contactID: Id,
    name: z.string(),
    email: z.string(),
    dateLastSent: Timestamp,
    stats: ContactStats,
  })
  .meta({ id: 'Contact' });
export type Contact = z.infer<typeof Contact>;
