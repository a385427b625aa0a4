/**
 * The engine flags of `tagtrack-server` (main.ts): `--engine memory|pglite` and
 * `--database-url URL`, which engine answers, opening a SQL engine (`@tagtrack/engine`'s
 * `openEngine`) with the dataset to load, and its failures as one line that never shows
 * the URL's password.
 */
import type { Dataset, ReportingEngine } from '@tagtrack/core';
import { openEngine, redactUrl, type SqlTopology } from '@tagtrack/engine';

/** What answers the CLI's server: core's in-memory index, embedded PGlite, or a PostgreSQL server. */
export type CliEngine = 'memory' | 'pglite' | 'postgres';

/** The engine flags as parsed (`--engine` has no default, so an explicit one is seen). */
export interface EngineFlags {
  readonly engine?: 'memory' | 'pglite' | undefined;
  readonly databaseUrl?: string | undefined;
}

/** An engine flag that cannot work: main.ts exits 2 with `message` (one line, no password). */
export class EngineFlagError extends Error {
  override readonly name = 'EngineFlagError';
}

/**
 * The engine the flags pick: `--database-url` the `postgres` engine (with any `--engine`: an
 * {@link EngineFlagError}), else `--engine`, default `memory`. The URL itself is checked by
 * `openSqlEngine` (its `SqlEngineError` `bad_url`).
 */
export function engineOf(flags: EngineFlags): CliEngine {
  if (flags.databaseUrl === undefined) return flags.engine ?? 'memory';
  if (flags.engine !== undefined) {
    throw new EngineFlagError(
      `--database-url answers from that PostgreSQL server: it cannot be used with --engine ${flags.engine}`,
    );
  }
  return 'postgres';
}

/**
 * `message` without the password of `databaseUrl` (as written, and percent-decoded) and
 * without the password of any `scheme://user:password@` in it: for what rejects besides
 * `SqlEngineError`, whose messages never hold it.
 */
export function redactPassword(message: string, databaseUrl: string | undefined): string {
  let out = message.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)[^@\s]*@/gi, '$1***@');
  const password = databaseUrl === undefined ? '' : passwordOf(databaseUrl);
  if (password !== '') {
    for (const form of new Set([password, safeDecode(password)])) {
      if (form !== '') out = out.split(form).join('***');
    }
  }
  return out;
}

function passwordOf(url: string): string {
  try {
    return new URL(url).password;
  } catch {
    return /^[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:([^@\s]*)@/i.exec(url)?.[1] ?? '';
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** What {@link openSqlEngineFlag} needs beside the engine's name. */
export interface SqlEngineFlagOptions {
  readonly databaseUrl?: string | undefined;
  /** The dataset to load first (drop and recreate the tables); absent: serve those there. */
  readonly load?: Dataset | undefined;
  readonly memberWithoutGroup?: 'omit' | 'empty' | undefined;
}

/**
 * Opens the SQL engine `engine` (`pglite`: embedded, in memory; `postgres`: the server at
 * `options.databaseUrl`) through `@tagtrack/engine`'s `openEngine`, loading `options.load`
 * first when given. Any failure (its `SqlEngineError`: bad URL, unreachable, missing tables,
 * another schema version, a failed load; or any other rejection) is an
 * {@link EngineFlagError} with a one-line message without the URL's password.
 */
export async function openSqlEngineFlag(
  engine: 'pglite' | 'postgres',
  options: SqlEngineFlagOptions,
): Promise<ReportingEngine> {
  try {
    return await openEngine({ engine, ...options });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new EngineFlagError(
      redactPassword(`${engine} engine: ${message}`, options.databaseUrl).replace(/\s*\n\s*/g, ' '),
    );
  }
}

/** What the banner says of a server's database: a Citus coordinator, a standby, or neither. */
const TOPOLOGY_NOTE: Record<SqlTopology, string> = {
  embedded: '',
  single: '',
  coordinator: 'Citus coordinator, tables sharded by team; ',
  standby: 'read-only hot standby, nothing installed or refreshed; ',
};

/**
 * The banner's line naming what answers (the URL redacted); `topology`: where the SQL
 * engine's database stands (Citus coordinator, standby), when known.
 */
export function engineLine(
  engine: CliEngine,
  databaseUrl: string | undefined,
  loaded: boolean,
  topology: SqlTopology = 'single',
): string {
  switch (engine) {
    case 'memory':
      return 'engine: memory (in-memory index)';
    case 'pglite':
      return 'engine: pglite (embedded PostgreSQL in memory, dataset loaded)';
    case 'postgres':
      return `engine: postgres at ${redactUrl(databaseUrl ?? '')} (${TOPOLOGY_NOTE[topology]}${loaded ? 'dataset loaded' : 'serving the tables already there'})`;
  }
}
