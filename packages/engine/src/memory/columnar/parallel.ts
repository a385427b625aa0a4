/**
 * Loading a dataset JSON file on two threads. The main thread streams the document from its
 * start (teams, tags, the first events); a worker reads events from the middle of the file
 * on, into its own columns and dictionaries. When the main thread reaches the byte where the
 * worker began, it checks that this byte really starts an element of `opens` or `clicks` (the
 * worker only guessed it: `},{`), and then takes the worker's events (codes translated into
 * its own dictionaries, in the same order, so the result is the one-thread result) and goes on
 * after them. Anything the worker could not take (not the usual event shape, another array,
 * the guess was wrong) is read by the main thread as before, so errors name the same records.
 */
import { open, stat } from 'node:fs/promises';
import type { ColumnarDataset } from './builder.ts';
import { ColumnarBuilder } from './builder.ts';
import { EVENT_CODE_FIELDS } from './event-store.ts';
import { JsonObjectStream } from './json-stream.ts';
import type { ColumnarLoadOptions, ColumnarSource } from './load.ts';
import { isSpace } from './raw.ts';
import type { Segment, WorkerEvents } from './worker-events.ts';

/** Bytes read at a time. */
const CHUNK = 1 << 20;
/** Files smaller than this are read on one thread (a worker's start-up would not pay). */
export const PARALLEL_MIN_BYTES = 32 << 20;
/**
 * Where the worker starts, as a share of the file: the main thread also reads the tags, which
 * cost about twice as much per byte as events (measured on generated data).
 */
const SPLIT = 0.4;
/** How far past the split the worker looks for the start of an element. */
const SEARCH = 1 << 20;

/** Options of {@link loadDatasetJsonFile}. */
export interface LoadDatasetJsonFileOptions extends ColumnarLoadOptions {
  /**
   * `false` (default): one thread, the document read in order; `'auto'`: a worker thread
   * reads the later part of a large file's events when a worker can start; `'in-process'`:
   * the same split, both parts read on this thread, one after the other (for tests). The
   * default is one thread because two were slower on the 2-core machine measured (9.0 s
   * against 6.4 s for 1 M events, quiet).
   */
  readonly parallel?: 'auto' | 'in-process' | false;
  /** Files of fewer bytes are read on one thread; default {@link PARALLEL_MIN_BYTES}. */
  readonly minBytes?: number;
  /** Where the worker starts looking for an element, as a share of the file; default 0.4. */
  readonly split?: number;
}

/**
 * Reads a dataset JSON file (core's `Dataset` schema) into columns, as {@link loadDatasetJson}
 * does from its bytes, optionally on two threads for a large file
 * ({@link LoadDatasetJsonFileOptions}); the result is the same. Throws what `loadDatasetJson` throws, and the file system's errors.
 */
export async function loadDatasetJsonFile(
  path: string,
  options: LoadDatasetJsonFileOptions = {},
): Promise<ColumnarSource & { readonly workerEvents: number }> {
  const size = (await stat(path)).size;
  const mode = options.parallel ?? false;
  const builder = new ColumnarBuilder();
  const stream = new JsonObjectStream(builder);
  const file = await open(path, 'r');
  let workerEvents = 0;
  try {
    let pos = 0;
    const readTo = async (to: number) => {
      while (pos < to) {
        const chunk = new Uint8Array(Math.min(CHUNK, to - pos));
        const { bytesRead } = await file.read(chunk, 0, chunk.length, pos);
        if (bytesRead === 0) throw new Error(`${path}: the file ended at byte ${pos}`);
        stream.feed(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
        pos += bytesRead;
        options.onBytes?.(pos);
      }
    };
    const boundary =
      mode !== false && size >= (options.minBytes ?? PARALLEL_MIN_BYTES)
        ? await findElementStart(path, Math.floor(size * (options.split ?? SPLIT)))
        : -1;
    if (boundary > 0) {
      const worker =
        mode === 'in-process' ? undefined : startWorker(path, boundary).catch(() => undefined);
      await readTo(boundary);
      const events = worker === undefined ? await readEvents(path, boundary) : await worker;
      if (events !== undefined) {
        for (const seg of events.segments) {
          await readTo(seg.start);
          const at = stream.pendingElement();
          if (at === undefined || (at.key !== 'opens' && at.key !== 'clicks')) break;
          if (seg.key !== undefined && seg.key !== at.key) break;
          builder.appendEvents(at.key, events, seg.first, seg.count);
          stream.skipElements(seg.count, seg.end);
          workerEvents += seg.count;
          pos = seg.end;
        }
      }
    }
    await readTo(size);
    stream.end();
  } finally {
    await file.close();
  }
  return {
    get events() {
      return builder.events;
    },
    workerEvents,
    finish: (o) => builder.finish(o) as ColumnarDataset,
    snapshotParts: () => builder.snapshotParts(),
  };
}

/**
 * The first byte at or after `from` that follows `}` `,` (whitespace allowed): the guessed
 * start of an array element (of objects); -1 when there is none within {@link SEARCH} bytes.
 */
export async function findElementStart(path: string, from: number): Promise<number> {
  const file = await open(path, 'r');
  try {
    const b = new Uint8Array(SEARCH);
    const { bytesRead } = await file.read(b, 0, SEARCH, from);
    for (let i = 0; i < bytesRead; i++) {
      if (b[i] !== 0x7d) continue;
      let j = i + 1;
      while (j < bytesRead && isSpace(b[j]!)) j++;
      if (b[j] !== 0x2c) continue;
      j++;
      while (j < bytesRead && isSpace(b[j]!)) j++;
      if (b[j] === 0x7b) return from + j;
    }
    return -1;
  } finally {
    await file.close();
  }
}

/** A byte reader over a file from an offset, with room to look ahead. */
class FileBytes {
  buf = new Uint8Array(0);
  /** File offset of `buf[0]`. */
  base: number;
  #eof = false;
  constructor(
    private readonly file: Awaited<ReturnType<typeof open>>,
    from: number,
  ) {
    this.base = from;
  }
  /** Drops the bytes before `buf[i]` and reads the next chunk; returns the new index of `i` (-1 at the end). */
  async more(i: number): Promise<number> {
    if (this.#eof) return -1;
    const rest = this.buf.subarray(i);
    const next = new Uint8Array(rest.length + CHUNK);
    next.set(rest, 0);
    const { bytesRead } = await this.file.read(
      next,
      rest.length,
      CHUNK,
      this.base + this.buf.length,
    );
    if (bytesRead === 0) this.#eof = true;
    this.base += i;
    this.buf = next.subarray(0, rest.length + bytesRead);
    return bytesRead === 0 ? -1 : 0;
  }
}

/**
 * Reads the events of a dataset JSON file from byte `from` on (the guessed start of an
 * element of `opens` or `clicks`): runs of elements of the usual event shape, across the end
 * of one array into the next (`],"clicks":[`), until an element it does not take, another
 * array, or the end. The worker thread's job; also run in process.
 */
export async function readEvents(path: string, from: number): Promise<WorkerEvents> {
  const builder = new ColumnarBuilder();
  builder.array('opens');
  const segments: Segment[] = [];
  const file = await open(path, 'r');
  try {
    const r = new FileBytes(file, from);
    let i = 0;
    let seg = { start: from, end: from, first: 0, count: 0, key: undefined as string | undefined };
    /** Skips whitespace from `i` (reading on); false at the end of the file. */
    const skip = async (): Promise<boolean> => {
      for (;;) {
        while (i < r.buf.length && isSpace(r.buf[i]!)) i++;
        if (i < r.buf.length) return true;
        i = await r.more(i);
        if (i < 0) return false;
      }
    };
    /** The byte at `i` is `c` (skipping whitespace before it); moves past it. */
    const expect = async (c: number): Promise<boolean> => {
      if (!(await skip()) || r.buf[i] !== c) return false;
      i++;
      return true;
    };
    read: for (;;) {
      let end = builder.rawElement('opens', r.buf, i, r.buf.length, 0);
      while (end < 0) {
        i = await r.more(i);
        if (i < 0) break read;
        end = builder.rawElement('opens', r.buf, i, r.buf.length, 0);
      }
      if (end === 0) break;
      seg.count++;
      i = end;
      seg.end = r.base + i;
      if (!(await skip())) break;
      if (r.buf[i] === 0x2c) {
        i++;
        if (!(await skip())) break;
        continue;
      }
      if (r.buf[i] !== 0x5d) break;
      // the end of the array: `],"clicks":[` goes on into the next one
      i++;
      if (!(await expect(0x2c)) || !(await expect(0x22))) break;
      let keyEnd = i;
      for (;;) {
        while (keyEnd < r.buf.length && r.buf[keyEnd] !== 0x22 && r.buf[keyEnd] !== 0x5c) keyEnd++;
        if (keyEnd < r.buf.length) break;
        const moved = await r.more(i);
        if (moved < 0) break read;
        keyEnd -= i;
        i = 0;
      }
      if (r.buf[keyEnd] !== 0x22) break;
      const key = new TextDecoder().decode(r.buf.subarray(i, keyEnd));
      if (key !== 'opens' && key !== 'clicks') break;
      i = keyEnd + 1;
      if (!(await expect(0x3a)) || !(await expect(0x5b))) break;
      if (seg.count > 0) segments.push(seg);
      const first: number = seg.first + seg.count;
      seg = { start: r.base + i, end: r.base + i, first, count: 0, key };
      if (!(await skip()) || r.buf[i] === 0x5d) break;
    }
    if (seg.count > 0) segments.push(seg);
  } finally {
    await file.close();
  }
  return builder.exportEvents(segments);
}

/** Runs {@link readEvents} on a worker thread; rejects when no worker can start or it fails. */
function startWorker(path: string, from: number): Promise<WorkerEvents> {
  return import('node:worker_threads').then(
    ({ Worker }) =>
      new Promise<WorkerEvents>((resolve, reject) => {
        const self = import.meta.url;
        const data = { path, from };
        let worker: InstanceType<typeof Worker>;
        if (self.endsWith('.ts')) {
          // a checkout run through tsx: the worker registers tsx before importing the source
          const api = import.meta.resolve('tsx/esm/api');
          const target = new URL('./parallel-worker.ts', self).href;
          const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(target)}); })`;
          worker = new Worker(code, { eval: true, workerData: data });
        } else {
          worker = new Worker(new URL('./parallel-worker.js', self), { workerData: data });
        }
        worker.once('message', (m: WorkerEvents) => {
          resolve(m);
          void worker.terminate();
        });
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
      }),
  );
}

export { EVENT_CODE_FIELDS };
