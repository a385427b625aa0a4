import * as z from 'zod';
import { Counter, Id, Latitude, Longitude, Timestamp } from './values.ts';

/** Device classes of the reference profile (spec §9). */
export const Device = z.enum(['desktop', 'mobile', 'tablet', 'unknown']).meta({ id: 'Device' });
export type Device = z.infer<typeof Device>;

/**
 * The detail fields shared by clicks and opens, except the event date (source: "Click
 * detail fields and open detail fields"). `counry` keeps the source's spelling.
 * `device` is a free string on the wire; the reference profile uses {@link Device}.
 */
export const EventLocation = z.object({
  counry: z.string().describe('Country of the event (the source spells the field counry)'),
  region: z.string().describe('Region of the event'),
  city: z.string().describe('City of the event'),
  latitude: Latitude,
  longitude: Longitude,
  device: z
    .string()
    .describe(
      'Device class: desktop, mobile, tablet or unknown in the reference profile; desktop counters count desktop, mobile counters count mobile and tablet (spec §9)',
    ),
  os: z.string().describe('Operating system (free string)'),
  browser: z.string().describe('Browser (free string)'),
});
export type EventLocation = z.infer<typeof EventLocation>;

/**
 * Click details: `clickDate` then the {@link EventLocation} fields (the source's field order,
 * which the text/html column order follows).
 */
export const ClickDetails = z
  .object({ clickDate: Timestamp.describe('When the click happened'), ...EventLocation.shape })
  .meta({ id: 'ClickDetails' });
export type ClickDetails = z.infer<typeof ClickDetails>;

/** Open details: `openDate` then the {@link EventLocation} fields (the source's field order). */
export const OpenDetails = z
  .object({ openDate: Timestamp.describe('When the open happened'), ...EventLocation.shape })
  .meta({ id: 'OpenDetails' });
export type OpenDetails = z.infer<typeof OpenDetails>;

/** A click as endpoint 10 returns it: the details plus `tagID`. */
export const Click = z
  .object({ tagID: Id.describe('The clicked tag'), ...ClickDetails.shape })
  .meta({ id: 'Click' });
export type Click = z.infer<typeof Click>;

/** An open as endpoint 12 returns it: the details plus `tagID`. */
export const Open = z
  .object({ tagID: Id.describe('The opened tag'), ...OpenDetails.shape })
  .meta({ id: 'Open' });
export type Open = z.infer<typeof Open>;

/** The recipient of an event in endpoints 9 and 11; `recipientID` is the contact's id. */
export const EventRecipient = z
  .object({
    recipientID: Id.describe(
      'The contact id of the recipient: the same id space as contactID of endpoints 15–17 (spec §9)',
    ),
    name: z.string().describe('Recipient name'),
    email: z.string().describe('Recipient email address'),
  })
  .meta({ id: 'EventRecipient' });
export type EventRecipient = z.infer<typeof EventRecipient>;

/** One group of endpoint 9: a tag and its clicks, each `{ recipient, details }`. */
export const ClickGroup = z
  .object({
    tagID: Id.describe('The tag'),
    clicks: z
      .array(z.object({ recipient: EventRecipient, details: ClickDetails }))
      .describe('The clicks of the tag, each with its recipient and details'),
  })
  .meta({ id: 'ClickGroup' });
export type ClickGroup = z.infer<typeof ClickGroup>;

/** One group of endpoint 11: a tag and its opens, each `{ recipient, details }`. */
export const OpenGroup = z
  .object({
    tagID: Id.describe('The tag'),
    opens: z
      .array(z.object({ recipient: EventRecipient, details: OpenDetails }))
      .describe('The opens of the tag, each with its recipient and details'),
  })
  .meta({ id: 'OpenGroup' });
export type OpenGroup = z.infer<typeof OpenGroup>;

/** Unique opens and clicks of one tag on one UTC day (endpoint 14; spec §10). */
export const DailyCounts = z
  .object({
    opens: Counter.describe(
      "Distinct recipients with an open of the tag on that UTC day; at most the tag's uniqueOpens, 0 before the send day (spec §10 daily counts; laws REL-DAILY-DISTINCT-RECIPIENTS, AGG-DAILY-LE-UNIQUE, AGG-DAILY-ZERO-BEFORE-SEND)",
    ),
    clicks: Counter.describe(
      "Distinct recipients with a click of the tag on that UTC day; at most the tag's uniqueClicks, 0 before the send day (spec §10 daily counts; laws REL-DAILY-DISTINCT-RECIPIENTS, AGG-DAILY-LE-UNIQUE, AGG-DAILY-ZERO-BEFORE-SEND)",
    ),
  })
  .meta({ id: 'DailyCounts' });
export type DailyCounts = z.infer<typeof DailyCounts>;
