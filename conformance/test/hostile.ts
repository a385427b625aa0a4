import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server,
  type Socket,
} from 'node:net';

/**
 * Small hostile HTTP servers for the tests of a bounded client (in-process, on 127.0.0.1 port 0):
 * each misbehaves in one way a real service can, on every request. `close()` ends every
 * connection. Lists answer member records of `GET /teams` (the other paths answer the same
 * envelope), so a walk gets past the schema and meets the paging fault itself.
 */
export const HOSTILE_KINDS = [
  'never-answers',
  'garbage-bytes',
  'endless-body',
  'slow-body',
  'redirect-loop',
  'growing-total',
  'huge-total',
  'invalid-json',
  'closes-mid-body',
  'endless-after-preflight',
  'padded-bodies',
] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

/** A running hostile server. */
export interface Hostile {
  readonly url: string;
  /** Requests it has received. */
  readonly requests: () => number;
  close(): Promise<void>;
}

/** Records per page of the paging servers (the canonical profile's page size). */
export const HOSTILE_PAGE_SIZE = 250;

function member(i: number) {
  return {
    memberID: `m${i}`,
    firstname: 'Ada',
    lastname: `Member ${i}`,
    email: `m${i}@example.com`,
    accountType: 'user',
    groupID: 'g1',
    groupName: 'Group one',
  };
}

/** A page of members at `cursor` of a list of `total` (full pages, `next` advancing). */
function page(cursor: number, total: number): string {
  const count = Math.max(0, Math.min(HOSTILE_PAGE_SIZE, total - cursor));
  const data = Array.from({ length: count }, (_, k) => member(cursor + k));
  const next = cursor + count;
  return JSON.stringify({
    data,
    paging: {
      cursors: { previous: Math.max(0, cursor - HOSTILE_PAGE_SIZE), next, total },
      previousURL: null,
      nextURL: null,
    },
  });
}

function cursorOf(req: IncomingMessage): number {
  const c = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
  return c !== null && /^\d+$/.test(c) ? Number(c) : 0;
}

/** Starts a hostile server of `kind`. */
export async function startHostile(kind: HostileKind): Promise<Hostile> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let served = 0;
  const handler = (req: IncomingMessage, res: ServerResponse, as: HostileKind = kind): void => {
    if (as === kind) requests++;
    const json = { 'content-type': 'application/json; charset=utf-8' };
    switch (as) {
      case 'never-answers':
        return; // headers never come
      case 'endless-body': {
        res.writeHead(200, json);
        res.write('{"data":[');
        const chunk = Buffer.from(`${JSON.stringify(member(1))},`.repeat(2000));
        const pump = () => {
          let more = true;
          while (more && !res.destroyed) more = res.write(chunk);
        };
        res.on('drain', pump);
        pump();
        return;
      }
      case 'slow-body': {
        // headers at once, then one byte every 100 ms (a body that would take minutes)
        res.writeHead(200, json);
        const body = page(0, 10);
        let i = 0;
        const t = setInterval(() => {
          if (res.destroyed || i >= body.length) {
            clearInterval(t);
            res.end();
            return;
          }
          res.write(body[i++]!);
        }, 100);
        timers.add(t);
        return;
      }
      case 'redirect-loop':
        res.writeHead(302, { location: req.url ?? '/' }).end();
        return;
      case 'growing-total':
        served++;
        res.writeHead(200, json).end(page(cursorOf(req), 1000 + served * 10));
        return;
      case 'huge-total':
        res.writeHead(200, json).end(page(cursorOf(req), 10 ** 12));
        return;
      case 'invalid-json':
        res.writeHead(200, json).end('{"data": [{"memberID": "m1",');
        return;
      case 'closes-mid-body': {
        const body = page(0, 10);
        res.writeHead(200, { ...json, 'content-length': String(body.length) });
        res.write(body.slice(0, 100));
        setImmediate(() => res.socket?.destroy());
        return;
      }
      case 'endless-after-preflight': {
        // `GET /teams` answers a page of 10 members; every other path an endless body
        if (new URL(req.url ?? '/', 'http://x').pathname === '/teams') {
          res.writeHead(200, json).end(page(cursorOf(req), 10));
          return;
        }
        handler(req, res, 'endless-body');
        return;
      }
      case 'padded-bodies': {
        // a valid page of 10 members padded with 4 MiB of spaces (under the cap)
        const body = page(cursorOf(req), 10);
        res
          .writeHead(200, json)
          .end(body.slice(0, -1) + ' '.repeat(4 * 1024 * 1024) + body.slice(-1));
        return;
      }
      case 'garbage-bytes':
        return; // answered by the raw socket server below
    }
  };
  let server: Server;
  if (kind === 'garbage-bytes') {
    server = createNetServer((socket) => {
      requests++;
      socket.on('error', () => {});
      socket.once('data', () =>
        socket.end(Buffer.from([0, 255, 13, 10, 0x47, 0x41, 0x52, 0x42, 0, 0, 13, 10, 13, 10])),
      );
    });
  } else {
    server = createHttpServer((req, res) => handler(req, res));
  }
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** What {@link measure} saw: wall time and the peak growth of the resident set. */
export interface Measured<T> {
  readonly value: T;
  readonly ms: number;
  /** Peak RSS during the run minus RSS before it, in MiB (sampled every 10 ms). */
  readonly peakRssMiB: number;
}

/** Runs `fn`, sampling RSS every 10 ms; resolves its value, wall time and peak RSS growth. */
export async function measure<T>(fn: () => Promise<T>): Promise<Measured<T>> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const started = performance.now();
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return {
      value,
      ms: Math.round(performance.now() - started),
      peakRssMiB: Math.round((peak - before) / 2 ** 20),
    };
  } finally {
    clearInterval(sampler);
  }
}
