/**
 * The reference server of the `tagtrack/v1` profile (`createServer`): what answers (the
 * `engine` option, or core's in-memory index over the dataset), the application over each
 * version of the data, live data (spec §5 Revision 3), and the server object. Its options
 * and their checks are in server-options.ts, its socket in server-socket.ts.
 */
import {
  type Dataset,
  type LiveEngine,
  openApiDocument,
  type ReportingEngine,
  type ReportingIndex,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { type BuildIndexOptions, buildIndex, indexEngine } from '@tagtrack/engine';
import { pino } from 'pino';
import { createApp } from './app.ts';
import { type Composition, compose } from './compose.ts';
import { LiveAppender, LiveData, type LiveHandle } from './live.ts';
import { RateLimiter } from './rate-limit.ts';
import {
  DEFAULT_PUBLIC_URL,
  type ServerOptions,
  ServerOptionsError,
  type Settings,
  settingsOf,
} from './server-options.ts';
import { socketOf } from './server-socket.ts';
import type { VariantName } from './variants/index.ts';

export {
  DEFAULT_PUBLIC_URL,
  normalisePublicUrl,
  type ServerOptions,
  ServerOptionsError,
  storeFaultsRefusal,
} from './server-options.ts';

/** The data as the server answers it: its in-memory index (none with an engine) and application. */
interface Served {
  readonly index: ReportingIndex | undefined;
  fetch(request: Request, env?: object): Response | Promise<Response>;
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
 * {@link LiveAppender} and at least every second (after re-reading the credentials), and
 * while an append is under way each request gets an application of its own: a response is
 * never replayed from before a record the server appended once the record may have been
 * read, and an outside change is seen within a second. `undefined` for an engine whose data
 * never changes.
 */
function databaseLiveOf(
  options: ServerOptions,
  source: Source,
  first: Served,
  serve: () => Served,
):
  | { current(): Served; readonly appender: LiveAppender | undefined; stop(): Promise<void> }
  | undefined {
  const engineLive = source.engine.live;
  if (engineLive === undefined) return undefined;
  let current = first;
  const renew = () => {
    current = serve();
  };
  // Appends under way: from the start of an append until the application is renewed after it,
  // each request is answered by an application of its own (empty caches). The append commits
  // before its promise settles, so a cached response read before the commit must not be
  // replayed after a fresh response has shown the new rows (one client would see the data
  // go back).
  let appending = 0;
  const live: LiveEngine = {
    ...engineLive,
    append: async (records) => {
      appending++;
      try {
        await engineLive.append(records);
      } finally {
        renew();
        appending--;
      }
    },
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
    current: () => (appending > 0 ? serve() : current),
    appender,
    async stop() {
      clearInterval(epoch);
      await appender?.stop();
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
