import {
  BodyTooLargeError,
  Deadline,
  hmacAuthorizer,
  readCappedBody,
  signRequest,
} from '@tagtrack/core';
import {
  AbortError,
  InvalidArgumentError,
  NetworkError,
  RedirectError,
  ResponseTooLargeError,
  TimeoutError,
} from './errors.ts';
import { defaultRateLimit, Pacer, retryDelayMs, sleep, systemClock } from './pacing.ts';
import type { BaseCallOptions, ClientOptions, Clock, RawResponse } from './types.ts';

/**
 * The transport: one signed, paced, retried HTTP request (spec §3 signing, §6 pacing and
 * 429), composed of core's transport steps (`signRequest`, `Pacer`, `Deadline`, `readCappedBody`,
 * shared with the suite)
 * plus the client's retries. Knows nothing of endpoints; the runtime (`call.ts`) builds on it.
 */

/** Options of one {@link Transport.send}. */
export interface SendOptions extends BaseCallOptions {
  readonly method: 'GET' | 'HEAD';
  /** Apply the 429 and network retries. */
  readonly retry: boolean;
}

/** Sends signed requests below one base URL. */
export interface Transport {
  /** The base URL without a trailing slash (its path prefix kept). */
  readonly baseUrl: string;
  /** The effective pacing, in requests per second (0: none). */
  readonly rateLimit: number;
  readonly clock: Clock;
  /**
   * Sends `path` (below the base URL) with the query `pairs` in order, signed over the query
   * string as it goes out. Never throws on a 2xx, 4xx or 5xx status; throws `RedirectError`
   * on a 3xx (never followed nor retried), `ResponseTooLargeError` for a body over
   * `maxBodyBytes`, `TimeoutError`, `AbortError` or `NetworkError` (after the network retries).
   */
  send(
    path: string,
    pairs: Iterable<readonly [string, string]>,
    opts: SendOptions,
  ): Promise<RawResponse>;
}

/**
 * Creates the transport of a client. Throws `InvalidArgumentError` for a base URL that is not
 * http(s) and for missing credentials.
 */
export function createTransport(options: ClientOptions): Transport {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new InvalidArgumentError(`baseUrl is not a URL: ${JSON.stringify(options.baseUrl)}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new InvalidArgumentError(`baseUrl must be http or https: ${options.baseUrl}`);
  }
  if (!options.authId || !options.accessKey) {
    throw new InvalidArgumentError('authId and accessKey are required');
  }
  const baseUrl = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? systemClock;
  const defaultTimeout = options.timeoutMs ?? 30_000;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const rate = options.rateLimit ?? defaultRateLimit(baseUrl);
  const rateLimit = rate > 0 && Number.isFinite(rate) ? rate : 0;
  const pacer = new Pacer(rateLimit > 0 ? 1000 / rateLimit : 0, clock);
  const authorize = hmacAuthorizer(options.authId, options.accessKey);
  const maxRateLimited = options.retries?.rateLimited ?? 3;
  const maxNetwork = options.retries?.network ?? 2;
  const backoffMs = options.retries?.backoffMs ?? 250;
  const maxWaitMs = options.retries?.maxWaitMs ?? 60_000;

  async function attempt(
    url: string,
    headers: Record<string, string>,
    opts: SendOptions,
  ): Promise<RawResponse> {
    const timeoutMs = opts.timeoutMs ?? defaultTimeout;
    const deadline = new Deadline(timeoutMs);
    const onUserAbort = () => deadline.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', onUserAbort, { once: true });
    try {
      const res = await fetchImpl(url, {
        method: opts.method,
        headers,
        signal: deadline.signal,
        redirect: 'manual',
      });
      if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
        await res.body?.cancel().catch(() => {});
        throw new RedirectError(res.status, res.headers.get('location') ?? '', url, opts.method);
      }
      const body =
        opts.method === 'HEAD'
          ? ''
          : (await readCappedBody(res, maxBodyBytes, deadline.signal)).text;
      return { status: res.status, headers: res.headers, body, url, method: opts.method };
    } catch (e) {
      if (e instanceof RedirectError) throw e;
      if (e instanceof BodyTooLargeError)
        throw new ResponseTooLargeError(maxBodyBytes, url, opts.method);
      if (opts.signal?.aborted) throw new AbortError(url, opts.method, opts.signal.reason);
      if (deadline.timedOut) throw new TimeoutError(timeoutMs, url, opts.method);
      throw new NetworkError(url, opts.method, 1, { cause: e });
    } finally {
      deadline.dispose();
      opts.signal?.removeEventListener('abort', onUserAbort);
    }
  }

  async function send(
    path: string,
    pairs: Iterable<readonly [string, string]>,
    opts: SendOptions,
  ): Promise<RawResponse> {
    // signs exactly the query string that goes out (the parsed URL's, spec §3)
    const signed = signRequest({ baseUrl, path, query: pairs }, authorize);
    const url = signed.href;
    const headers = { authorization: signed.authorization ?? '' };
    const onAbort = () => new AbortError(url, opts.method, opts.signal?.reason);
    let rateLimitedRetries = 0;
    let networkRetries = 0;
    for (;;) {
      if (opts.signal?.aborted) throw onAbort();
      await pacer.acquire(opts.signal, onAbort);
      let res: RawResponse;
      try {
        res = await attempt(url, headers, opts);
      } catch (e) {
        if (e instanceof NetworkError && opts.retry && networkRetries < maxNetwork) {
          await sleep(clock, backoffMs * 2 ** networkRetries, opts.signal, onAbort);
          networkRetries++;
          continue;
        }
        if (e instanceof NetworkError) {
          throw new NetworkError(url, opts.method, networkRetries + 1, { cause: e.cause });
        }
        throw e;
      }
      if (res.status === 429 && opts.retry && rateLimitedRetries < maxRateLimited) {
        const fallback = Math.max(pacer.intervalMs, 1000);
        const wait = Math.min(retryDelayMs(res.headers, clock.now(), fallback), maxWaitMs);
        pacer.holdUntil(clock.now() + wait);
        rateLimitedRetries++;
        continue;
      }
      return res;
    }
  }

  return { baseUrl, rateLimit, clock, send };
}

/** Default of `ClientOptions.maxBodyBytes`: 32 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
