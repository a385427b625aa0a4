import type { Dataset } from '@tagtrack/core';
import type { StoreReader } from '../store.ts';
import type { VariantSet } from './index.ts';
import { EventRecipients } from './recipients.ts';
import { RecordVariants } from './records.ts';

/**
 * `reader` with the store variants that are on (spec §5, §9 Revisions 2 and 3): the
 * request's alternative contact id in core's terms first, then the answer's event recipients
 * ({@link EventRecipients}) and records ({@link RecordVariants}) rewritten. `dataset` is what
 * the reader serves (the ids and emails some variants read; without it they throw). Such a
 * reader answers whole lists only (a variant rewrites the whole answer). Returns `reader`
 * itself when no store variant is on.
 */
export function withStoreVariants(
  reader: StoreReader,
  variants: VariantSet,
  dataset: Dataset | undefined,
): StoreReader {
  const records = new RecordVariants(dataset, variants);
  const recipients = new EventRecipients(dataset, variants);
  if (!records.active && !recipients.active) return reader;
  return {
    servesWindows: false,
    rawInKey: reader.rawInKey,
    async answer(caller, request, raw) {
      const { request: inCore, echo } = records.requestIn(request);
      let answer = await reader.answer(caller, inCore, raw);
      if (answer.kind === 'slice') throw new Error('a window answered to a whole-list request');
      if (recipients.active) answer = recipients.answerOut(inCore, answer);
      return records.answerOut(request.endpoint, answer, echo);
    },
  };
}
