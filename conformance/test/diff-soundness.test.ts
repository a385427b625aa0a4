import { fc } from '@fast-check/vitest';
import type { Dataset } from '@tagtrack/core';
import { generateDataset, withEveryEdgeCase } from '@tagtrack/dataset';
import { createServer, VARIANTS, type VariantInfo, type VariantName } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { runDiff } from '../src/diff/differential.ts';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import type { ProfileInput } from '../src/profile/profile.ts';
import { type RecordedAnswers, recordedFetch } from './helpers.ts';
import { problems } from './variant-matrix.ts';

/**
 * The soundness of the differential audit: two conforming implementations on the
 * same data answer alike wherever the profile fixes the answer, so `diff` between the
 * reference server and the reference server with a variant (a freedom of the profile taken
 * another way, `VARIANTS`) must report nothing, on any data. A difference found here is a
 * false difference, a bug of `diff` (its counterexample belongs in diff.test.ts).
 *
 * Datasets: generated (`generateDataset`) from seeds fast-check draws, three per run (see
 * {@link DATASETS}). Each variant is audited against a reference server with the same server
 * options (a profile option such as `page-size-7` is the profile of both sides). Blind mode
 * with one admin, manager and user credential of each team, one run per property:
 * the variant matrix (variants-*.test.ts) audits every variant on the canonical dataset in
 * fixture mode; this is the same audit on other data, and the blind-mode proof of the
 * matrix: the suite's run against each variant must pass too. Both servers answer by the request
 * alone (read-only, no rate limit), so each distinct request reaches each once and a repeat
 * gets the recorded answer (`recordedFetch`); the reference side's recordings are shared by
 * the variants audited on the same dataset with the same server options (one seed: the
 * audits ask it nearly the same questions).
 */

/** Base URLs of the two in-memory sides (never resolved). */
const VARIANT_BASE = 'http://variant.memory';
const PLAIN_BASE = 'http://plain.memory';

/** fast-check runs per property check of each audit. */
const NUM_RUNS = 1;

/**
 * The variants an audit can compare in memory: every one but the transport variants (their
 * difference is on the socket, invisible to an in-memory `fetch`; the variant matrix audits
 * them over a socket), and the old rules kept as variants (`revision`: they conform to an
 * older revision only; revisions.test.ts audits them).
 */
const AUDITED: readonly VariantInfo[] = VARIANTS.filter((v) => !v.transport && !('revision' in v));

/**
 * The profile of `dataset` for a blind run: one credential per team and account type (the
 * first member of that type with a credential), as a vendor declares them, plus the
 * variant's profile options.
 */
function profileOf(dataset: Dataset, variant: VariantInfo): ProfileInput {
  const credentials: NonNullable<ProfileInput['credentials']>[number][] = [];
  for (const team of dataset.teams)
    for (const accountType of ['admin', 'manager', 'user'] as const) {
      const member = team.members.find(
        (m) =>
          m.accountType === accountType &&
          dataset.credentials.some((c) => c.memberID === m.memberID),
      );
      const c = dataset.credentials.find((x) => x.memberID === member?.memberID);
      if (member === undefined || c === undefined) continue;
      credentials.push({
        label: `${team.teamID}-${accountType}`,
        authId: c.authId,
        accessKey: c.accessKey,
        teamID: team.teamID,
        accountType,
        memberID: member.memberID,
      });
    }
  return { ...canonicalProfile(), ...variant.profile, credentials };
}

/**
 * The generated datasets of a test run: three `tiny` ones with every edge case of the
 * soundness search (`withEveryEdgeCase`: a second team without tags, duplicate group names,
 * respelt emails, events at one instant, hostile text), from seeds fast-check draws with a
 * fixed seed (the same datasets on every run: `pnpm soundness` searches further). Each variant
 * is audited on one of them, in turn, so a run costs one audit per variant.
 */
const DATASETS = fc
  .sample(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { seed: 19, numRuns: 3 })
  .map((seed) => ({ seed, scale: 'tiny' as const }));

describe.each(DATASETS.map((d, i) => ({ ...d, i })))(
  'diff is sound on the generated dataset of seed $seed (scale $scale)',
  ({ seed, scale, i }) => {
    const dataset = withEveryEdgeCase(generateDataset({ seed, scale }), seed);
    const variants = AUDITED.filter((_, k) => k % DATASETS.length === i);
    /** The reference server's answers on this dataset, by its server options and request. */
    const plainAnswers: RecordedAnswers = new Map();

    test.each(variants.map((v) => [v.name, v] as const))(
      'law: diff between the reference server and its variant %s reports no difference',
      async (_name, variant) => {
        const server = createServer({
          dataset,
          variants: [variant.name as VariantName],
          ...variant.server,
          publicUrl: VARIANT_BASE,
        });
        const plain = createServer({ dataset, ...variant.server, publicUrl: PLAIN_BASE });
        try {
          const result = await runDiff({
            baseUrl: VARIANT_BASE,
            against: PLAIN_BASE,
            fetch: recordedFetch((r) => server.fetch(r), '', new Map()),
            fetchAgainst: recordedFetch(
              (r) => plain.fetch(r),
              JSON.stringify(variant.server ?? {}),
              plainAnswers,
            ),
            profile: profileOf(dataset, variant),
            mode: 'blind',
            seed,
            numRuns: NUM_RUNS,
          });
          const differences = result.checks.flatMap((c) =>
            c.failures.map((f) => `${f.message}\n  A: ${f.expected}\n  B: ${f.actual}`),
          );
          expect(differences).toEqual([]);
          expect(result.compared).toBeGreaterThan(100);
          // the run that made the requests judged the variant: it passes in blind mode too
          expect(problems(result.run)).toEqual([]);
          expect(result.run.summary.pass).toBeGreaterThan(35);
        } finally {
          await Promise.all([server.close(), plain.close()]);
        }
      },
    );
  },
);
