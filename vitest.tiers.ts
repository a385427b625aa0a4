/**
 * The two test tiers (CONTRIBUTING.md, "Tests"):
 * - `pnpm test`: every test file of every project;
 * - `pnpm test:fast` (`TAGTRACK_TEST_TIER=fast`): unit tests and properties at 10 runs
 *   (vitest.setup.ts), without subprocesses, databases (PGlite, PostgreSQL), the fault and
 *   variant matrices, browsers or whole conformance runs. Under 60 s on 2 cores.
 *
 * Each project's vitest.config.ts spreads `tier(name)` into its `test` options: the shared
 * setup file, and in the fast tier the files that tier leaves out. A new test file is in the
 * fast tier unless it is listed here: list it when it starts a process or a database, runs the
 * suite or a matrix, or takes seconds.
 */
import { fileURLToPath } from 'node:url';
import { configDefaults } from 'vitest/config';

/** The fast tier of a project: only `include` (when given), minus `exclude`. */
interface FastTier {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

const FAST: Readonly<Record<string, FastTier>> = {
  core: { exclude: ['test/openapi-lint.test.ts'] /* runs redocly in a subprocess */ },
  dataset: { exclude: ['test/dataset-sql.test.ts'] /* loads datasets into PGlite */ },
  engine: {
    exclude: [
      'test/databases.test.ts', // PGlite and PostgreSQL
      'test/sql.*.test.ts', // the SQL engine on PGlite and PostgreSQL
      'test/columnar-parallel.test.ts', // worker threads over datasets of 5,000-20,000 events
    ],
  },
  client: {
    exclude: [
      'test/browser-bundle.test.ts', // esbuild and Chromium
      'test/cli.test.ts', // the CLI in subprocesses
      'test/hostile.test.ts', // the CLI in subprocesses against hostile servers
      'test/server.test.ts', // the SDK against the reference server over sockets, every endpoint
      'test/reference-paging.test.ts', // paging walks against the reference server over sockets
    ],
  },
  server: {
    exclude: [
      'test/cli.test.ts', // the server in subprocesses
      'test/cli-engine.test.ts', // subprocesses and the SQL engine
      'test/engine.test.ts', // the SQL engine on PGlite
      'test/live.test.ts', // subprocesses, live data
      'test/faults.test.ts', // the fault matrix
      'test/variants.test.ts', // the variant matrix
      'test/variants-socket.test.ts', // the variant matrix over sockets
      'test/original-clients.test.ts', // the original public clients' requests, one by one
      'test/dataset-file.test.ts', // the canonical dataset written and loaded in three formats
    ],
  },
  // the suite's own tests run it against servers: the fast tier keeps its unit tests only
  conformance: {
    include: [
      'test/boundaries.test.ts',
      'test/checks-input-auth.test.ts',
      'test/checks-layout.test.ts',
      'test/compare.test.ts',
      'test/http.test.ts',
      'test/laws-applied.test.ts',
      'test/layers.test.ts',
      'test/profile.test.ts',
      'test/requirements-doc.test.ts',
      'test/spec-clause.test.ts',
      'test/transport.test.ts',
      'test/verdict.test.ts',
    ],
  },
};

/** Whether this run is `pnpm test:fast`. */
export const FAST_TIER = process.env.TAGTRACK_TEST_TIER === 'fast';

/** The shared setup file (fast-check's numRuns and seed). */
const SETUP = fileURLToPath(new URL('./vitest.setup.ts', import.meta.url));

/**
 * The `test` options of project `name` for this tier: `setupFiles`, and in the fast tier the
 * `include`/`exclude` that leave its slow files out. Throws for a project not listed above.
 */
export function tier(
  name: string,
  include: readonly string[],
): { setupFiles: string[]; include: string[]; exclude: string[] } {
  const fast = FAST[name];
  if (fast === undefined) throw new Error(`vitest.tiers.ts lists no project named ${name}`);
  if (!FAST_TIER)
    return { setupFiles: [SETUP], include: [...include], exclude: [...configDefaults.exclude] };
  return {
    setupFiles: [SETUP],
    include: [...(fast.include ?? include)],
    exclude: [...configDefaults.exclude, ...(fast.exclude ?? [])],
  };
}
