/**
 * The options of the reference server (`createServer` in server.ts) and their checks: the
 * options' type, the error a wrong one throws, the public base URL (spec §5 Revision 2), the
 * variants' server options applied, and what an `engine` option cannot serve.
 */
import {
  type Dataset,
  DEFAULT_PAGE_SIZE,
  DEFAULT_PAGING_END,
  type PagingEnd,
  type ReportingEngine,
} from '@tagtrack/core';
import type { ColumnarSource } from '@tagtrack/engine';
import { type FaultName, FaultSet } from './faults/index.ts';
import type { LiveOptions } from './live.ts';
import type { RateLimit } from './rate-limit.ts';
import {
  type VariantName,
  type VariantServerOptions,
  VariantSet,
  variantInfo,
} from './variants/index.ts';
import { RECIPIENT_VARIANTS } from './variants/recipients.ts';

/**
 * Options of `createServer` that cannot work: a page size below 1, an unknown paging
 * end, an invalid public URL, or an option that contradicts a variant. `message` says which.
 */
export class ServerOptionsError extends Error {
  override readonly name = 'ServerOptionsError';
  readonly code = 'invalid_options' as const;
}

/** The base URL of paging links before `listen` (an in-memory server has no address). */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1';

/** Options of `createServer` (contracts.md). */
export interface ServerOptions {
  /**
   * The event log to serve; default the canonical dataset of `@tagtrack/dataset/canonical`.
   * With `engine`, not indexed: only the dataset the engine serves, which the store variants
   * `contact-ids-alternative` and `event-recipient-email-*` read (without it they are refused).
   */
  dataset?: Dataset;
  /**
   * Where answers come from instead of core's in-memory index over `dataset`: e.g. the SQL
   * engine of `@tagtrack/engine` (`openSqlEngine`, PGlite or PostgreSQL). The caller opened
   * it and closes it (`TagtrackServer.close` (server.ts) does not). It answers with its own
   * `memberWithoutGroup` (the option here is then ignored). The store faults and `live` need
   * the in-memory index: with `engine` they throw {@link ServerOptionsError}, as does
   * `columnar`. A list page is asked as a window (one page) unless a store or paging fault
   * or a store variant reads the whole list.
   */
  engine?: ReportingEngine;
  /**
   * A dataset loaded into core's columnar store (`loadDatasetSource`, a file or per-table
   * directory), served instead of `dataset`: finished here with the index options.
   */
  columnar?: ColumnarSource;
  /** Requests per window per credential (spec §7); off by default. */
  rateLimit?: RateLimit | undefined;
  /** Records per page (spec §5); default 250. */
  pageSize?: number;
  /**
   * How a list ends (spec §5 Revision 2): `no-content` (default: 204 past the end, the
   * last non-empty page links to cursor=total) or `empty-page` (200 `data: []`).
   */
  pagingEnd?: PagingEnd;
  /**
   * Base of `nextURL`, `previousURL` and `Link` (spec §5 Revision 2): an absolute
   * http(s) URL, possibly with a path prefix, without query or fragment (a trailing slash is
   * dropped). Never taken from the request's Host. Default: the URL `listen()` resolved,
   * and `http://127.0.0.1` before (in-memory `fetch`).
   */
  publicUrl?: string;
  /** Faults to inject (see `FAULTS`); default none. */
  faults?: readonly FaultName[];
  /**
   * Variants to take (see `VARIANTS`): freedoms of the profile taken another way; default
   * none. A variant's server options (`page-size-7`, `empty-page`,
   * `member-without-group-empty`) apply; an explicit option that contradicts one throws.
   */
  variants?: readonly VariantName[];
  /** Structured request logs with pino on stdout; default false. */
  logger?: boolean;
  /** Members without a group: omit `groupID`/`groupName` (default) or send `''` (spec §9). */
  memberWithoutGroup?: 'omit' | 'empty';
  /** Epoch milliseconds now, for the rate limiter; default `Date.now` (tests inject a clock). */
  clock?: () => number;
  /**
   * Live data (spec §5 Revision 3): append tags, opens and clicks to every team at
   * `rate` records per second (seeded by `seed`, default 1, dated by `clock`, default
   * `Date.now`), each request answered from one immutable version (see `live.ts`). Off by
   * default. A rate that is not a finite number > 0 throws {@link ServerOptionsError}.
   */
  live?: LiveOptions;
}

/**
 * Checks a public base URL (spec §5 Revision 2): absolute `http:` or `https:`, with a
 * host, no query, fragment or credentials. Returns it without a trailing slash; throws an
 * {@link ServerOptionsError} saying what is wrong otherwise.
 */
export function normalisePublicUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ServerOptionsError(`invalid public URL '${url}': expected an absolute http(s) URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ServerOptionsError(`invalid public URL '${url}': the scheme must be http or https`);
  }
  if (parsed.search !== '' || parsed.hash !== '' || url.includes('?') || url.includes('#')) {
    throw new ServerOptionsError(`invalid public URL '${url}': no query or fragment allowed`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ServerOptionsError(`invalid public URL '${url}': no credentials allowed`);
  }
  return parsed.href.replace(/\/+$/, '');
}

/** The server options after the variants' ones (an explicit contradicting option throws). */
function withVariantOptions(
  options: ServerOptions,
  variants: readonly VariantName[],
): ServerOptions {
  const out: ServerOptions = { ...options };
  for (const name of variants) {
    const set: VariantServerOptions = variantInfo(name).server ?? {};
    for (const [key, value] of Object.entries(set) as [keyof VariantServerOptions, unknown][]) {
      const given = options[key];
      if (given !== undefined && given !== value) {
        throw new ServerOptionsError(
          `variant ${name} sets ${key} ${String(value)}, but ${key} ${String(given)} was given`,
        );
      }
      const other = out[key];
      if (other !== undefined && other !== value) {
        throw new ServerOptionsError(
          `variant ${name} sets ${key} ${String(value)}, another variant ${String(other)}`,
        );
      }
      (out as Record<string, unknown>)[key] = value;
    }
  }
  return out;
}

/** The store variants that read the dataset's ids and emails (`variants/records.ts`, `variants/recipients.ts`). */
const DATASET_VARIANTS = ['contact-ids-alternative', ...RECIPIENT_VARIANTS] as const;

/**
 * Why `faults` cannot be injected with the engine named `engineName` (which has no in-memory
 * index), or `undefined` when they can: the store faults wrap the store over the in-memory
 * index (`FaultSet.wrap('store', …)`), so a SQL engine refuses them (the message names them).
 */
export function storeFaultsRefusal(
  faults: readonly FaultName[],
  engineName: string,
): string | undefined {
  const store = new FaultSet(faults).wrapping('store');
  if (store.length === 0) return undefined;
  return `fault ${store.join(', ')} wraps the store over the in-memory index: it needs the in-memory engine, not ${engineName}`;
}

/**
 * Throws {@link ServerOptionsError} for what an `engine` option cannot serve: a store fault
 * (without the engine's in-memory index) or `live` (it rebuilds an in-memory index),
 * `columnar` (a second source), or a store variant reading the dataset when no `dataset`
 * says what the engine serves.
 */
function refuseWithEngine(
  options: ServerOptions,
  engine: ReportingEngine,
  faults: FaultSet,
  variants: VariantSet,
): void {
  if (engine.index === undefined) {
    const storeFaults = storeFaultsRefusal(faults.list(), engine.name);
    if (storeFaults !== undefined) throw new ServerOptionsError(storeFaults);
  }
  if (options.live !== undefined && engine.live === undefined) {
    throw new ServerOptionsError(
      `live data needs the in-memory engine or an engine over a database, not ${engine.name}`,
    );
  }
  if (options.columnar !== undefined) {
    throw new ServerOptionsError('columnar and engine are two sources of answers: give one');
  }
  const needy = DATASET_VARIANTS.find((v) => variants.has(v));
  if (needy !== undefined && options.dataset === undefined) {
    throw new ServerOptionsError(
      `variant ${needy} needs the dataset the ${engine.name} engine serves (option dataset)`,
    );
  }
}

/** The options of `createServer` checked, with the variants' options applied. */
export interface Settings {
  readonly options: ServerOptions;
  readonly faults: FaultSet;
  readonly variants: VariantSet;
  readonly pageSize: number;
  readonly pagingEnd: PagingEnd;
  /** `publicUrl` normalised, when given. */
  readonly configuredUrl: string | undefined;
}

/** Step 1 of `createServer`: the options checked (see there for what throws). */
export function settingsOf(serverOptions: ServerOptions): Settings {
  const variants = new VariantSet(serverOptions.variants ?? []);
  const options = withVariantOptions(serverOptions, variants.list());
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new ServerOptionsError(`invalid page size ${pageSize}: expected an integer >= 1`);
  }
  const pagingEnd = options.pagingEnd ?? DEFAULT_PAGING_END;
  if (pagingEnd !== 'no-content' && pagingEnd !== 'empty-page') {
    throw new ServerOptionsError(
      `invalid paging end '${String(pagingEnd)}': expected no-content or empty-page`,
    );
  }
  const configuredUrl =
    options.publicUrl === undefined ? undefined : normalisePublicUrl(options.publicUrl);
  const faults = new FaultSet(options.faults ?? []);
  if (options.engine !== undefined) refuseWithEngine(options, options.engine, faults, variants);
  return { options, faults, variants, pageSize, pagingEnd, configuredUrl };
}
