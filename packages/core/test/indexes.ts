import { buildIndex } from '../src/aggregate/build.ts';
import type { ReportingIndex } from '../src/aggregate/types.ts';
import type { Dataset } from '../src/dataset/schema.ts';

/** Indexes are memoised per generated dataset object, so one dataset is indexed once. */
const indexes = new WeakMap<Dataset, ReportingIndex>();

/** `buildIndex(dataset)`, built once per dataset object (for property tests). */
export function indexOf(dataset: Dataset): ReportingIndex {
  let idx = indexes.get(dataset);
  if (!idx) {
    idx = buildIndex(dataset);
    indexes.set(dataset, idx);
  }
  return idx;
}
