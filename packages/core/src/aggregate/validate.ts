import type { Dataset } from '../dataset/schema.ts';
import { resolveDataset } from './resolve.ts';

/**
 * The referential problems of a dataset, one readable line each (`[]` when consistent):
 * duplicate team/member/tag/auth ids and group ids within a team, groupIDs not of the
 * member's team, tags of unknown members, events of unknown tags or of emails not among the
 * tag's recipients (compared normalised, spec §10), events dated before their tag was
 * sent (spec §10: daily counts are 0 before the send day), invalid timestamps,
 * credentials of unknown members. At most 1000 lines, then a count of the rest.
 * Expects a schema-valid dataset (parse with the zod `Dataset` first).
 */
export function validateDataset(dataset: Dataset): string[] {
  return resolveDataset(dataset).problems;
}

/**
 * `buildIndex` was given an inconsistent dataset. `problems` are the lines of
 * {@link validateDataset}; the message shows the first few.
 */
export class DatasetError extends Error {
  override readonly name = 'DatasetError';
  readonly code = 'invalid_dataset' as const;
  constructor(readonly problems: readonly string[]) {
    const shown = problems.slice(0, 5).join('; ');
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    super(`invalid dataset: ${shown}${more}`);
  }
}
