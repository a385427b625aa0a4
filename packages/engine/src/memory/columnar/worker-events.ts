/**
 * What the worker thread of `parallel.ts` reads and sends to the main thread, where
 * `ColumnarBuilder` (`builder.ts`) takes it in. A leaf: it imports only column types.
 */
import type { DictBytes } from './dict.ts';
import type { EventColumnsData } from './event-store.ts';

/** A run of consecutive events the worker read: file bytes `start .. end`. */
export interface Segment {
  /** The byte where the run's first element starts (or whitespace before it). */
  readonly start: number;
  /** The byte just after the run's last element. */
  readonly end: number;
  /** The run's first event among the worker's events, and how many. */
  readonly first: number;
  readonly count: number;
  /** The array the run is in, when the worker read its key (not for the first run). */
  readonly key: string | undefined;
}

/** What the worker read (sent to the main thread; the arrays are transferred). */
export interface WorkerEvents {
  readonly segments: readonly Segment[];
  readonly columns: EventColumnsData;
  /** The worker's dictionaries of `EVENT_CODE_FIELDS` (`event-store.ts`), as bytes. */
  readonly dicts: readonly DictBytes[];
}
