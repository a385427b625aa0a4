import type { Dataset } from '@tagtrack/core';
import { compareStrings, defaultQueryParams, visibleTags } from '@tagtrack/core';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../src/memory/build.ts';

/*
 * spec §5 Revision 3: order is defined on the values as the response shows them. The
 * reference shows dateSent at seconds precision, so two tags stored at 12:00:00.100 and
 * 12:00:00.900 of one second are shown with the same dateSent and come in tagID order, even
 * when the one with the greater tagID is the later by its hidden milliseconds.
 */

/** The canonical dataset with two tags of one member in one second, the greater tagID later. */
function tiedInOneSecond(): { dataset: Dataset; first: string; second: string } {
  const admin = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;
  const tags = canonicalDataset.tags.map((t) => ({ ...t }));
  const own = tags.filter((t) => t.memberID === admin.memberID);
  const [low, high] = [own[0]!, own[1]!].sort((a, b) => compareStrings(a.tagID, b.tagID));
  // the second before the earlier send: every event of both stays after its tag's send
  const earlier = Math.min(Date.parse(low!.dateSent), Date.parse(high!.dateSent));
  const second = new Date(earlier - 1000).toISOString().slice(0, 19);
  low!.dateSent = `${second}.100Z`;
  high!.dateSent = `${second}.900Z`;
  return { dataset: { ...canonicalDataset, tags }, first: low!.tagID, second: high!.tagID };
}

describe('tag order by the dateSent as shown (spec §5 Revision 3)', () => {
  const { dataset, first, second } = tiedInOneSecond();
  const admin = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;
  const pair = (ids: readonly string[]) => ids.filter((id) => id === first || id === second);

  it('the index lists two tags shown with the same dateSent in tagID order, whatever their hidden milliseconds', () => {
    const index = buildIndex(dataset);
    const caller = index.callerOf(admin.memberID)!;
    for (const endpoint of ['teams.tags', 'teams.memberTags'] as const) {
      const answer = index.answer(caller, {
        endpoint,
        pathParams: { memberID: admin.memberID },
        query: defaultQueryParams({}),
      });
      if (answer.kind !== 'list') throw new Error(`${endpoint} answered ${answer.kind}`);
      const shown = (answer.records as { tagID: string; dateSent: string }[]).filter(
        (t) => t.tagID === first || t.tagID === second,
      );
      expect(shown.map((t) => t.dateSent)[0]).toBe(shown.map((t) => t.dateSent)[1]);
      expect(shown.map((t) => t.tagID)).toEqual([first, second]);
    }
  });

  it('the plain rules (the oracle) order them the same way', () => {
    const caller = buildIndex(dataset).callerOf(admin.memberID)!;
    expect(pair(visibleTags(dataset, caller).map((t) => t.tagID))).toEqual([first, second]);
  });
});
