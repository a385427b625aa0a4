/**
 * The suite's HTTP client (`HttpClient`): signed, paced requests with a timeout, a body cap,
 * retries, the run's response cache and the recorded exchanges. Its options and limits are in
 * client-options.ts; how a failed try is described, in fetch-errors.ts.
 */
import {
  authorizationHeader,
  BodyTooLargeError,
  Deadline,
  monotonicClock,
  Pacer,
  readCappedBody,
  signRequest,
  turnGate,
} from '@tagtrack/core';
import { ANSWER_OVERHEAD_BYTES, AnswerStore, wholeAnswerBytes } from './answer-store.ts';
import { cacheShares, DEFAULT_CACHE_BYTES } from './byte-cache.ts';
import {
  CACHE_MAX_BODY_CHARS,
  CITED_BODY_CHARS,
  DEFAULT_MAX_BODY_BYTES,
  type HttpClientOptions,
  KEPT_BODIES_BUDGET,
  KEPT_BODY_CHARS,
  LONG_PAGE_FACTOR,
  pagedTotalOf,
} from './client-options.ts';
import { ConnectionError } from './errors.ts';
import { describeFetchError, formatBytes, toError, transportFault } from './fetch-errors.ts';
import { suiteCommand } from './invocation.ts';
import { compactOf, keptCopyOf } from './kept-copy.ts';
import { rerunWords, shellQuote } from './rerun.ts';
import {
  DEFAULT_RETRIES,
  describeTries,
  faultOfStatus,
  type RetriedTry,
  RetriesExhausted,
  withRetries,
} from './retry.ts';
import { SecretRedactor } from './secrets.ts';
import { sendHolding, type TlsConnect } from './transport.ts';
import type { Credential, Exchange, FetchLike, RequestSpec } from './types.ts';

export {
  DEFAULT_MAX_BODY_BYTES,
  type HttpClientOptions,
  KEPT_BODY_CHARS,
} from './client-options.ts';
export { SecretRedactor } from './secrets.ts';
export type { Credential, Exchange, FetchLike, RequestSpec } from './types.ts';
export { ConnectionError };

/**
 * The suite's only way to talk to an implementation: signs requests (spec §3) and paces
 * them to a rate with core's transport steps (`signRequest`, `Pacer`, shared with the client),
 * applies a timeout (headers and body) and a streamed body cap (core's `Deadline` and
 * `readCappedBody`), never follows a redirect,
 * caches identical GET/HEAD requests within a run (the relation checks reuse responses), and
 * records every exchange for the report: without secrets (Authorization values named by the
 * credential's label) and with truncated bodies, so memory stays flat.
 */
export class HttpClient {
  readonly baseUrl: string;
  /**
   * Every exchange sent, for reports, in the order made (`exchanges[id - 1]` is exchange
   * `id`): bodies truncated, no secret (see {@link Exchange}); past `KEPT_BODIES_BUDGET`, a
   * compact record unless a failure cites it ({@link keepForReport}).
   */
  readonly exchanges: Exchange[] = [];
  /** Replaces the run's secrets in any text (failures, counterexamples, probe headers). */
  readonly redactor: SecretRedactor;
  /**
   * Counters shared by the client and its {@link fork}s: requests sent, cache hits, and the
   * characters of the bodies kept for reports.
   */
  private readonly counters = { requests: 0, cacheHits: 0, keptChars: 0, epoch: 0, retried: 0 };
  /** Requests sent over the wire by this client and its forks. */
  get requestCount(): number {
    return this.counters.requests;
  }
  /** Requests that were answered after one or more retries (this client's and its forks'). */
  get retriedCount(): number {
    return this.counters.retried;
  }
  /** Retries of a GET or HEAD whose transport failed (`retries` option, default {@link DEFAULT_RETRIES}). */
  get retries(): number {
    return this.options.retries ?? DEFAULT_RETRIES;
  }
  /** Requests answered from a response cache (this client's or a fork's). */
  get cacheHits(): number {
    return this.counters.cacheHits;
  }
  /**
   * The response cache's epoch: it starts at 0 and {@link newEpoch} moves it on. A response is
   * only ever served from the cache in the epoch it was requested in (spec §5 Revision 3:
   * nothing is served across a watermark change).
   */
  get epoch(): number {
    return this.counters.epoch;
  }
  /** The report's copy of each exchange sent (truncated body), by the exchange the caller got. */
  private readonly keptOf = new WeakMap<Exchange, Exchange>();
  /**
   * What a check's log keeps of `exchange`: the report's copy (the same id, its body cut to
   * 16 KB or less), so a long check's log does not hold every whole body it read until it ends.
   */
  forLog(exchange: Exchange): Exchange {
    return this.keptOf.get(exchange) ?? exchange;
  }
  /** The report's copies made, which {@link keepForReport} may put back in {@link exchanges}. */
  private readonly keptCopies = new WeakSet<Exchange>();
  /**
   * Keeps in {@link exchanges} the report's copy of `exchange` (the exchange a request
   * resolved, or its {@link forLog} copy) in place of a compact record past the budget: a
   * failure cites it, so the report shows its headers and the start of its body. Does nothing
   * for an exchange kept whole already or unknown to this client.
   */
  keepForReport(exchange: Exchange): void {
    const kept =
      this.keptOf.get(exchange) ?? (this.keptCopies.has(exchange) ? exchange : undefined);
    if (kept !== undefined && this.exchanges[kept.id - 1]?.id === kept.id)
      this.exchanges[kept.id - 1] = kept;
  }
  /**
   * The answers of identical GET/HEAD requests of the current epoch, by key (a fork has its
   * own): kept compressed, so that whether a request is sent depends only on whether it was
   * asked before in the epoch (see {@link AnswerStore}), capped by bytes.
   */
  private cache: AnswerStore;
  /** Whether answers served from {@link cache} count as cache hits (see {@link rebuilding}). */
  private countsHits = true;
  private readonly fetchFn: FetchLike;
  /** The extra headers every request carries (`-H`; values are secrets), by lower-case name. */
  get extraHeaders(): Readonly<Record<string, string>> {
    return this.options.headers ?? {};
  }
  /** The TLS options of the transport, for a probe over a socket of its own; undefined: Node's defaults. */
  get tlsConnect(): TlsConnect | undefined {
    return this.options.tlsConnect;
  }
  /** Whether requests go through a fetch given in the options (e.g. an in-memory server). */
  readonly ownFetch: boolean;
  private readonly pacer: Pacer;
  private readonly maxBodyBytes: number;
  /** The deadlines of the requests in flight (see {@link abortable}). */
  private readonly inFlight = new Set<Deadline>();

  constructor(private readonly options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchFn = options.fetch ?? ((r) => fetch(r));
    this.ownFetch = options.ownFetch ?? options.fetch !== undefined;
    this.pacer = Pacer.perSecond(options.ratePerSecond, options.clock ?? monotonicClock);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.cache = this.newCache();
    this.redactor = new SecretRedactor(options.credentials ?? []);
    for (const [name, value] of Object.entries(options.headers ?? {}))
      this.redactor.addSecret(value, `<header ${name}>`);
    const stop = options.signal;
    stop?.addEventListener(
      'abort',
      () => {
        for (const c of this.inFlight) c.abort(stop.reason);
      },
      { once: true },
    );
  }

  /**
   * The deadline of one request (core's `Deadline`): aborts after the timeout (a
   * `TimeoutError`, as `AbortSignal.timeout` does) or when the client's `signal` aborts (with
   * its reason: one listener for every request in flight, none added per request). `dispose`
   * clears the timer once the request is answered and its body read.
   */
  private abortable(): { signal: AbortSignal; dispose: () => void } {
    const deadline = new Deadline(this.options.timeoutMs);
    const stop = this.options.signal;
    if (stop?.aborted) deadline.abort(stop.reason);
    this.inFlight.add(deadline);
    return {
      signal: deadline.signal,
      dispose: () => {
        deadline.dispose();
        this.inFlight.delete(deadline);
      },
    };
  }

  /** The Authorization header value for `credential` over `queryString` (no leading `?`). */
  authorization(credential: Credential, queryString: string): string {
    return this.options.auth === 'bearer'
      ? `Bearer ${credential.accessKey}`
      : authorizationHeader(credential.authId, credential.accessKey, queryString);
  }

  /** Sends (or reuses) a request; resolves its {@link Exchange}. Throws {@link ConnectionError}. */
  request(spec: RequestSpec): Promise<Exchange> {
    const method = spec.method ?? 'GET';
    // signs exactly the query string the URL serializer will send (core's signRequest; a
    // `rawQuery` goes out and is signed verbatim)
    const credential = spec.credential;
    if (credential !== null) this.redactor.addCredential(credential);
    const { target, authorization } = signRequest(
      { baseUrl: this.baseUrl, path: spec.path, query: spec.query, rawQuery: spec.rawQuery },
      credential === null ? null : (qs) => this.authorization(credential, qs),
    );
    const headers: Record<string, string> = {};
    if (authorization !== undefined) headers.authorization = authorization;
    const extra = this.options.headers ?? {};
    for (const [k, v] of Object.entries(extra)) headers[k] = v;
    for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k.toLowerCase()] = v;
    // what the exchange shows: the label of a signing credential, or the probe's header with
    // its secrets replaced (a header given in `spec.headers` replaces the signed one)
    const sent = headers.authorization;
    const probe =
      spec.headers !== undefined &&
      Object.keys(spec.headers).some((k) => k.toLowerCase() === 'authorization');
    if (sent !== undefined) this.redactor.addHeader(sent, probe ? undefined : credential?.label);
    const shown = { ...headers };
    // an extra header's value is a secret (a gateway key): never in an exchange
    for (const k of Object.keys(extra)) if (shown[k] === extra[k]) shown[k] = '<redacted>';
    if (sent !== undefined)
      shown.authorization =
        !probe && credential !== null
          ? `<credential ${credential.label}>`
          : this.redactor.redact(sent);
    const cacheable = (spec.cache ?? true) !== false && (method === 'GET' || method === 'HEAD');
    const key = `${method} ${target} ${sent ?? '-'} ${JSON.stringify(spec.headers ?? {})}`;
    if (cacheable) {
      const hit = this.cache.get(key);
      if (hit !== undefined) {
        if (this.countsHits && spec.rebuild !== true) this.counters.cacheHits++;
        return hit;
      }
    }
    const promise = this.send(
      method,
      target,
      headers,
      shown,
      probe ? null : (credential?.label ?? null),
      spec.unpaced,
    );
    // a long list's page its walk keeps the records of ('read') is kept compressed only
    if (cacheable) this.cache.set(key, promise, spec.cache !== 'read');
    return promise;
  }

  /** An empty response cache of this client's byte caps. */
  private newCache(): AnswerStore {
    const longAbove = this.options.longListAbove;
    const shares = cacheShares(DEFAULT_CACHE_BYTES);
    return new AnswerStore({
      maxBytes: this.options.cacheBytes ?? shares.responses,
      hotBytes: this.options.hotCacheBytes ?? this.options.cacheBytes ?? shares.hotResponses,
      hotMaxChars: CACHE_MAX_BODY_CHARS,
      hotSize: (ex) => {
        const total = longAbove === undefined ? undefined : pagedTotalOf(ex.body);
        const long = total !== undefined && longAbove !== undefined && total > longAbove;
        return long
          ? ex.body.length * LONG_PAGE_FACTOR + ANSWER_OVERHEAD_BYTES
          : wholeAnswerBytes(ex);
      },
      materialized: (copy) => this.materialized(copy),
    });
  }

  /**
   * Links a copy of a kept answer, made again from the response cache, to the report's copy
   * of its exchange (same id), so that {@link forLog} and {@link keepForReport} treat it as
   * the exchange it copies.
   */
  private materialized(copy: Exchange): void {
    const listed = this.exchanges[copy.id - 1];
    if (listed !== undefined && listed.id === copy.id && this.keptCopies.has(listed)) {
      this.keptOf.set(copy, listed);
      return;
    }
    const kept = this.keptCopy(copy, CITED_BODY_CHARS);
    this.keptOf.set(copy, kept);
    this.keptCopies.add(kept);
  }

  /**
   * A view of this client whose answers from the response cache are not counted as cache
   * hits: for the reads that rebuild a walk or a discovery the run let go (CPU caches; their
   * answers are all kept), so that the run's counts do not depend on when those went.
   */
  rebuilding(): HttpClient {
    const view = Object.create(this) as HttpClient;
    view.countsHits = false;
    return view;
  }

  /**
   * Starts a new cache epoch: every cached response (answered or in flight) is dropped, so
   * none read before this call is served after it (spec §5 Revision 3: the runner calls
   * it when a caller's data is seen to change). Resolves nothing; returns the new epoch.
   */
  newEpoch(): number {
    this.cache = this.newCache();
    return ++this.counters.epoch;
  }

  /**
   * A view of this client with a private, empty response cache: same transport, pacer, rate,
   * timeout, secrets, recorded exchanges and counters; what it caches only it serves, and it
   * serves nothing this client cached. A check run again on data that moved runs on one (see
   * watermark.ts), so no answer read in another attempt or by another check reaches it.
   */
  fork(): HttpClient {
    const view = Object.create(this) as HttpClient;
    view.cache = this.newCache();
    return view;
  }

  /**
   * A command line reproducing `exchange` without a secret, runnable as printed in the shell
   * the run started in: `tagtrack-conformance request` signs with the credential named by its
   * label, read from where the run read it (`rerun`: the profile file, or the variables of
   * the environment; see rerun.ts and commands/request.ts), and sends the run's extra
   * headers (read from `TAGTRACK_HEADERS`) and TLS settings. A probe's own Authorization
   * header is named in a comment with its secrets replaced.
   */
  reproduce(exchange: Exchange): string {
    const parts = [suiteCommand(), 'request', exchange.method, shellQuote(exchange.target)];
    parts.push('--base-url', shellQuote(this.baseUrl), ...rerunWords(this.options.rerun));
    if (exchange.credential !== null) parts.push('--credential', shellQuote(exchange.credential));
    else parts.push('--no-credential');
    const extra = this.options.headers ?? {};
    for (const [k, v] of Object.entries(exchange.requestHeaders)) {
      if (k === 'authorization' || (k in extra && v === '<redacted>')) continue;
      parts.push('--header', shellQuote(`${k}: ${v}`));
    }
    const probe =
      exchange.credential === null && exchange.requestHeaders.authorization !== undefined
        ? `  # the check sent its own Authorization header: ${exchange.requestHeaders.authorization}`
        : '';
    return `${parts.join(' ')}${probe}`;
  }

  /**
   * One try of a request on the wire: the fetch and its body read (capped) within one
   * deadline (`timeoutMs`, core's `Deadline`). Throws what the fetch, the read or the
   * deadline threw.
   */
  private async tryOnce(
    method: string,
    url: string,
    headers: Record<string, string>,
  ): Promise<Answered> {
    const abort = this.abortable();
    try {
      const response = await sendHolding(
        this.fetchFn,
        new Request(url, { method, headers, redirect: 'manual', signal: abort.signal }),
      );
      const { text, bytes } = await readCappedBody(response, this.maxBodyBytes, abort.signal);
      return { response, body: text, bodyBytes: bytes };
    } finally {
      abort.dispose();
    }
  }

  /** The report's copy of `exchange` (see {@link keptCopyOf}), with this client's redactor. */
  private keptCopy(exchange: Exchange, keep: number): Exchange {
    return keptCopyOf(exchange, keep, this.redactor);
  }

  private async pace(unpaced: boolean | undefined): Promise<void> {
    if (!unpaced) await this.pacer.acquire();
  }

  private async send(
    method: string,
    target: string,
    headers: Record<string, string>,
    shownHeaders: Record<string, string>,
    credential: string | null,
    unpaced: boolean | undefined,
  ): Promise<Exchange> {
    const url = `${this.baseUrl}${target}`;
    const idempotent = method === 'GET' || method === 'HEAD';
    const clock = this.options.clock ?? monotonicClock;
    let started = 0;
    let startedAt = '';
    let answered: Answered;
    let retries: readonly RetriedTry[];
    try {
      ({ answer: answered, retries } = await withRetries(
        async () => {
          // every try is paced and counted: the rate and the budget hold for retries too
          await this.pace(unpaced);
          started = performance.now();
          startedAt = new Date().toISOString();
          this.counters.requests++;
          return this.tryOnce(method, url, headers);
        },
        {
          // only a GET or HEAD is sent again: they change nothing (spec §11, transport faults)
          retries: idempotent ? this.retries : 0,
          backoffMs: this.options.retryBackoffMs,
          clock,
          signal: this.options.signal,
          onAbort: () => toError(this.options.signal?.reason),
          faultOfAnswer: (a) => faultOfStatus(a.response.status, a.response.headers, clock.now()),
          faultOfError: (e) => (idempotent ? transportFault(e) : undefined),
          // keep-alive or not is free (spec §8 Revision 2): a reused connection the server closed as idle
          // just as the request went out is sent again once, even with no retries asked
          extraTries: (fault, i) => (i === 0 && fault.reset === true ? 1 : 0),
        },
      ));
    } catch (e) {
      if (e instanceof RetriesExhausted) {
        if (e.last instanceof ConnectionError) throw e.last;
        const asked = this.retries > 0 || e.tries.length > 1 ? ` (--retries ${this.retries})` : '';
        throw new ConnectionError(url, `cannot reach ${url}: ${describeTries(e.tries)}${asked}`, {
          cause: e.last,
        });
      }
      if (e instanceof ConnectionError) throw e;
      if (e instanceof BodyTooLargeError)
        throw new ConnectionError(
          url,
          `${method} ${url}: the response body exceeds the ${formatBytes(this.maxBodyBytes)} cap (--max-body-bytes); the suite stopped reading it`,
        );
      throw new ConnectionError(url, `cannot reach ${url}: ${describeFetchError(e)}`, {
        cause: e,
      });
    }
    if (retries.length > 0) this.counters.retried++;
    const { response, body, bodyBytes } = answered;
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((v, k) => {
      responseHeaders[k.toLowerCase()] = v;
    });
    const exchange: Exchange = {
      id: this.exchanges.length + 1,
      method,
      url,
      target,
      credential,
      requestHeaders: shownHeaders,
      status: response.status,
      responseHeaders,
      body,
      bodyBytes,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      startedAt,
      ...(retries.length === 0 ? {} : { retries }),
    };
    // the report's copy holds a truncated body: memory stays flat over long runs
    const whole = this.counters.keptChars < KEPT_BODIES_BUDGET;
    const kept = this.keptCopy(exchange, whole ? KEPT_BODY_CHARS : CITED_BODY_CHARS);
    this.counters.keptChars += kept.body.length;
    // past the budget the run keeps a compact record (what a report prints of an exchange no
    // failure cites); the check's log holds the fuller copy while the check runs
    this.exchanges.push(whole ? kept : compactOf(kept));
    this.keptOf.set(exchange, kept);
    this.keptCopies.add(kept);
    this.options.onExchange?.(kept);
    // answers read in the same turn of the event loop are each parsed and judged by their
    // caller at once: past the turn's budget, the rest wait for a later turn, so timers and
    // I/O get in between (the wire was measured above: the wait is in no timeout)
    await turnGate();
    return exchange;
  }
}

/** The answer of one try: the response (its body read) within the request's deadline. */
interface Answered {
  readonly response: Response;
  readonly body: string;
  readonly bodyBytes: number;
}
