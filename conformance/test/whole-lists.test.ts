import { describe, expect, test } from 'vitest';
import { builtInChecks, defineCheck } from '../src/index.ts';
import { runInMemory } from './helpers.ts';

/** Checks that read whole event lists run one at a time; the others run beside them. */
describe('wholeLists: one check reading whole event lists at a time', () => {
  test('at concurrency 4, three wholeLists checks never overlap, and a plain check runs beside them', async () => {
    const log: string[] = [];
    const sleeper = (id: string, wholeLists: boolean, ms: number) =>
      defineCheck({
        id,
        title: `sleeps ${ms} ms`,
        clause: 'test',
        endpoints: ['teams.list'],
        wholeLists,
        async run(ctx) {
          log.push(`start ${id}`);
          await ctx.call('teams.list');
          await new Promise((r) => setTimeout(r, ms));
          log.push(`end ${id}`);
        },
      });
    const result = await runInMemory(
      {},
      {
        checks: [
          ...builtInChecks,
          sleeper('ACME-WHOLE-A', true, 60),
          sleeper('ACME-WHOLE-B', true, 60),
          sleeper('ACME-PLAIN', false, 1000),
          sleeper('ACME-WHOLE-C', true, 60),
        ],
        only: 'ACME',
        concurrency: 4,
      },
    );
    // (they compare nothing, so each ends a skip; all four ran)
    expect(result.checks.filter((c) => c.id.startsWith('ACME')).length).toBe(4);
    expect(log.filter((l) => l.startsWith('start'))).toHaveLength(4);
    // each wholeLists check ends before the next one starts
    const whole = log.filter((l) => l.includes('WHOLE'));
    expect(whole).toEqual([
      'start ACME-WHOLE-A',
      'end ACME-WHOLE-A',
      'start ACME-WHOLE-B',
      'end ACME-WHOLE-B',
      'start ACME-WHOLE-C',
      'end ACME-WHOLE-C',
    ]);
    // the plain check (started before B) ran beside them: it ended after B started
    expect(log.indexOf('end ACME-PLAIN')).toBeGreaterThan(log.indexOf('start ACME-WHOLE-B'));
  }, 60_000);
});
