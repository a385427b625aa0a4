import * as z from 'zod';
import { Counter, Id, Timestamp } from './values.ts';

/** A recipient of a tag: `{ name, email }` (source: "Tag", `recipients[]`). */
export const Recipient = z
  .object({
    name: z.string().describe('Recipient name as the tag was sent'),
    email: z.string().describe('Recipient email address as the tag was sent (user content)'),
  })
  .meta({ id: 'Recipient' });
export type Recipient = z.infer<typeof Recipient>;

/**
 * The counter object named `stats` inside a tag (source: "Counter object named stats").
 * All counters are non-negative integers; laws between them are in spec §10.
 */
export const TagCounters = z
  .object({
    totalOpens: Counter.describe(
      'Open events of the tag (spec §10 per tag; law REL-TAG-COUNTERS-EVENTS)',
    ),
    uniqueOpens: Counter.describe(
      'Distinct recipients with at least one open of the tag; at most totalOpens and the number of recipients, 0 exactly when totalOpens is 0 (spec §10; laws REL-TAG-COUNTERS-EVENTS, AGG-UNIQUE-LE-TOTAL, AGG-UNIQUE-LE-RECIPIENTS, AGG-UNIQUE-ZERO-IFF-TOTAL-ZERO)',
    ),
    totalClicks: Counter.describe(
      'Click events of the tag; clicks may exist without opens (spec §10 per tag; law REL-TAG-COUNTERS-EVENTS)',
    ),
    uniqueClicks: Counter.describe(
      'Distinct recipients with at least one click of the tag; at most totalClicks and the number of recipients, 0 exactly when totalClicks is 0 (spec §10; laws REL-TAG-COUNTERS-EVENTS, AGG-UNIQUE-LE-TOTAL, AGG-UNIQUE-LE-RECIPIENTS, AGG-UNIQUE-ZERO-IFF-TOTAL-ZERO)',
    ),
    desktopOpens: Counter.describe(
      'Open events from device desktop (spec §9 device classes; laws REL-TAG-COUNTERS-EVENTS, AGG-DEVICE-LE-TOTAL)',
    ),
    mobileOpens: Counter.describe(
      'Open events from device mobile or tablet; desktopOpens + mobileOpens is at most totalOpens (spec §9; laws REL-TAG-COUNTERS-EVENTS, AGG-DEVICE-LE-TOTAL)',
    ),
    desktopClicks: Counter.describe(
      'Click events from device desktop (spec §9 device classes; laws REL-TAG-COUNTERS-EVENTS, AGG-DEVICE-LE-TOTAL)',
    ),
    mobileClicks: Counter.describe(
      'Click events from device mobile or tablet; desktopClicks + mobileClicks is at most totalClicks (spec §9; laws REL-TAG-COUNTERS-EVENTS, AGG-DEVICE-LE-TOTAL)',
    ),
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
    tagID: Id.describe('The tag'),
    subject: z.string().describe('Subject line of the sent message (user content)'),
    dateSent: Timestamp.describe('When the message was sent'),
    recipients: z.array(Recipient).describe('The recipients the message was sent to'),
    stats: TagCounters.describe("The tag's open and click counters (spec §10 per tag)"),
  })
  .meta({ id: 'Tag' });
export type Tag = z.infer<typeof Tag>;
