import * as z from 'zod';
import { Counter, Id, Timestamp } from './values.ts';

/** A recipient of a tag: `{ name, email }` (source: "Tag", `recipients[]`). */
export const Recipient = z
  .object({ name: z.string(), email: z.string() })
  .meta({ id: 'Recipient' });
export type Recipient = z.infer<typeof Recipient>;

/**
 * The counter object named `stats` inside a tag (source: "Counter object named stats").
 * All counters are non-negative integers; laws between them are in decisions §9.
 */
export const TagCounters = z
  .object({
    totalOpens: Counter,
    uniqueOpens: Counter,
    totalClicks: Counter,
    uniqueClicks: Counter,
    desktopOpens: Counter,
    mobileOpens: Counter,
    desktopClicks: Counter,
    mobileClicks: Counter,
  })
  .meta({ id: 'TagCounters' });
export type TagCounters = z.infer<typeof TagCounters>;

/** The eight counter field names of {@link TagCounters}, in the source's order. */
export const TAG_COUNTER_FIELDS = [
  'totalOpens',
  'uniqueOpens',
  'totalClicks',
  'uniqueClicks',
  'desktopOpens',
  'mobileOpens',
  'desktopClicks',
  'mobileClicks',
] as const satisfies readonly (keyof TagCounters)[];

/** A tag (tracked sent message) as the team tag endpoints 2 and 4 return it (source: "Tag"). */
export const Tag = z
  .object({
    tagID: Id,
    subject: z.string(),
    dateSent: Timestamp,
    recipients: z.array(Recipient),
    stats: TagCounters,
  })
  .meta({ id: 'Tag' });
export type Tag = z.infer<typeof Tag>;
