import { buildPath, ENDPOINTS } from '@tagtrack/core';
import { type Check, defineCheck, describe, Violation } from './api.ts';
import { expectError } from './input.ts';
import { sampleCalls } from './sample.ts';

/** Method probes (decisions §4): opt-in because they send non-GET requests. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'METHOD-405-NON-GET',
    area: 'methods',
    title: 'POST, PUT, DELETE and PATCH answer 405 with Allow: GET, HEAD and the error body',
    clause: 'decisions §4 (non-GET methods: 405 with Allow: GET, HEAD), §5',
    endpoints: ENDPOINTS.map((e) => e.id),
    skipIf: (env) => (env.probeMethods ? undefined : 'opt-in: run with --probe-methods'),
    async run(ctx) {
      const methods = ['POST', 'PUT', 'DELETE', 'PATCH'] as const;
      let i = 0;
      for (const { endpoint, call } of await sampleCalls(ctx)) {
        const method = methods[i++ % methods.length]!;
        const ex = await ctx.raw({
          method,
          path: buildPath(ENDPOINTS.find((e) => e.id === endpoint)!, call.pathParams ?? {}),
          query: call.query ?? [],
          credential: ctx.primary,
          cache: false,
        });
        try {
          expectError(ex, 405);
          const allow = (ex.responseHeaders.allow ?? '')
            .split(',')
            .map((s) => s.trim().toUpperCase())
            .sort();
          if (allow.join() !== 'GET,HEAD')
            throw new Violation(
              `${describe(ex)}: Allow ${JSON.stringify(ex.responseHeaders.allow)}, expected "GET, HEAD"`,
              { exchange: ex },
            );
        } catch (e) {
          if (e instanceof Violation) ctx.fail(e.message, e.details);
          else throw e;
        }
      }
    },
  }),
];
