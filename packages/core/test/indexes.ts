import { plainIndex } from '../src/aggregate/plain-answer.ts';
import type { ReportingIndex } from '../src/aggregate/types.ts';
import type { Dataset } from '../src/dataset/schema.ts';

/** Indexes are memoised per generated dataset object, so one dataset is validated once. */
const indexes = new WeakMap<Dataset, ReportingIndex>();

/**
 * `plainIndex(dataset)` (the plain rules behind the `ReportingIndex` interface), made once per
 * dataset object (for property tests). Core's tests need no engine: @tagtrack/engine's
 * differential test holds its in-memory index to these same answers.
 */
export function indexOf(dataset: Dataset): ReportingIndex {
  let idx = indexes.get(dataset);
  if (!idx) {
    idx = plainIndex(dataset);
    indexes.set(dataset, idx);
  }
  return idx;
}
