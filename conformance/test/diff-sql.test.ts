import type { Dataset } from '@tagtrack/core';
import { generateDataset, withEveryEdgeCase } from '@tagtrack/dataset';
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
 * TAGTRACK_TEST_DATABASE_URL when one is set. A generated dataset with every edge case, in
 * blind mode with every credential declared. The canonical dataset's audit is the blind run
 * of soundness.test.ts on each SQL engine, which is also a diff against the in-memory engine
 * (`diffAgainstMemory`).
 */

const MEMORY_BASE = 'http://memory.memory';
const SQL_BASE = 'http://sql.memory';

const URL_OF_SERVER = process.env.TAGTRACK_TEST_DATABASE_URL || undefined;

const generated = withEveryEdgeCase(generateDataset({ seed: 23, scale: 'tiny' }), 23);

/** The generated dataset on PGlite, and on the PostgreSQL server too when one is set. */
const CASES: { name: string; dataset: Dataset; databaseUrl?: string }[] = [
  { name: 'generated seed 23 tiny + every edge case, PGlite', dataset: generated },
  ...(URL_OF_SERVER === undefined
    ? []
    : [
        {
          name: 'generated seed 23 tiny + every edge case, PostgreSQL',
          dataset: generated,
          databaseUrl: URL_OF_SERVER,
        },
      ]),
];

describe('diff of the in-memory server against the SQL-backed one finds nothing', () => {
  test.each(CASES)('$name', async ({ dataset, databaseUrl }) => {
    const engine = await openSqlEngine({
      load: dataset,
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
    });
    const memory = createServer({ dataset, publicUrl: MEMORY_BASE });
    const sql = createServer({ dataset, engine, publicUrl: SQL_BASE });
    try {
      const credentials = credentialsOf(dataset).map(({ memberID: _, ...c }) => c);
      const result = await runDiff({
        baseUrl: MEMORY_BASE,
        against: SQL_BASE,
        fetch: (r) => memory.fetch(r),
        fetchAgainst: (r) => sql.fetch(r),
        profile: { ...canonicalProfile(), credentials },
        mode: 'blind',
        seed: 23,
        numRuns: 1,
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
