import { type Check, defineCheck } from '../check/define.ts';
import { describe, Violation } from '../check/failure.ts';
import type { Exchange } from '../http/client.ts';
import { errorBodyProblem } from './err.ts';

/** Requirement id prefix of this file's checks (area `rate`). */
export const prefix = 'RATE';

const declared = (env: { profile: { rateLimit: unknown } }) =>
  env.profile.rateLimit === null ? 'the profile declares no rate limit' : undefined;

/** The rate limit option (spec §7): pacing honours it; exceeding it answers 429 with headers. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'RATE-PACED-NO-429',
    title: 'requests paced to the declared rate are never answered 429',
    clause: 'spec §7 (clients and the suite pace themselves to a configured rate)',
    endpoints: [],
    skipIf: declared,
    async run(ctx) {
      const limited = ctx.http.exchanges.filter((e) => e.status === 429);
      ctx.compared(ctx.http.exchanges.length);
      if (limited.length > 0)
        ctx.fail(
          `${limited.length} paced requests were answered 429, first ${describe(limited[0]!)}`,
          {
            kind: 'status',
            exchange: limited[0],
          },
        );
    },
  }),
  defineCheck({
    id: 'RATE-429-HEADERS',
    title:
      'a burst beyond the declared limit answers 429 with X-Rate-Limit-Limit, -Remaining, -Reset (epoch seconds), Retry-After and the error body',
    clause: 'spec §7',
    endpoints: ['teams.list'],
    skipIf: declared,
    async run(ctx) {
      const rl = ctx.profile.rateLimit!;
      // 2 × limit + 1 requests at once: whether the implementation counts in fixed windows
      // (a burst may straddle two), a sliding window or a token bucket, a burst that ends
      // within one window holds more than the limit in some window. A burst that took longer
      // than a window proves nothing (a slow machine spreads it out): tried again, then skipped.
      const size = 2 * rl.limit + 1;
      let limited: Exchange | undefined;
      let slowest = 0;
      // the wall clock around the burst that answered 429: X-Rate-Limit-Reset is judged
      // against when the answer can have been made, never against when this code gets to it
      let sentFrom = 0;
      let answeredBy = 0;
      for (let attempt = 0; attempt < 3 && limited === undefined; attempt++) {
        const started = performance.now();
        sentFrom = Date.now();
        const burst = await Promise.all(
          Array.from({ length: size }, () =>
            ctx.raw({ path: '/teams', credential: ctx.primary, cache: false, unpaced: true }),
          ),
        );
        answeredBy = Date.now();
        const elapsed = performance.now() - started;
        // let the window pass so later checks (and the next attempt) are not limited
        await new Promise((r) => setTimeout(r, rl.windowMs + 50));
        limited = burst.find((e) => e.status === 429);
        if (limited === undefined && elapsed < rl.windowMs) {
          ctx.fail(
            `${size} requests within ${Math.round(elapsed)} ms got no 429 (declared limit ${rl.limit} per ${rl.windowMs} ms)`,
            { kind: 'status', exchange: burst[burst.length - 1] },
          );
          return;
        }
        slowest = Math.max(slowest, elapsed);
      }
      if (limited === undefined)
        return ctx.skip(
          `a burst of ${size} requests took ${Math.round(slowest)} ms, longer than the declared window of ${rl.windowMs} ms, three times: the limit could not be observed from here`,
        );
      const h = limited.responseHeaders;
      const problems: string[] = [];
      if (h['x-rate-limit-limit'] !== String(rl.limit))
        problems.push(
          `X-Rate-Limit-Limit ${JSON.stringify(h['x-rate-limit-limit'])}, expected ${rl.limit}`,
        );
      if (!/^\d+$/.test(h['x-rate-limit-remaining'] ?? ''))
        problems.push(
          `X-Rate-Limit-Remaining ${JSON.stringify(h['x-rate-limit-remaining'])} is not a count`,
        );
      const reset = Number(h['x-rate-limit-reset']);
      // the window the 429 was counted in ends after the burst was sent and at most one
      // window after its last answer; 5 s either side for the two machines' clocks
      if (
        !/^\d+$/.test(h['x-rate-limit-reset'] ?? '') ||
        reset < sentFrom / 1000 - 5 ||
        reset > answeredBy / 1000 + 5 + rl.windowMs / 1000
      )
        problems.push(
          `X-Rate-Limit-Reset ${JSON.stringify(h['x-rate-limit-reset'])} is not epoch seconds within the window`,
        );
      if (rl.retryAfter && !/^\d+$/.test(h['retry-after'] ?? ''))
        problems.push(`Retry-After ${JSON.stringify(h['retry-after'])} is not a number of seconds`);
      if (problems.length > 0)
        ctx.fail(`${describe(limited)} answered 429 but ${problems.join('; ')}`, {
          kind: 'header',
          exchange: limited,
        });
      await ctx.attempt(() => errorBodyProblem(limited));
    },
  }),
  defineCheck({
    id: 'RATE-RESPONSE-TIME',
    title: 'every response of the run arrives within --max-response-time',
    clause:
      "source: the suite's --max-response-time option (the vendor's own bound; the profile sets none)",
    endpoints: [],
    skipIf: (env) =>
      env.maxResponseTimeMs === undefined
        ? 'off: give --max-response-time MS to check response times'
        : undefined,
    async run(ctx) {
      const max = ctx.env.maxResponseTimeMs!;
      // runs alone and last (area rate): it sees every exchange of the run
      const exchanges = ctx.http.exchanges;
      ctx.compared(exchanges.length);
      await ctx.each(
        exchanges.filter((e) => e.durationMs > max),
        (e) => {
          throw new Violation(
            `${describe(e)} took ${Math.round(e.durationMs)} ms, over ${max} ms`,
            {
              kind: 'value',
              key: `slow: ${e.method} ${e.target}`,
              exchange: e,
            },
          );
        },
      );
    },
  }),
];
