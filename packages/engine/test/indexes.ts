import type { Dataset, ReportingIndex } from '@tagtrack/core';
import { defaultQueryParams, ENDPOINT_IDS } from '@tagtrack/core';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { expect } from 'vitest';
import { buildIndex } from '../src/memory/build.ts';

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

/**
 * Expects `index` (of the canonical dataset, however loaded) to answer every endpoint, for
 * every canonical credential, as `ref` does (compared as JSON text), with path parameters
 * and a day of the canonical dataset's first tag.
 */
export function expectCanonicalAnswers(index: ReportingIndex, ref: ReportingIndex): void {
  const tag = canonicalDataset.tags[0]!;
  const pathParams = {
    memberID: tag.memberID,
    tagID: tag.tagID,
    group: canonicalDataset.teams[0]!.groups[0]!.groupID,
    contactID: ref.contacts(ref.callerOf(tag.memberID)!)[0]!.contactID,
  };
  const query = defaultQueryParams({ date: tag.dateSent.slice(0, 10) });
  for (const cred of CANONICAL_CREDENTIALS) {
    const caller = ref.callerOf(cred.memberID)!;
    for (const endpoint of ENDPOINT_IDS) {
      const request = { endpoint, pathParams, query };
      expect(JSON.stringify(index.answer(caller, request)), endpoint).toBe(
        JSON.stringify(ref.answer(caller, request)),
      );
    }
  }
}
