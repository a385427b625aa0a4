import type { Dataset } from '@tagtrack/core';
import {
  createServer,
  type TagtrackServer,
  VARIANTS,
  type VariantInfo,
  type VariantName,
} from '@tagtrack/server';
import { afterAll, describe, expect, test } from 'vitest';
import { type DiffResult, runDiff } from '../src/diff/differential.ts';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import type { ProfileInput } from '../src/profile/profile.ts';
import { type RunOptions, type RunResult, runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, type RecordedAnswers, recordedFetch, team1Admin } from './helpers.ts';

/**
 * The variant matrix (shared by variants.test.ts and variants-socket.test.ts): every freedom
 * of the profile (spec, the *free* clauses and the profile options), taken another way by
 * the reference server (`VARIANTS`), must PASS the suite. A variant the suite fails is a suite
 * bug: it judged an incidental form instead of the profile. Each variant's fixture-mode run is
 * also a differential audit (`runDiff`) against the reference server without the variant,
 * which must find no difference. Blind mode is proven elsewhere for every in-memory variant:
 * diff-soundness.test.ts runs the suite in blind mode against each of them, on generated
 * data with every edge case and one credential per team and account type, and asserts that
 * run passes as well as finding no difference (`runVariant` can still add a blind run with
 * one admin, `{ blind: true }`). Transport variants go over a real socket (their difference
 * is invisible to the in-memory `fetch`); the others run in memory.
 * The reference side of the audits answers each distinct request once per test process and
 * replays that answer to the later variants (`referenceFetch`, `REFERENCE_ANSWERS`).
 * The matrix is split over several files (`MATRIX_FILES`) that vitest runs on its workers, each
 * in a process of its own; the variants of a file run one after another: a socket run starved
 * by concurrent in-memory runs in its process hits the keep-alive race (a reused connection
 * closed by the server's idle timeout).
 */

/**
 * fast-check runs per property check: the matrix is about forms, not about many inputs (the
 * soundness sweep, `pnpm soundness`, runs the variants with more inputs on drawn datasets).
 */
const NUM_RUNS = 1;

/** Base URL of the reference server without the variant (in memory). */
const PLAIN_BASE_URL = 'http://plain.memory';

interface Timing {
  readonly name: string;
  readonly transport: boolean;
  readonly ms: number;
  readonly requests: number;
}

/** `mode CHECK-ID: first failure (counterexample)` for every check that failed or errored. */
export function problems(result: RunResult): string[] {
  return result.checks
    .filter((c) => c.status === 'fail' || c.status === 'error')
    .map(
      (c) =>
        `${result.mode} ${c.id}: ${c.reason ?? ''}${c.failures[0]?.message ?? ''}${c.failures[0]?.counterexample ? ` (counterexample ${c.failures[0].counterexample})` : ''}`,
    );
}

/**
 * The answers of the reference server without a variant over the canonical dataset, recorded
 * for the audits of the matrix files that run in this process (a vitest worker runs several:
 * isolate is off), by its server options and the request; see {@link referenceFetch}.
 */
const REFERENCE_ANSWERS: RecordedAnswers = new Map();

/**
 * The fetch of the reference side of an audit: `plain` answers each distinct request (method,
 * URL, every header) once, and a later variant asking the same gets the recorded answer
 * again ({@link REFERENCE_ANSWERS}, see `recordedFetch`). The reference server is read-only
 * and answers by the request alone (no rate limit in the matrix), so that is the answer it
 * would give again; the audits send nearly the same requests (one seed), and replaying them
 * takes about a third off each later variant's run. `options` (the variant's server options)
 * is part of the key.
 */
function referenceFetch(plain: TagtrackServer, options: string): (r: Request) => Promise<Response> {
  return recordedFetch((r) => plain.fetch(r), options, REFERENCE_ANSWERS);
}

/**
 * Runs the suite in fixture mode against a reference server with `variant` (and its server
 * options), with the canonical profile plus the variant's profile overrides, as a
 * differential audit; with `blind`, also in blind mode with one admin credential when the
 * variant changes data or profile options (layers `store` and `options`; a blind run's
 * checks are a subset of a fixture run's). `dataset` replaces the canonical dataset on both
 * sides (server and oracle); without it, the reference side of the audit replays recorded
 * answers (see {@link referenceFetch}).
 */
export async function runVariant(
  variant: VariantInfo,
  dataset?: Dataset,
  { blind: withBlind = false }: { readonly blind?: boolean } = {},
): Promise<{
  fixture: RunResult;
  blind: RunResult | undefined;
  diff: DiffResult;
  timing: Timing;
}> {
  const server = createServer({
    ...(dataset === undefined ? {} : { dataset }),
    variants: [variant.name as VariantName],
    ...variant.server,
    // over a socket the public URL is the listen URL (the server's default)
    ...(variant.transport ? {} : { publicUrl: MEMORY_BASE_URL }),
  });
  // the reference server without the variant, for the differential audit
  const plain = createServer({
    ...(dataset === undefined ? {} : { dataset }),
    ...variant.server,
    publicUrl: PLAIN_BASE_URL,
  });
  try {
    const baseUrl = variant.transport ? await server.listen(0, '127.0.0.1') : MEMORY_BASE_URL;
    // in memory, the variant server answers each distinct request of the two runs once (it
    // answers by the request alone; see `recordedFetch`): the blind run repeats about two
    // thirds of its requests from the fixture run (discovery, walks). Over a socket every
    // request goes over the socket: the transport is what those variants vary.
    const transport: Partial<RunOptions> = variant.transport
      ? {}
      : { fetch: recordedFetch((r: Request) => server.fetch(r), '', new Map()) };
    const profile: ProfileInput = { ...canonicalProfile(), ...variant.profile };
    const started = performance.now();
    // fixture mode as a differential audit against the reference server without the variant
    // (same server options): the suite must pass the variant, and every answer must mean the
    // same as the reference's; when asked, blind mode (one admin credential) too where the
    // variant changes data or options, not only the form (a blind run is a subset of the checks)
    const [diff, blind] = await Promise.all([
      runDiff({
        baseUrl,
        ...transport,
        against: PLAIN_BASE_URL,
        fetchAgainst:
          dataset !== undefined
            ? (r: Request) => plain.fetch(r)
            : referenceFetch(plain, JSON.stringify(variant.server ?? {})),
        profile,
        mode: 'fixture',
        ...(dataset === undefined ? {} : { dataset }),
        numRuns: NUM_RUNS,
        seed: 11,
        probeMethods: true,
      }),
      !withBlind || (variant.layer !== 'store' && variant.layer !== 'options')
        ? undefined
        : runConformance({
            baseUrl,
            ...transport,
            profile: { ...profile, credentials: [] },
            authId: team1Admin.authId,
            accessKey: team1Admin.accessKey,
            mode: 'blind',
            numRuns: NUM_RUNS,
            seed: 12,
          }),
    ]);
    const fixture = diff.run;
    const timing = {
      name: variant.name,
      transport: variant.transport,
      ms: Math.round(performance.now() - started),
      requests: fixture.requests.sent + (blind?.requests.sent ?? 0),
    };
    return { fixture, blind, diff, timing };
  } finally {
    await Promise.all([server.close(), plain.close()]);
  }
}

/**
 * The files of the matrix: in memory or over a socket, and the part of those variants each
 * takes (every `parts`-th variant from the part's number on, in `VARIANTS` order), so that
 * vitest spreads the runs over its workers (it runs files in parallel, not the tests of a
 * file). `variants.test.ts` checks that the parts cover every variant once.
 */
export const MATRIX_FILES = {
  memory: { parts: 4, transport: false },
  socket: { parts: 2, transport: true },
} as const;

/** The variants of part `part` (1-based) of the `kind` half of the matrix. */
export function variantsOfPart(kind: keyof typeof MATRIX_FILES, part: number): VariantInfo[] {
  const { parts, transport } = MATRIX_FILES[kind];
  // an old rule kept as a variant (`revision`) is audited both ways in revisions.test.ts
  return VARIANTS.filter((v) => v.transport === transport && !('revision' in v)).filter(
    (_v, i) => i % parts === part - 1,
  );
}

/**
 * Declares one vitest test per variant of part `part` of the `kind` half of the matrix (see
 * {@link MATRIX_FILES}; one file per part).
 */
export function describeVariants(kind: keyof typeof MATRIX_FILES, part: number): void {
  const title = `${kind === 'memory' ? 'in memory' : 'over a socket'}, part ${part} of ${MATRIX_FILES[kind].parts}`;
  const timings: Timing[] = [];
  describe(`variant matrix ${title}: the suite passes every freedom of the profile`, () => {
    test.each(variantsOfPart(kind, part).map((v) => [v.name, v.freedom, v] as const))(
      'variant %s (%s) passes in fixture mode with no difference from the reference',
      async (_name, _freedom, variant) => {
        const { fixture, diff, timing } = await runVariant(variant);
        timings.push(timing);
        expect(problems(fixture)).toEqual([]);
        // the differential audit sees no difference from the reference server
        expect(diff.checks.flatMap((c) => c.failures.map((f) => `${c.id}: ${f.message}`))).toEqual(
          [],
        );
        expect(diff.compared).toBeGreaterThan(500);
        expect(fixture.ok).toBe(true);
        // the run judged something: most checks passed, the oracle ran in fixture mode
        expect(fixture.summary.pass).toBeGreaterThan(50);
        expect(fixture.checks.find((c) => c.id === 'ORACLE-TAGS')?.status).toBe('pass');
      },
      // minutes on a busy machine: a whole fixture run
      600_000,
    );

    afterAll(() => {
      const total = timings.reduce((n, t) => n + t.ms, 0);
      console.log(
        `variant matrix ${title} (fixture-mode diff against the reference, numRuns ${NUM_RUNS}):\n${timings
          .map(
            (t) =>
              `  ${t.name.padEnd(28)} ${t.transport ? 'socket' : 'memory'}  ${String(t.ms).padStart(6)} ms  ${t.requests} requests`,
          )
          .join('\n')}\n  total ${total} ms`,
      );
    });
  });
}
