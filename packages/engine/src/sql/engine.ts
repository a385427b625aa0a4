import {
  type AnswerSlice,
  type Caller,
  type Dataset,
  type EndpointRequest,
  type EngineAnswer,
  type MemberWithoutGroup,
  missingParameter,
  notFoundMessage,
  type RecordWindow,
  type ReportingEngine,
  type TeamMember,
} from '@tagtrack/core';
import type { DatasetTables } from '@tagtrack/dataset';
import { type Database, openPglite, openPostgres } from './database.ts';
import { SqlEngineError } from './errors.ts';
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
  /** Members without a group: omit `groupID`/`groupName` (default) or send `''` (decisions §8). */
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
    const credentials = await db.query<{
      authId: string;
      accessKey: string;
      memberID: string;
      teamID: string;
      accountType: Caller['accountType'];
    }>(
      `SELECT c."authId", c."accessKey", c."memberID", m."teamID", m."accountType"
       FROM credentials AS c JOIN members AS m ON m."memberID" = c."memberID"`,
    );
    const byAuthId = new Map(
      credentials.map((c) => [
        c.authId,
        {
          accessKey: c.accessKey,
          caller: { memberID: c.memberID, teamID: c.teamID, accountType: c.accountType },
        },
      ]),
    );
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

/** The answers of {@link openSqlEngine}: one SQL function per list (sql/40 … sql/80). */
class SqlAnswers implements SqlEngine {
  readonly name: 'pglite' | 'postgres';
  readonly servesWindows = true;

  constructor(
    readonly database: Database,
    private readonly credentials: ReadonlyMap<
      string,
      { readonly accessKey: string; readonly caller: Caller }
    >,
    private readonly withoutGroup: MemberWithoutGroup,
    private readonly ownsDatabase: boolean,
    readonly topology: SqlTopology,
  ) {
    this.name = database.kind;
  }

  credential(authId: string) {
    return this.credentials.get(authId);
  }

  close(): Promise<void> {
    return this.ownsDatabase ? this.database.close() : Promise.resolve();
  }

  async answer(
    caller: Caller,
    request: EndpointRequest,
    window?: RecordWindow,
  ): Promise<EngineAnswer> {
    const { pathParams: p, query: q } = request;
    const me = caller.memberID;
    // the caller's team goes first to every function: a database sharded by team routes each
    // request to the one shard holding it (docs/sql.md §5)
    const team = caller.teamID;
    const days = [q.start ?? null, q.end ?? null];
    const list = (l: ListQuery) => this.list(l, window);
    const missing = (kind: string, id: string | undefined): EngineAnswer => ({
      kind: 'not_found',
      message: notFoundMessage(kind, id),
    });
    const members = (type: string | null, group: string | null): ListQuery => ({
      rows: 'tagtrack_members($1, $2, $3, $4, NULL, $5, $6)',
      count: 'tagtrack_members_count($1, $2, $3, $4)',
      params: [team, me, type, group],
      record: (r) => this.member(r),
    });
    const tags = (memberID: string | null): ListQuery => ({
      rows: 'tagtrack_tags($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
      count: 'tagtrack_tags_count($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      params: [
        team,
        me,
        memberID,
        ...days,
        q.isOpened ?? false,
        q.isUnopened ?? false,
        q.isClicked ?? false,
        q.isUnclicked ?? false,
      ],
      record: tagRecord,
    });
    const stats = async (group: string | null, memberID: string | null, type: string | null) => {
      const params = [team, me, group, memberID, type, ...days];
      if (q.aggregateData) {
        const rows = await this.database.query<Row>(
          'SELECT * FROM tagtrack_stats_total($1, $2, $3, $4, $5, $6, $7)',
          params,
        );
        return this.list({ rows: '', count: '', params, record: statsRecord }, window, rows);
      }
      return list({
        rows: 'tagtrack_stats_days($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        count: 'tagtrack_stats_days_count($1, $2, $3, $4, $5, $6, $7)',
        params,
        record: statsRecord,
      });
    };
    const eventGroups = (kind: 'opens' | 'clicks'): ListQuery => ({
      rows: 'tagtrack_event_groups($1, $2, $3, $4, $5, $6, $7)',
      count: 'tagtrack_event_groups_count($1, $2, $3, $4, $5)',
      params: [team, me, kind, ...days],
      record: (r) => ({
        tagID: r.tagID,
        [kind]: (r.events as EventRow[]).map((e) => ({
          recipient: { recipientID: e.recipientID, name: e.name, email: e.email },
          details: eventDetails(e, kind),
        })),
      }),
    });
    const contacts = (tagID: string | null, contactID: string | null): ListQuery => ({
      rows: 'tagtrack_contacts($1, $2, $3, $4, $5, $6)',
      count: 'tagtrack_contacts_count($1, $2, $3)',
      params: [team, me, tagID, contactID],
      record: contactRecord,
    });
    const type = q.type ?? null;
    /** The record `call` (over the team `$1`, the caller `$2`, the id `$3`) finds for `id`, or not found. */
    const single = async (
      kind: string,
      id: string | undefined,
      call: string,
      record: (row: Row) => unknown,
    ): Promise<EngineAnswer> => {
      if (!storable(id)) return missing(kind, id);
      const [row] = await this.database.query<Row>(`SELECT * FROM ${call}`, [team, me, id]);
      return row ? { kind: 'single', record: record(row) } : missing(kind, id);
    };

    switch (request.endpoint) {
      case 'teams.list':
        return list(members(type, null));
      case 'teams.tags':
        return list(tags(null));
      case 'teams.member':
        return single(
          'member',
          p.memberID,
          'tagtrack_members($1, $2, NULL, NULL, $3, NULL, 0)',
          (r) => this.member(r),
        );
      case 'teams.memberTags':
        if (!(await this.memberVisible(team, me, p.memberID))) return missing('member', p.memberID);
        return list(tags(p.memberID!));
      case 'teams.group': {
        const group = await this.group(team, me, p.group);
        return group === null ? missing('group', p.group) : list(members(type, group));
      }
      case 'stats.team':
      case 'stats.teamAlias':
        return stats(null, null, type);
      case 'stats.group': {
        const group = await this.group(team, me, p.group);
        return group === null ? missing('group', p.group) : stats(group, null, type);
      }
      case 'stats.member':
        if (!(await this.memberVisible(team, me, p.memberID))) return missing('member', p.memberID);
        return stats(null, p.memberID!, null);
      case 'clicks.list':
        return list(eventGroups('clicks'));
      case 'opens.list':
        return list(eventGroups('opens'));
      case 'clicks.tag':
      case 'opens.tag': {
        if (!(await this.tagVisible(team, me, p.tagID))) return missing('tag', p.tagID);
        const kind = request.endpoint === 'clicks.tag' ? 'clicks' : 'opens';
        const rows = await this.database.query<{ event: EventRow }>(
          'SELECT event FROM tagtrack_tag_events($1, $2, $3)',
          [team, kind, p.tagID],
        );
        const records = rows.map(({ event }) => ({ ...eventDetails(event, kind), tagID: p.tagID }));
        return this.list({ rows: '', count: '', params: [], record: (r) => r }, window, records);
      }
      case 'tags.daily': {
        if (q.date === undefined) throw missingParameter('date');
        if (!(await this.tagVisible(team, me, p.tagID))) return missing('tag', p.tagID);
        const [row] = await this.database.query<{ opens: number; clicks: number }>(
          'SELECT * FROM tagtrack_daily($1, $2, $3)',
          [team, p.tagID, q.date],
        );
        return { kind: 'single', record: { opens: row!.opens, clicks: row!.clicks } };
      }
      case 'contacts.list':
        return list(contacts(null, null));
      case 'contacts.get':
        return single(
          'contact',
          p.contactID,
          'tagtrack_contacts($1, $2, NULL, $3, NULL, 0)',
          contactRecord,
        );
      case 'contacts.tag':
        if (!(await this.tagVisible(team, me, p.tagID))) return missing('tag', p.tagID);
        return list(contacts(p.tagID!, null));
    }
  }

  /**
   * A list: with a window, its rows (`LIMIT`/`OFFSET` as the query's last two parameters)
   * and the count, as an {@link AnswerSlice}; without, every row. `given`: rows already
   * read (a list computed whole), cut to the window here.
   */
  private async list(
    l: ListQuery,
    window: RecordWindow | undefined,
    given?: readonly unknown[],
  ): Promise<EngineAnswer> {
    if (given !== undefined) {
      const records = given.map((r) => l.record(r as Row));
      if (window === undefined) return { kind: 'list', records };
      return {
        kind: 'slice',
        records: records.slice(window.offset, window.offset + window.limit),
        offset: window.offset,
        total: records.length,
      };
    }
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

  private memberVisible(team: string, me: string, memberID: string | undefined) {
    return this.visible('tagtrack_member_visible', team, me, memberID);
  }

  private tagVisible(team: string, me: string, tagID: string | undefined) {
    return this.visible('tagtrack_tag_visible', team, me, tagID);
  }

  /** Whether `fn` (sql/20-scope.sql) says the caller sees `id`; an unstorable id is unseen. */
  private async visible(
    fn: string,
    team: string,
    me: string,
    id: string | undefined,
  ): Promise<boolean> {
    if (!storable(id)) return false;
    const [row] = await this.database.query<{ v: boolean }>(`SELECT ${fn}($1, $2, $3) AS v`, [
      team,
      me,
      id,
    ]);
    return row!.v;
  }

  /** The groupID a path segment names for the caller, or `null` (decisions §4 Revision 2). */
  private async group(
    team: string,
    me: string,
    segment: string | undefined,
  ): Promise<string | null> {
    if (!storable(segment)) return null;
    const [row] = await this.database.query<{ g: string | null }>(
      'SELECT tagtrack_resolve_group($1, $2, $3) AS g',
      [team, me, segment],
    );
    return row?.g ?? null;
  }

  /** A member row as endpoints 1, 3 and 5 return it (core's renderMember). */
  private member(r: Row): TeamMember {
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

/** The eight counters of a tag or contact row (decisions §9), in the order records show them. */
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
