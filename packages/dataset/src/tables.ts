import type {
  Dataset,
  DatasetCredential,
  DatasetEvent,
  DatasetMember,
  DatasetTag,
  DatasetTeam,
} from '@tagtrack/core';
import { AccountType, Device, Id, Latitude, Longitude, Timestamp } from '@tagtrack/core';
import * as z from 'zod';

/*
 * The dataset as flat tables, one per entity, for vendors who load the fixture into their own
 * storage (SQL, CSV, NDJSON). Column names are the spec's field names; a foreign key is named
 * after the id it holds (`teamID`, `memberID`, `tagID`). Rows are plain objects whose keys
 * come in column order; `position` keeps the order of lists that have no id of their own.
 */

const Position = z.int().nonnegative();

/** A team: `teamID`, `name`. */
export const TeamRow = z.object({ teamID: Id, name: z.string() }).meta({ id: 'TeamRow' });
export type TeamRow = z.infer<typeof TeamRow>;

/** A group of a team; `groupID` is unique within its team only (spec §4). */
export const GroupRow = z
  .object({ teamID: Id, groupID: Id, groupName: z.string().min(1) })
  .meta({ id: 'GroupRow' });
export type GroupRow = z.infer<typeof GroupRow>;

/** A member of a team; `groupID` is `null` for a member without a group (a group of the same team). */
export const MemberRow = z
  .object({
    memberID: Id,
    teamID: Id,
    firstname: z.string(),
    lastname: z.string(),
    email: z.string(),
    accountType: AccountType,
    groupID: Id.nullable(),
  })
  .meta({ id: 'MemberRow' });
export type MemberRow = z.infer<typeof MemberRow>;

/** A credential pair and the member it belongs to (spec §3). */
export const CredentialRow = z
  .object({ authId: z.string().min(1), accessKey: z.string().min(1), memberID: Id })
  .meta({ id: 'CredentialRow' });
export type CredentialRow = z.infer<typeof CredentialRow>;

/** A sent tag: its sender (`memberID`), subject and send instant. */
export const TagRow = z
  .object({ tagID: Id, memberID: Id, subject: z.string(), dateSent: Timestamp })
  .meta({ id: 'TagRow' });
export type TagRow = z.infer<typeof TagRow>;

/** A recipient of a tag; `position` is its 0-based place in the tag's recipient list. */
export const RecipientRow = z
  .object({ tagID: Id, position: Position, name: z.string(), email: z.string() })
  .meta({ id: 'RecipientRow' });
export type RecipientRow = z.infer<typeof RecipientRow>;

/**
 * An open or click event; `position` is its 0-based place in the dataset's `opens` (`clicks`)
 * list, its primary key. `email` is the recipient as the event carries it (matched to the
 * tag's recipients after trimming and lowercasing: spec §10).
 */
export const EventRow = z
  .object({
    position: Position,
    tagID: Id,
    email: z.string(),
    date: Timestamp,
    device: Device,
    os: z.string(),
    browser: z.string(),
    counry: z.string(),
    region: z.string(),
    city: z.string(),
    latitude: Latitude,
    longitude: Longitude,
  })
  .meta({ id: 'EventRow' });
export type EventRow = z.infer<typeof EventRow>;

/** The dataset as tables, in loading order (every foreign key points to an earlier table). */
export const DatasetTables = z
  .object({
    teams: z.array(TeamRow),
    groups: z.array(GroupRow),
    members: z.array(MemberRow),
    credentials: z.array(CredentialRow),
    tags: z.array(TagRow),
    recipients: z.array(RecipientRow),
    opens: z.array(EventRow),
    clicks: z.array(EventRow),
  })
  .meta({ id: 'DatasetTables' });
export type DatasetTables = z.infer<typeof DatasetTables>;

/** A table name: `teams`, `groups`, `members`, `credentials`, `tags`, `recipients`, `opens`, `clicks`. */
export type TableName = keyof DatasetTables;

/**
 * What a column holds, for the SQL types and constraints: an id (`[A-Za-z0-9_-]+`), free
 * text, non-empty text, a UTC timestamp, a non-negative integer, a decimal latitude or
 * longitude, or one of the values of an enum.
 */
export type ColumnKind =
  | { readonly kind: 'id' }
  | { readonly kind: 'text' }
  | { readonly kind: 'nonEmptyText' }
  | { readonly kind: 'timestamp' }
  | { readonly kind: 'position' }
  | { readonly kind: 'latitude' }
  | { readonly kind: 'longitude' }
  | { readonly kind: 'enum'; readonly values: readonly string[] };

/** A column: its name (a spec field name), what it holds, and whether it may be `null`. */
export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnKind;
  readonly nullable: boolean;
}

/** A foreign key: `columns` of this table refer to `references` of `table`. */
export interface ForeignKey {
  readonly columns: readonly string[];
  readonly table: TableName;
  readonly references: readonly string[];
}

/** A table: its columns in order, primary key, foreign keys, and columns worth an index. */
export interface TableSpec {
  readonly name: TableName;
  readonly columns: readonly ColumnSpec[];
  readonly primaryKey: readonly string[];
  readonly foreignKeys: readonly ForeignKey[];
  readonly indexes: readonly (readonly string[])[];
}

const ID = { kind: 'id' } as const;
const TEXT = { kind: 'text' } as const;
const NON_EMPTY = { kind: 'nonEmptyText' } as const;

type Kinds<Row> = { readonly [K in keyof Row]-?: ColumnKind };

/** The columns of a row schema in its key order, `nullable` where the schema accepts `null`. */
function columnsOf<Row>(schema: z.ZodObject, kinds: Kinds<Row>): ColumnSpec[] {
  return Object.keys(schema.shape).map((name) => ({
    name,
    type: (kinds as Record<string, ColumnKind>)[name]!,
    nullable: schema.shape[name]!.safeParse(null).success,
  }));
}

const EVENT_KINDS: Kinds<EventRow> = {
  position: { kind: 'position' },
  tagID: ID,
  email: TEXT,
  date: { kind: 'timestamp' },
  device: { kind: 'enum', values: Device.options },
  os: TEXT,
  browser: TEXT,
  counry: TEXT,
  region: TEXT,
  city: TEXT,
  latitude: { kind: 'latitude' },
  longitude: { kind: 'longitude' },
};

const TAG_FK: ForeignKey = { columns: ['tagID'], table: 'tags', references: ['tagID'] };
const MEMBER_FK: ForeignKey = { columns: ['memberID'], table: 'members', references: ['memberID'] };
const TEAM_FK: ForeignKey = { columns: ['teamID'], table: 'teams', references: ['teamID'] };

/**
 * The eight tables in loading order, with their columns (in file and DDL order), keys and
 * indexes: the one description the CSV headers, the NDJSON key order and the SQL DDL of both
 * dialects are written from.
 */
export const TABLES: readonly TableSpec[] = [
  {
    name: 'teams',
    columns: columnsOf<TeamRow>(TeamRow, { teamID: ID, name: TEXT }),
    primaryKey: ['teamID'],
    foreignKeys: [],
    indexes: [],
  },
  {
    name: 'groups',
    columns: columnsOf<GroupRow>(GroupRow, { teamID: ID, groupID: ID, groupName: NON_EMPTY }),
    primaryKey: ['teamID', 'groupID'],
    foreignKeys: [TEAM_FK],
    indexes: [],
  },
  {
    name: 'members',
    columns: columnsOf<MemberRow>(MemberRow, {
      memberID: ID,
      teamID: ID,
      firstname: TEXT,
      lastname: TEXT,
      email: TEXT,
      accountType: { kind: 'enum', values: AccountType.options },
      groupID: ID,
    }),
    primaryKey: ['memberID'],
    foreignKeys: [
      TEAM_FK,
      { columns: ['teamID', 'groupID'], table: 'groups', references: ['teamID', 'groupID'] },
    ],
    indexes: [['teamID']],
  },
  {
    name: 'credentials',
    columns: columnsOf<CredentialRow>(CredentialRow, {
      authId: NON_EMPTY,
      accessKey: NON_EMPTY,
      memberID: ID,
    }),
    primaryKey: ['authId'],
    foreignKeys: [MEMBER_FK],
    indexes: [],
  },
  {
    name: 'tags',
    columns: columnsOf<TagRow>(TagRow, {
      tagID: ID,
      memberID: ID,
      subject: TEXT,
      dateSent: { kind: 'timestamp' },
    }),
    primaryKey: ['tagID'],
    foreignKeys: [MEMBER_FK],
    indexes: [['memberID']],
  },
  {
    name: 'recipients',
    columns: columnsOf<RecipientRow>(RecipientRow, {
      tagID: ID,
      position: { kind: 'position' },
      name: TEXT,
      email: TEXT,
    }),
    primaryKey: ['tagID', 'position'],
    foreignKeys: [TAG_FK],
    indexes: [],
  },
  {
    name: 'opens',
    columns: columnsOf<EventRow>(EventRow, EVENT_KINDS),
    primaryKey: ['position'],
    foreignKeys: [TAG_FK],
    indexes: [['tagID']],
  },
  {
    name: 'clicks',
    columns: columnsOf<EventRow>(EventRow, EVENT_KINDS),
    primaryKey: ['position'],
    foreignKeys: [TAG_FK],
    indexes: [['tagID']],
  },
];

/** The names of {@link TABLES}, in loading order. */
export const TABLE_NAMES: readonly TableName[] = TABLES.map((t) => t.name);

/** The row of an event at `position` (0-based) in its list, columns in {@link EventRow} order. */
export function eventRow(e: DatasetEvent, position: number): EventRow {
  return {
    position,
    tagID: e.tagID,
    email: e.email,
    date: e.date,
    device: e.device,
    os: e.os,
    browser: e.browser,
    counry: e.counry,
    region: e.region,
    city: e.city,
    latitude: e.latitude,
    longitude: e.longitude,
  };
}

/**
 * The dataset as tables (pure; rows in dataset order, keys in column order). Groups and
 * members get the `teamID` of their team, recipients the `tagID` of their tag and their
 * position in it, events their position in `opens` / `clicks`; a member without a group has
 * `groupID: null`. {@link tablesToDataset} is its inverse.
 */
export function datasetToTables(dataset: Dataset): DatasetTables {
  return {
    teams: dataset.teams.map((t) => ({ teamID: t.teamID, name: t.name })),
    groups: dataset.teams.flatMap((t) =>
      t.groups.map((g) => ({ teamID: t.teamID, groupID: g.groupID, groupName: g.groupName })),
    ),
    members: dataset.teams.flatMap((t) =>
      t.members.map((m) => ({
        memberID: m.memberID,
        teamID: t.teamID,
        firstname: m.firstname,
        lastname: m.lastname,
        email: m.email,
        accountType: m.accountType,
        groupID: m.groupID ?? null,
      })),
    ),
    credentials: dataset.credentials.map((c) => ({
      authId: c.authId,
      accessKey: c.accessKey,
      memberID: c.memberID,
    })),
    tags: dataset.tags.map((t) => ({
      tagID: t.tagID,
      memberID: t.memberID,
      subject: t.subject,
      dateSent: t.dateSent,
    })),
    recipients: dataset.tags.flatMap((t) =>
      t.recipients.map((r, position) => ({
        tagID: t.tagID,
        position,
        name: r.name,
        email: r.email,
      })),
    ),
    opens: dataset.opens.map(eventRow),
    clicks: dataset.clicks.map(eventRow),
  };
}

/**
 * Tables that cannot be assembled into a dataset. `problems` name the table, row and column,
 * e.g. `members[3].teamID: no team "t9"`.
 */
export class TablesError extends Error {
  override readonly name = 'TablesError';
  readonly code = 'invalid_tables' as const;
  constructor(readonly problems: readonly string[]) {
    const shown = problems.slice(0, 5).join('; ');
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    super(`invalid tables: ${shown}${more}`);
  }
}

function datasetEvent(r: EventRow): DatasetEvent {
  return {
    counry: r.counry,
    region: r.region,
    city: r.city,
    latitude: r.latitude,
    longitude: r.longitude,
    device: r.device,
    os: r.os,
    browser: r.browser,
    tagID: r.tagID,
    email: r.email,
    date: r.date,
  };
}

/** Rows sorted by `position` (stable), with a problem for each repeated position. */
function byPosition<R extends { position: number }>(
  rows: readonly R[],
  where: (i: number) => string,
  problems: string[],
  key: (r: R) => string = () => '',
): R[] {
  const seen = new Set<string>();
  rows.forEach((r, i) => {
    const k = `${key(r)}\u0000${r.position}`;
    if (seen.has(k)) problems.push(`${where(i)}.position: position ${r.position} repeated`);
    seen.add(k);
  });
  return [...rows].sort((a, b) => a.position - b.position);
}

/**
 * Puts each recipient row under the tag of its `tagID`, tag by tag in the order of their
 * `position` (stable), with a problem for each position repeated within a tag (in row
 * order) and then for each row of an unknown tag (in position order). Rows are grouped per
 * tag first, so each tag's few rows are sorted on their own.
 */
function placeRecipients(
  rows: readonly RecipientRow[],
  tags: ReadonlyMap<string, DatasetTag>,
  problems: string[],
): void {
  const perTag = new Map<string, number[]>();
  const positions = new Map<string, Set<number>>();
  rows.forEach((r, i) => {
    let list = perTag.get(r.tagID);
    if (list === undefined) {
      list = [];
      perTag.set(r.tagID, list);
      positions.set(r.tagID, new Set());
    }
    const seen = positions.get(r.tagID)!;
    if (seen.has(r.position)) {
      problems.push(`recipients[${i}].position: position ${r.position} repeated`);
    }
    seen.add(r.position);
    list.push(i);
  });
  const unknown: number[] = [];
  for (const [tagID, list] of perTag) {
    const tag = tags.get(tagID);
    if (tag === undefined) {
      unknown.push(...list);
      continue;
    }
    list.sort((a, b) => rows[a]!.position - rows[b]!.position || a - b);
    for (const i of list) tag.recipients.push({ name: rows[i]!.name, email: rows[i]!.email });
  }
  unknown.sort((a, b) => rows[a]!.position - rows[b]!.position || a - b);
  for (const i of unknown) problems.push(`recipients[${i}].tagID: no tag "${rows[i]!.tagID}"`);
}

/**
 * Assembles tables into the nested dataset (pure): teams, tags and credentials in row order;
 * groups and members under the team of their `teamID` in row order; recipients under the tag
 * of their `tagID` and events in the order of their `position` (rows may come in any order,
 * as from a SQL table). `tablesToDataset(datasetToTables(d))` equals `d`.
 *
 * Throws {@link TablesError} when a row cannot be placed: a repeated team or tag id, a group
 * or member of an unknown team, a recipient of an unknown tag, a repeated position. Other
 * referential rules (senders that exist, events of recipients, ...) are `validateDataset`'s.
 */
export function tablesToDataset(tables: DatasetTables): Dataset {
  const problems: string[] = [];
  const teams = new Map<string, DatasetTeam>();
  tables.teams.forEach((r, i) => {
    if (teams.has(r.teamID)) problems.push(`teams[${i}].teamID: team "${r.teamID}" repeated`);
    else teams.set(r.teamID, { teamID: r.teamID, name: r.name, groups: [], members: [] });
  });
  tables.groups.forEach((r, i) => {
    const team = teams.get(r.teamID);
    if (team === undefined) problems.push(`groups[${i}].teamID: no team "${r.teamID}"`);
    else team.groups.push({ groupID: r.groupID, groupName: r.groupName });
  });
  tables.members.forEach((r, i) => {
    const team = teams.get(r.teamID);
    if (team === undefined) {
      problems.push(`members[${i}].teamID: no team "${r.teamID}"`);
      return;
    }
    const member: DatasetMember = {
      memberID: r.memberID,
      firstname: r.firstname,
      lastname: r.lastname,
      email: r.email,
      accountType: r.accountType,
    };
    if (r.groupID !== null) member.groupID = r.groupID;
    team.members.push(member);
  });
  const tags = new Map<string, DatasetTag>();
  tables.tags.forEach((r, i) => {
    if (tags.has(r.tagID)) problems.push(`tags[${i}].tagID: tag "${r.tagID}" repeated`);
    else {
      tags.set(r.tagID, {
        tagID: r.tagID,
        memberID: r.memberID,
        subject: r.subject,
        dateSent: r.dateSent,
        recipients: [],
      });
    }
  });
  placeRecipients(tables.recipients, tags, problems);
  const opens = byPosition(tables.opens, (i) => `opens[${i}]`, problems).map(datasetEvent);
  const clicks = byPosition(tables.clicks, (i) => `clicks[${i}]`, problems).map(datasetEvent);
  if (problems.length > 0) throw new TablesError(problems);
  const credentials: DatasetCredential[] = tables.credentials.map((c) => ({
    authId: c.authId,
    accessKey: c.accessKey,
    memberID: c.memberID,
  }));
  return { teams: [...teams.values()], tags: [...tags.values()], opens, clicks, credentials };
}
