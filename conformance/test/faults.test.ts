import { FAULTS, type FaultName } from '@tagtrack/server';
import { afterAll, describe, expect, test } from 'vitest';
import { runInMemory } from './helpers.ts';

/**
 * Requirement areas to run per fault, to keep this file fast: the areas where the fault is
 * observable. A fault missing here runs the whole suite.
 */
const AREAS_FOR: Partial<Record<FaultName, string>> = {
  'unique-opens-as-total': 'relations,laws',
  'end-day-exclusive': 'relations',
  'ignore-is-opened': 'relations',
  'aggregate-drops-record': 'relations',
  'page-overlap': 'pagination',
  'json-content-type-text': 'schema',
  'html-unescaped': 'schema,REL-FORMATS-AGREE',
  'bad-date-200': 'input',
  'scope-leak-team': 'scope',
  'tablet-not-mobile': 'relations',
  'daily-counts-total': 'laws,REL-DAILY',
  'unknown-param-ignored': 'input',
  'signature-not-checked': 'auth',
  'out-of-scope-403': 'scope',
  'alias-ignores-type': 'relations',
  'contacts-all-team-tags': 'REL-CONTACTS,oracle',
  'error-body-not-json': 'input,auth',
  'head-total-differs': 'REL-HEAD',
  'clicks-window-by-send-date': 'relations',
  'rate-limit-no-retry-after': 'rate',
};

/** Server options a fault needs to be observable (a rate limit; small pages for paging). */
function serverFor(fault: FaultName) {
  return {
    faults: [fault],
    pageSize: 40,
    ...(fault === 'rate-limit-no-retry-after' ? { rateLimit: { limit: 30, windowMs: 1000 } } : {}),
  };
}

const detections: [string, string[]][] = [];

describe('fault detection: the suite fails on every injected fault of the reference server', () => {
  test('the unfaulted server passes every area used below (page size 40)', async () => {
    const result = await runInMemory({ pageSize: 40 }, { numRuns: 8 });
    expect(
      result.checks
        .filter((c) => c.status === 'fail' || c.status === 'error')
        .map(
          (c) =>
            `${c.id}: ${c.reason ?? ''}${c.failures[0]?.message ?? ''} ${c.failures[0]?.counterexample ?? ''}`,
        ),
    ).toEqual([]);
  }, 60_000);

  test.each(FAULTS.map((f) => [f.name, f.description] as const))(
    'fault %s (%s) fails the run, naming at least one requirement',
    async (name) => {
      const result = await runInMemory(serverFor(name), {
        numRuns: 8,
        ...(AREAS_FOR[name] === undefined ? {} : { only: AREAS_FOR[name] }),
      });
      const ids = result.checks.filter((c) => c.status === 'fail').map((c) => c.id);
      detections.push([name, ids]);
      expect(result.ok).toBe(false);
      expect(ids.length).toBeGreaterThan(0);
      expect(result.checks.filter((c) => c.status === 'error')).toEqual([]);
      const failure = result.checks.find((c) => c.status === 'fail')!.failures[0]!;
      expect(failure.message.length).toBeGreaterThan(10);
    },
    30_000,
  );

  afterAll(() => {
    const width = Math.max(...detections.map(([n]) => n.length));
    console.log(
      `fault detection table (fault → failing requirement ids):\n${detections
        .map(([n, ids]) => `  ${n.padEnd(width)}  ${ids.join(', ')}`)
        .join('\n')}`,
    );
  });
});
