/**
 * The worker thread of `loadDatasetJsonFile` (`parallel.ts`): reads the events of a dataset JSON
 * file from a byte on and sends them back (columns and dictionaries transferred, not copied).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readEvents } from './parallel.ts';

const { path, from } = workerData as { path: string; from: number };
const events = await readEvents(path, from);
const c = events.columns;
const buffers = [
  c.tagCode,
  c.email,
  c.ms,
  c.device,
  ...Object.values(c.details),
  ...events.dicts.flatMap((d) => [d.arena, d.offset, d.length]),
].map((a) => a.buffer as ArrayBuffer);
parentPort!.postMessage(events, buffers);
