import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import {
  type Dataset,
  DEFAULT_PAGE_SIZE,
  DEFAULT_PAGING_END,
  openApiDocument,
  type PagingEnd,
  type ReportingEngine,
  type ReportingIndex,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import {
  type BuildIndexOptions,
  buildIndex,
  type ColumnarSource,
  indexEngine,
} from '@tagtrack/engine';
import { pino } from 'pino';
import { createApp } from './app.ts';
import { type Composition, compose } from './compose.ts';
import { type FaultName, FaultSet } from './faults/index.ts';
import { LiveAppender, LiveData, type LiveHandle, type LiveOptions } from './live.ts';
import { type RateLimit, RateLimiter } from './rate-limit.ts';
import {
  type VariantName,
  type VariantServerOptions,
  VariantSet,
  variantInfo,
} from './variants/index.ts';
import { RECIPIENT_VARIANTS } from './variants/recipients.ts';
import type { FetchHandler } from './variants/transport.ts';

/**
 * Options of {@link createServer} that cannot work: a page size below 1, an unknown paging
 * end, an invalid public URL, or an option that contradicts a variant. `message` says which.
 */
export class ServerOptionsError extends Error {
  override readonly name = 'ServerOptionsError';
  readonly code = 'invalid_options' as const;
}

/** The data as the server answers it: its in-memory index (none with an engine) and application. */
interface Served {
  readonly index: ReportingIndex | undefined;
  fetch(request: Request, env?: object): Response | Promise<Response>;
}

/** The base URL of paging links before `listen` (an in-memory server has no address). */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1';

/** Options of {@link createServer} (contracts.md). */
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
   * it and closes it ({@link TagtrackServer.close} does not). It answers with its own
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

/** A reference server: answers in memory through `fetch`, or on a socket after `listen`. */
export interface TagtrackServer {
  /** The base URL of paging links now (see {@link ServerOptions.publicUrl}). */
  readonly publicUrl: string;
  /** The active variants. */
  readonly variants: readonly VariantName[];
  /** Answers one request without a socket (the Hono application's `fetch`). */
  fetch(request: Request): Promise<Response>;
  /** Listens on `host:port` (default 127.0.0.1, port 0 = any); resolves the base URL. Rejects on e.g. EADDRINUSE. */
  listen(port?: number, host?: string): Promise<string>;
  /**
   * Stops the live data's timer for good (when `live`), stops listening and closes open
   * connections; resolves when closed. Otherwise a no-op when not listening.
   */
  close(): Promise<void>;
  /**
   * The in-memory index answers come from: built once by `buildIndex`, or under `live` the
   * current version's (a new one for each version); `undefined` with an `engine` option.
   */
  readonly index: ReportingIndex | undefined;
  /** What answers: the in-memory index's engine (`memory`), or the `engine` option. */
  readonly engine: ReportingEngine;
  /** The live data when `live` was given (its current version, `tick`), else `undefined`. */
  readonly live: LiveHandle | undefined;
  /**
   * With `live` and an engine over a database (`engine.live`): what appends the records
   * there (`tick()` appends what is due now, `appended` counts them); else `undefined`.
   */
  readonly appender: LiveAppender | undefined;
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

/** The options of {@link createServer} checked, with the variants' options applied. */
interface Settings {
  readonly options: ServerOptions;
  readonly faults: FaultSet;
  readonly variants: VariantSet;
  readonly pageSize: number;
  readonly pagingEnd: PagingEnd;
  /** `publicUrl` normalised, when given. */
  readonly configuredUrl: string | undefined;
}

/** Step 1 of {@link createServer}: the options checked (see there for what throws). */
function settingsOf(serverOptions: ServerOptions): Settings {
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

/** What answers: the engine, its in-memory index (none with an `engine` option), the dataset served. */
interface Source {
  readonly engine: ReportingEngine;
  readonly index: ReportingIndex | undefined;
  readonly dataset: Dataset | undefined;
}

/**
 * Step 2 of {@link createServer}: the `engine` option, or the in-memory index over
 * `columnar` or `dataset` (default the canonical dataset) built once (`buildIndex`).
 */
function sourceOf(options: ServerOptions): Source {
  if (options.engine !== undefined) {
    const index = options.engine.index;
    return { engine: options.engine, index, dataset: index?.dataset ?? options.dataset };
  }
  const index = options.columnar
    ? options.columnar.finish(indexOptionsOf(options)).index
    : buildIndex(options.dataset ?? canonicalDataset, indexOptionsOf(options));
  return { engine: indexEngine(index), index, dataset: index.dataset };
}

function indexOptionsOf(options: ServerOptions): BuildIndexOptions {
  return options.memberWithoutGroup ? { memberWithoutGroup: options.memberWithoutGroup } : {};
}

/**
 * Step 3 of {@link createServer}: the application over one version of the data. One
 * application per version: its store, and the caches of its middleware (responses, verified
 * signatures), answer from that version only (live.ts).
 */
function servingOf(
  settings: Settings,
  composition: Composition,
  publicUrl: () => string,
): (source: Source) => Served {
  const { options, pageSize, pagingEnd } = settings;
  const logger = options.logger ? pino({ name: 'tagtrack-server' }) : undefined;
  if (logger && settings.faults.list().length > 0) {
    logger.warn({ faults: settings.faults.list() }, 'faults injected');
  }
  if (logger && settings.variants.list().length > 0) {
    logger.info({ variants: settings.variants.list() }, 'variants');
  }
  const rateLimiter = options.rateLimit
    ? new RateLimiter(options.rateLimit, options.clock)
    : undefined;
  let openApi: string | undefined;
  const openApiJson = () => {
    openApi ??= JSON.stringify(openApiDocument());
    return openApi;
  };
  return (source) => {
    const app = createApp({
      store: composition.store(source.engine, source.dataset),
      renderer: composition.renderer,
      layers: composition.layers,
      pageSize,
      pagingEnd,
      publicUrl,
      rateLimiter,
      logger,
      openApiJson,
      // an engine that answers a page in milliseconds: keep 8 MiB of responses, not 64, so
      // the server process stays small and the database does the remembering
      responseCacheBytes: source.engine.servesWindows ? 8 * 1024 * 1024 : undefined,
    });
    return { index: source.index, fetch: app.fetch };
  };
}

/**
 * Step 4 of {@link createServer}: the live data over the in-memory index (`undefined`
 * without `options.live`); a bad rate or seed is a {@link ServerOptionsError}.
 */
function liveOf(
  options: ServerOptions,
  first: Served,
  index: ReportingIndex | undefined,
  serve: (source: Source) => Served,
): LiveData<Served & { readonly index: ReportingIndex }> | undefined {
  if (options.live === undefined || index === undefined) return undefined;
  try {
    return new LiveData(index.dataset, { ...first, index }, options.live, (d) => {
      const next = buildIndex(d, indexOptionsOf(options));
      return {
        ...serve({ engine: indexEngine(next), index: next, dataset: next.dataset }),
        index: next,
      };
    });
  } catch (e) {
    if (e instanceof RangeError) throw new ServerOptionsError(e.message);
    throw e;
  }
}

/** How often a server over a database starts from fresh caches (ms). */
const DATABASE_EPOCH_MS = 1000;

/**
 * Step 4 for an engine over a database (`engine.live`): its data and credentials change
 * under the server (its own appended records with `options.live`, others' INSERTs), so the
 * application is made anew, with empty caches, after each append of the server's
 * {@link LiveAppender} and at least every second (after re-reading the credentials): a
 * response is never replayed from before a record the server appended, and an outside
 * change is seen within a second. `undefined` for an engine whose data never changes.
 */
function databaseLiveOf(
  options: ServerOptions,
  source: Source,
  first: Served,
  serve: () => Served,
):
  | { current(): Served; readonly appender: LiveAppender | undefined; stop(): Promise<void> }
  | undefined {
  const live = source.engine.live;
  if (live === undefined) return undefined;
  let current = first;
  const renew = () => {
    current = serve();
  };
  let appender: LiveAppender | undefined;
  if (options.live !== undefined) {
    try {
      appender = new LiveAppender(live, options.live, renew, (e) => {
        process.emitWarning(
          `live data: cannot append: ${e instanceof Error ? e.message : String(e)}`,
        );
      });
    } catch (e) {
      if (e instanceof RangeError) throw new ServerOptionsError(e.message);
      throw e;
    }
  }
  const epoch = setInterval(() => {
    live.refreshCredentials().then(renew, renew);
  }, DATABASE_EPOCH_MS);
  epoch.unref();
  return {
    current: () => current,
    appender,
    async stop() {
      clearInterval(epoch);
      await appender?.stop();
    },
  };
}

/** A server socket for `fetch`: `listen` resolves the URL it listens on, `close` stops it. */
interface Socket {
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

/** Step 5 of {@link createServer}: listening and closing (one socket at a time). */
function socketOf(fetch: FetchHandler): Socket {
  let http: ReturnType<typeof createAdaptorServer> | undefined;
  return {
    listen(port, host) {
      if (http) return Promise.reject(new Error('server is already listening'));
      const server = createAdaptorServer({ fetch });
      return new Promise<string>((resolve, reject) => {
        const onError = (err: Error) => {
          server.removeListener('listening', onListening);
          reject(err);
        };
        const onListening = () => {
          server.removeListener('error', onError);
          http = server;
          const address = server.address() as AddressInfo;
          const h = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${h}:${address.port}`);
        };
        server.once('error', onError);
        server.once('listening', onListening);
        server.listen(port, host);
      });
    },
    close() {
      const server = http;
      http = undefined;
      if (!server) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
    },
  };
}

/**
 * Creates the reference server of the `tagtrack/v1` profile over `options.dataset`, or
 * answering from `options.engine`. Without an engine, builds core's index once
 * (`buildIndex`, which throws core's `DatasetError`, code `invalid_dataset`, when the dataset
 * is not referentially consistent); throws an Error for an unknown fault or variant, and
 * {@link ServerOptionsError} for a page size below 1, an invalid public URL, an option that
 * contradicts a variant, or what an engine cannot serve (a store fault, `live`).
 */
export function createServer(serverOptions: ServerOptions = {}): TagtrackServer {
  const settings = settingsOf(serverOptions);
  const { options, faults, variants } = settings;
  let listenUrl: string | undefined;
  const publicUrl = () => settings.configuredUrl ?? listenUrl ?? DEFAULT_PUBLIC_URL;
  const source = sourceOf(options);
  const composition = compose(faults, variants);
  const serve = servingOf(settings, composition, publicUrl);
  const first = serve(source);
  const live = liveOf(options, first, source.index, serve);
  const database = databaseLiveOf(options, source, first, () => serve(source));
  const served = () => live?.current.served ?? database?.current() ?? first;
  const fetch = (request: Request, env?: object) => served().fetch(request, env);
  const socket = socketOf(composition.socket(fetch));
  return {
    get index() {
      return served().index;
    },
    engine: source.engine,
    live,
    appender: database?.appender,
    get publicUrl() {
      return publicUrl();
    },
    variants: variants.list(),
    fetch: async (request) => fetch(request),
    async listen(port = 0, host = '127.0.0.1') {
      listenUrl = await socket.listen(port, host);
      return listenUrl;
    },
    async close() {
      live?.stop();
      await database?.stop();
      listenUrl = undefined;
      return socket.close();
    },
  };
}
