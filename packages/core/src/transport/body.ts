/**
 * Reading a response within limits: a deadline (one request's timeout, abortable from outside)
 * and a capped, streamed read of the body. Pure web-platform code (`AbortController`,
 * `Response.body`'s reader, `TextDecoder`), shared by the client and the suite; each wraps
 * {@link BodyTooLargeError} in an error class of its own.
 */

/**
 * A response body went past the byte cap of {@link readCappedBody}: the stream was cancelled
 * (or never read when its `Content-Length` said so). `maxBytes`: the cap, in bytes.
 */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the response body exceeds the cap of ${maxBytes} bytes`);
  }
}

/** A body read whole by {@link readCappedBody}: UTF-8 text and the bytes received. */
export interface CappedBody {
  readonly text: string;
  /** Size of the body in bytes, as received. */
  readonly bytes: number;
}

/**
 * Reads `response`'s body as UTF-8 text, streaming, and stops past `maxBytes`: throws
 * {@link BodyTooLargeError} after cancelling the stream (a `Content-Length` over the cap is
 * refused before reading; a body of exactly `maxBytes` is read). No body reads as `''`.
 * When `signal` aborts mid-body the stream is cancelled and the read rejects with the signal's
 * reason (a fetch's own body stream may not see the abort, e.g. an in-memory `fetch`).
 */
export async function readCappedBody(
  response: Response,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<CappedBody> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(maxBytes);
  }
  if (response.body === null) return { text: '', bytes: 0 };
  const reader = response.body.getReader();
  let onAbort: (() => void) | undefined;
  const aborted =
    signal === undefined
      ? undefined
      : new Promise<never>((_, reject) => {
          onAbort = () => reject(signal.reason);
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        });
  aborted?.catch(() => {});
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await (aborted === undefined
        ? reader.read()
        : Promise.race([reader.read(), aborted]));
      if (done) break;
      bytes += value.byteLength;
      if (bytes > maxBytes) throw new BodyTooLargeError(maxBytes);
      text += decoder.decode(value, { stream: true });
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw e;
  } finally {
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
  return { text: text + decoder.decode(), bytes };
}

/**
 * How late (ms) a deadline's timer may fire before the delay counts as the event loop having
 * been busy rather than the request being slow (timers fire a millisecond or two late).
 */
const STALL_SLACK_MS = 20;

/**
 * One request's deadline: `signal` aborts after `timeoutMs` milliseconds with a
 * `TimeoutError` `DOMException` (as `AbortSignal.timeout` does; `timedOut` is then true), or
 * on {@link abort}. `dispose` clears the timer once the request is answered and its body read,
 * so no timer of a finished request stays pending.
 *
 * The deadline measures the wire, not the caller's own work: when its timer fires later than
 * due (by more than {@link STALL_SLACK_MS}), the event loop was busy and could not read what
 * arrived meanwhile, so the time it was late is added once more before the request counts as
 * timed out. The loop then reads what came in (I/O runs after timers) and an answer that had
 * arrived is never reported late. The extension is granted once per deadline: a request that
 * never answers times out after at most the timeout plus two stalls, however busy the loop.
 */
export class Deadline {
  readonly #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout>;
  #timedOut = false;
  #extended = false;

  constructor(readonly timeoutMs: number) {
    this.#timer = this.#arm(timeoutMs);
  }

  #arm(ms: number): ReturnType<typeof setTimeout> {
    const due = performance.now() + ms;
    return setTimeout(() => {
      const late = performance.now() - due;
      // once only: on a loop that stays busy every timer fires late, and re-arming each time
      // would never time out a request that never answers
      if (late > STALL_SLACK_MS && !this.#extended) {
        this.#extended = true;
        this.#timer = this.#arm(late);
        return;
      }
      this.#timedOut = true;
      this.#controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
    }, ms);
  }

  /** Aborts when the deadline passes or {@link abort} is called. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the deadline passed (rather than an {@link abort} from outside). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Aborts the request now with `reason` (e.g. the caller's signal's). */
  abort(reason?: unknown): void {
    this.#controller.abort(reason);
  }

  /** Clears the timer; the signal no longer aborts by itself. */
  dispose(): void {
    clearTimeout(this.#timer);
  }
}
