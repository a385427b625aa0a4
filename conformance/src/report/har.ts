import { mkdir, writeFile } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { dirname } from 'node:path';
import type { Exchange } from '../http/client.ts';
import type { RunResult } from '../run/runner.ts';
import { VERSION } from './version.ts';

/** Request and response headers whose values are credentials: never written as sent. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/**
 * Headers with credentials replaced: the value of a header of {@link SECRET_HEADERS} becomes
 * `<redacted>`, unless it is already a placeholder such as `<credential team1-admin>` (the
 * label the HTTP client records instead of a signed header, which names no secret).
 */
export function redactHeaders(h: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    out[k] = SECRET_HEADERS.has(k.toLowerCase()) && !/^<[^<>]*>$/.test(v) ? '<redacted>' : v;
  return out;
}

/** A name/value pair of HAR 1.2 (headers, query string). */
export interface HarPair {
  readonly name: string;
  readonly value: string;
}

/** One HAR 1.2 entry: a request, its response and timings (http://www.softwareishard.com/blog/har-12-spec/). */
export interface HarEntry {
  /** When the request went out, ISO 8601 with milliseconds and zone. */
  readonly startedDateTime: string;
  /** Total time in milliseconds. */
  readonly time: number;
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly httpVersion: string;
    readonly cookies: readonly never[];
    readonly headers: readonly HarPair[];
    readonly queryString: readonly HarPair[];
    readonly headersSize: -1;
    readonly bodySize: 0;
  };
  readonly response: {
    readonly status: number;
    readonly statusText: string;
    readonly httpVersion: string;
    readonly cookies: readonly never[];
    readonly headers: readonly HarPair[];
    readonly content: {
      /** The body's length in bytes as received. */
      readonly size: number;
      readonly mimeType: string;
      readonly text: string;
      readonly comment?: string;
    };
    readonly redirectURL: string;
    readonly headersSize: -1;
    readonly bodySize: number;
  };
  readonly cache: Record<string, never>;
  /** Milliseconds; the suite measures the whole exchange, reported as `wait`. */
  readonly timings: { readonly send: 0; readonly wait: number; readonly receive: 0 };
  /** The exchange's number in report.html and results.json (`exchangeId`), and its credential. */
  readonly comment: string;
}

/** A HAR 1.2 document (`log` with `version`, `creator` and `entries`). */
export interface Har {
  readonly log: {
    readonly version: '1.2';
    readonly creator: { readonly name: string; readonly version: string };
    readonly comment: string;
    readonly entries: readonly HarEntry[];
  };
}

const pairs = (h: Readonly<Record<string, string>>): HarPair[] =>
  Object.entries(h).map(([name, value]) => ({ name, value }));

function entryOf(x: Exchange, fallbackStart: string): HarEntry {
  const size = x.bodyBytes ?? Buffer.byteLength(x.body);
  const kept = Buffer.byteLength(x.body);
  const location = x.responseHeaders.location;
  return {
    startedDateTime: x.startedAt ?? fallbackStart,
    time: x.durationMs,
    request: {
      method: x.method,
      url: x.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(redactHeaders(x.requestHeaders)),
      queryString: [...new URL(x.url).searchParams].map(([name, value]) => ({ name, value })),
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: x.status,
      statusText: STATUS_CODES[x.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(redactHeaders(x.responseHeaders)),
      content: {
        size,
        mimeType: x.responseHeaders['content-type'] ?? 'x-unknown',
        text: x.body,
        ...(kept < size
          ? { comment: `the suite kept the first ${kept} of ${size} bytes of this body` }
          : {}),
      },
      redirectURL: location ?? '',
      headersSize: -1,
      bodySize: size,
    },
    cache: {},
    timings: { send: 0, wait: x.durationMs, receive: 0 },
    comment: `exchange #${x.id}${x.credential === null ? ', no credential' : `, as ${x.credential}`}`,
  };
}

/**
 * Every exchange of a run as a HAR 1.2 document, in the order sent, for a browser's network
 * panel (Chrome and Firefox import it) or any HAR viewer: full URL and query, headers with
 * credentials redacted ({@link redactHeaders}), status, the body as the suite kept it (a cut
 * is said in `content.comment`; `content.size` is the size received), timings in ms.
 */
export function toHar(result: RunResult): Har {
  return {
    log: {
      version: '1.2',
      creator: { name: 'tagtrack-conformance', version: VERSION },
      comment: `${result.suite} run against ${result.baseUrl}: profile ${result.profile.name}, mode ${result.mode}, seed ${result.seed}, started ${result.startedAt}`,
      entries: result.exchanges.map((x) => entryOf(x, result.startedAt)),
    },
  };
}

/** Writes {@link toHar} of `result` to `file` (its directory created). */
export async function writeHar(result: RunResult, file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(toHar(result))}\n`);
}
