import type { AppendedRecords } from '@tagtrack/core';
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
): Promise<void> {
  if (rows.length === 0) return;
  const table = TABLES.find((t) => t.name === name)!;
  const columns = table.columns.map((c) => c.name);
  const arrays = columns.map((c) => {
    const timestamp = table.columns.find((x) => x.name === c)!.type.kind === 'timestamp';
    return rows.map((r) => {
      const v = r[c] ?? null;
      return timestamp && typeof v === 'string' ? toMicroseconds(v) : v;
    });
  });
  await tx.query(
    `INSERT INTO "${name}" (${columns.map((c) => `"${c}"`).join(', ')})
     SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${arrayType(table, c)}`).join(', ')})`,
    arrays,
  );
}

/**
 * Appends `records` to the dataset's tables in one transaction, as plain `INSERT`s into
 * `tags`, `recipients`, `opens` and `clicks` (in that order): the same path a vendor's own
 * `INSERT` takes, so the triggers of sql/35-upkeep.sql keep every counter current in the
 * same transaction. First the contact key and id of each email not seen before are written
 * (core's `normaliseEmail` and `contactIdOf`, as a load computes them). Events take the
 * positions after the last of their table. Requests see all of the records or none.
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
      await insertRows(
        tx,
        'tags',
        tags.map((t) => ({
          tagID: t.tagID,
          memberID: t.memberID,
          subject: t.subject,
          dateSent: t.dateSent,
        })),
      );
      await insertRows(
        tx,
        'recipients',
        tags.flatMap((t) =>
          t.recipients.map((r, position) => ({
            tagID: t.tagID,
            position,
            name: r.name,
            email: r.email,
          })),
        ),
      );
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
    });
  } catch (e) {
    throw new SqlEngineError(
      'append_failed',
      `cannot append the records: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
