/**
 * The SQL engine itself ({@link SqlEngine}, its {@link SqlTopology}) and its answers: core's
 * endpoint plan over {@link SQL_RULES}, one read-only transaction per answer, the list,
 * single-record, scope and group queries, and the credentials kept and re-read (spec §3).
 */
import {
  type AnswerSlice,
  type Caller,
  type EndpointRequest,
  type EngineAnswer,
  isAnswer,
  type LiveEngine,
  type MemberWithoutGroup,
  notFoundAnswer,
  planRequest,
  type RecordWindow,
  type ReportingEngine,
  type TeamMember,
} from '@tagtrack/core';
import { appendRecords } from '../append.ts';
import type { Database } from '../database.ts';
import { liveBase } from '../live-base.ts';
import { CREDENTIALS_MAX_AGE_MS, type KeptCredential, readCredentials } from './credentials.ts';
import { type Row, storable } from './records.ts';
import { type ListQuery, SQL_RULES, type SqlQueries } from './rules.ts';

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

/** The answers of `openSqlEngine`: core's endpoint plan over {@link SQL_RULES}. */
export class SqlAnswers implements SqlEngine, SqlQueries {
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
