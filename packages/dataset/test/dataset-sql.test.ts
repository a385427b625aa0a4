import { PGlite } from '@electric-sql/pglite';
import { fc, test as fcTest } from '@fast-check/vitest';
import type { Caller, StatsSummary, Tag } from '@tagtrack/core';
import { type Dataset, defaultQueryParams, normaliseEmail, plainAnswer } from '@tagtrack/core';
import { arbDataset } from '@tagtrack/core/testing';
import initSqlJs, { type Database } from 'sql.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { canonicalDataset } from '../src/canonical.ts';
import { generateDataset } from '../src/generate.ts';
import {
  type SqlDialect,
  SqlLiteralError,
  sqlIdentifier,
  sqlInserts,
  sqlLiteral,
  TRIM_CHARACTERS,
  tablesDdl,
} from '../src/sql.ts';
import {
  type DatasetTables,
  datasetToTables,
  TABLE_NAMES,
  TABLES,
  tablesToDataset,
} from '../src/tables.ts';

/*
 * The SQL form of the fixture loaded into real engines: PostgreSQL (PGlite, PostgreSQL 18
 * compiled to WebAssembly) and SQLite (sql.js, SQLite compiled to WebAssembly). Two counters
 * computed by SQL over the loaded tables must equal the oracle's (plainAnswer, spec §10).
 */

const TIMEOUT = { timeout: 180_000 };

let pg: PGlite;
let sqlite: initSqlJs.SqlJsStatic;
let schemas = 0;

beforeAll(async () => {
  pg = new PGlite();
  await pg.waitReady;
  sqlite = await initSqlJs();
}, 180_000);

afterAll(async () => {
  await pg?.close();
});

/** The spec's two counters per the oracle: uniqueOpens per tag, totalClicks per team. */
function oracleCounters(dataset: Dataset) {
  const uniqueOpens: Record<string, number> = {};
  const totalClicks: Record<string, number> = {};
  for (const team of dataset.teams) {
    const admin: Caller = { memberID: '', teamID: team.teamID, accountType: 'admin' };
    const tags = plainAnswer(dataset, admin, {
      endpoint: 'teams.tags',
      pathParams: {},
      query: defaultQueryParams(),
    });
    if (tags.kind !== 'list') throw new Error(`teams.tags answered ${tags.kind}`);
    for (const t of tags.records as Tag[]) uniqueOpens[t.tagID] = t.stats.uniqueOpens;
    const stats = plainAnswer(dataset, admin, {
      endpoint: 'stats.team',
      pathParams: {},
      query: defaultQueryParams({ aggregateData: true }),
    });
    if (stats.kind !== 'list') throw new Error(`stats.team answered ${stats.kind}`);
    totalClicks[team.teamID] = (stats.records[0] as StatsSummary).totalClicks;
  }
  return { uniqueOpens, totalClicks };
}

/**
 * The two counters in SQL (docs/conformance.md shows the same queries): distinct normalised
 * recipient emails among a tag's opens, and the clicks on tags sent by a team's members.
 * `normalise` is the email normalisation of the dialect.
 */
const counterQueries = (normalise: (col: string) => string) => ({
  uniqueOpens: `SELECT t."tagID" AS id, count(DISTINCT ${normalise('o."email"')}) AS n
    FROM "tags" t LEFT JOIN "opens" o ON o."tagID" = t."tagID" GROUP BY t."tagID"`,
  totalClicks: `SELECT tm."teamID" AS id, count(c."position") AS n
    FROM "teams" tm
    LEFT JOIN "members" m ON m."teamID" = tm."teamID"
    LEFT JOIN "tags" t ON t."memberID" = m."memberID"
    LEFT JOIN "clicks" c ON c."tagID" = t."tagID"
    GROUP BY tm."teamID"`,
});

const byId = (rows: readonly { id: unknown; n: unknown }[]) =>
  Object.fromEntries(rows.map((r) => [String(r.id), Number(r.n)]));

/** Teams, groups, members, tags and credentials in id order (a SQL table has no row order). */
function inIdOrder(d: Dataset): Dataset {
  const by =
    <K extends string>(key: K) =>
    (a: Record<K, string>, b: Record<K, string>) =>
      a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0;
  return {
    teams: d.teams
      .map((t) => ({
        ...t,
        groups: [...t.groups].sort(by('groupID')),
        members: [...t.members].sort(by('memberID')),
      }))
      .sort(by('teamID')),
    tags: [...d.tags].sort(by('tagID')),
    opens: d.opens,
    clicks: d.clicks,
    credentials: [...d.credentials].sort(by('authId')),
  };
}

/** The SELECT reading a table back in the dataset's string forms, ordered by primary key. */
function readBack(table: (typeof TABLES)[number], dialect: SqlDialect): string {
  const cols = table.columns.map((c) => {
    const col = sqlIdentifier(c.name);
    if (dialect === 'postgres' && c.type.kind === 'timestamp')
      return `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS ${col}`;
    if (dialect === 'postgres' && (c.type.kind === 'latitude' || c.type.kind === 'longitude'))
      return `${col}::text AS ${col}`;
    return col;
  });
  return `SELECT ${cols.join(', ')} FROM ${sqlIdentifier(table.name)} ORDER BY ${table.primaryKey.map(sqlIdentifier).join(', ')}`;
}

/** Loads `dataset` into a fresh PostgreSQL schema; returns the milliseconds the load took. */
async function loadPostgres(dataset: Dataset): Promise<number> {
  const schema = `fixture${++schemas}`;
  await pg.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema};`);
  await pg.exec(tablesDdl('postgres'));
  const started = performance.now();
  await pg.exec([...sqlInserts(datasetToTables(dataset), 'postgres')].join(''));
  return performance.now() - started;
}

async function postgresRows(sql: string): Promise<Record<string, unknown>[]> {
  return (await pg.query<Record<string, unknown>>(sql)).rows;
}

/** A fresh SQLite database with the dataset loaded and the spec's email normalisation. */
function loadSqlite(dataset: Dataset): Database {
  const db = new sqlite.Database();
  // SQLite's lower() folds ASCII only; the spec's normalisation is JavaScript's trim + toLowerCase
  db.create_function('normalise_email', (email: string | null) =>
    email === null ? null : normaliseEmail(email),
  );
  db.exec(tablesDdl('sqlite'));
  db.exec([...sqlInserts(datasetToTables(dataset), 'sqlite')].join(''));
  return db;
}

function sqliteRows(db: Database, sql: string): Record<string, unknown>[] {
  return db
    .exec(sql)
    .flatMap((r) => r.values.map((v) => Object.fromEntries(r.columns.map((c, i) => [c, v[i]]))));
}

function tablesFrom(read: (table: (typeof TABLES)[number]) => Record<string, unknown>[]) {
  return Object.fromEntries(TABLES.map((t) => [t.name, read(t)])) as unknown as DatasetTables;
}

/** Both dialects call `normalise_email`: created by the PostgreSQL DDL, registered in SQLite. */
const PG_COUNTERS = counterQueries((col) => `normalise_email(${col})`);
const SQLITE_COUNTERS = PG_COUNTERS;

async function postgresCounters() {
  return {
    uniqueOpens: byId(
      (await postgresRows(PG_COUNTERS.uniqueOpens)) as { id: unknown; n: unknown }[],
    ),
    totalClicks: byId(
      (await postgresRows(PG_COUNTERS.totalClicks)) as { id: unknown; n: unknown }[],
    ),
  };
}

describe('the SQL fixture in PostgreSQL (PGlite)', TIMEOUT, () => {
  const datasets: [string, () => Dataset][] = [
    ['canonical', () => canonicalDataset],
    ['generated (seed 42, small)', () => generateDataset({ seed: 42, scale: 'small' })],
  ];
  for (const [name, make] of datasets) {
    test(`${name}: uniqueOpens per tag and totalClicks per team from SQL equal the oracle's`, async () => {
      const dataset = make();
      const ms = await loadPostgres(dataset);
      const oracle = oracleCounters(dataset);
      const sql = await postgresCounters();
      expect(Object.keys(sql.uniqueOpens)).toHaveLength(dataset.tags.length);
      expect(sql).toEqual(oracle);
      expect(Object.values(sql.uniqueOpens).some((n) => n > 1)).toBe(true);
      expect(Object.values(sql.totalClicks).every((n) => n > 0)).toBe(true);
      const back = tablesFrom(() => []);
      for (const t of TABLES)
        (back as unknown as Record<string, unknown[]>)[t.name] = await postgresRows(
          readBack(t, 'postgres'),
        );
      expect(tablesToDataset(back)).toEqual(inIdOrder(dataset));
      console.info(`PGlite: ${name} loaded in ${ms.toFixed(0)} ms`);
    });
  }

  fcTest.prop([arbDataset], { numRuns: 12 })(
    'any consistent dataset: the SQL counters equal the oracle (hostile strings, emails in any case and padding)',
    async (dataset) => {
      await loadPostgres(dataset);
      expect(await postgresCounters()).toEqual(oracleCounters(dataset));
    },
  );

  fcTest.prop([fc.string({ unit: 'binary', maxLength: 40 }).filter(ok)], { numRuns: 150 })(
    'sqlLiteral(s) read by PostgreSQL is s, for any string without U+0000 or a lone surrogate',
    async (s) => {
      const rows = await postgresRows(`SELECT ${sqlLiteral(s)} AS v, ${sqlLiteral(s.length)} AS n`);
      expect(rows).toEqual([{ v: s, n: s.length }]);
    },
  );

  fcTest.prop(
    [
      fc.string({
        unit: fc.constantFrom(...TRIM_CHARACTERS, 'a', 'Z', 'Ä', 'é', 'Ö', '@', '.', '+', '_', '-'),
        maxLength: 12,
      }),
    ],
    { numRuns: 200 },
  )(
    'normalise_email(s) in PostgreSQL is normaliseEmail(s) (JavaScript trim + toLowerCase), Latin letters and every whitespace',
    async (s) => {
      const rows = await postgresRows(`SELECT normalise_email(${sqlLiteral(s)}) AS v`);
      expect(rows).toEqual([{ v: normaliseEmail(s) }]);
    },
  );

  test('the PostgreSQL DDL refuses what the schema refuses', async () => {
    await loadPostgres(canonicalDataset);
    const tables = datasetToTables(canonicalDataset);
    const otherTeamsGroup = tables.groups.find((g) => g.teamID !== tables.members[0]!.teamID)!;
    const member = {
      ...tables.members[0]!,
      memberID: 'new-member',
      groupID: otherTeamsGroup.groupID,
    };
    const bad: [string, string][] = [
      ['members', insertOne('members', member)],
      ['opens', insertOne('opens', { ...tables.opens[0]!, position: 999_999, device: 'phone' })],
      ['opens', insertOne('opens', { ...tables.opens[0]!, position: 999_999, tagID: 'no-tag' })],
      ['opens', insertOne('opens', { ...tables.opens[0]!, position: 999_999, latitude: '91' })],
      ['tags', insertOne('tags', { ...tables.tags[0]!, tagID: 'bad id' })],
      ['credentials', insertOne('credentials', { ...tables.credentials[0]! })],
    ];
    for (const [, sql] of bad) await expect(pg.exec(sql), sql).rejects.toThrow();
    // the same member with a group of its own team is accepted
    const ownGroup = tables.groups.find((g) => g.teamID === member.teamID)!;
    await pg.exec(insertOne('members', { ...member, groupID: ownGroup.groupID }));
  });
});

/** One INSERT of one row, columns in table order. */
function insertOne(table: string, row: Record<string, string | number | null>): string {
  const spec = TABLES.find((t) => t.name === table)!;
  const names = spec.columns.map((c) => c.name);
  return `INSERT INTO ${sqlIdentifier(table)} (${names.map(sqlIdentifier).join(', ')}) VALUES (${names.map((n) => sqlLiteral(row[n] ?? null)).join(', ')});`;
}

/** Whether `s` is writable as a SQL literal: no U+0000, no lone surrogate. */
function ok(s: string): boolean {
  return !s.includes('\u0000') && !/\p{Surrogate}/u.test(s);
}

describe('the SQL fixture in SQLite (sql.js)', TIMEOUT, () => {
  test('canonical and generated: the counters equal the oracle and the tables read back to the dataset', () => {
    for (const dataset of [canonicalDataset, generateDataset({ seed: 42, scale: 'small' })]) {
      const db = loadSqlite(dataset);
      try {
        expect(sqliteRows(db, 'PRAGMA foreign_key_check')).toEqual([]);
        const sql = {
          uniqueOpens: byId(sqliteRows(db, SQLITE_COUNTERS.uniqueOpens) as never),
          totalClicks: byId(sqliteRows(db, SQLITE_COUNTERS.totalClicks) as never),
        };
        expect(sql).toEqual(oracleCounters(dataset));
        const back = tablesFrom((t) => sqliteRows(db, readBack(t, 'sqlite')));
        expect(tablesToDataset(back)).toEqual(inIdOrder(dataset));
      } finally {
        db.close();
      }
    }
  });

  fcTest.prop([arbDataset], { numRuns: 30 })(
    'any consistent dataset loads (foreign keys hold) and reads back to itself',
    (dataset) => {
      const db = loadSqlite(dataset);
      try {
        expect(sqliteRows(db, 'PRAGMA foreign_key_check')).toEqual([]);
        const sql = {
          uniqueOpens: byId(sqliteRows(db, SQLITE_COUNTERS.uniqueOpens) as never),
          totalClicks: byId(sqliteRows(db, SQLITE_COUNTERS.totalClicks) as never),
        };
        expect(sql).toEqual(oracleCounters(dataset));
        const back = tablesFrom((t) => sqliteRows(db, readBack(t, 'sqlite')));
        expect(tablesToDataset(back)).toEqual(inIdOrder(dataset));
      } finally {
        db.close();
      }
    },
  );

  fcTest.prop([fc.string({ unit: 'binary', maxLength: 40 }).filter(ok)], { numRuns: 300 })(
    'sqlLiteral(s) read by SQLite is s, for any string without U+0000 or a lone surrogate',
    (s) => {
      const db = new sqlite.Database();
      try {
        expect(sqliteRows(db, `SELECT ${sqlLiteral(s)} AS v`)).toEqual([{ v: s }]);
      } finally {
        db.close();
      }
    },
  );

  test('the SQLite DDL refuses what the schema refuses (with PRAGMA foreign_keys = ON)', () => {
    const db = loadSqlite(canonicalDataset);
    try {
      db.exec('PRAGMA foreign_keys = ON');
      const tables = datasetToTables(canonicalDataset);
      const otherTeamsGroup = tables.groups.find((g) => g.teamID !== tables.members[0]!.teamID)!;
      const member = {
        ...tables.members[0]!,
        memberID: 'new-member',
        groupID: otherTeamsGroup.groupID,
      };
      for (const sql of [
        insertOne('members', member),
        insertOne('opens', { ...tables.opens[0]!, position: 999_999, device: 'phone' }),
        insertOne('opens', { ...tables.opens[0]!, position: 999_999, tagID: 'no-tag' }),
        insertOne('opens', { ...tables.opens[0]!, position: 999_999, latitude: '91' }),
        insertOne('tags', { ...tables.tags[0]!, tagID: 'bad id' }),
        insertOne('tags', { ...tables.tags[0]!, tagID: 'x', dateSent: 'yesterday' }),
      ]) {
        expect(() => db.exec(sql), sql).toThrow();
      }
      const ownGroup = tables.groups.find((g) => g.teamID === member.teamID)!;
      db.exec(insertOne('members', { ...member, groupID: ownGroup.groupID }));
    } finally {
      db.close();
    }
  });
});

describe('sqlLiteral', () => {
  test('TRIM_CHARACTERS are exactly the UTF-16 units String.prototype.trim removes', () => {
    const trimmed: string[] = [];
    for (let u = 0; u <= 0xffff; u++) {
      const c = String.fromCharCode(u);
      if (`${c}x${c}`.trim() === 'x') trimmed.push(c);
    }
    expect(trimmed.join('')).toBe(TRIM_CHARACTERS);
  });

  test('refuses U+0000 and lone surrogates by name, and numbers that are not safe integers', () => {
    expect(() => sqlLiteral('a\u0000b')).toThrow(SqlLiteralError);
    expect(() => sqlLiteral('a\u0000b')).toThrow(/U\+0000/);
    expect(() => sqlLiteral('\ud800x')).toThrow(/lone UTF-16 surrogate/);
    expect(() => sqlLiteral(1.5)).toThrow(RangeError);
    expect(sqlLiteral("O'Brien\\n")).toBe("'O''Brien\\n'");
    expect(sqlLiteral(null)).toBe('NULL');
  });

  test('every table name is quoted once in each DDL, in loading order', () => {
    for (const dialect of ['postgres', 'sqlite'] as const) {
      const ddl = tablesDdl(dialect);
      const created = [...ddl.matchAll(/^CREATE TABLE "(\w+)"/gm)].map((m) => m[1]);
      expect(created).toEqual(TABLE_NAMES);
    }
  });
});
