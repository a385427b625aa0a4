import * as z from 'zod';
import { FAILURE_KINDS, type FailureKind } from '../check/failure.ts';
import { revisionLabel } from '../profile/revisions.ts';
import type { RunResult } from '../run/runner.ts';
import { VERSION } from './version.ts';

/** A check's status; `inconclusive` came in 0.4 (spec §5 Revision 3). */
const Status = z.enum(['skip', 'pass', 'inconclusive', 'fail', 'error']);

/**
 * Schema of results.json: the run without the exchanges (those are in report.html). Fields
 * are only ever added: a failure's `kind`, `key` and `repeats` came in 0.2 and are optional,
 * so results.json written by 0.1 still parses.
 */
export const ResultsJson = z.object({
  suite: z.literal('tagtrack-conformance'),
  /** The suite's version (`tagtrack-conformance --version`); absent in results.json before 0.3. */
  version: z.string().optional(),
  profile: z.object({ name: z.string() }).loose(),
  /** The profile revision judged, e.g. `tagtrack/v1 Revision 3` (spec §12; 0.6, absent before). */
  revision: z.string().optional(),
  /** The release-gate policies the run broke, one sentence each (0.6; absent when none). */
  gateFailures: z.array(z.string()).optional(),
  mode: z.enum(['blind', 'fixture']),
  baseUrl: z.string(),
  seed: z.int(),
  numRuns: z.int().positive(),
  startedAt: z.iso.datetime(),
  durationMs: z.number().nonnegative(),
  requests: z.object({
    sent: z.int().nonnegative(),
    cacheHits: z.int().nonnegative(),
    /** Requests answered only after retries (transport faults; absent in older results.json). */
    retried: z.int().nonnegative().optional(),
    /** The run's `--retries` (absent in older results.json). */
    retries: z.int().nonnegative().optional(),
  }),
  ok: z.boolean(),
  summary: z.object({
    skip: z.int(),
    pass: z.int(),
    fail: z.int(),
    error: z.int(),
    /** Checks whose data changed during every run (0.4; absent before). */
    inconclusive: z.int().optional(),
    /**
     * Listed checks that failed or errored; from 0.4 not also counted in `fail` or `error`
     * (the counts add up to the checks).
     */
    expectedFailures: z.int(),
  }),
  staleExpectedFailures: z.array(z.string()),
  /** Checks run at the same time (0.3). */
  concurrency: z.int().positive().optional(),
  /** Why the run stopped early: deadline, SIGINT, SIGTERM (0.3; absent when it ran to the end). */
  interrupted: z.string().optional(),
  /** How the run watched for data changing under it (0.4; see `DataReport` in attempt.ts). */
  data: z
    .object({
      mode: z.enum(['still', 'watch', 'auto']),
      watching: z.boolean(),
      attempts: z.int().positive(),
      watermarks: z.array(z.string()),
      moved: z.string().optional(),
      rerunChecks: z.int().nonnegative(),
      reruns: z.int().nonnegative(),
      watermarkRequests: z.int().nonnegative(),
      note: z.string().optional(),
    })
    .optional(),
  /**
   * Why no check ran (absent when the checks ran): the preflight found a misconfiguration
   * or the base URL did not answer. Every check is then an error naming it.
   */
  configError: z.string().optional(),
  /** What the preflight saw differ from the profile without proving it wrong. */
  warnings: z.array(z.string()).optional(),
  /**
   * Where the run took its credentials, extra headers and TLS settings, as the commands it
   * prints name it (no secret: a file path, `env` or `argv`, an auth id given on the command
   * line, header names; see rerun.ts). `replay` reads it (0.5; absent before).
   */
  rerun: z
    .object({
      profile: z.string().optional(),
      authId: z
        .union([
          z.object({ from: z.literal('env') }),
          z.object({ from: z.literal('argv'), value: z.string() }),
        ])
        .optional(),
      accessKey: z.enum(['env', 'argv']).optional(),
      headers: z.object({ from: z.enum(['env', 'argv']), names: z.array(z.string()) }).optional(),
      caFile: z.string().optional(),
      insecure: z.boolean().optional(),
    })
    .optional(),
  checks: z.array(
    z.object({
      id: z.string().regex(/^[A-Z0-9]+(-[A-Z0-9]+)+$/),
      area: z.string(),
      title: z.string(),
      clause: z.string(),
      endpoints: z.array(z.string()),
      required: z.boolean(),
      status: Status,
      reason: z.string().optional(),
      expectedFailure: z.string().optional(),
      seed: z.int(),
      requests: z.int(),
      durationMs: z.number(),
      /** Comparisons the check made; a check that made none never passes (0.3). */
      comparisons: z.int().nonnegative().optional(),
      /** Exchanges the check relied on, in call order (0.3). */
      exchangeIds: z.array(z.int().positive()).optional(),
      /** Runs made, when the check ran again because its data changed (0.4). */
      attempts: z.int().positive().optional(),
      /**
       * Requests of the check answered only after retries: the check is marked as having
       * retried ("flaky"), its verdict resting on the answers it got (absent: none).
       */
      retried: z
        .array(
          z.object({
            exchangeId: z.int().positive(),
            method: z.string(),
            target: z.string(),
            tries: z.int().min(2),
            causes: z.array(z.string()),
          }),
        )
        .optional(),
      /**
       * What the check verified of the lists longer than the run's `--sample-above`, which
       * it verified on a seeded sample, e.g. `{subject: "contacts", verified: 5000, of:
       * 48113, sampled: true}`, and of the distinct callers over `--max-callers`, e.g.
       * `{subject: "callers", verb: "as", verified: 12, of: 30, sampled: true, detail: "every
       * account type and group holding covered"}` (absent: every record and caller judged).
       */
      coverage: z
        .array(
          z.object({
            subject: z.string(),
            verified: z.int().nonnegative(),
            of: z.int().nonnegative(),
            sampled: z.boolean(),
            verb: z.string().optional(),
            detail: z.string().optional(),
          }),
        )
        .optional(),
      failures: z.array(
        z.object({
          /** The failure's kind (`FAILURE_KINDS`); absent in results.json of 0.1. */
          kind: z.enum(Object.keys(FAILURE_KINDS) as [FailureKind, ...FailureKind[]]).optional(),
          /** Dedup key; absent in results.json of 0.1. */
          key: z.string().optional(),
          message: z.string(),
          expected: z.string().optional(),
          actual: z.string().optional(),
          seed: z.int().optional(),
          path: z.string().optional(),
          /** Which `ctx.property` call of the check failed, from 0: what replay reruns (0.3). */
          property: z.int().nonnegative().optional(),
          counterexample: z.string().optional(),
          numShrinks: z.int().optional(),
          exchangeId: z.int().optional(),
          request: z.string().optional(),
          /** `tagtrack-conformance request …` reproducing the exchange (no secret in it). */
          reproduce: z.string().optional(),
          /** A curl line of results.json before 0.3 (no longer written). */
          curl: z.string().optional(),
          /** How many more failures of the check had the same key. */
          repeats: z.int().positive().optional(),
        }),
      ),
    }),
  ),
  exchangeCount: z.int().nonnegative(),
});
export type ResultsJson = z.infer<typeof ResultsJson>;

/** The results.json document of a run (credentials by label: no access key, no signature). */
export function toResultsJson(result: RunResult): ResultsJson {
  const { suite, exchanges, profile, ...rest } = result;
  return JSON.parse(
    JSON.stringify({
      suite,
      version: VERSION,
      ...(typeof profile.revision === 'number' ? { revision: revisionLabel(profile) } : {}),
      ...rest,
      profile: {
        ...profile,
        credentials: profile.credentials.map((c) => ({ ...c, accessKey: '<redacted>' })),
      },
      exchangeCount: exchanges.length,
    }),
  ) as ResultsJson;
}
