import {
  type AnswerSlice,
  type Caller,
  type Dataset,
  type EndpointRequest,
  type EngineAnswer,
  isAnswer,
  type LiveEngine,
  type MemberWithoutGroup,
  notFoundAnswer,
  planRequest,
  type QueryParams,
  type RecordWindow,
  type ReportingEngine,
  type Rules,
  type TeamMember,
} from '@tagtrack/core';
import type { DatasetTables } from '@tagtrack/dataset';
import { appendRecords } from './append.ts';
import { type Database, openPglite, openPostgres, type Queryable } from './database.ts';
import { SqlEngineError } from './errors.ts';
import { liveBase } from './live-base.ts';
import { checkSchema, isCitus, isStandby, loadDataset } from './schema.ts';

/** Options of {@link openSqlEngine}. */
export interface SqlEngineOptions {
  /** `postgres://` or `postgresql://` URL of a server; absent: embedded PGlite in memory. */
  readonly databaseUrl?: string;
  /**
   * Load this dataset first (drop and recreate the dataset's tables and every tagtrack_*
   * object, COPY the rows, refresh the counters); absent: serve the tables already there
   * (refreshing the counters only when they were never computed). PGlite starts empty, so
   * it needs one.
   */
  readonly load?: Dataset | DatasetTables;
  /** Members without a group: omit `groupID`/`groupName` (default) or send `''` (spec §9). */
  readonly memberWithoutGroup?: MemberWithoutGroup;
  /** Connections to a server (default 8). */
  readonly maxConnections?: number;
  /**
   * A database already open (`openPglite`, `openPostgres`) to use instead of `databaseUrl`;
   * the engine's `close` leaves it open (tests reload one database many times).
   */
  readonly database?: Database;
}

/**
 * Where an SQL engine's database stands (docs/sql.md §5): `embedded` PGlite, a `single`
 * PostgreSQL server (a primary), a Citus `coordinator` (tables sharded by team over its
 * workers), or a read-only hot `standby` (streaming from a primary; nothing installed or
 * refreshed there).
 */
export type SqlTopology = 'embedded' | 'single' | 'coordinator' | 'standby';

/** A {@link ReportingEngine} answering in SQL: embedded PGlite or a PostgreSQL server. */
export interface SqlEngine extends ReportingEngine {
  /** `pglite` or `postgres`, as the database. */
  readonly name: 'pglite' | 'postgres';
  /** A list window is one SQL query (`LIMIT`/`OFFSET` and the count). */
  readonly servesWindows: true;
  /** Where the database stands: embedded, single server, Citus coordinator or standby. */
  readonly topology: SqlTopology;
  /** The database, for tools and tests (one query at a time on PGlite). */
  readonly database: Database;
}

/**
 * Opens the SQL engine of the profile (docs/sql.md): connects (PGlite in memory, or the
 * server at `databaseUrl`), loads `load` when given, else checks the tables already there,
 * and keeps only the credentials and callers in memory (a few rows per member): every list,
 * counter and page comes from SQL (sql/*.sql). Throws {@link SqlEngineError} (one line, no
 * password) for a bad URL, an unreachable server, missing tables or columns, tagtrack
 * objects of another version, or a dataset that cannot be loaded.
 */
export async function openSqlEngine(options: SqlEngineOptions = {}): Promise<SqlEngine> {
  const given = options.database;
  const db =
    given ??
    (options.databaseUrl === undefined
      ? await openPglite()
      : await openPostgres(options.databaseUrl, options.maxConnections));
  try {
    const standby = await isStandby(db);
    if (standby && options.load !== undefined)
      throw new SqlEngineError(
        'read_only',
        'the database is a read-only standby: load the dataset into its primary instead',
      );
    if (options.load !== undefined) await loadDataset(db, options.load);
    else if (db.kind === 'pglite' && given === undefined)
      throw new SqlEngineError(
        'missing_tables',
        'an embedded PGlite database starts empty: give it a dataset to load',
      );
    // tables already there: checked, and served as they are (objects of this version are
    // this version's SQL; nothing is rewritten under another server using the database)
    else await checkSchema(db, standby);
    const topology: SqlTopology =
      db.kind === 'pglite'
        ? 'embedded'
        : standby
          ? 'standby'
          : (await isCitus(db))
            ? 'coordinator'
            : 'single';
    const byAuthId = await readCredentials(db, new Map());
    return new SqlAnswers(
      db,
      byAuthId,
      options.memberWithoutGroup ?? 'omit',
      given === undefined,
      topology,
    );
  } catch (e) {
    if (given === undefined) await db.close().catch(() => {});
    throw e;
  }
}

type Row = Record<string, unknown>;

/** A credential as the engine keeps it: the access key and the caller (spec §3). */
interface KeptCredential {
  readonly accessKey: string;
  readonly caller: Caller;
}

/**
 * The credentials table with each credential's member, by authId. An entry equal to one of
 * `before` is that same object, so a cache holding it can tell it has not changed.
 */
async function readCredentials(
  db: Queryable,
  before: ReadonlyMap<string, KeptCredential>,
): Promise<Map<string, KeptCredential>> {
  const rows = await db.query<{
    authId: string;
    accessKey: string;
    memberID: string;
    teamID: string;
    accountType: Caller['accountType'];
  }>(
    `SELECT c."authId", c."accessKey", c."memberID", m."teamID", m."accountType"
     FROM credentials AS c JOIN members AS m ON m."memberID" = c."memberID"`,
  );
  const out = new Map<string, KeptCredential>();
  for (const r of rows) {
    const old = before.get(r.authId);
    const same =
      old !== undefined &&
      old.accessKey === r.accessKey &&
      old.caller.memberID === r.memberID &&
      old.caller.teamID === r.teamID &&
      old.caller.accountType === r.accountType;
    out.set(
      r.authId,
      same
        ? old
        : {
            accessKey: r.accessKey,
            caller: { memberID: r.memberID, teamID: r.teamID, accountType: r.accountType },
          },
    );
  }
  return out;
}

/** Credentials are re-read at most this often (ms). */
const CREDENTIALS_MAX_AGE_MS = 1000;

/**
 * A list's query: `rows`, the call of the SQL function giving its records in order (its last
 * two parameters `lim` and `off`, after `params`), and `count`, the call giving the list's
 * length (over a prefix of the same parameters).
 */
interface ListQuery {
  readonly rows: string;
  readonly count: string;
  readonly params: readonly unknown[];
  readonly record: (row: Row) => unknown;
}

/**
 * The queries of one answer: the engine's methods with `database` the answer's read-only
 * transaction (every query of an answer reads one snapshot of the data).
 */
type SqlQueries = Pick<SqlAnswers, 'list' | 'single' | 'visible' | 'group' | 'member'> & {
  readonly database: Queryable;
};

/** What the SQL rules run in: the answer's queries and the window a list is asked with. */
interface SqlContext {
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
      rows.map(({ event }) => ({ ...eventDetails(event, kind), tagID: id })),
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

/** A list read whole: all of it, or with a window the {@link AnswerSlice} of that window. */
function cut(records: readonly unknown[], window: RecordWindow | undefined): EngineAnswer {
  if (window === undefined) return { kind: 'list', records };
  return {
    kind: 'slice',
    records: records.slice(window.offset, window.offset + window.limit),
    offset: window.offset,
    total: records.length,
  };
}

/** The answers of {@link openSqlEngine}: core's endpoint plan over {@link SQL_RULES}. */
class SqlAnswers implements SqlEngine {
  readonly name: 'pglite' | 'postgres';
  readonly servesWindows = true;
  readonly live: LiveEngine;
  #credentials: ReadonlyMap<string, KeptCredential>;
  #credentialsRead = performance.now();
  #reading: Promise<boolean> | undefined;

  constructor(
    readonly database: Database,
    credentials: ReadonlyMap<string, KeptCredential>,
    private readonly withoutGroup: MemberWithoutGroup,
    private readonly ownsDatabase: boolean,
    readonly topology: SqlTopology,
  ) {
    this.name = database.kind;
    this.#credentials = credentials;
    this.live = {
      append: (records) => appendRecords(database, records),
      base: (tagsPerTeam) => liveBase(database, tagsPerTeam),
      refreshCredentials: () => this.#refreshCredentials(),
    };
  }

  credential(authId: string) {
    return this.#credentials.get(authId);
  }

  /** Re-reads the credentials unless read less than a second ago (concurrent calls share one read). */
  #refreshCredentials(): Promise<boolean> {
    if (this.#reading !== undefined) return this.#reading;
    if (performance.now() - this.#credentialsRead < CREDENTIALS_MAX_AGE_MS)
      return Promise.resolve(false);
    this.#reading = readCredentials(this.database, this.#credentials)
      .then((next) => {
        this.#credentials = next;
        this.#credentialsRead = performance.now();
        return true;
      })
      .finally(() => {
        this.#reading = undefined;
      });
    return this.#reading;
  }

  close(): Promise<void> {
    return this.ownsDatabase ? this.database.close() : Promise.resolve();
  }

  async answer(
    caller: Caller,
    request: EndpointRequest,
    window?: RecordWindow,
  ): Promise<EngineAnswer> {
    const call = planRequest(caller, request);
    if (isAnswer(call)) return call;
    // one read-only transaction per answer: this engine's methods over it (their `database`)
    const found = await this.database.transaction(
      (tx) => {
        const sql: SqlQueries = Object.create(this, { database: { value: tx } });
        return SQL_RULES[call.plan.rule]({ sql, window }, call);
      },
      { readOnly: true },
    );
    return found ?? notFoundAnswer(call.plan, call.id);
  }

  /**
   * A list: with a window, its rows (`LIMIT`/`OFFSET` as the query's last two parameters)
   * and the count, as an {@link AnswerSlice}, in one round trip; without, every row.
   */
  async list(l: ListQuery, window: RecordWindow | undefined): Promise<EngineAnswer> {
    if (window === undefined) {
      const rows = await this.database.query<Row>(`SELECT * FROM ${l.rows}`, [
        ...l.params,
        null,
        0,
      ]);
      return { kind: 'list', records: rows.map(l.record) };
    }
    // one round trip: the length and the window's rows (as JSON, in the function's order)
    const [row] = await this.database.query<{ n: number | string; rows: Row[] }>(
      `SELECT ${l.count} AS n, (SELECT coalesce(json_agg(r), '[]'::json) FROM ${l.rows} AS r) AS rows`,
      [...l.params, window.limit, window.offset],
    );
    const slice: AnswerSlice = {
      kind: 'slice',
      records: row!.rows.map(l.record),
      offset: window.offset,
      total: Number(row!.n),
    };
    return slice;
  }

  /**
   * The record `call` (over the caller's team `$1`, the caller `$2` and the id `$3`) finds
   * for `id`, or `undefined`.
   */
  async single(
    caller: Caller,
    id: string | undefined,
    call: string,
    record: (row: Row) => unknown,
  ): Promise<EngineAnswer | undefined> {
    if (!storable(id)) return undefined;
    const [row] = await this.database.query<Row>(`SELECT * FROM ${call}`, [
      caller.teamID,
      caller.memberID,
      id,
    ]);
    return row ? { kind: 'single', record: record(row) } : undefined;
  }

  /** Whether `fn` (sql/20-scope.sql) says the caller sees `id`; an unstorable id is unseen. */
  async visible(fn: string, caller: Caller, id: string | undefined): Promise<boolean> {
    if (!storable(id)) return false;
    const [row] = await this.database.query<{ v: boolean }>(`SELECT ${fn}($1, $2, $3) AS v`, [
      caller.teamID,
      caller.memberID,
      id,
    ]);
    return row!.v;
  }

  /** The groupID a path segment names for the caller, or `null` (spec §6 Revision 2). */
  async group(caller: Caller, segment: string | undefined): Promise<string | null> {
    if (!storable(segment)) return null;
    const [row] = await this.database.query<{ g: string | null }>(
      'SELECT tagtrack_resolve_group($1, $2, $3) AS g',
      [caller.teamID, caller.memberID, segment],
    );
    return row?.g ?? null;
  }

  /** A member row as endpoints 1, 3 and 5 return it (core's renderMember). */
  member(r: Row): TeamMember {
    const out: TeamMember = {
      memberID: r.memberID as string,
      firstname: r.firstname as string,
      lastname: r.lastname as string,
      email: r.email as string,
      accountType: r.accountType as TeamMember['accountType'],
    };
    if (r.groupID !== null && r.groupName !== null) {
      out.groupID = r.groupID as string;
      out.groupName = r.groupName as string;
    } else if (this.withoutGroup === 'empty') {
      out.groupID = '';
      out.groupName = '';
    }
    return out;
  }
}

const UNSTORABLE = /\p{Surrogate}/u;

/**
 * Whether a path parameter can equal a stored value: PostgreSQL text holds no U+0000, and a
 * lone surrogate (not Unicode) would reach the server as U+FFFD. Such an id matches nothing
 * (404), as it does in the in-memory engine, instead of failing the query.
 */
function storable(id: string | undefined): id is string {
  return id !== undefined && !id.includes('\u0000') && !UNSTORABLE.test(id);
}

/** An event as sql/70-events.sql writes it (JSON). */
interface EventRow {
  readonly date: string;
  readonly counry: string;
  readonly region: string;
  readonly city: string;
  readonly latitude: string;
  readonly longitude: string;
  readonly device: string;
  readonly os: string;
  readonly browser: string;
  readonly recipientID: string;
  readonly name: string;
  readonly email: string;
}

/** An event's details (openDate or clickDate first, then the location fields). */
function eventDetails(e: EventRow, kind: 'opens' | 'clicks') {
  const location = {
    counry: e.counry,
    region: e.region,
    city: e.city,
    latitude: e.latitude,
    longitude: e.longitude,
    device: e.device,
    os: e.os,
    browser: e.browser,
  };
  return kind === 'opens' ? { openDate: e.date, ...location } : { clickDate: e.date, ...location };
}

/** The eight counters of a tag or contact row (spec §10), in the order records show them. */
function counters(r: Row) {
  return {
    totalOpens: r.totalOpens,
    uniqueOpens: r.uniqueOpens,
    totalClicks: r.totalClicks,
    uniqueClicks: r.uniqueClicks,
    desktopOpens: r.desktopOpens,
    mobileOpens: r.mobileOpens,
    desktopClicks: r.desktopClicks,
    mobileClicks: r.mobileClicks,
  };
}

/** A row of `tagtrack_tags` as endpoints 2 and 4 return the tag (core's `renderTag`). */
function tagRecord(r: Row) {
  return {
    tagID: r.tagID,
    subject: r.subject,
    dateSent: r.dateSent,
    recipients: r.recipients,
    stats: counters(r),
  };
}

/** A row of `tagtrack_stats_days` or `_total` as a stats record (`date` on per-day ones). */
function statsRecord(r: Row) {
  const out: Record<string, unknown> = {
    totalSent: r.totalSent,
    totalOpens: r.totalOpens,
    totalClicks: r.totalClicks,
    uniqueOpens: r.uniqueOpens,
    uniqueClicks: r.uniqueClicks,
    dateLastSent: r.dateLastSent ?? null,
  };
  if (r.date !== undefined) out.date = r.date;
  return out;
}

/** A row of `tagtrack_contacts` as endpoints 15-17 return the contact (core's `contactOf`). */
function contactRecord(r: Row) {
  return {
    contactID: r.contactID,
    name: r.name,
    email: r.email,
    dateLastSent: r.dateLastSent,
    stats: { ...counters(r), totalSent: r.totalSent },
  };
}
