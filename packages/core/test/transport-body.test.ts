import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { BodyTooLargeError, Deadline, readCappedBody } from '../src/transport/body.ts';

/** A response streaming `chunks` (then ending, or hanging when `hang`); records a cancel. */
function streamed(chunks: Uint8Array[], opts: { hang?: boolean; headers?: HeadersInit } = {}) {
  const state = { cancelled: false, pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[state.pulled++];
      if (chunk !== undefined) controller.enqueue(chunk);
      else if (!opts.hang) controller.close();
      else return new Promise<void>(() => {});
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const init: ResponseInit = opts.headers === undefined ? {} : { headers: opts.headers };
  return { response: new Response(body, init), state };
}

const bytes = (n: number, fill = 0x61) => new Uint8Array(n).fill(fill);

describe('readCappedBody', () => {
  fcTest.prop([fc.array(fc.string(), { maxLength: 8 })])(
    'a body within the cap reads as the UTF-8 text of its chunks, with its byte count',
    async (parts) => {
      const chunks = parts.map((p) => new TextEncoder().encode(p));
      const total = chunks.reduce((n, c) => n + c.byteLength, 0);
      const { response } = streamed(chunks);
      expect(await readCappedBody(response, total)).toEqual({ text: parts.join(''), bytes: total });
    },
  );

  test('a body of exactly the cap is read whole', async () => {
    const { response, state } = streamed([bytes(6), bytes(4)]);
    expect(await readCappedBody(response, 10)).toEqual({ text: 'a'.repeat(10), bytes: 10 });
    expect(state.cancelled).toBe(false);
  });

  test('a body one byte past the cap throws BodyTooLargeError and cancels the stream', async () => {
    const { response, state } = streamed([bytes(6), bytes(5), bytes(100)]);
    const error = await readCappedBody(response, 10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect((error as BodyTooLargeError).maxBytes).toBe(10);
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(3);
  });

  test('an endless body stops at the cap', async () => {
    const endless = new ReadableStream<Uint8Array>({
      pull: (c) => c.enqueue(bytes(1024)),
    });
    await expect(readCappedBody(new Response(endless), 64 * 1024)).rejects.toBeInstanceOf(
      BodyTooLargeError,
    );
  });

  test('a Content-Length over the cap is refused before reading', async () => {
    const { response, state } = streamed([bytes(3)], { headers: { 'content-length': '11' } });
    await expect(readCappedBody(response, 10)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(state.pulled).toBe(0);
    expect(state.cancelled).toBe(true);
  });

  test('no body reads as empty text', async () => {
    expect(await readCappedBody(new Response(null, { status: 204 }), 0)).toEqual({
      text: '',
      bytes: 0,
    });
  });

  test('a multi-byte character split across chunks decodes whole', async () => {
    const euro = new TextEncoder().encode('€');
    const { response } = streamed([euro.slice(0, 1), euro.slice(1)]);
    expect(await readCappedBody(response, 3)).toEqual({ text: '€', bytes: 3 });
  });

  test('a deadline passing mid-body rejects with its TimeoutError and cancels the stream', async () => {
    const { response, state } = streamed([bytes(4)], { hang: true });
    const deadline = new Deadline(20);
    try {
      const error = await readCappedBody(response, 1024, deadline.signal).catch((e: unknown) => e);
      expect((error as Error).name).toBe('TimeoutError');
      expect(deadline.timedOut).toBe(true);
      expect(state.cancelled).toBe(true);
    } finally {
      deadline.dispose();
    }
  });

  test('an abort from outside mid-body rejects with its reason, not as a timeout', async () => {
    const { response } = streamed([bytes(4)], { hang: true });
    const deadline = new Deadline(60_000);
    const reading = readCappedBody(response, 1024, deadline.signal);
    const reason = new Error('run stopped');
    deadline.abort(reason);
    await expect(reading).rejects.toBe(reason);
    expect(deadline.timedOut).toBe(false);
    deadline.dispose();
  });
});

describe('Deadline', () => {
  test('dispose clears the timer: the signal never aborts by itself afterwards', async () => {
    const deadline = new Deadline(1);
    deadline.dispose();
    await new Promise((r) => setTimeout(r, 20));
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.timedOut).toBe(false);
  });

  test('it measures the wire: a timer the busy event loop fired late does not time out at once', async () => {
    const deadline = new Deadline(10);
    // the caller's own synchronous work keeps the loop from firing the timer for 200 ms
    const until = performance.now() + 200;
    while (performance.now() < until) {}
    // the timer fires (late) before I/O is read: what arrived meanwhile still counts
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => setImmediate(r));
    expect(deadline.signal.aborted).toBe(false);
    // with nothing arriving, the deadline still passes, later
    await new Promise<void>((r) => deadline.signal.addEventListener('abort', () => r()));
    expect(deadline.timedOut).toBe(true);
  });

  test('it times out on a loop that stays busy: every timer late, the late time is added once, not again and again', async () => {
    const deadline = new Deadline(10);
    // the loop is busy in stretches back to back, each 40 ms longer than the one before (a
    // machine under growing load), so every timer fires more than the slack late; at most 14
    // stretches (4.2 s) are run
    let stretches = 0;
    await new Promise<void>((resolve) => {
      const busy = () => {
        if (deadline.signal.aborted || stretches >= 14) return resolve();
        stretches++;
        const until = performance.now() + 40 * stretches;
        while (performance.now() < until) {}
        setTimeout(busy, 0);
      };
      setTimeout(busy, 0);
    });
    expect(deadline.timedOut).toBe(true);
    // the first late firing extends the deadline once, the next times it out
    expect(stretches).toBeLessThan(5);
    deadline.dispose();
  }, 30_000);
});
