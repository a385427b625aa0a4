import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { describe, expect, test } from 'vitest';
import { runInMemory } from './helpers.ts';

/**
 * On a dataset where the caller sees no tag (or no event), a law or relation over tags has
 * nothing to compare: it must end (no hang) and skip with a reason, never pass on empty answers.
 */
describe('checks with nothing to check skip with a reason', () => {
  test('no tag visible: the tag laws and relations skip, none hangs or errors', async () => {
    const dataset = { ...canonicalDataset, tags: [], opens: [], clicks: [] };
    const result = await runInMemory({ dataset }, { only: 'laws,relations', dataset });
    const byId = new Map(result.checks.map((c) => [c.id, c]));
    for (const id of [
      'AGG-UNIQUE-LE-RECIPIENTS',
      'AGG-DAILY-LE-UNIQUE',
      'AGG-DAILY-SUM-GE-UNIQUE',
      'AGG-DAILY-ZERO-BEFORE-SEND',
      'REL-FILTER-CONJUNCTION',
      'REL-WINDOW-INCLUSIVE',
      'REL-RANGE-SPLIT',
      'REL-STATS-SUM-TAGS',
      'REL-MEMBER-TAGS-IN-TEAM',
      'REL-TAG-COUNTERS-EVENTS',
      'REL-CONTACTS-OF-TAG',
    ]) {
      expect({ id, status: byId.get(id)?.status }).toEqual({ id, status: 'skip' });
      expect(byId.get(id)?.reason).toMatch(/no tag/);
    }
    expect(byId.get('REL-CONTACT-IDS-CONSISTENT')?.status).toBe('skip');
    expect(byId.get('REL-CONTACT-IDS-CONSISTENT')?.reason).toMatch(/no contact/);
    expect(result.checks.filter((c) => c.status === 'fail' || c.status === 'error')).toEqual([]);
  });

  test('tags but no event: the daily-count laws over event days skip', async () => {
    const dataset = { ...canonicalDataset, opens: [], clicks: [] };
    const result = await runInMemory(
      { dataset },
      { only: 'AGG-DAILY-LE-UNIQUE,REL-DAILY*,REL-EVENTS-WINDOW', dataset },
    );
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ['AGG-DAILY-LE-UNIQUE', 'skip'],
      ['REL-DAILY-DISTINCT-RECIPIENTS', 'skip'],
      ['REL-EVENTS-WINDOW', 'skip'],
    ]);
  });
});
