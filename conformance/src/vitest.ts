import { beforeAll, describe, test } from 'vitest';
import { ALL_CHECKS } from './checks/index.ts';
import { failureText } from './report/text.ts';
import { matchesOnly, type RunOptions, type RunResult, runConformance } from './run/runner.ts';

/** Options of {@link defineConformanceSuite}. */
export interface ConformanceSuiteOptions {
  /** Name of the vitest `describe` block. Default `tagtrack conformance`. */
  readonly name?: string;
  /** Timeout of the whole run in ms (the beforeAll hook). Default 180,000. */
  readonly timeoutMs?: number;
  /** Called with the finished run (e.g. to write reports). */
  readonly onResult?: (result: RunResult) => void | Promise<void>;
}

/**
 * Registers the conformance suite in a vendor's vitest file: one `describe` with one test
 * per requirement id (the checks `options.only` selects). The whole run happens once in a
 * `beforeAll`; each test then reports its check: pass, fail (the failures in domain words
 * with seed, counterexample and reproduce line), or skip (with the reason). An expected failure
 * passes; a stale expected-failure entry fails its test.
 *
 * Checks of your own (`options.checks: [...builtInChecks, ...yours]`) get their tests too
 * when `options` is an object.
 *
 * `options` may be a function, called inside the hook, so the base URL can come from a
 * server the file starts in its own `beforeAll`:
 * ```ts
 * import { defineConformanceSuite } from '@tagtrack/conformance/vitest';
 * let baseUrl = '';
 * beforeAll(async () => { baseUrl = await server.listen(0, '127.0.0.1'); });
 * defineConformanceSuite(() => ({ baseUrl, authId, accessKey, mode: 'blind' }));
 * ```
 */
export function defineConformanceSuite(
  options: RunOptions | (() => RunOptions | Promise<RunOptions>),
  suite: ConformanceSuiteOptions = {},
): void {
  const only = typeof options === 'function' ? undefined : options.only;
  // the checks to register tests for: `options.checks` (checks of your own) when given as an
  // object; a function's options are known only in the hook, so it gets the built-in ones
  const catalogue = (typeof options === 'function' ? undefined : options.checks) ?? ALL_CHECKS;
  describe(suite.name ?? 'tagtrack conformance', () => {
    let result: RunResult | undefined;
    let failure: unknown;
    beforeAll(async () => {
      try {
        const resolved = typeof options === 'function' ? await options() : options;
        result = await runConformance(resolved);
        await suite.onResult?.(result);
      } catch (e) {
        failure = e;
      }
    }, suite.timeoutMs ?? 180_000);
    for (const check of catalogue.filter((c) => matchesOnly(c, only))) {
      test(`${check.id}: ${check.title}`, (ctx) => {
        if (failure !== undefined) throw failure;
        const r = result?.checks.find((c) => c.id === check.id);
        if (r === undefined) return ctx.skip('not selected by options.only/exclude');
        if (result!.staleExpectedFailures.includes(r.id))
          throw new Error(`${r.id} is listed as an expected failure but passed: remove the entry`);
        if (r.status === 'skip') return ctx.skip(r.reason ?? 'skipped');
        // never a pass, never a fail (spec §5 Revision 3)
        if (r.status === 'inconclusive') return ctx.skip(`inconclusive: ${r.reason}`);
        if (r.expectedFailure !== undefined) return;
        if (r.status === 'error') throw new Error(`${r.id} could not run: ${r.reason}`);
        if (r.status === 'fail')
          throw new Error(
            `${r.id} (${r.clause}) failed:\n${r.failures.map((f) => `- ${failureText(f, '  ')}`).join('\n')}`,
          );
      });
    }
  });
}
