import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc } from '@fast-check/vitest';
import type { Dataset, EngineAnswer } from '@tagtrack/core';
import { arbDataset, arbEndpointRequestFor, callerOfMember } from '@tagtrack/core/testing';
import { datasetToTables, TABLES, withEveryEdgeCase } from '@tagtrack/dataset';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyTablesFromNdjson } from '../src/sql/copy-ndjson.ts';
import { type Database, openPglite } from '../src/sql/database.ts';
import { openSqlEngine } from '../src/sql/engine.ts';

/*
 * copyTablesFromNdjson (the streamed loader of the scale bench) against loadDataset: the
 * same dataset, written as per-table NDJSON files and copied line by line, answers every
 * endpoint for every caller exactly as the dataset loaded whole does.
 */

/** Writes `<table>.ndjson` for each of the dataset's tables into a new temp directory. */
async function writeNdjson(dataset: Dataset): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tagtrack-copy-ndjson-'));
  const tables = datasetToTables(dataset);
  for (const t of TABLES)
    await writeFile(
      join(dir, `${t.name}.ndjson`),
      tables[t.name].map((row) => `${JSON.stringify(row)}\n`).join(''),
    );
  return dir;
}

async function outcome(f: () => Promise<EngineAnswer>): Promise<unknown> {
  try {
    return { answer: JSON.parse(JSON.stringify(await f())) };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

const arbCase = fc
  .record({ base: arbDataset, seed: fc.integer({ min: 1, max: 1_000_000 }) })
  .map(({ base, seed }) => withEveryEdgeCase(base, seed))
  .chain((dataset) => {
    const members = dataset.teams.flatMap((t) => t.members.map((m) => m.memberID));
    return fc.record({
      dataset: fc.constant(dataset),
      requests: fc.array(
        fc.record({
          caller: fc.constantFrom(...members).map((id) => callerOfMember(dataset, id)),
          request: arbEndpointRequestFor(dataset),
          window: fc.record({
            offset: fc.integer({ min: 0, max: 8 }),
            limit: fc.integer({ min: 1, max: 12 }),
          }),
        }),
        { minLength: 1, maxLength: 30 },
      ),
    });
  });

describe('copyTablesFromNdjson (streamed NDJSON -> COPY) on PGlite', () => {
  let whole: Database;
  let copied: Database;
  beforeAll(async () => {
    whole = await openPglite();
    copied = await openPglite();
  });
  afterAll(async () => {
    await whole?.close();
    await copied?.close();
  });

  it('the copied tables answer every request as loadDataset of the same dataset does (with and without a window)', async () => {
    await fc.assert(
      fc.asyncProperty(arbCase, async ({ dataset, requests }) => {
        const dir = await writeNdjson(dataset);
        try {
          const result = await copyTablesFromNdjson(copied, dir);
          expect(result.rows.opens).toBe(dataset.opens.length);
          expect(result.rows.clicks).toBe(dataset.clicks.length);
          const expected = await openSqlEngine({ database: whole, load: dataset });
          const actual = await openSqlEngine({ database: copied });
          for (const { caller, request, window } of requests) {
            const where = `${request.endpoint} ${JSON.stringify(request.pathParams)} as ${caller.memberID}`;
            expect(await outcome(() => actual.answer(caller, request)), where).toEqual(
              await outcome(() => expected.answer(caller, request)),
            );
            expect(await outcome(() => actual.answer(caller, request, window)), where).toEqual(
              await outcome(() => expected.answer(caller, request, window)),
            );
          }
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 2, seed: 20261126, endOnFailure: true },
    );
  });

  it('a missing table file or a line that is not JSON fails with one line naming it', async () => {
    const dataset = fc.sample(arbDataset, { numRuns: 1, seed: 7 })[0]!;
    const dir = await writeNdjson(dataset);
    try {
      await rm(join(dir, 'clicks.ndjson'));
      await expect(copyTablesFromNdjson(copied, dir)).rejects.toThrow(
        /^cannot load .*: no clicks\.ndjson$/,
      );
      await writeFile(join(dir, 'clicks.ndjson'), '{"position": 0,\n');
      await expect(copyTablesFromNdjson(copied, dir)).rejects.toThrow(
        /^cannot load table clicks: line 1 is not JSON/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
