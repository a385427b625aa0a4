import { Deadline } from '@tagtrack/core';
import type { FetchLike } from './types.ts';

/** Requests in flight through {@link sendHolding}: held, so their abort reaches the copy fetch sends. */
const HELD = new Set<Request>();

/**
 * `send(request)`, with `request` held until `send` settles. Node's fetch (undici) sends a
 * copy of a Request passed to it, and the copy follows the original's abort signal through
 * the original's controller, which only the original Request holds (nodejs/undici#4068): once
 * nothing else holds the original, a garbage collection cuts the link, the deadline's abort
 * no longer reaches the request in flight, and a request to a server that never answers waits
 * for ever. Every request the suite sends with a signal goes through here.
 */
export async function sendHolding(send: FetchLike, request: Request): Promise<Response> {
  HELD.add(request);
  try {
    return await send(request);
  } finally {
    HELD.delete(request);
  }
}

/**
 * TLS settings of the suite's requests: `caFile`, a PEM file of CA certificates trusted on
 * top of Node's built-in roots (a private CA of a staging service); `insecure`, no
 * verification of the server's certificate at all (the CLI warns).
 */
export interface TlsOptions {
  readonly caFile?: string | undefined;
  readonly insecure?: boolean | undefined;
}

/** The TLS settings cannot be used (the CA file is unreadable or holds no certificate). */
export class TlsConfigError extends Error {
  override readonly name = 'TlsConfigError';
}

/**
 * A fetch over sockets that applies `tls` (undici's `Agent` and `fetch`, imported only
 * here, on first use: a run without TLS settings never loads it); `undefined` when `tls`
 * asks for nothing (the global fetch then serves). The request's method, headers, redirect
 * mode and signal are kept. Throws {@link TlsConfigError} for an unreadable CA file.
 */
export async function tlsFetch(tls: TlsOptions | undefined): Promise<FetchLike | undefined> {
  const connect = await tlsConnectOptions(tls);
  if (connect === undefined) return undefined;
  const undici = await import('undici');
  const dispatcher = new undici.Agent({
    connect: {
      rejectUnauthorized: connect.rejectUnauthorized,
      ...(connect.ca === undefined ? {} : { ca: [...connect.ca] }),
    },
  });
  return async (request) => {
    const response = await undici.fetch(request.url, {
      method: request.method,
      headers: headerPairs(request.headers),
      redirect: request.redirect,
      signal: request.signal,
      dispatcher,
    });
    return response as unknown as Response;
  };
}

/** The name-value pairs of `headers`, in order. */
function headerPairs(headers: Headers): [string, string][] {
  const pairs: [string, string][] = [];
  headers.forEach((value, name) => {
    pairs.push([name, value]);
  });
  return pairs;
}

/**
 * The options of a TLS connection (`tls.connect`, `https.request`) that apply `tls`: `ca`,
 * Node's built-in roots and the CA file's certificates; `rejectUnauthorized`, false when
 * `insecure`. `undefined` when `tls` asks for nothing. Throws {@link TlsConfigError}.
 */
export async function tlsConnectOptions(
  tls: TlsOptions | undefined,
): Promise<TlsConnect | undefined> {
  if (tls === undefined || (tls.caFile === undefined && tls.insecure !== true)) return undefined;
  const [{ readFile }, { rootCertificates }] = await Promise.all([
    import('node:fs/promises'),
    import('node:tls'),
  ]);
  let ca: string[] | undefined;
  if (tls.caFile !== undefined) {
    let pem: string;
    try {
      pem = await readFile(tls.caFile, 'utf8');
    } catch (e) {
      throw new TlsConfigError(
        `--ca-file ${tls.caFile}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----'))
      throw new TlsConfigError(
        `--ca-file ${tls.caFile}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
      );
    ca = [...rootCertificates, pem];
  }
  return { ...(ca === undefined ? {} : { ca }), rejectUnauthorized: tls.insecure !== true };
}

/** TLS connection options: trusted CA certificates (PEM) and whether to verify at all. */
export interface TlsConnect {
  readonly ca?: readonly string[];
  readonly rejectUnauthorized: boolean;
}

/** Statuses a gateway answers while the service behind it is not up yet. */
const NOT_YET = new Set([502, 503, 504]);

/**
 * Waits until `url` answers (any status but 502/503/504: a 401 or 404 is an answer), for at
 * most `waitMs` milliseconds: a connection error (refused, reset, DNS, TLS handshake not yet
 * served) or a 502/503/504 is retried after a backoff of 250 ms doubling up to 5 s (never
 * past the deadline). Each try times out after `timeoutMs`. Resolves `undefined` once it
 * answered, or the last problem in words when the deadline passed (or `signal` aborted).
 */
export async function waitForAnswer(options: {
  readonly url: string;
  readonly waitMs: number;
  readonly timeoutMs: number;
  readonly fetch?: FetchLike | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly signal?: AbortSignal | undefined;
}): Promise<string | undefined> {
  const send: FetchLike = options.fetch ?? ((r) => fetch(r));
  const deadline = performance.now() + options.waitMs;
  let backoff = 250;
  let last = 'no answer';
  for (;;) {
    if (options.signal?.aborted) return `${last} (stopped)`;
    // a try never runs past the deadline; one the deadline cut short tells less than the last
    const budget = Math.max(
      1,
      Math.ceil(Math.min(options.timeoutMs, deadline - performance.now())),
    );
    // a deadline of core's (a timer held until disposed): AbortSignal.timeout's timer holds its
    // signal weakly, so a collected signal never fires
    const timeout = new Deadline(budget);
    try {
      const response = await sendHolding(
        send,
        new Request(options.url, {
          method: 'GET',
          headers: options.headers ?? {},
          redirect: 'manual',
          signal: timeout.signal,
        }),
      );
      await response.body?.cancel().catch(() => {});
      if (!NOT_YET.has(response.status)) return undefined;
      last = `answered ${response.status}`;
    } catch (e) {
      const cut = (e as Error)?.name === 'TimeoutError' && budget < options.timeoutMs;
      if (!cut || last === 'no answer') last = describeError(e);
    } finally {
      timeout.dispose();
    }
    const left = deadline - performance.now();
    if (left <= 0) return last;
    await new Promise((r) => setTimeout(r, Math.min(backoff, left)));
    backoff = Math.min(backoff * 2, 5000);
  }
}

function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (e.name === 'TimeoutError') return 'request timed out';
  const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined)
    return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  return e.message;
}
