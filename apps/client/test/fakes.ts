import type { Clock } from '../src/client.ts';

/** A request as the fake fetch saw it. */
export interface RecordedRequest {
  readonly url: URL;
  readonly method: string;
  readonly authorization: string | null;
  /** Fake-clock time at which the request went out. */
  readonly at: number;
}

/** A clock whose `sleep` advances time at once and records the requested delays. */
export class FakeClock implements Clock {
  time = 1_000_000;
  readonly sleeps: number[] = [];
  now(): number {
    return this.time;
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.time += ms;
  }
}

/**
 * A `fetch` that records every request and answers with `handler`. A handler may throw (a
 * network error) or return a never-settling promise that rejects when the signal aborts.
 */
export function fakeFetch(
  handler: (req: RecordedRequest, index: number) => Response | Promise<Response>,
  clock?: FakeClock,
): typeof fetch & { readonly requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const f = async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    const req: RecordedRequest = {
      url: new URL(String(input)),
      method: init?.method ?? 'GET',
      authorization: headers.get('authorization'),
      at: clock?.now() ?? 0,
    };
    requests.push(req);
    const signal = init?.signal;
    if (signal?.aborted) throw signal.reason;
    const answer = handler(req, requests.length - 1);
    if (signal === undefined || signal === null) return answer;
    return Promise.race([
      answer,
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
      ),
    ]);
  };
  return Object.assign(f as typeof fetch, { requests });
}

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/** A promise that never settles (a server that never answers). */
export function never(): Promise<Response> {
  return new Promise(() => {});
}
