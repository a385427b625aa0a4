import { fc } from '@fast-check/vitest';
import type { Answer, Caller, Dataset, EngineAnswer } from '@tagtrack/core';
import {
  contactIdOf,
  defaultQueryParams,
  ENDPOINT_IDS,
  endpointById,
  type PathParamName,
  plainAnswer,
} from '@tagtrack/core';
import { arbDataset, arbEndpointRequestFor, callerOfMember } from '@tagtrack/core/testing';
import { withEveryEdgeCase, withRevision3Cases } from '@tagtrack/dataset';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../src/memory/build.ts';
import { type Database, openPglite, openPostgres } from '../src/sql/database.ts';
import { openSqlEngine } from '../src/sql/engine.ts';
import { testCitusUrl, testDatabaseUrl, useTestDatabase } from './databases.ts';

/*
 * The differential test of the SQL engine (CONVENTIONS.md: two implementations, one test):
 * `plainAnswer` (core's plain rules) and the SQL engine (sql/*.sql) must agree on every
 * endpoint, for every caller, on generated datasets (with every edge case the dataset
 * package adds), with and without a window: same records in the same order, same single
 * record, same 404 message, same error; a window is the same records at those places with
 * the whole list's length. Runs on embedded PGlite, on the PostgreSQL server of
 * TAGTRACK_TEST_DATABASE_URL too when it is set, and on the Citus coordinator of
 * TAGTRACK_TEST_CITUS_URL when that is set (.ci/run sets both).
 */

/** The outcome of an answer, compared by value (or the error, by class and message). */
async function outcome(f: () => Answer | Promise<EngineAnswer>): Promise<unknown> {
  try {
    return { answer: JSON.parse(JSON.stringify(await f())) };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

const arbCase = fc
  .record({
    base: arbDataset,
    edgeCases: fc.boolean(),
    revision3: fc.boolean(),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    memberWithoutGroup: fc.constantFrom('omit', 'empty' as const),
  })
  .map(({ base, edgeCases, revision3, seed, memberWithoutGroup }) => {
    const edged = edgeCases ? withEveryEdgeCase(base, seed) : base;
    return { dataset: revision3 ? withRevision3Cases(edged) : edged, memberWithoutGroup };
  })
  .chain(({ dataset, memberWithoutGroup }) => {
    const members = dataset.teams.flatMap((t) => t.members.map((m) => m.memberID));
    return fc.record({
      dataset: fc.constant(dataset),
      memberWithoutGroup: fc.constant(memberWithoutGroup),
      requests: fc.array(
        fc.record({
          caller: fc.constantFrom(...members).map((id) => callerOfMember(dataset, id)),
          request: fc.oneof(
            arbEndpointRequestFor(dataset),
            arbEndpointRequestFor(dataset, { anyParams: true }),
          ),
          window: fc.record({
            offset: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 10_000 })),
            limit: fc.integer({ min: 1, max: 12 }),
          }),
        }),
        { minLength: 1, maxLength: 40 },
      ),
    });
  });

/** Generated datasets per database (each is loaded with COPY and refreshed). */
const RUNS = Number(process.env.SQL_ORACLE_RUNS ?? 10);

async function agree(db: Database, runs: number, seed: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbCase, async ({ dataset, memberWithoutGroup, requests }) => {
      const engine = await openSqlEngine({ database: db, load: dataset, memberWithoutGroup });
      for (const { caller, request, window } of requests) {
        const where = `${request.endpoint} ${JSON.stringify(request.pathParams)} ${JSON.stringify(request.query)} as ${caller.memberID}`;
        const expected = await outcome(() =>
          plainAnswer(dataset, caller, request, { memberWithoutGroup }),
        );
        expect(await outcome(() => engine.answer(caller, request)), where).toEqual(expected);
        const windowed = (await outcome(() => engine.answer(caller, request, window))) as {
          answer?: EngineAnswer;
        };
        const whole = (expected as { answer?: Answer }).answer;
        if (windowed.answer?.kind === 'slice' && whole?.kind === 'list') {
          expect(windowed.answer, `${where} window ${JSON.stringify(window)}`).toEqual({
            kind: 'slice',
            records: whole.records.slice(window.offset, window.offset + window.limit),
            offset: window.offset,
            total: whole.records.length,
          });
        } else {
          expect(windowed, `${where} window ${JSON.stringify(window)}`).toEqual(expected);
        }
      }
      await engine.close();
    }),
    { numRuns: runs, seed, endOnFailure: true },
  );
}

/** Whether the dataset has a caller of every account type: the generator reaches all. */
function accountTypes(dataset: Dataset): Set<Caller['accountType']> {
  return new Set(dataset.teams.flatMap((t) => t.members.map((m) => m.accountType)));
}

describe('plainAnswer (rules.ts) = the SQL engine on PGlite (spec §4, §5, §6, §9, §10)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('on generated datasets with every edge case, callers, requests to every endpoint and windows', async () => {
    await agree(db, RUNS, 20261126);
  });

  it('the generated cases reach every account type', () => {
    const seen = new Set<string>();
    for (const c of fc.sample(arbCase, { numRuns: RUNS, seed: 20261126 }))
      for (const t of accountTypes(c.dataset)) seen.add(t);
    expect([...seen].sort()).toEqual(['admin', 'manager', 'user']);
  });
});

describe.skipIf(testDatabaseUrl() === undefined)(
  'plainAnswer = the SQL engine on a PostgreSQL server',
  () => {
    const database = useTestDatabase('sql-oracle');
    let db: Database;
    beforeAll(async () => {
      db = await openPostgres(database().url);
    });
    afterAll(async () => {
      await db?.close();
    });

    it('on generated datasets with every edge case, callers, requests and windows', async () => {
      await agree(db, RUNS, 20261127);
    });
  },
);

describe('the in-memory index (= plainAnswer: aggregate.oracle.test.ts) = the SQL engine on the canonical dataset, every endpoint and credential', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('answers every endpoint for each of the 12 credentials as the rules do', async () => {
    const engine = await openSqlEngine({ database: db, load: canonicalDataset });
    // the in-memory index answers as plainAnswer does (its own differential test) and fast:
    // plainAnswer recomputes every list from the dataset (150 ms for a contact list here)
    const rules = buildIndex(canonicalDataset);
    const { tags, teams } = canonicalDataset;
    const days = tags.map((t) => t.dateSent.slice(0, 10)).sort();
    const queries = [
      defaultQueryParams({ date: days[days.length >> 1]! }),
      defaultQueryParams({
        start: days[0]!,
        end: days[days.length >> 1]!,
        aggregateData: true,
        isOpened: true,
        type: 'user',
        date: days[0]!,
      }),
    ];
    let found = 0;
    for (const credential of CANONICAL_CREDENTIALS) {
      const { caller } = engine.credential(credential.authId)!;
      const visible = rules.answer(caller, {
        endpoint: 'teams.tags',
        pathParams: {},
        query: defaultQueryParams({}),
      }) as unknown as { records: { tagID: string; recipients: { email: string }[] }[] };
      const first = visible.records[0];
      const values: Record<PathParamName, string[]> = {
        memberID: [caller.memberID, teams[1]!.members[0]!.memberID, 'nobody'],
        group: [teams[0]!.groups[0]!.groupName, teams[0]!.groups[1]!.groupID, 'no such group'],
        tagID: [...(first ? [first.tagID] : []), tags.at(-1)!.tagID, 'no-such-tag'],
        contactID: [...(first ? [contactIdOf(first.recipients[0]!.email)] : []), 'no-such-id'],
      };
      for (const endpoint of ENDPOINT_IDS) {
        const names = endpointById(endpoint).pathParams;
        const paths =
          names.length === 0 ? [{}] : values[names[0]!].map((v) => ({ [names[0]!]: v }));
        for (const pathParams of paths)
          for (const query of queries) {
            const request = { endpoint, pathParams, query };
            const expected = await outcome(() => rules.answer(caller, request));
            expect(
              await outcome(() => engine.answer(caller, request)),
              `${endpoint} ${JSON.stringify(pathParams)} as ${credential.label}`,
            ).toEqual(expected);
            if ((expected as { answer?: Answer }).answer?.kind !== 'not_found') found++;
          }
      }
    }
    expect(found).toBeGreaterThan(300);
  });
});

describe.skipIf(testCitusUrl() === undefined)(
  'plainAnswer = the SQL engine on a Citus coordinator (tables sharded by team)',
  () => {
    let db: Database;
    beforeAll(async () => {
      db = await openPostgres(testCitusUrl()!);
    });
    afterAll(async () => {
      await db?.close();
    });

    // every load lays the tables out over the workers anew: fewer datasets than on one server
    it('on generated datasets with every edge case, callers, requests and windows', async () => {
      await agree(db, Math.max(1, Math.ceil(RUNS / 3)), 20261128);
    }, 1_800_000);
  },
);
