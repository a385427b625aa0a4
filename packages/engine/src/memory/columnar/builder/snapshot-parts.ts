import type { Dataset, DatasetCredential, DatasetTag, DatasetTeam } from '@tagtrack/core';
import {
  DatasetCredential as DatasetCredentialSchema,
  DatasetTeam as DatasetTeamSchema,
  Device,
  Id,
  Latitude,
  Longitude,
  parseTimestampMs,
  Timestamp,
} from '@tagtrack/core';
import type * as z from 'zod';
import type { Dict, Dicts } from '../dict.ts';
import type { EventStore } from '../event-store.ts';
import type { RecipientStore } from '../recipient-store.ts';
import {
  SNAPSHOT_DICTS,
  type SnapshotDict,
  SnapshotError,
  type SnapshotEvents,
  type SnapshotParts,
} from '../snapshot.ts';
import type { Problems } from './problems.ts';

/**
 * A dataset's columns to and from the parts of a snapshot (`snapshot.ts`): what
 * `ColumnarBuilder.snapshotParts` writes and `ColumnarBuilder.fromSnapshot` restores.
 */

/** The codes in `dict` of a field of `records` (values in the dictionary, as loaded). */
function codesOf<T>(dict: Dict, records: readonly T[], field: (r: T) => string): Int32Array {
  const values = dict.values;
  const codes = new Map<string, number>();
  for (let c = 0; c < values.length; c++) codes.set(values[c]!, c);
  return Int32Array.from(records, (r) => codes.get(field(r)) ?? -1);
}

/** Whether `s` is a date in the canonical `YYYY-MM-DDTHH:MM:SSZ` form (the fast check). */
function canonicalDate(s: string): boolean {
  return s.length === 20 && !Number.isNaN(parseTimestampMs(s));
}

/** The event columns of a dataset: its opens and clicks. */
export interface EventStores {
  readonly opens: EventStore;
  readonly clicks: EventStore;
}

/**
 * The parts of a snapshot of a finished dataset (`skeleton`: its teams, tags and
 * credentials): the columns and dictionaries as they are (not copied).
 */
export function snapshotPartsOf(
  skeleton: Dataset,
  dicts: Dicts,
  recipients: RecipientStore,
  stores: EventStores,
): SnapshotParts {
  const d = dicts;
  const events = (store: EventStore): SnapshotEvents => ({
    length: store.length,
    columns: {
      tagCode: store.tagCode,
      email: store.email,
      ms: store.ms,
      device: store.device,
      ...store.details,
    },
    rawDate: [...store.rawDate],
  });
  const tags = skeleton.tags;
  return {
    teams: skeleton.teams,
    credentials: skeleton.credentials,
    tags: {
      tagID: codesOf(d.tagID, tags, (t) => t.tagID),
      memberID: codesOf(d.memberID, tags, (t) => t.memberID),
      subject: codesOf(d.subject, tags, (t) => t.subject),
      dateSent: tags.map((t) => t.dateSent),
    },
    recipients: recipients.columns(),
    dicts: Object.fromEntries(SNAPSHOT_DICTS.map((n) => [n, d[n].values])) as Record<
      SnapshotDict,
      string[]
    >,
    opens: events(stores.opens),
    clicks: events(stores.clicks),
  };
}

/** Where {@link restoreSnapshot} puts a snapshot's dataset: a builder's columns and records. */
export interface RestoreTarget extends EventStores {
  readonly dicts: Dicts;
  readonly recipients: RecipientStore;
  readonly teams: DatasetTeam[];
  readonly credentials: DatasetCredential[];
  readonly tags: DatasetTag[];
  readonly problems: Problems;
  /** Notes that tag `t` has tagID code `code` (the byte reader's lookup of a tag by tagID). */
  noteTag(code: number, t: number): void;
}

/**
 * Restores the dataset of snapshot parts `p` into `into`, checking its values with the
 * dataset schemas (problems named `snapshot <part>[i]`). Throws {@link SnapshotError} when a
 * dictionary repeats a value.
 */
export function restoreSnapshot(p: SnapshotParts, into: RestoreTarget): void {
  const d = into.dicts;
  for (const name of SNAPSHOT_DICTS) {
    // emails are looked up once more (a normalised email among the values), no other
    const repeated = d[name].adopt(p.dicts[name], name === 'email');
    if (repeated >= 0) {
      throw new SnapshotError(`snapshot dictionary ${name}: value ${repeated} repeated`);
    }
  }
  const problems = into.problems;
  const check = (where: string, schema: z.ZodType, value: unknown) => {
    const r = schema.safeParse(value);
    if (!r.success) problems.addIssues(where, r.error);
  };
  p.teams.forEach((t, i) => {
    const r = DatasetTeamSchema.safeParse(t);
    if (r.success) into.teams.push(r.data);
    else problems.addIssues(`snapshot teams[${i}]`, r.error);
  });
  p.credentials.forEach((c, i) => {
    const r = DatasetCredentialSchema.safeParse(c);
    if (r.success) into.credentials.push(r.data);
    else problems.addIssues(`snapshot credentials[${i}]`, r.error);
  });
  const { start, name, email } = p.recipients;
  into.recipients.restore(start, name, email);
  const { tagID, memberID, subject, dateSent } = p.tags;
  for (let t = 0; t < tagID.length; t++) {
    const sent = dateSent[t]!;
    if (!canonicalDate(sent)) check(`snapshot tags[${t}].dateSent`, Timestamp, sent);
    into.noteTag(tagID[t]!, t);
    into.tags.push(
      into.recipients.tag(
        t,
        d.tagID.values[tagID[t]!]!,
        d.memberID.values[memberID[t]!]!,
        d.subject.values[subject[t]!]!,
        sent,
      ),
    );
  }
  const values = (dict: SnapshotDict, schema: z.ZodType) => {
    d[dict].values.forEach((v, i) => {
      check(`snapshot ${dict}[${i}]`, schema, v);
    });
  };
  values('tagID', Id);
  values('memberID', Id);
  values('device', Device);
  values('latitude', Latitude);
  values('longitude', Longitude);
  for (const kind of ['opens', 'clicks'] as const) {
    const e = p[kind];
    const store = into[kind];
    store.restore(e.columns, e.length, e.rawDate);
    const raw = new Map(e.rawDate);
    const ms = store.ms;
    for (let i = 0; i < e.length; i++) {
      const written = raw.get(i);
      if (written !== undefined) {
        if (!canonicalDate(written)) check(`snapshot ${kind}[${i}].date`, Timestamp, written);
        ms[i] = parseTimestampMs(written);
      } else if (!Number.isFinite(ms[i]!)) {
        problems.add(`snapshot ${kind}[${i}].date: not a date`);
      }
    }
  }
}
