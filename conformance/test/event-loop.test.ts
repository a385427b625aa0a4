import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { HttpClient } from '../src/http/client.ts';

const credential = { label: 'c', authId: 'a', accessKey: 'k' };

/** Keeps the event loop busy for `ms` milliseconds (the suite's own work, e.g. a long law). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

describe('a request timeout measures the wire, not the suite’s own work', () => {
  test('an answer that arrived before the deadline is no timeout, however long the loop was busy after', async () => {
    let sent: (() => void) | undefined;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[]}', () => sent?.());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // the first request loads the transport (slow, synchronous work of its own)
      await new HttpClient({ baseUrl: url, auth: 'bearer', timeoutMs: 60_000 }).request({
        path: '/warm-up',
        credential,
      });
      // a busy machine may not answer within the timeout at all: then try a longer one
      for (let timeoutMs = 200; ; timeoutMs *= 4) {
        const answered = new Promise<'answered'>((r) => {
          sent = () => r('answered');
        });
        // no retries: a late timer would be a ConnectionError, not a retried request
        const http = new HttpClient({ baseUrl: url, auth: 'bearer', timeoutMs, retries: 0 });
        const request = http.request({ path: '/teams', credential });
        const first = await Promise.race([
          answered,
          request.then(
            () => 'settled',
            () => 'settled',
          ),
        ]);
        if (first !== 'answered') continue;
        // the answer is on the wire; a law then keeps the loop busy past the request's timeout
        busy(timeoutMs * 5);
        const ex = await request;
        expect(ex.status).toBe(200);
        expect(ex.body).toBe('{"data":[]}');
        expect(ex.retries).toBeUndefined();
        return;
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
