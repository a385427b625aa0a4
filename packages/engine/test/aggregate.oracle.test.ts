import { fc, test as fcTest } from '@fast-check/vitest';
import type { Answer, Caller, Dataset, EndpointRequest, ReportingIndex } from '@tagtrack/core';
import {
  contactIdOf,
  defaultQueryParams,
  ENDPOINT_IDS,
  endpointById,
  type PathParamName,
  plainAnswer,
  visibleGroups,
} from '@tagtrack/core';
import { arbCaller, arbDataset, arbEndpointRequestFor } from '@tagtrack/core/testing';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../src/memory/build.ts';
import { loadDatasetJsonSync } from '../src/memory/columnar/load.ts';

/*
 * Two implementations, one differential test (CONVENTIONS.md): `plainAnswer` computes every
 * answer from the plain rules of rules.ts, `buildIndex(...).answer` from its indexes. They
 * must agree on every endpoint, for every caller, on every dataset: same records in the same
 * order, same single record, same 404 message, same error.
 */

/**
 * The columnar engine's index of `dataset` (`columnar/`), loaded from its JSON document cut
 * into chunks of `chunk` bytes (so records, strings and escapes are cut at every place).
 */
function columnarIndex(dataset: Dataset, chunk: number, options = {}): ReportingIndex {
  const bytes = new TextEncoder().encode(JSON.stringify(dataset));
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += chunk) chunks.push(bytes.subarray(i, i + chunk));
  return loadDatasetJsonSync(chunks, options).index;
}

/** Requests per generated dataset and caller. */
const REQUESTS = 24;

/** The outcome of an answer: the answer, or the error it threw (compared by class and message). */
function outcome(f: () => Answer): { answer: Answer } | { error: string } {
  try {
    // a JSON round trip compares by value: records of the index are shared objects
    return { answer: JSON.parse(JSON.stringify(f())) as Answer };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

function agree(index: ReportingIndex, caller: Caller, request: EndpointRequest, options = {}) {
  const expected = outcome(() => plainAnswer(index.dataset, caller, request, options));
  const actual = outcome(() => index.answer(caller, request));
  expect(actual, `${request.endpoint} ${JSON.stringify(request.pathParams)}`).toEqual(expected);
}

/**
 * A caller of the dataset (every account type across runs), or, once in five, an odd one
 * `answer` must still scope: a member given another team or account type, an unknown team.
 */
function arbAnyCaller(dataset: Dataset): fc.Arbitrary<Caller> {
  const teams = [...dataset.teams.map((t) => t.teamID), 'no-such-team'];
  const odd = fc
    .record({
      caller: arbCaller(dataset),
      teamID: fc.constantFrom(...teams),
      accountType: fc.constantFrom('admin', 'manager', 'user' as const),
    })
    .map(({ caller, teamID, accountType }): Caller => ({ ...caller, teamID, accountType }));
  return fc.oneof({ arbitrary: arbCaller(dataset), weight: 4 }, { arbitrary: odd, weight: 1 });
}

const arbCase = arbDataset.chain((dataset) =>
  fc.record({
    dataset: fc.constant(dataset),
    caller: arbAnyCaller(dataset),
    memberWithoutGroup: fc.constantFrom('omit', 'empty' as const),
    chunk: fc.integer({ min: 1, max: 4096 }),
    requests: fc.array(
      fc.oneof(arbEndpointRequestFor(dataset), arbEndpointRequestFor(dataset, { anyParams: true })),
      { minLength: 1, maxLength: REQUESTS, size: 'max' },
    ),
  }),
);

/** Generous: the machine is shared, and these tests do thousands of requests. */
const TIMEOUT = { timeout: 120_000 };

describe(
  'plainAnswer (rules.ts) = buildIndex(...).answer (spec §4, §5, §6, §9, §10)',
  TIMEOUT,
  () => {
    fcTest.prop([arbCase])(
      'on generated datasets, callers and requests to every endpoint',
      ({ dataset, caller, memberWithoutGroup, requests }) => {
        const index = buildIndex(dataset, { memberWithoutGroup });
        for (const request of requests) agree(index, caller, request, { memberWithoutGroup });
      },
    );

    fcTest.prop([arbCase])(
      'the columnar engine (streamed from the JSON in chunks of any size) answers as the rules do',
      ({ dataset, caller, memberWithoutGroup, chunk, requests }) => {
        const index = columnarIndex(dataset, chunk, { memberWithoutGroup });
        expect(index.dataset.opens).toEqual(dataset.opens);
        expect(index.dataset.clicks).toEqual(dataset.clicks);
        for (const request of requests) agree(index, caller, request, { memberWithoutGroup });
      },
    );

    it('the generated requests reach every endpoint, and found and not-found answers', () => {
      const seen = new Map<string, Set<Answer['kind']>>();
      const samples = fc.sample(
        arbDataset.chain((d) => fc.tuple(fc.constant(d), arbCaller(d), arbEndpointRequestFor(d))),
        { numRuns: 1000, seed: 1 },
      );
      for (const [dataset, caller, request] of samples) {
        const kinds = seen.get(request.endpoint) ?? new Set();
        kinds.add(plainAnswer(dataset, caller, request).kind);
        seen.set(request.endpoint, kinds);
      }
      for (const id of ENDPOINT_IDS) {
        const kinds = seen.get(id);
        expect(kinds, id).toBeDefined();
        if (endpointById(id).pathParams.length > 0) expect(kinds!.has('not_found'), id).toBe(true);
        expect(kinds!.has('list') || kinds!.has('single'), id).toBe(true);
      }
    });
  },
);

describe(
  'plainAnswer = buildIndex(...).answer = the columnar engine on the canonical dataset',
  TIMEOUT,
  () => {
    const index = buildIndex(canonicalDataset);
    const columnar = columnarIndex(canonicalDataset, 65_536);
    const { tags, teams } = canonicalDataset;
    const days = tags.map((t) => t.dateSent.slice(0, 10)).sort();
    const [firstDay, middleDay, lastDay] = [days[0]!, days[days.length >> 1]!, days.at(-1)!];
    const queries = [
      defaultQueryParams({ date: middleDay }),
      defaultQueryParams({ start: firstDay, end: middleDay, aggregateData: true, date: firstDay }),
      // no date: endpoint 14 throws the same error in both
      defaultQueryParams({ start: middleDay, end: lastDay, isOpened: true, type: 'user' }),
      defaultQueryParams({ isClicked: true, type: 'manager', date: lastDay }),
    ];
    /** Ids of this caller's scope (first, last), of each team's first tag, and unknown ones. */
    function valuesFor(caller: Caller): Record<PathParamName, readonly string[]> {
      const visible = index.tags(caller, {})!;
      const contacts = index.contacts(caller);
      const firstOfTeam = teams.map(
        (team) => tags.find((t) => team.members.some((m) => m.memberID === t.memberID))!,
      );
      return {
        memberID: teams.flatMap((t) => t.members.map((m) => m.memberID)).concat('nobody'),
        group: teams
          .flatMap((t) => t.groups.flatMap((g) => [g.groupID, g.groupName]))
          .concat('no such group'),
        tagID: [visible[0], visible.at(-1), ...firstOfTeam]
          .flatMap((t) => (t === undefined ? [] : [t.tagID]))
          .concat('no-such-tag'),
        contactID: [contacts[0], contacts.at(-1)]
          .flatMap((c) => (c === undefined ? [] : [c.contactID]))
          .concat(...firstOfTeam.map((t) => contactIdOf(t.recipients[0]!.email)), 'no-such-id'),
      };
    }

    for (const credential of CANONICAL_CREDENTIALS) {
      const caller = index.callerOf(credential.memberID)!;
      for (const endpoint of ENDPOINT_IDS) {
        it(`${endpoint} as ${credential.label}`, () => {
          const names = endpointById(endpoint).pathParams;
          const values = valuesFor(caller);
          const paths: Partial<Record<PathParamName, string>>[] =
            names.length === 0 ? [{}] : values[names[0]!].map((v) => ({ [names[0]!]: v }));
          let found = 0;
          for (const pathParams of paths) {
            for (const query of queries) {
              const request = { endpoint, pathParams, query };
              agree(index, caller, request);
              agree(columnar, caller, request);
              const got = outcome(() => plainAnswer(canonicalDataset, caller, request));
              if ('answer' in got && got.answer.kind !== 'not_found') found++;
            }
          }
          // a manager or user without a group sees no group (spec §4): only 404s there
          const noGroup =
            names[0] === 'group' && visibleGroups(canonicalDataset, caller).length === 0;
          if (noGroup) expect(found, 'answers other than 404 for a caller without a group').toBe(0);
          else expect(found, 'answers other than 404').toBeGreaterThan(0);
        });
      }
    }
  },
);
