import * as z from 'zod';
import { Counter, Id, Latitude, Longitude, Timestamp } from './values.ts';

/** Device classes of the reference profile (decisions §8). */
export const Device = z.enum(['desktop', 'mobile', 'tablet', 'unknown']).meta({ id: 'Device' });
export type Device = z.infer<typeof Device>;

/**
 * The detail fields shared by clicks and opens, except the event date (source: "Click
 * detail fields and open detail fields"). `counry` keeps the source's spelling.
 * `device` is a free string on the wire; the reference profile uses {@link Device}.
 */
export const EventLocation = z.object({
  counry: z.string(),
  region: z.string(),
  city: z.string(),
  latitude: Latitude,
  longitude: Longitude,
  device: z.string(),
  os: z.string(),
  browser: z.string(),
});
export type EventLocation = z.infer<typeof EventLocation>;

/**
 * Click details: `clickDate` then the {@link EventLocation} fields (the source's field order,
 * which the text/html column order follows).
 */
export const ClickDetails = z
  .object({ clickDate: Timestamp, ...EventLocation.shape })
  .meta({ id: 'ClickDetails' });
export type ClickDetails = z.infer<typeof ClickDetails>;

/** Open details: `openDate` then the {@link EventLocation} fields (the source's field order). */
export const OpenDetails = z
  .object({ openDate: Timestamp, ...EventLocation.shape })
  .meta({ id: 'OpenDetails' });
export type OpenDetails = z.infer<typeof OpenDetails>;

/** A click as endpoint 10 returns it: the details plus `tagID`. */
export const Click = z.object({ tagID: Id, ...ClickDetails.shape }).meta({ id: 'Click' });
export type Click = z.infer<typeof Click>;

/** An open as endpoint 12 returns it: the details plus `tagID`. */
export const Open = z.object({ tagID: Id, ...OpenDetails.shape }).meta({ id: 'Open' });
export type Open = z.infer<typeof Open>;

/** The recipient of an event in endpoints 9 and 11; `recipientID` is the contact's id. */
export const EventRecipient = z
  .object({ recipientID: Id, name: z.string(), email: z.string() })
  .meta({ id: 'EventRecipient' });
export type EventRecipient = z.infer<typeof EventRecipient>;

/** One group of endpoint 9: a tag and its clicks, each `{ recipient, details }`. */
export const ClickGroup = z
  .object({
    tagID: Id,
    clicks: z.array(z.object({ recipient: EventRecipient, details: ClickDetails })),
  })
  .meta({ id: 'ClickGroup' });
export type ClickGroup = z.infer<typeof ClickGroup>;

/** One group of endpoint 11: a tag and its opens, each `{ recipient, details }`. */
export const OpenGroup = z
  .object({
    tagID: Id,
    opens: z.array(z.object({ recipient: EventRecipient, details: OpenDetails })),
  })
  .meta({ id: 'OpenGroup' });
export type OpenGroup = z.infer<typeof OpenGroup>;

/** Unique opens and clicks of one tag on one UTC day (endpoint 14; decisions §9). */
export const DailyCounts = z
  .object({ opens: Counter, clicks: Counter })
  .meta({ id: 'DailyCounts' });
export type DailyCounts = z.infer<typeof DailyCounts>;
