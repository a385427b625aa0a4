import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import {
  buildIndex,
  type Dataset,
  DEFAULT_PAGE_SIZE,
  openApiDocument,
  type ReportingIndex,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/core/canonical';
import { pino } from 'pino';
import { createApp } from './app.ts';
import { type FaultName, FaultSet } from './faults.ts';
import { type RateLimit, RateLimiter } from './rate-limit.ts';
import { Store } from './store.ts';

/** Options of {@link createServer} (contracts.md). */
export interface ServerOptions {
  /** The event log to serve; default the canonical dataset of `@tagtrack/core/canonical`. */
  dataset?: Dataset;
  /** Requests per window per credential (decisions §6); off by default. */
  rateLimit?: RateLimit | undefined;
  /** Records per page (decisions §3); default 250. */
  pageSize?: number;
  /** Faults to inject (see `FAULTS`); default none. */
  faults?: readonly FaultName[];
  /** Structured request logs with pino on stdout; default false. */
  logger?: boolean;
  /** Members without a group: omit `groupID`/`groupName` (default) or send `''` (decisions §8). */
  memberWithoutGroup?: 'omit' | 'empty';
  /** Epoch milliseconds now, for the rate limiter; default `Date.now` (tests inject a clock). */
  clock?: () => number;
}

/** A reference server: answers in memory through `fetch`, or on a socket after `listen`. */
export interface TagtrackServer {
  /** Answers one request without a socket (the Hono application's `fetch`). */
  fetch(request: Request): Promise<Response>;
  /** Listens on `host:port` (default 127.0.0.1, port 0 = any); resolves the base URL. Rejects on e.g. EADDRINUSE. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops listening and closes open connections; resolves when closed. No-op when not listening. */
  close(): Promise<void>;
  /** The index every answer comes from (built once by `buildIndex`). */
  readonly index: ReportingIndex;
}

/**
 * Creates the reference server of the `tagtrack/v1` profile over `options.dataset`.
 * Builds core's index once (`buildIndex`, which throws core's `DatasetError`, code
 * `invalid_dataset`, when the dataset is not referentially consistent); throws an Error for
 * an unknown fault or a page size below 1.
 */
export function createServer(options: ServerOptions = {}): TagtrackServer {
  const dataset = options.dataset ?? canonicalDataset;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new Error(`invalid page size ${pageSize}: expected an integer >= 1`);
  }
  const faults = new FaultSet(options.faults ?? []);
  const index = buildIndex(
    dataset,
    options.memberWithoutGroup ? { memberWithoutGroup: options.memberWithoutGroup } : {},
  );
  const logger = options.logger ? pino({ name: 'tagtrack-server' }) : undefined;
  let openApi: string | undefined;
  const app = createApp({
    store: new Store(index, faults),
    faults,
    pageSize,
    rateLimiter: options.rateLimit ? new RateLimiter(options.rateLimit, options.clock) : undefined,
    logger,
    openApiJson: () => {
      openApi ??= JSON.stringify(openApiDocument());
      return openApi;
    },
  });
  if (logger && faults.list().length > 0) logger.warn({ faults: faults.list() }, 'faults injected');

  let http: ReturnType<typeof createAdaptorServer> | undefined;

  return {
    index,
    fetch: async (request) => app.fetch(request),
    listen(port = 0, host = '127.0.0.1') {
      if (http) return Promise.reject(new Error('server is already listening'));
      const server = createAdaptorServer({ fetch: app.fetch });
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
