import { arbHostileString } from '@tagtrack/core/testing';
import fc from 'fast-check';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import { sampleCalls } from '../../check/sample.ts';
import { errorBodyProblem } from '../err.ts';
import { ALL_ENDPOINTS } from './calls.ts';

/** No input yields a 5xx (spec §6). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'INPUT-NO-5XX',
    title: 'no input yields a 5xx: generated query parameters answer 200, 204, 400 or 404',
    clause: 'spec §6 (a 5xx is always a defect)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      const names = [
        'start',
        'end',
        'date',
        'type',
        'rtn',
        'cursor',
        'total',
        'next',
        'isOpened',
        'aggregateData',
        'x',
      ];
      const value = fc.oneof(
        fc.string({ maxLength: 12 }),
        arbHostileString,
        fc.constantFrom(
          '2024-02-29',
          '9999-12-31',
          '0000-01-01',
          '-1',
          '1e309',
          '%',
          'true',
          '99999999999999999999',
        ),
      );
      await ctx.property(
        fc.tuple(
          fc.constantFrom(...samples),
          fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 3 }),
        ),
        async ([{ endpoint, call }, extra]) => {
          const ex = await ctx.call(endpoint, {
            ...call,
            query: [...(call.query ?? []), ...extra],
          });
          if (![200, 204, 400, 404].includes(ex.status))
            throw new Violation(
              `${describe(ex)} answered ${ex.status}, expected 200, 204, 400 or 404`,
              { kind: 'status', exchange: ex },
            );
          if (ex.status >= 400) errorBodyProblem(ex);
        },
      );
    },
  }),
];
