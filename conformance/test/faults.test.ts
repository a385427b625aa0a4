import { FAULTS, type FaultName } from '@tagtrack/server';
import { afterAll, describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../src/checks/index.ts';
import { runInMemory } from './helpers.ts';

/**
 * Fault detection: every fault the reference server can inject (`FAULTS`) breaks the profile,
 * so the suite must fail on it, and fail at least one of the requirements the fault declares
 * in `detectedBy`. Each run is narrowed to those requirements (`--only`) to keep this file
 * fast; the unfaulted server passes them all.
 */

/** Server options a fault needs to be observable (a rate limit; small pages for paging). */
function serverFor(fault: FaultName) {
  return {
    faults: [fault],
    pageSize: 40,
    ...(fault === 'rate-limit-no-retry-after' ? { rateLimit: { limit: 30, windowMs: 1000 } } : {}),
  };
}

const KNOWN = new Set(ALL_CHECKS.map((c) => c.id));
const detections: [string, string[], string[]][] = [];

describe('fault detection: the suite fails on every injected fault of the reference server', () => {
  test('every detectedBy id names a requirement of the suite', () => {
    const unknown = FAULTS.flatMap((f) =>
      (f.detectedBy as readonly string[])
        .filter((id) => !KNOWN.has(id))
        .map((id) => `${f.name}: ${id}`),
    );
    expect(unknown).toEqual([]);
  });

  test('the unfaulted server passes every requirement used below (page size 40)', async () => {
    const only = [...new Set(FAULTS.flatMap((f) => f.detectedBy))].join(',');
    const result = await runInMemory({ pageSize: 40 }, { numRuns: 8, only });
    expect(
      result.checks
        .filter((c) => c.status === 'fail' || c.status === 'error')
        .map(
          (c) =>
            `${c.id}: ${c.reason ?? ''}${c.failures[0]?.message ?? ''} ${c.failures[0]?.counterexample ?? ''}`,
        ),
    ).toEqual([]);
  }, 60_000);

  test.each(FAULTS.map((f) => [f.name, f.description, f] as const))(
    'fault %s (%s) fails the run and one of its detectedBy requirements',
    async (name, _description, fault) => {
      const result = await runInMemory(serverFor(name as FaultName), {
        numRuns: 8,
        only: fault.detectedBy.join(','),
      });
      const failed = result.checks.filter((c) => c.status === 'fail').map((c) => c.id);
      const declared: readonly string[] = fault.detectedBy;
      detections.push([name, failed, [...declared]]);
      expect(result.checks.filter((c) => c.status === 'error')).toEqual([]);
      expect(result.ok).toBe(false);
      expect(failed.filter((id) => declared.includes(id))).not.toEqual([]);
      const failure = result.checks.find((c) => c.status === 'fail')!.failures[0]!;
      expect(failure.message.length).toBeGreaterThan(10);
    },
    30_000,
  );

  afterAll(() => {
    const width = Math.max(...detections.map(([n]) => n.length));
    console.log(
      `fault detection table (fault → failing requirement ids; declared detectedBy):\n${detections
        .map(
          ([n, ids, declared]) =>
            `  ${n.padEnd(width)}  ${ids.join(', ') || '(none)'}${[...ids].sort().join() === [...declared].sort().join() ? '' : `   [declared ${declared.join(', ')}]`}`,
        )
        .join('\n')}`,
    );
  });
});
