import type { Dataset } from '@tagtrack/core';
import { generateDataset, withEveryEdgeCase } from '@tagtrack/dataset';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { openSqlEngine } from '@tagtrack/engine';
import { createServer } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { runDiff } from '../src/diff/differential.ts';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import { credentialsOf } from './soundness.ts';

/**
 * `diff` of the reference server on the in-memory engine against the same server on the SQL
 * engine: the same data, so every answer must be the same (records, order,
 * paging, counts, errors). Embedded PGlite, and the PostgreSQL server of
 * TAGTRACK_TEST_DATABASE_URL when one is set. The canonical dataset and a generated one with
 * every edge case, in blind mode with every credential declared.
 */

const MEMORY_BASE = 'http://memory.memory';
const SQL_BASE = 'http://sql.memory';

const URL_OF_SERVER = process.env.TAGTRACK_TEST_DATABASE_URL || undefined;

const generated = withEveryEdgeCase(generateDataset({ seed: 23, scale: 'tiny' }), 23);

/**
 * The canonical dataset on the PostgreSQL server when one is set (.ci/run), else on PGlite
 * within a request budget; the generated one on PGlite, and on PostgreSQL too when set.
 */
const CASES: { name: string; dataset: Dataset; databaseUrl?: string; maxRequests?: number }[] =
  URL_OF_SERVER === undefined
    ? [
        { name: 'canonical dataset, PGlite', dataset: canonicalDataset, maxRequests: 600 },
        { name: 'generated seed 23 tiny + every edge case, PGlite', dataset: generated },
      ]
    : [
        {
          name: 'canonical dataset, PostgreSQL',
          dataset: canonicalDataset,
          databaseUrl: URL_OF_SERVER,
        },
        { name: 'generated seed 23 tiny + every edge case, PGlite', dataset: generated },
        {
          name: 'generated seed 23 tiny + every edge case, PostgreSQL',
          dataset: generated,
          databaseUrl: URL_OF_SERVER,
        },
      ];

describe('diff of the in-memory server against the SQL-backed one finds nothing', () => {
  test.each(CASES)('$name', async ({ dataset, databaseUrl, maxRequests }) => {
    const engine = await openSqlEngine({
      load: dataset,
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
    });
    const memory = createServer({ dataset, publicUrl: MEMORY_BASE });
    const sql = createServer({ dataset, engine, publicUrl: SQL_BASE });
    try {
      const credentials =
        dataset === canonicalDataset
          ? CANONICAL_CREDENTIALS.map(({ label, authId, accessKey, teamID, accountType }) => ({
              label,
              authId,
              accessKey,
              teamID,
              accountType,
            }))
          : credentialsOf(dataset).map(({ memberID: _, ...c }) => c);
      const result = await runDiff({
        baseUrl: MEMORY_BASE,
        against: SQL_BASE,
        fetch: (r) => memory.fetch(r),
        fetchAgainst: (r) => sql.fetch(r),
        profile: { ...canonicalProfile(), credentials },
        mode: 'blind',
        seed: 23,
        numRuns: 1,
        // on PGlite the canonical dataset's long lists: the most valuable checks first, within
        // a budget (the suite's fixture and blind runs on PGlite walk them whole:
        // soundness.test.ts)
        ...(maxRequests === undefined ? {} : { maxRequests }),
      });
      const differences = result.checks.flatMap((c) =>
        c.failures.map((f) => `${f.message}\n  A: ${f.expected}\n  B: ${f.actual}`),
      );
      expect(differences).toEqual([]);
      expect(result.compared).toBeGreaterThan(200);
    } finally {
      await Promise.all([memory.close(), sql.close()]);
      await engine.close();
    }
  });
});
