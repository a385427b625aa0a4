import * as z from 'zod';
import { Device, EventLocation } from '../events.ts';
import { AccountType, Group } from '../member.ts';
import { Recipient } from '../tag.ts';
import { Id, Timestamp } from '../values.ts';

/**
 * A member as the dataset stores it: the API's fields with `groupID` referring to a group
 * of the same team (the API's `groupName` is derived from it).
 */
export const DatasetMember = z.object({
  memberID: Id,
  firstname: z.string(),
  lastname: z.string(),
  email: z.string(),
  accountType: AccountType,
  groupID: Id.optional(),
});
export type DatasetMember = z.infer<typeof DatasetMember>;

/** A team: its groups and members (spec §4: a dataset may hold several teams). */
export const DatasetTeam = z.object({
  teamID: Id,
  name: z.string(),
  groups: z.array(Group),
  members: z.array(DatasetMember),
});
export type DatasetTeam = z.infer<typeof DatasetTeam>;

/** A sent tag: sender, subject, send date, recipients (spec §10 event log). */
export const DatasetTag = z.object({
  tagID: Id,
  memberID: Id,
  subject: z.string(),
  dateSent: Timestamp,
  recipients: z.array(Recipient),
});
export type DatasetTag = z.infer<typeof DatasetTag>;

/**
 * An open or click event: which tag, which recipient (by email, matched after trimming
 * and lowercasing: spec §10), when, and the detail fields.
 */
export const DatasetEvent = EventLocation.extend({
  tagID: Id,
  email: z.string(),
  date: Timestamp,
  device: Device,
});
export type DatasetEvent = z.infer<typeof DatasetEvent>;

/** A credential pair and the member it belongs to (spec §3). */
export const DatasetCredential = z.object({
  authId: z.string().min(1),
  accessKey: z.string().min(1),
  memberID: Id,
});
export type DatasetCredential = z.infer<typeof DatasetCredential>;

/**
 * The event log every answer of the API is computed from (spec §10): teams with their
 * members and groups, tags, open events, click events, and credentials.
 * Referential rules (unique ids, events of known tags and recipients, senders that exist)
 * are checked by `validateDataset`.
 */
export const Dataset = z
  .object({
    teams: z.array(DatasetTeam),
    tags: z.array(DatasetTag),
    opens: z.array(DatasetEvent),
    clicks: z.array(DatasetEvent),
    credentials: z.array(DatasetCredential),
  })
  .meta({ id: 'Dataset' });
export type Dataset = z.infer<typeof Dataset>;

/** Normalises a recipient email to its contact key: trimmed, lowercased (spec §10). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
