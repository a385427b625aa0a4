import type { AppendedRecords, DatasetEvent, DatasetTag } from '@tagtrack/core';
import { eventRow, TABLES, type TableName, type TableSpec } from '@tagtrack/dataset';
import type { Database, Queryable } from './database.ts';
import { SqlEngineError } from './errors.ts';
import { registerEmails, toMicroseconds } from './schema.ts';

export type { AppendedRecords };

/** The PostgreSQL array type a column's values are sent as. */
function arrayType(table: TableSpec, column: string): string {
  const kind = table.columns.find((c) => c.name === column)!.type.kind;
  switch (kind) {
    case 'timestamp':
      return 'timestamptz[]';
    case 'position':
      return 'integer[]';
    case 'latitude':
    case 'longitude':
      return 'numeric[]';
    default:
      return 'text[]';
  }
}

/**
 * `INSERT INTO table` of `rows` (objects with the table's column names) as one statement over
 * one array per column (`unnest`), rows in the given order; timestamps cut to microseconds
 * (as a load cuts them).
 */
async function insertRows(
  tx: Queryable,
  name: TableName,
  rows: readonly Record<string, unknown>[],
  teams?: readonly string[],
): Promise<void> {
  if (rows.length === 0) return;
  const table = TABLES.find((t) => t.name === name)!;
  const columns = table.columns.map((c) => c.name);
  const arrays: unknown[][] = columns.map((c) => {
    const timestamp = table.columns.find((x) => x.name === c)!.type.kind === 'timestamp';
    return rows.map((r) => {
      const v = r[c] ?? null;
      return timestamp && typeof v === 'string' ? toMicroseconds(v) : v;
    });
  });
  const names = columns.map((c) => `"${c}"`);
  const types = columns.map((c) => arrayType(table, c));
  if (teams !== undefined) {
    arrays.push([...teams]);
    names.push('"teamID"');
    types.push('text[]');
  }
  await tx.query(
    `INSERT INTO "${name}" (${names.join(', ')})
     SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}`).join(', ')})`,
    arrays,
  );
}

/** The rows of `tags`' recipients, each with its position in its tag's list. */
function recipientRows(tags: readonly DatasetTag[]): Record<string, unknown>[] {
  return tags.flatMap((t) =>
    t.recipients.map((r, position) => ({
      tagID: t.tagID,
      position,
      name: r.name,
      email: r.email,
    })),
  );
}

/** The row of a tag in `tags`. */
function tagRow(t: DatasetTag): Record<string, unknown> {
  return { tagID: t.tagID, memberID: t.memberID, subject: t.subject, dateSent: t.dateSent };
}

/**
 * On one server: plain INSERTs, the triggers of sql/35-upkeep.sql keeping the counters.
 * Events take the positions after the last of their table.
 */
async function appendPlain(
  tx: Queryable,
  tags: readonly DatasetTag[],
  opens: readonly DatasetEvent[],
  clicks: readonly DatasetEvent[],
): Promise<void> {
  await insertRows(tx, 'tags', tags.map(tagRow));
  await insertRows(tx, 'recipients', recipientRows(tags));
  for (const [name, events] of [
    ['opens', opens],
    ['clicks', clicks],
  ] as const) {
    if (events.length === 0) continue;
    const [row] = await tx.query<{ next: number }>(
      `SELECT coalesce(max(position), -1) + 1 AS next FROM "${name}"`,
    );
    const next = Number(row!.next);
    await insertRows(
      tx,
      name,
      events.map((e, i) => eventRow(e, next + i)),
    );
  }
}

/**
 * Whether the tag tables are sharded by team (the Citus layout, sql/citus/layout.sql): then
 * they carry a `"teamID"` column, and no upkeep trigger.
 */
async function shardedByTeam(tx: Queryable): Promise<boolean> {
  const rows = await tx.query(
    "SELECT 1 FROM tagtrack_meta WHERE key = 'layout' AND value = 'citus'",
  );
  return rows.length > 0;
}

/**
 * On the Citus layout (docs/sql.md §5): the tag tables carry `"teamID"` (the distribution
 * column: a tag's is its sender's, an event's or recipient's its tag's) and have no trigger
 * (a trigger runs on a worker's shard, where it cannot read the other tables' shards), so
 * each INSERT is followed, in the same transaction and in the order the triggers would fire,
 * by the ingest functions of sql/35-upkeep.sql run on the coordinator, each routed to the
 * team's shard. An event takes the position after the last of its team in its table (the
 * key is the team and the position).
 */
async function appendSharded(
  tx: Queryable,
  tags: readonly DatasetTag[],
  opens: readonly DatasetEvent[],
  clicks: readonly DatasetEvent[],
): Promise<void> {
  const senders = [...new Set(tags.map((t) => t.memberID))];
  const teamOfMember = new Map(
    (
      await tx.query<{ memberID: string; teamID: string }>(
        'SELECT "memberID", "teamID" FROM members WHERE "memberID" = ANY ($1::text[])',
        [senders],
      )
    ).map((r) => [r.memberID, r.teamID]),
  );
  const teamOfTag = new Map<string, string>();
  for (const t of tags) {
    const team = teamOfMember.get(t.memberID);
    if (team === undefined)
      throw new Error(`tag ${t.tagID} is sent by ${t.memberID}, who is not a member of any team`);
    teamOfTag.set(t.tagID, team);
  }
  const known = [...new Set([...opens, ...clicks].map((e) => e.tagID))].filter(
    (id) => !teamOfTag.has(id),
  );
  if (known.length > 0) {
    // a tag appended before: its team as its row says (every shard is asked)
    const rows = await tx.query<{ tagID: string; teamID: string }>(
      'SELECT "tagID", "teamID" FROM tags WHERE "tagID" = ANY ($1::text[])',
      [known],
    );
    for (const r of rows) teamOfTag.set(r.tagID, r.teamID);
  }
  const teamOf = (tagID: string): string => {
    const team = teamOfTag.get(tagID);
    if (team === undefined) throw new Error(`an event has tag ${tagID}, which is not in tags`);
    return team;
  };

  await insertRows(
    tx,
    'tags',
    tags.map(tagRow),
    tags.map((t) => teamOf(t.tagID)),
  );
  await tx.query(
    'SELECT tagtrack_ingest_tag(x.team, x.tag) FROM unnest($1::text[], $2::text[]) AS x (team, tag)',
    [tags.map((t) => teamOf(t.tagID)), tags.map((t) => t.tagID)],
  );
  const recipients = recipientRows(tags);
  const recipientTeams = recipients.map((r) => teamOf(r.tagID as string));
  await insertRows(tx, 'recipients', recipients, recipientTeams);
  await tx.query(
    `SELECT tagtrack_ingest_recipient(x.team, x.tag, x.pos, x.name, x.email)
     FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[], $5::text[])
       AS x (team, tag, pos, name, email)`,
    [
      recipientTeams,
      recipients.map((r) => r.tagID),
      recipients.map((r) => r.position),
      recipients.map((r) => r.name),
      recipients.map((r) => r.email),
    ],
  );
  for (const [name, events] of [
    ['opens', opens],
    ['clicks', clicks],
  ] as const) {
    if (events.length === 0) continue;
    const teams = events.map((e) => teamOf(e.tagID));
    const next = new Map(
      (
        await tx.query<{ teamID: string; next: number | string }>(
          `SELECT "teamID", max(position) + 1 AS next FROM "${name}"
           WHERE "teamID" = ANY ($1::text[]) GROUP BY "teamID"`,
          [[...new Set(teams)]],
        )
      ).map((r) => [r.teamID, Number(r.next)]),
    );
    const rows = events.map((e, i) => {
      const team = teams[i]!;
      const position = next.get(team) ?? 0;
      next.set(team, position + 1);
      return eventRow(e, position);
    });
    await insertRows(tx, name, rows, teams);
    await tx.query(
      `SELECT tagtrack_ingest_event(x.team, $1, x.tag, x.email, x.date, x.device)
       FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[])
         AS x (team, tag, email, date, device)`,
      [
        name,
        teams,
        events.map((e) => e.tagID),
        events.map((e) => e.email),
        events.map((e) => toMicroseconds(e.date)),
        events.map((e) => e.device),
      ],
    );
  }
}

/**
 * Appends `records` to the dataset's tables in one transaction, as plain `INSERT`s into
 * `tags`, `recipients`, `opens` and `clicks` (in that order): the same path a vendor's own
 * `INSERT` takes, so the triggers of sql/35-upkeep.sql keep every counter current in the
 * same transaction. On the Citus layout the rows carry their `"teamID"` and each INSERT is
 * followed by the ingest functions the triggers would call (see {@link appendSharded}).
 * First the contact key and id of each email not seen before are written (core's
 * `normaliseEmail` and `contactIdOf`, as a load computes them). Events take the positions
 * after the last of their table (of their team's rows, on Citus). Requests see all of the
 * records or none.
 *
 * @throws SqlEngineError `append_failed` with the database's reason (a tag of an unknown
 *   member, an event of an unknown tag, an event whose email is not a recipient of its tag
 *   or dated before it): then nothing was appended.
 */
export async function appendRecords(db: Database, records: AppendedRecords): Promise<void> {
  const tags = records.tags ?? [];
  const opens = records.opens ?? [];
  const clicks = records.clicks ?? [];
  if (tags.length + opens.length + clicks.length === 0) return;
  try {
    await db.transaction(async (tx) => {
      await registerEmails(tx, [
        ...tags.flatMap((t) => t.recipients.map((r) => r.email)),
        ...opens.map((e) => e.email),
        ...clicks.map((e) => e.email),
      ]);
      if (await shardedByTeam(tx)) await appendSharded(tx, tags, opens, clicks);
      else await appendPlain(tx, tags, opens, clicks);
    });
  } catch (e) {
    throw new SqlEngineError(
      'append_failed',
      `cannot append the records: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
