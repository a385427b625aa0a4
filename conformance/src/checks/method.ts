import { buildPath, ENDPOINT_LIST } from '@tagtrack/core';
import { type Check, defineCheck } from '../check/define.ts';
import { describe, Violation } from '../check/failure.ts';
import { sampleCalls } from '../check/sample.ts';
import { expectError } from './err.ts';

/** Requirement id prefix of this file's checks (area `method`). */
export const prefix = 'METHOD';

/** Method probes (spec §6): opt-in because they send non-GET requests. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'METHOD-405-NON-GET',
    title: 'POST, PUT, DELETE and PATCH answer 405 with Allow: GET, HEAD and the error body',
    clause: 'spec §6 (non-GET methods: 405 with Allow: GET, HEAD), §6',
    endpoints: ENDPOINT_LIST.map((e) => e.id),
    skipIf: (env) => (env.probeMethods ? undefined : 'opt-in: run with --probe-methods'),
    async run(ctx) {
      const methods = ['POST', 'PUT', 'DELETE', 'PATCH'] as const;
      let i = 0;
      await ctx.each(await sampleCalls(ctx), async ({ endpoint, call }) => {
        const method = methods[i++ % methods.length]!;
        const ex = await ctx.raw({
          method,
          path: buildPath(ENDPOINT_LIST.find((e) => e.id === endpoint)!, call.pathParams ?? {}),
          query: call.query ?? [],
          credential: ctx.primary,
          cache: false,
        });
        expectError(ex, 405);
        const allow = (ex.responseHeaders.allow ?? '')
          .split(',')
          .map((s) => s.trim().toUpperCase())
          .sort();
        if (allow.join() !== 'GET,HEAD')
          throw new Violation(
            `${describe(ex)}: Allow ${JSON.stringify(ex.responseHeaders.allow)}, expected "GET, HEAD"`,
            { kind: 'header', exchange: ex },
          );
      });
    },
  }),
];
