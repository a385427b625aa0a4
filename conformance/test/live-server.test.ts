import { createServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { runConformance } from '../src/runner.ts';
import { MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';

/**
 * The suite blind against the live reference server (apps/server/src/live.ts: tags, opens and
 * clicks appended at `rate` records per second, decisions §3 Revision 3), with one admin
 * credential and with the canonical profile (every credential watched): no check may fail on
 * data that moves; the inconclusive ones are printed. Heavy (twelve whole runs, about 40 s
 * each on a 2-core machine): run this file on its own.
 */
describe('against the live reference server (createServer({ live }))', () => {
  const cases = [1, 10].flatMap((rate) =>
    [1, 2, 3].flatMap((seed) => [
      { rate, seed, who: 'team1-admin' },
      { rate, seed, who: 'the canonical profile' },
    ]),
  );
  test.each(cases)(
    'rate $rate/s, seed $seed, blind as $who: no check fails',
    async ({ rate, seed, who }) => {
      const server = createServer({ publicUrl: MEMORY_BASE_URL, live: { rate, seed } });
      try {
        const result = await runConformance({
          baseUrl: MEMORY_BASE_URL,
          // an in-memory run never yields to the timers: append what is due before each answer
          fetch: (r) => {
            server.live!.tick();
            return server.fetch(r);
          },
          mode: 'blind',
          seed,
          numRuns: 5,
          ...(who === 'team1-admin'
            ? { authId: team1Admin.authId, accessKey: team1Admin.accessKey }
            : { profile: profileFor() }),
        });
        const d = result.data!;
        console.log(
          `live rate ${rate}/s seed ${seed} as ${who}: ${server.live!.current.appended} records appended, ` +
            `${result.checks.length} checks, ${result.summary.pass} passed, ${result.summary.fail} failed, ` +
            `${result.summary.inconclusive} inconclusive, ${result.summary.error} errors; ${d.rerunChecks} checks ran again ` +
            `(${d.reruns} runs); ${result.requests.sent} requests (${d.watermarkRequests} watermark)` +
            `${result.checks
              .filter(
                (c) => c.status === 'fail' || c.status === 'inconclusive' || c.status === 'error',
              )
              .map((c) => `\n  ${c.status} ${c.id}: ${c.reason ?? c.failures[0]?.message}`)
              .join('')}`,
        );
        expect(result.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
      } finally {
        await server.close();
      }
    },
  );
});
