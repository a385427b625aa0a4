/**
 * A streaming reader of one JSON document shaped like the dataset: a top-level object whose
 * values are (mostly long) arrays of records. It hands the elements of each top-level array
 * over in batches as they arrive, never holding more of the document than the current chunk
 * and the element cut by its end.
 *
 * It only finds where elements begin and end (strings, escapes, nesting); the elements
 * themselves are parsed by the engine's `JSON.parse`, one batch of consecutive elements per
 * call, so the parsing is native and each batch is as small as a chunk. (Streaming JSON
 * parsers from npm tokenise every value in JavaScript: several times slower than this on the
 * 340 MB of a 1 M-event dataset, where the start-up target is 3 s.)
 */

import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  isSpace,
  latin1Slice,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  type State,
  stringEnd,
  type ValueScan,
} from './json-stream/scan.ts';

/** The document is not JSON, or not a JSON object; `offset` is the byte where it went wrong. */
export class JsonStreamError extends Error {
  override readonly name = 'JsonStreamError';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** What {@link JsonObjectStream} reports. */
export interface JsonObjectHandler {
  /**
   * A top-level array starts under `key` (its elements follow); returning true offers each
   * of its elements to {@link rawElement} before parsing it.
   */
  array(key: string): boolean | undefined;
  /**
   * Element `index` of the current array, starting at `bytes[from]`, `to` the end of the
   * bytes at hand (valid only during the call): returns the index after the element when it
   * took it, 0 to have it scanned, parsed and handed over with {@link elements}, -1 when it
   * needs more bytes (it is called again, from the same element start, with more).
   */
  rawElement?(key: string, bytes: Uint8Array, from: number, to: number, index: number): number;
  /** Elements `first .. first + values.length` of the top-level array under `key`, parsed. */
  elements(key: string, values: unknown[], first: number): void;
  /** A top-level value that is not an array (parsed). */
  value(key: string, value: unknown): void;
}

/**
 * Feeds chunks of UTF-8 bytes of a JSON object (`{"teams": [...], "opens": [...], ...}`) and
 * reports each top-level array's elements in batches, and other top-level values whole.
 * Throws {@link JsonStreamError} at the first byte that cannot belong to such a document, or
 * at {@link end} when the document is incomplete; an element that is not valid JSON is named
 * by its key and index (`opens[12]: ...`).
 */
export class JsonObjectStream {
  #buf: Uint8Array = new Uint8Array(0);
  /** The buffer {@link feed} joins kept bytes and a chunk in. */
  #work: Uint8Array = new Uint8Array(0);
  /** Absolute offset of `#buf[0]` in the document. */
  #base = 0;
  #state: State = 'start';
  #key = '';
  /** Index of the next element of the current array. */
  #index = 0;
  /** The current array's elements are offered to `handler.rawElement` first. */
  #raw = false;
  /** `handler.rawElement` refused the element being scanned. */
  #rawRefused = false;
  /** Start (in `#buf`) of the value being scanned, and how far it was scanned. */
  #valueStart = -1;
  #scanPos = 0;
  #scan: ValueScan = { depth: 0, inString: false, scalar: false, high: false };
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly handler: JsonObjectHandler) {}

  /** Bytes read so far. */
  get offset(): number {
    return this.#base + this.#buf.length;
  }

  /** Reads the next chunk of the document. */
  feed(chunk: Uint8Array): void {
    if (this.#buf.length === 0) this.#buf = chunk;
    else {
      // the bytes kept (an element cut by the chunk's end) and the chunk, in one buffer
      // reused from chunk to chunk (no 1 MB allocation per chunk)
      const kept = this.#buf.length;
      const need = kept + chunk.length;
      let work = this.#work;
      if (work.length < need) {
        work = new Uint8Array(Math.max(need, work.length * 2));
        work.set(this.#buf, 0);
        this.#work = work;
      } else if (this.#buf.buffer === work.buffer) {
        work.copyWithin(
          0,
          this.#buf.byteOffset - work.byteOffset,
          this.#buf.byteOffset - work.byteOffset + kept,
        );
      } else work.set(this.#buf, 0);
      work.set(chunk, kept);
      this.#buf = work.subarray(0, need);
    }
    const keep = this.#run();
    this.#base += keep;
    this.#buf = this.#buf.subarray(keep);
    if (this.#valueStart >= 0) {
      this.#valueStart -= keep;
      this.#scanPos -= keep;
    }
  }

  /**
   * When the reader stands between elements of a top-level array, about to read the next one
   * (nothing pending but whitespace): the array's key and the next element's index; else
   * `undefined`. (For a loader that had elements read elsewhere: {@link skipElements}.)
   */
  pendingElement(): { readonly key: string; readonly index: number } | undefined {
    if (this.#state !== 'element' && this.#state !== 'first-element') return undefined;
    if (this.#valueStart >= 0) return undefined;
    for (let i = 0; i < this.#buf.length; i++) if (!isSpace(this.#buf[i]!)) return undefined;
    return { key: this.#key, index: this.#index };
  }

  /**
   * Goes past `count` elements of the current array that were read elsewhere: the next byte
   * fed is the document's byte `offset`, just after the last of them. Only when
   * {@link pendingElement} says the reader stands before an element.
   */
  skipElements(count: number, offset: number): void {
    if (this.pendingElement() === undefined) throw new Error('skipElements: not before an element');
    this.#index += count;
    this.#buf = new Uint8Array(0);
    this.#base = offset;
    this.#state = 'after-element';
  }

  /** Declares the end of the document; throws {@link JsonStreamError} when it is incomplete. */
  end(): void {
    let i = 0;
    while (i < this.#buf.length && isSpace(this.#buf[i]!)) i++;
    if (this.#state !== 'done' || i < this.#buf.length) {
      throw new JsonStreamError(
        this.#state === 'done'
          ? `unexpected data after the end of the document at byte ${this.#base + i}`
          : `unexpected end of the document at byte ${this.offset}${this.#where()}`,
        this.offset,
      );
    }
  }

  #where(): string {
    return this.#key === '' ? '' : ` (in "${this.#key}")`;
  }

  #fail(at: number, expected: string): never {
    const c = this.#buf[at];
    const got = c === undefined ? 'end of data' : `'${String.fromCharCode(c)}'`;
    throw new JsonStreamError(
      `expected ${expected} at byte ${this.#base + at}, got ${got}${this.#where()}`,
      this.#base + at,
    );
  }

  /** Advances through `#buf`; returns how many leading bytes are no longer needed. */
  #run(): number {
    const buf = this.#buf;
    const n = buf.length;
    let i = 0;
    /** Start of the batch of complete elements not yet handed over, and its end. */
    let batchStart = -1;
    let batchEnd = -1;
    let batchFirst = 0;
    let batchHigh = false;
    const flush = () => {
      if (batchStart < 0) return;
      this.#handBatch(buf, batchStart, batchEnd, batchFirst, !batchHigh);
      batchStart = -1;
      batchHigh = false;
    };
    for (;;) {
      if (this.#state !== 'element' && this.#state !== 'value' && this.#state !== 'key') {
        while (i < n && isSpace(buf[i]!)) i++;
        if (i >= n) break;
      }
      const c = buf[i]!;
      switch (this.#state) {
        case 'start':
          if (c !== OPEN_BRACE) this.#fail(i, "'{' (a JSON object)");
          i++;
          this.#state = 'key-or-end';
          continue;
        case 'key-or-end':
          if (c === CLOSE_BRACE) {
            i++;
            this.#state = 'done';
            continue;
          }
          this.#state = 'key';
          continue;
        case 'key': {
          while (i < n && isSpace(buf[i]!)) i++;
          if (i >= n) break;
          if (buf[i] !== QUOTE) this.#fail(i, 'a key (a JSON string)');
          const end = stringEnd(buf, i + 1);
          if (end < 0) break;
          this.#key = JSON.parse(this.#decode(buf, i, end)) as string;
          i = end;
          this.#state = 'colon';
          continue;
        }
        case 'colon':
          if (c !== COLON) this.#fail(i, "':'");
          i++;
          this.#state = 'value';
          continue;
        case 'value': {
          if (this.#valueStart < 0) {
            while (i < n && isSpace(buf[i]!)) i++;
            if (i >= n) break;
            if (buf[i] === OPEN_BRACKET) {
              i++;
              this.#index = 0;
              this.#raw = this.handler.array(this.#key) === true && !!this.handler.rawElement;
              this.#state = 'first-element';
              continue;
            }
            this.#startValue(i);
          }
          const end = this.#scanValue(buf);
          if (end < 0) {
            i = n;
            break;
          }
          const text = this.#decode(buf, this.#valueStart, end);
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch (e) {
            throw new JsonStreamError(
              `"${this.#key}": not JSON: ${(e as Error).message}`,
              this.#base + this.#valueStart,
            );
          }
          this.#valueStart = -1;
          this.handler.value(this.#key, value);
          i = end;
          this.#state = 'after-value';
          continue;
        }
        case 'first-element':
          if (c === CLOSE_BRACKET) {
            i++;
            this.#state = 'after-value';
            continue;
          }
          this.#state = 'element';
          continue;
        case 'element': {
          if (this.#valueStart < 0) {
            while (i < n && isSpace(buf[i]!)) i++;
            if (i >= n) break;
            const first = buf[i]!;
            if (first === COMMA || first === CLOSE_BRACKET || first === COLON) {
              this.#fail(i, 'an array element');
            }
            this.#startValue(i);
          }
          if (this.#raw && !this.#rawRefused) {
            flush(); // elements are handed over in order
            const taken = this.handler.rawElement!(
              this.#key,
              buf,
              this.#valueStart,
              n,
              this.#index,
            );
            if (taken < 0) {
              i = n;
              break;
            }
            if (taken > 0) {
              this.#index++;
              this.#valueStart = -1;
              i = taken;
              this.#state = 'after-element';
              continue;
            }
            this.#rawRefused = true;
          }
          const end = this.#scanValue(buf);
          if (end < 0) {
            i = n;
            break;
          }
          if (batchStart < 0) {
            batchStart = this.#valueStart;
            batchFirst = this.#index;
          }
          batchEnd = end;
          if (this.#scan.high) batchHigh = true;
          this.#index++;
          this.#valueStart = -1;
          i = end;
          this.#state = 'after-element';
          continue;
        }
        case 'after-element':
          if (c === COMMA) {
            i++;
            this.#state = 'element';
            continue;
          }
          if (c === CLOSE_BRACKET) {
            flush();
            i++;
            this.#state = 'after-value';
            continue;
          }
          this.#fail(i, "',' or ']'");
          break;
        case 'after-value':
          if (c === COMMA) {
            i++;
            this.#key = '';
            this.#state = 'key';
            continue;
          }
          if (c === CLOSE_BRACE) {
            i++;
            this.#key = '';
            this.#state = 'done';
            continue;
          }
          this.#fail(i, "',' or '}'");
          break;
        case 'done':
          throw new JsonStreamError(
            `unexpected data after the end of the document at byte ${this.#base + i}`,
            this.#base + i,
          );
      }
      break;
    }
    flush();
    // keep the value being scanned (and, for a key, the bytes from its quote)
    if (this.#valueStart >= 0) return this.#valueStart;
    if (this.#state === 'key') {
      while (i < n && isSpace(buf[i]!)) i++;
    }
    return Math.min(i, n);
  }

  #startValue(at: number): void {
    this.#valueStart = at;
    this.#rawRefused = false;
    this.#scanPos = at;
    this.#scan = { depth: 0, inString: false, scalar: false, high: false };
  }

  /**
   * Scans the value starting at `#valueStart` from `#scanPos`; returns the index after its
   * last byte, or -1 when `buf` ends first (the scan state is kept for the next chunk). A
   * scalar ends at the first delimiter, which must be in `buf`.
   */
  #scanValue(buf: Uint8Array): number {
    const s = this.#scan;
    const n = buf.length;
    let i = this.#scanPos;
    if (i === this.#valueStart) {
      const c = buf[i]!;
      if (c === CLOSE_BRACE || c === CLOSE_BRACKET) this.#fail(i, 'a value');
      s.scalar = c !== QUOTE && c !== OPEN_BRACE && c !== OPEN_BRACKET;
    }
    if (s.scalar) {
      while (i < n) {
        const c = buf[i]!;
        if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE || isSpace(c)) return i;
        if (c >= 0x80) s.high = true;
        i++;
      }
      this.#scanPos = i;
      return -1;
    }
    // One pass over the bytes: strings (and their escapes), nesting, non-ASCII bytes.
    let depth = s.depth;
    let inString = s.inString;
    let high = s.high;
    while (i < n) {
      const c = buf[i]!;
      if (inString) {
        if (c === QUOTE) {
          inString = false;
          if (depth === 0) {
            s.high = high;
            return i + 1;
          }
        } else if (c === BACKSLASH) {
          if (i + 1 >= n) break;
          i++;
        } else if (c >= 0x80) high = true;
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) {
          s.high = high;
          return i + 1;
        }
      } else if (c >= 0x80) high = true;
      i++;
    }
    s.depth = depth;
    s.inString = inString;
    s.high = high;
    this.#scanPos = i;
    return -1;
  }

  #decode(buf: Uint8Array, from: number, to: number): string {
    try {
      return this.#decoder.decode(buf.subarray(from, to));
    } catch {
      throw new JsonStreamError(
        `not UTF-8 between bytes ${this.#base + from} and ${this.#base + to}${this.#where()}`,
        this.#base + from,
      );
    }
  }

  /** Parses elements `first ..` (bytes `from .. to`, commas between) and hands them over. */
  #handBatch(buf: Uint8Array, from: number, to: number, first: number, ascii: boolean): void {
    const text =
      ascii && latin1Slice ? latin1Slice.call(buf, from, to) : this.#decode(buf, from, to);
    let values: unknown[];
    try {
      values = JSON.parse(`[${text}]`) as unknown[];
    } catch {
      throw this.#badElement(text, first);
    }
    this.handler.elements(this.#key, values, first);
  }

  /** The error naming the first element of a batch that is not JSON. */
  #badElement(text: string, first: number): JsonStreamError {
    // Re-split the batch with a fresh scan of the text, element by element.
    let index = first;
    let depth = 0;
    let inString = false;
    let start = 0;
    for (let i = 0; i <= text.length; i++) {
      const c = i < text.length ? text.charCodeAt(i) : COMMA;
      if (inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) inString = false;
        continue;
      }
      if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
      else if (c === COMMA && depth === 0) {
        try {
          JSON.parse(text.slice(start, i));
        } catch (e) {
          return new JsonStreamError(
            `${this.#key}[${index}]: not JSON: ${(e as Error).message}`,
            this.#base,
          );
        }
        index++;
        start = i + 1;
      }
    }
    return new JsonStreamError(`${this.#key}[${first}..]: not JSON`, this.#base);
  }
}
