/**
 * The reference server's socket: listening on a host and port through `@hono/node-server`
 * and closing (one socket at a time), for the `fetch` that `createServer` (server.ts) makes.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { FetchHandler } from './variants/transport.ts';

/** A server socket for `fetch`: `listen` resolves the URL it listens on, `close` stops it. */
export interface Socket {
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

/** Step 5 of {@link createServer}: listening and closing (one socket at a time). */
export function socketOf(fetch: FetchHandler): Socket {
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
