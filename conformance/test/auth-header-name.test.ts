import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from '@tagtrack/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';

/**
 * AUTH-HEADER-NAME-ANY-CASE (spec §3 Revision 2): the Authorization header name is
 * case-insensitive. Its case exists only on the wire (a Fetch `Request` keeps names in lower
 * case), so the check probes over its own socket. Against the reference server on a socket
 * it passes; in front of it, a proxy that only reads the header spelled `authorization` (a
 * hand-written header lookup, the defect) makes it fail; in memory it is skipped, saying why.
 */

const reference = createServer();
let plainUrl = '';
/** A front that answers 401 unless the header name is exactly `authorization`, else forwards. */
const strict = createHttpServer(async (req: IncomingMessage, res) => {
  const names = req.rawHeaders.filter((_, i) => i % 2 === 0);
  const url = `${plainUrl}${req.url ?? '/'}`;
  if (names.some((n) => /^authorization$/i.test(n) && n !== 'authorization')) {
    res.writeHead(401, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ statusCode: 401, error: 'Unauthorized', message: 'no credentials' }));
    return;
  }
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (!/^host$/i.test(req.rawHeaders[i]!))
      headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const answer = await fetch(url, { method: req.method ?? 'GET', headers });
  const out: Record<string, string> = {};
  answer.headers.forEach((v, k) => {
    if (k !== 'content-encoding' && k !== 'content-length' && k !== 'transfer-encoding') out[k] = v;
  });
  res.writeHead(answer.status, out);
  res.end(Buffer.from(await answer.arrayBuffer()));
});
let strictUrl = '';

beforeAll(async () => {
  plainUrl = await reference.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => strict.listen(0, '127.0.0.1', resolve));
  strictUrl = `http://127.0.0.1:${(strict.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => strict.close(resolve));
  await reference.close();
});

async function check(baseUrl: string, inMemory = false) {
  const memory = createServer({ publicUrl: MEMORY_BASE_URL });
  try {
    const result = await runConformance({
      baseUrl,
      ...(inMemory ? { fetch: (r: Request) => memory.fetch(r) } : {}),
      profile: { ...profileFor(), credentials: [] },
      mode: 'blind',
      seed: 7,
      numRuns: 2,
      only: 'AUTH-HEADER-NAME-ANY-CASE',
      authId: team1Admin.authId,
      accessKey: team1Admin.accessKey,
    });
    return result.checks.find((c) => c.id === 'AUTH-HEADER-NAME-ANY-CASE')!;
  } finally {
    await memory.close();
  }
}

describe('AUTH-HEADER-NAME-ANY-CASE: the Authorization header name in any letter case', () => {
  test('the reference server on a socket passes', async () => {
    const c = await check(plainUrl);
    expect([c.status, c.reason ?? '', c.failures.map((f) => f.message)]).toEqual(['pass', '', []]);
  });

  test('a server reading only the lower-case name fails it, naming the header name sent', async () => {
    const c = await check(strictUrl);
    expect(c.status).toBe('fail');
    expect(c.failures[0]!.message).toMatch(
      /header name "(AUTHORIZATION|Authorization|aUTHORIZATION)" answered 401/,
    );
  });

  test('in memory the case cannot be sent: skipped with the reason', async () => {
    const c = await check(MEMORY_BASE_URL, true);
    expect(c.status).toBe('skip');
    expect(c.reason).toMatch(/socket/);
  });
});
