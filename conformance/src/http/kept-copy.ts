/**
 * The report's copies of exchanges (`HttpClient.exchanges`): a copy of the start of each body
 * with no secret a server echoed back, and past the budget of kept bodies a compact record.
 */
import { COMPACT_BODY_CHARS, COMPACT_HEADERS } from './client-options.ts';
import { detached } from './detached.ts';
import type { SecretRedactor } from './secrets.ts';
import type { Exchange } from './types.ts';

/**
 * The report's copy of `exchange`: its first `keep` characters of body (a copy, not a slice:
 * a slice would keep the whole body alive; see detached.ts), and no secret a server echoed
 * back in it or in its headers (a 401 body quoting the header it refused), by `redactor`.
 */
export function keptCopyOf(exchange: Exchange, keep: number, redactor: SecretRedactor): Exchange {
  const body = exchange.body;
  return {
    ...exchange,
    body: redactor.redactEchoesIn(
      body.length > keep ? detached(body.slice(0, keep)) : body,
      exchange.status,
    ),
    responseHeaders: Object.fromEntries(
      Object.entries(exchange.responseHeaders).map(([k, v]) => [k, redactor.redactEchoes(v)]),
    ),
  };
}

/** No headers: a compact record's request headers. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The compact record of a kept exchange past `KEPT_BODIES_BUDGET`: id, method, URL, target,
 * credential, status, tries, duration, start, body size, the first `COMPACT_BODY_CHARS` of
 * the body and the `COMPACT_HEADERS` of the response.
 */
export function compactOf(kept: Exchange): Exchange {
  const headers: Record<string, string> = {};
  for (const name of COMPACT_HEADERS) {
    const v = kept.responseHeaders[name];
    if (v !== undefined) headers[name] = v;
  }
  return {
    ...kept,
    requestHeaders: NO_HEADERS,
    responseHeaders: Object.keys(headers).length === 0 ? NO_HEADERS : headers,
    body:
      kept.body.length > COMPACT_BODY_CHARS
        ? detached(kept.body.slice(0, COMPACT_BODY_CHARS))
        : kept.body,
  };
}
