import type { Dataset, MemberWithoutGroup, ReportingEngine } from '@tagtrack/core';
import { buildIndex } from './memory/build.ts';
import { indexEngine } from './memory/engine.ts';
import { openSqlEngine } from './sql/engine.ts';

/** Which engine {@link openEngine} opens: the in-memory index, embedded PGlite, or a PostgreSQL server. */
export type EngineName = 'memory' | 'pglite' | 'postgres';

/** Options of {@link openEngine}. */
export interface OpenEngineOptions {
  /** Which engine answers. */
  readonly engine: EngineName;
  /** `postgres://` URL of the server (`postgres` only; required there). */
  readonly databaseUrl?: string | undefined;
  /**
   * The dataset to serve: indexed in memory (`memory`, required there), or loaded first into
   * the database (drop and recreate the tables); absent with `postgres`: serve the tables
   * already there. PGlite starts empty, so it needs one.
   */
  readonly load?: Dataset | undefined;
  /** Members without a group: omit `groupID`/`groupName` (default) or send `''` (spec §9). */
  readonly memberWithoutGroup?: MemberWithoutGroup | undefined;
}

/**
 * Opens the engine `options.engine` over `options.load`: `memory` builds the in-memory index
 * (`buildIndex`, which throws core's `DatasetError` for an inconsistent dataset) behind
 * {@link indexEngine}; `pglite` and `postgres` open the SQL engine (`openSqlEngine`, which
 * rejects with `SqlEngineError`: bad URL, unreachable server, missing tables, another schema
 * version, a failed load). Rejects with a `TypeError` when `memory` has no dataset or
 * `postgres` no URL.
 */
export async function openEngine(options: OpenEngineOptions): Promise<ReportingEngine> {
  const memberWithoutGroup =
    options.memberWithoutGroup === undefined
      ? {}
      : { memberWithoutGroup: options.memberWithoutGroup };
  const load = options.load === undefined ? {} : { load: options.load };
  switch (options.engine) {
    case 'memory':
      if (options.load === undefined)
        throw new TypeError('the memory engine needs a dataset to index');
      return indexEngine(buildIndex(options.load, memberWithoutGroup));
    case 'pglite':
      return openSqlEngine({ ...load, ...memberWithoutGroup });
    case 'postgres':
      if (options.databaseUrl === undefined) {
        throw new TypeError('the postgres engine needs a database URL');
      }
      return openSqlEngine({ databaseUrl: options.databaseUrl, ...load, ...memberWithoutGroup });
  }
}
