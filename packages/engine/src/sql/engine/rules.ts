/**
 * The SQL engine's rules: core's endpoint plan in SQL ({@link SQL_RULES}, one SQL function
 * per list), the queries an answer runs them over, and the helpers for a list read whole.
 */
import type {
  Caller,
  EngineAnswer,
  QueryParams,
  RecordWindow,
  Rules,
  TeamMember,
} from '@tagtrack/core';
import { withFields } from '@tagtrack/core';
import type { Queryable } from '../database.ts';
import {
  contactRecord,
  type EventRow,
  eventDetails,
  type Row,
  statsRecord,
  tagRecord,
} from './records.ts';

/**
 * A list's query: `rows`, the call of the SQL function giving its records in order (its last
 * two parameters `lim` and `off`, after `params`), and `count`, the call giving the list's
 * length (over a prefix of the same parameters).
 */
export interface ListQuery {
  readonly rows: string;
  readonly count: string;
  readonly params: readonly unknown[];
  readonly record: (row: Row) => unknown;
}
/**
 * The queries of one answer: the engine's methods with `database` the answer's read-only
 * transaction (every query of an answer reads one snapshot of the data).
 */
export interface SqlQueries {
  readonly database: Queryable;
  /** A list: with a window, its rows and count as an `AnswerSlice`; without, every row. */
  list(l: ListQuery, window: RecordWindow | undefined): Promise<EngineAnswer>;
  /** The record `call` finds for `id` (caller's team `$1`, caller `$2`, id `$3`), or `undefined`. */
  single(
    caller: Caller,
    id: string | undefined,
    call: string,
    record: (row: Row) => unknown,
  ): Promise<EngineAnswer | undefined>;
  /** Whether `fn` (sql/20-scope.sql) says the caller sees `id`. */
  visible(fn: string, caller: Caller, id: string | undefined): Promise<boolean>;
  /** The groupID a path segment names for the caller, or `null` (spec §6 Revision 2). */
  group(caller: Caller, segment: string | undefined): Promise<string | null>;
  /** A member row as endpoints 1, 3 and 5 return it. */
  member(r: Row): TeamMember;
}

/** What the SQL rules run in: the answer's queries and the window a list is asked with. */
export interface SqlContext {
  readonly sql: SqlQueries;
  readonly window: RecordWindow | undefined;
}

/**
 * The rules of core's endpoint plan in SQL: one SQL function per list (sql/40 … sql/80),
 * the caller's team its first parameter (a database sharded by team routes each request to
 * the one shard holding it: docs/sql.md §5),
 * each asked for the window alone when the plan computes windows in the query; a list the
 * plan cuts (one tag's events) and an aggregated stats record are read whole and cut.
 * `undefined` is not found (an unknown, out-of-scope or unstorable subject id).
 */
export const SQL_RULES: Rules<SqlContext, Promise<EngineAnswer | undefined>> = {
  async members({ sql, window }, { caller, plan, id, query: q }) {
    let group: string | null = null;
    if (plan.subject === 'group') {
      group = await sql.group(caller, id);
      if (group === null) return undefined;
    }
    return sql.list(
      {
        rows: 'tagtrack_members($1, $2, $3, $4, NULL, $5, $6)',
        count: 'tagtrack_members_count($1, $2, $3, $4)',
        params: [caller.teamID, caller.memberID, q.type ?? null, group],
        record: (r) => sql.member(r),
      },
      window,
    );
  },
  member: ({ sql }, { caller, id }) =>
    sql.single(caller, id, 'tagtrack_members($1, $2, NULL, NULL, $3, NULL, 0)', (r) =>
      sql.member(r),
    ),
  async tags({ sql, window }, { caller, plan, id, query: q }) {
    if (plan.subject === 'member' && !(await sql.visible('tagtrack_member_visible', caller, id))) {
      return undefined;
    }
    return sql.list(
      {
        rows: 'tagtrack_tags($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
        count: 'tagtrack_tags_count($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        params: [
          caller.teamID,
          caller.memberID,
          id ?? null,
          ...daysOf(q),
          q.isOpened ?? false,
          q.isUnopened ?? false,
          q.isClicked ?? false,
          q.isUnclicked ?? false,
        ],
        record: tagRecord,
      },
      window,
    );
  },
  async stats({ sql, window }, { caller, plan, id, query: q }) {
    let group: string | null = null;
    let memberID: string | null = null;
    let type = q.type ?? null;
    if (plan.subject === 'group') {
      group = await sql.group(caller, id);
      if (group === null) return undefined;
    } else if (plan.subject === 'member') {
      if (!(await sql.visible('tagtrack_member_visible', caller, id))) return undefined;
      memberID = id!;
      type = null;
    }
    const params = [caller.teamID, caller.memberID, group, memberID, type, ...daysOf(q)];
    if (q.aggregateData) {
      const rows = await sql.database.query<Row>(
        'SELECT * FROM tagtrack_stats_total($1, $2, $3, $4, $5, $6, $7)',
        params,
      );
      return cut(rows.map(statsRecord), window);
    }
    return sql.list(
      {
        rows: 'tagtrack_stats_days($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        count: 'tagtrack_stats_days_count($1, $2, $3, $4, $5, $6, $7)',
        params,
        record: statsRecord,
      },
      window,
    );
  },
  eventGroups({ sql, window }, { caller, plan, query: q }) {
    const kind = plan.events!;
    return sql.list(
      {
        rows: 'tagtrack_event_groups($1, $2, $3, $4, $5, $6, $7)',
        count: 'tagtrack_event_groups_count($1, $2, $3, $4, $5)',
        params: [caller.teamID, caller.memberID, kind, ...daysOf(q)],
        record: (r) => ({
          tagID: r.tagID,
          [kind]: (r.events as EventRow[]).map((e) => ({
            recipient: { recipientID: e.recipientID, name: e.name, email: e.email },
            details: eventDetails(e, kind),
          })),
        }),
      },
      window,
    );
  },
  async tagEvents({ sql, window }, { caller, plan, id }) {
    if (!(await sql.visible('tagtrack_tag_visible', caller, id))) return undefined;
    const kind = plan.events!;
    const rows = await sql.database.query<{ event: EventRow }>(
      'SELECT event FROM tagtrack_tag_events($1, $2, $3)',
      [caller.teamID, kind, id],
    );
    return cut(
      rows.map(({ event }) => withFields(eventDetails(event, kind), { tagID: id })),
      window,
    );
  },
  async daily({ sql }, { caller, id, query: q }) {
    if (!(await sql.visible('tagtrack_tag_visible', caller, id))) return undefined;
    const [row] = await sql.database.query<{ opens: number; clicks: number }>(
      'SELECT * FROM tagtrack_daily($1, $2, $3)',
      [caller.teamID, id, q.date],
    );
    return { kind: 'single', record: { opens: row!.opens, clicks: row!.clicks } };
  },
  async contacts({ sql, window }, { caller, plan, id }) {
    if (plan.subject === 'tag' && !(await sql.visible('tagtrack_tag_visible', caller, id))) {
      return undefined;
    }
    return sql.list(
      {
        rows: 'tagtrack_contacts($1, $2, $3, $4, $5, $6)',
        count: 'tagtrack_contacts_count($1, $2, $3)',
        params: [caller.teamID, caller.memberID, id ?? null, null],
        record: contactRecord,
      },
      window,
    );
  },
  contact: ({ sql }, { caller, id }) =>
    sql.single(caller, id, 'tagtrack_contacts($1, $2, NULL, $3, NULL, 0)', contactRecord),
};

/** The day window of a query as SQL parameters (`NULL` for an open bound). */
function daysOf(q: QueryParams): [string | null, string | null] {
  return [q.start ?? null, q.end ?? null];
}

/** A list read whole: all of it, or with a window the `AnswerSlice` of that window. */
function cut(records: readonly unknown[], window: RecordWindow | undefined): EngineAnswer {
  if (window === undefined) return { kind: 'list', records };
  return {
    kind: 'slice',
    records: records.slice(window.offset, window.offset + window.limit),
    offset: window.offset,
    total: records.length,
  };
}
