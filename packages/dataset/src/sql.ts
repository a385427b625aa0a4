import {
  type ColumnKind,
  type ColumnSpec,
  type DatasetTables,
  TABLES,
  type TableSpec,
} from './tables.ts';

/*
 * SQL for the dataset's tables (tables.ts): a DDL and INSERT statements for PostgreSQL and
 * for SQLite. Identifiers are double-quoted (the spec's camelCase names survive PostgreSQL's
 * case folding: query them as "teamID"); every value goes through `sqlLiteral`.
 */

/** The SQL dialects the fixture is written for. */
export type SqlDialect = 'postgres' | 'sqlite';

/** The dialects, in the order the fixture writes them. */
export const SQL_DIALECTS: readonly SqlDialect[] = ['postgres', 'sqlite'];

/**
 * A value that no SQL string literal of the fixture can carry: a string holding U+0000
 * (PostgreSQL's `text` cannot store it) or a lone UTF-16 surrogate (not encodable as UTF-8).
 */
export class SqlLiteralError extends Error {
  override readonly name = 'SqlLiteralError';
  readonly code = 'unrepresentable_value' as const;
  constructor(
    readonly value: string,
    reason: string,
  ) {
    super(`cannot write ${JSON.stringify(value.slice(0, 40))} as a SQL literal: ${reason}`);
  }
}

const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * The one quoting function of the SQL fixture: a string as a standard SQL string literal,
 * `'` doubled and nothing else escaped (PostgreSQL with `standard_conforming_strings = on`,
 * its default since 9.1 and set by the data file, and SQLite read it back unchanged:
 * backslashes, newlines and any other character stay as they are); a finite integer as its
 * decimal digits; `null` as `NULL`.
 * Throws {@link SqlLiteralError} for a string with U+0000 or a lone surrogate, and a
 * `RangeError` for a number that is not a safe integer.
 */
export function sqlLiteral(value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value))
      throw new RangeError(`${value} is not a safe integer: the tables hold integers only`);
    return String(value);
  }
  if (value.includes('\u0000'))
    throw new SqlLiteralError(value, 'it holds U+0000, which PostgreSQL text cannot store');
  if (LONE_SURROGATE.test(value))
    throw new SqlLiteralError(value, 'it holds a lone UTF-16 surrogate (not valid Unicode)');
  return `'${value.replaceAll("'", "''")}'`;
}

/** A double-quoted SQL identifier (`"` doubled): `teamID` -> `"teamID"`. */
export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const ID_RE = '^[A-Za-z0-9_-]+$';

/** The type and CHECK constraint of a column kind in a dialect (`col` is the quoted name). */
function typeOf(kind: ColumnKind, col: string, dialect: SqlDialect): [string, string?] {
  const pg = dialect === 'postgres';
  switch (kind.kind) {
    case 'id':
      return pg
        ? ['text', `${col} ~ ${sqlLiteral(ID_RE)}`]
        : ['TEXT', `${col} <> '' AND ${col} NOT GLOB '*[^A-Za-z0-9_-]*'`];
    case 'text':
      return [pg ? 'text' : 'TEXT'];
    case 'nonEmptyText':
      return [pg ? 'text' : 'TEXT', `${col} <> ''`];
    case 'timestamp':
      // PostgreSQL parses RFC 3339 into an instant; SQLite keeps the text (its date functions read it)
      return pg
        ? ['timestamptz']
        : ['TEXT', `${col} GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T*Z'`];
    case 'position':
      return [pg ? 'integer' : 'INTEGER', `${col} >= 0`];
    case 'latitude':
    case 'longitude': {
      const limit = kind.kind === 'latitude' ? 90 : 180;
      // numeric keeps the decimal digits as written; SQLite's REAL would not, so it keeps TEXT
      return pg
        ? ['numeric', `${col} BETWEEN -${limit} AND ${limit}`]
        : ['TEXT', `CAST(${col} AS REAL) BETWEEN -${limit} AND ${limit}`];
    }
    case 'enum':
      return [pg ? 'text' : 'TEXT', `${col} IN (${kind.values.map(sqlLiteral).join(', ')})`];
  }
}

function columnDdl(column: ColumnSpec, dialect: SqlDialect): string {
  const col = sqlIdentifier(column.name);
  const [type, check] = typeOf(column.type, col, dialect);
  const notNull = column.nullable ? '' : ' NOT NULL';
  return `  ${col} ${type}${notNull}${check === undefined ? '' : ` CHECK (${check})`}`;
}

const list = (names: readonly string[]) => names.map(sqlIdentifier).join(', ');

function tableDdl(table: TableSpec, dialect: SqlDialect): string {
  const lines = [
    ...table.columns.map((c) => columnDdl(c, dialect)),
    `  PRIMARY KEY (${list(table.primaryKey)})`,
    ...table.foreignKeys.map(
      (fk) =>
        `  FOREIGN KEY (${list(fk.columns)}) REFERENCES ${sqlIdentifier(fk.table)} (${list(fk.references)})`,
    ),
  ];
  const indexes = table.indexes.map(
    (cols) =>
      `CREATE INDEX ${sqlIdentifier(`${table.name}_${cols.join('_')}`)} ON ${sqlIdentifier(table.name)} (${list(cols)});`,
  );
  return [`CREATE TABLE ${sqlIdentifier(table.name)} (\n${lines.join(',\n')}\n);`, ...indexes].join(
    '\n',
  );
}

/**
 * The characters JavaScript's `String.prototype.trim` removes (ECMAScript WhiteSpace and
 * LineTerminator): what "trimmed" means in the contact key of spec §10 (`normaliseEmail`).
 */
export const TRIM_CHARACTERS =
  '\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

/**
 * The PostgreSQL function `normalise_email(text)`: the contact key of spec §10 (core's
 * `normaliseEmail`), `btrim` of {@link TRIM_CHARACTERS} then `lower`. `lower` folds
 * non-ASCII letters only under a UTF-8 `LC_CTYPE` (or `COLLATE pg_unicode_fast`, PostgreSQL 18).
 */
function normaliseEmailFunction(): string {
  const hex = [...TRIM_CHARACTERS]
    .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');
  return [
    '-- the contact key of spec §10: the email trimmed (as JavaScript trims) and lowercased',
    'CREATE FUNCTION normalise_email(email text) RETURNS text',
    `  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT lower(btrim(email, E'${hex}')) $$;`,
  ].join('\n');
}

/**
 * The DDL of the eight tables (tables.ts `TABLES`) in a dialect, in loading order: types
 * (PostgreSQL `text`, `integer`, `timestamptz`, `numeric`; SQLite `TEXT`, `INTEGER`),
 * NOT NULL on every column the schema requires, CHECK constraints for ids, enums, positions
 * and coordinates, primary keys, foreign keys (a member's `groupID` with its `teamID`, so a
 * group of another team is refused; `NULL` for no group) and indexes on the event and member
 * foreign keys. PostgreSQL's also creates `normalise_email(text)`, the contact key (spec §10);
 * SQLite cannot define it in SQL (register it in the application). Ends with a newline.
 */
export function tablesDdl(dialect: SqlDialect): string {
  const head = [
    `-- tagtrack dataset tables (${dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'}), generated by @tagtrack/core tablesDdl`,
    '-- identifiers are quoted: query columns as "teamID", "memberID", "tagID", ...',
  ];
  if (dialect === 'sqlite')
    head.push('-- SQLite checks foreign keys only after PRAGMA foreign_keys = ON');
  const parts = TABLES.map((t) => tableDdl(t, dialect));
  if (dialect === 'postgres') parts.push(normaliseEmailFunction());
  else
    head.push(
      "-- the contact key of spec §10 needs a function normalise_email(email) registered by the application: SQLite's lower() folds ASCII only",
    );
  return `${[...head, '', parts.join('\n\n')].join('\n')}\n`;
}

/** Options of {@link sqlInserts}. */
export interface SqlInsertOptions {
  /** Rows per INSERT statement (multi-row VALUES); default 500. */
  readonly rowsPerStatement?: number;
}

/**
 * The INSERT statements loading `tables` into the tables of {@link tablesDdl}, as text
 * chunks to write in order (a generator, so a large dataset is never one string): a header
 * (PostgreSQL: `SET standard_conforming_strings = on`; SQLite: `PRAGMA foreign_keys = ON`),
 * `BEGIN;`, one multi-row INSERT per `rowsPerStatement` rows of each table in loading order
 * with columns named, then `COMMIT;`. Values go through {@link sqlLiteral}, so a string it
 * refuses throws {@link SqlLiteralError} while generating.
 */
export function* sqlInserts(
  tables: DatasetTables,
  dialect: SqlDialect,
  options: SqlInsertOptions = {},
): Generator<string> {
  const batch = options.rowsPerStatement ?? 500;
  if (!Number.isInteger(batch) || batch < 1)
    throw new RangeError(`rowsPerStatement must be a positive integer, got ${batch}`);
  yield `-- tagtrack dataset rows (${dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'}), generated by @tagtrack/core sqlInserts\n`;
  yield dialect === 'postgres'
    ? 'SET standard_conforming_strings = on;\n'
    : 'PRAGMA foreign_keys = ON;\n';
  yield 'BEGIN;\n';
  for (const table of TABLES) {
    const rows = tables[table.name] as readonly Record<string, string | number | null>[];
    const names = table.columns.map((c) => c.name);
    const head = `INSERT INTO ${sqlIdentifier(table.name)} (${list(names)}) VALUES\n`;
    for (let i = 0; i < rows.length; i += batch) {
      const values = rows
        .slice(i, i + batch)
        .map((row) => `(${names.map((n) => sqlLiteral(row[n] ?? null)).join(', ')})`);
      yield `${head}${values.join(',\n')};\n`;
    }
  }
  yield 'COMMIT;\n';
}
