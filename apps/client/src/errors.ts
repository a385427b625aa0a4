import type * as z from 'zod';

/**
 * Error classes of the client SDK, one per failure kind, each with a string-literal `code`
 * and readonly context (no Node-only imports: this file runs in browsers too).
 */

/** The `code` of every error the SDK throws. */
export type TagtrackErrorCode =
  | 'api_error'
  | 'timeout'
  | 'aborted'
  | 'network_error'
  | 'response_validation'
  | 'pagination_error'
  | 'response_too_large'
  | 'redirect'
  | 'invalid_argument';

/** Base class of the SDK's errors; `code` tells the kind apart without `instanceof`. */
export abstract class TagtrackError extends Error {
  abstract readonly code: TagtrackErrorCode;
}

/**
 * The server answered with a non-2xx status. `statusCode`, `error` (HTTP reason phrase) and
 * `message` come from the JSON error body of spec §6; when the body is not that shape,
 * `error` is the status text and `message` the start of the body as text.
 */
export class ApiError extends TagtrackError {
  override readonly name = 'ApiError';
  readonly code = 'api_error' as const;
  constructor(
    readonly statusCode: number,
    readonly error: string,
    message: string,
    readonly url: string,
    readonly method: string,
    /** Response headers, e.g. `Retry-After` of a 429 (spec §7). */
    readonly headers?: Headers,
  ) {
    super(message);
  }
}

/** No complete response within `timeoutMs` milliseconds (headers and body included). */
export class TimeoutError extends TagtrackError {
  override readonly name = 'TimeoutError';
  readonly code = 'timeout' as const;
  constructor(
    readonly timeoutMs: number,
    readonly url: string,
    readonly method: string,
  ) {
    super(`${method} ${url} timed out after ${timeoutMs} ms`);
  }
}

/** The caller's `AbortSignal` aborted the call; `reason` is the signal's reason. */
export class AbortError extends TagtrackError {
  override readonly name = 'AbortError';
  readonly code = 'aborted' as const;
  constructor(
    readonly url: string,
    readonly method: string,
    readonly reason?: unknown,
  ) {
    super(`${method} ${url} was aborted`);
  }
}

/** The request did not get an HTTP response (connection refused, reset, DNS...). */
export class NetworkError extends TagtrackError {
  override readonly name = 'NetworkError';
  readonly code = 'network_error' as const;
  constructor(
    readonly url: string,
    readonly method: string,
    /** How many attempts were made (network errors on GET are retried). */
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    const cause = options?.cause;
    const detail = describeCause(cause);
    super(`${method} ${url} failed after ${attempts} attempt(s): ${detail}`, options);
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    const innerText = inner instanceof Error ? ` (${inner.message})` : '';
    return `${cause.message}${innerText}`;
  }
  return String(cause);
}

/**
 * The response did not match the schema of the endpoint (the envelope of spec §5 over
 * the record schema of `@tagtrack/core`). `path` is the field path of the first issue, e.g.
 * `data[3].stats.uniqueOpens` (`''` for the whole body); `message` is `z.prettifyError`.
 */
export class ResponseValidationError extends TagtrackError {
  override readonly name = 'ResponseValidationError';
  readonly code = 'response_validation' as const;
  constructor(
    readonly path: string,
    message: string,
    readonly url: string,
    readonly issues: readonly z.core.$ZodIssue[] = [],
  ) {
    super(message);
  }
}

/**
 * The response body is larger than the client's `maxBodyBytes` (default 32 MiB): the body is
 * streamed and reading stopped at the cap (a `Content-Length` over it is refused unread), so a
 * huge or endless body never sits in memory. Not retried.
 */
export class ResponseTooLargeError extends TagtrackError {
  override readonly name = 'ResponseTooLargeError';
  readonly code = 'response_too_large' as const;
  constructor(
    /** The cap, in bytes. */
    readonly maxBodyBytes: number,
    readonly url: string,
    readonly method: string,
  ) {
    super(
      `${method} ${url}: the response body exceeds ${maxBodyBytes} bytes (maxBodyBytes); reading stopped`,
    );
  }
}

/**
 * The server answered a redirect (3xx). The API never redirects (spec §5: paging URLs
 * are on the base URL), so the client follows none and retries none: a redirect loop ends at
 * the first answer. `location` is the `Location` header (`''` when absent or hidden, as a
 * browser's opaque redirect hides it).
 */
export class RedirectError extends TagtrackError {
  override readonly name = 'RedirectError';
  readonly code = 'redirect' as const;
  constructor(
    readonly statusCode: number,
    readonly location: string,
    readonly url: string,
    readonly method: string,
  ) {
    super(
      `${method} ${url} answered ${statusCode} redirecting to ${location === '' ? 'an unknown location' : location}; the client follows no redirect (is the base URL the API's final URL?)`,
    );
  }
}

/** Why a page walk stopped with a {@link PaginationError}. */
export type PaginationErrorReason = 'stalled' | 'inconsistent' | 'total_changed' | 'page_cap';

/**
 * Following `paging.cursors` would not give every record exactly once, or would not end
 * (spec §5 and its Revision 2):
 * - `stalled`: `next` does not advance past the requested cursor while the server still
 *   reports more records (following it would loop forever);
 * - `inconsistent`: `next` is not `cursor + data.length` (pages would overlap or skip records);
 * - `total_changed`: `paging.cursors.total` differs from the total of an earlier page of the
 *   same walk (`previousTotal`): the list changed underneath, records may be missed or repeated;
 * - `page_cap`: the walk fetched `maxPages` pages and the list still had not ended.
 * `cursor` is the cursor of the page that failed (for `page_cap`: the one not fetched).
 */
export class PaginationError extends TagtrackError {
  override readonly name = 'PaginationError';
  readonly code = 'pagination_error' as const;
  /** `total_changed`: the total reported by the earlier pages. */
  readonly previousTotal: number | undefined;
  /** `page_cap`: the cap that was reached. */
  readonly maxPages: number | undefined;
  constructor(
    readonly reason: PaginationErrorReason,
    readonly cursor: number,
    readonly received: number,
    readonly next: number,
    readonly total: number,
    detail: { readonly previousTotal?: number; readonly maxPages?: number } = {},
  ) {
    super(paginationMessage(reason, cursor, received, next, total, detail));
    this.previousTotal = detail.previousTotal;
    this.maxPages = detail.maxPages;
  }
}

function paginationMessage(
  reason: PaginationErrorReason,
  cursor: number,
  received: number,
  next: number,
  total: number,
  detail: { readonly previousTotal?: number; readonly maxPages?: number },
): string {
  switch (reason) {
    case 'stalled':
      return `pagination does not advance: cursor ${cursor} answered next ${next} with total ${total}`;
    case 'inconsistent':
      return `inconsistent paging: cursor ${cursor} answered ${received} record(s) but next ${next} (total ${total}); pages would overlap or skip records`;
    case 'total_changed':
      return `the list changed during pagination: total was ${detail.previousTotal}, cursor ${cursor} answered total ${total}; records may be missed or repeated`;
    case 'page_cap':
      return `pagination stopped after ${detail.maxPages} page(s) before cursor ${cursor} (total ${total}): raise maxPages if the list is that long`;
  }
}

/** A call was made with an argument the SDK cannot send (unknown parameter, missing id...). */
export class InvalidArgumentError extends TagtrackError {
  override readonly name = 'InvalidArgumentError';
  readonly code = 'invalid_argument' as const;
}

/** Formats a zod issue path as `data[3].stats.uniqueOpens` (`''` for the root). */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
