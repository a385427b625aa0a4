import {
  type Contact,
  type PagingEnd,
  pageOf,
  pagingOf,
  queryWithCursor,
  zeroCounters,
} from '@tagtrack/core';
import type { Clock } from '../src/types.ts';

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

/** `n` valid contacts (endpoint 15 records), emails in order. */
export function contacts(n: number): Contact[] {
  return Array.from({ length: n }, (_, i) => ({
    contactID: `c${i}`,
    name: `N${i}`,
    email: `n${String(i).padStart(3, '0')}@example.com`,
    dateLastSent: '2024-01-01T00:00:00Z',
    stats: { totalSent: 1, ...zeroCounters() },
  }));
}

/**
 * A handler answering a list like the reference server (spec §5 Revision 2): core's
 * `pageOf` in paging end `pagingEnd`, paging URLs on `base` with only `cursor` replaced,
 * `X-Total-Count` and `Link` headers; in `no-content` an empty page is a 204 with an empty body.
 */
export function listHandler(
  records: readonly unknown[],
  pageSize: number,
  pagingEnd: PagingEnd,
  base = 'http://127.0.0.1:9',
): (req: RecordedRequest) => Response {
  return (req) => {
    const raw = req.url.search.replace(/^\?/, '');
    const cursor = Number(req.url.searchParams.get('cursor') ?? 0);
    const page = pageOf(records, cursor, pageSize, pagingEnd);
    const paging = pagingOf(page, (c) => `${base}${req.url.pathname}?${queryWithCursor(raw, c)}`);
    const headers: Record<string, string> = { 'x-total-count': String(page.total) };
    const links = [
      ...(paging.nextURL === null ? [] : [`<${paging.nextURL}>; rel="next"`]),
      ...(paging.previousURL === null ? [] : [`<${paging.previousURL}>; rel="prev"`]),
    ];
    if (links.length > 0) headers.link = links.join(', ');
    if (page.noContent) return new Response(null, { status: 204, headers });
    return json({ data: page.records, paging }, 200, headers);
  };
}
