// @ts-check
/**
 * A vendor's own check, run next to the built-in ones and reported like them (console,
 * results.json, junit.xml, report.html):
 *
 *   tagtrack-conformance run --base-url https://staging.example.com \
 *     --checks examples/vendor-version-header.mjs --report-dir reports
 *
 * or from code: `runConformance({ ..., checks: [...builtInChecks, ...checks] })`.
 *
 * The requirement: every response, whatever its status, carries `X-Vendor-Version` with a
 * semantic version (`2.4.1`). Acme's own rule, not the profile's: its id has Acme's prefix
 * (`ACME-`), so it never clashes with a built-in requirement id and `--only acme` selects it.
 *
 * The module imports nothing from the suite at run time: `ctx` offers what a check needs
 * (`ctx.call`, `ctx.raw`, `ctx.fail`, `ctx.compared`), so it works with whichever copy of
 * `@tagtrack/conformance` runs it (`npx`, a global install or your project's own).
 */

/** The header (fetch gives header names in lower case). */
const HEADER = 'x-vendor-version';

/** A semantic version: `MAJOR.MINOR.PATCH`, with an optional pre-release or build suffix. */
const SEMVER = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)*$/;

/** @type {import('@tagtrack/conformance').CheckSpec} */
const versionHeader = {
  id: 'ACME-VERSION-HEADER',
  title: 'every response carries X-Vendor-Version with a semantic version',
  clause: 'Acme API guidelines §4.2',
  endpoints: ['teams.list', 'teams.tags', 'contacts.list'],
  async run(ctx) {
    // answers of every kind: lists (200), no credential (401), an unknown path (404)
    const answers = [
      await ctx.call('teams.list'),
      await ctx.call('teams.tags'),
      await ctx.call('contacts.list'),
      await ctx.call('teams.list', { credential: null }),
      await ctx.raw({ path: '/acme-no-such-path', credential: ctx.primary }),
    ];
    for (const x of answers) {
      // one comparison per answer: a check that compared nothing is reported as skip
      ctx.compared();
      const value = x.responseHeaders[HEADER];
      if (value === undefined)
        ctx.fail(`${x.method} ${x.target} answered ${x.status} without ${HEADER}`, {
          kind: 'header',
          key: `no ${HEADER}`, // one failure, the others counted: "(and 4 more like it)"
          exchange: x,
        });
      else if (!SEMVER.test(value))
        ctx.fail(
          `${x.method} ${x.target}: ${HEADER} ${JSON.stringify(value)} is not a semantic version`,
          {
            kind: 'header',
            key: `bad ${HEADER}`,
            exchange: x,
            actual: value,
          },
        );
    }
  },
};

/** The checks `--checks` loads: an array, as `checks` (or as the default export). */
export const checks = [versionHeader];

export default checks;
