import { hmacAuthorizer, signRequest } from '@tagtrack/core';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import {
  createServer,
  FAULTS,
  type FaultInfo,
  type FaultName,
  type TagtrackServer,
} from '@tagtrack/server';
import { afterAll, describe, expect, test } from 'vitest';
import { type DiffOptions, type DiffResult, runDiff } from '../src/diff/differential.ts';
import type { RunResult } from '../src/run/runner.ts';
import { runConformance } from '../src/run/runner.ts';
import { declaredFor } from './fault-declared.ts';
import {
  behindProxy,
  MEMORY_BASE_URL,
  profileFor,
  type RecordedAnswers,
  recordedFetch,
  team1Admin,
} from './helpers.ts';
import { REVISION_3_DATASET } from './revision3-dataset.ts';

export { declaredFor, type MatrixMode } from './fault-declared.ts';

/**
 * The fault matrix: every fault the reference server can inject (`FAULTS`) breaks the
 * profile, so the suite must fail on it, in fixture mode and in blind mode with one admin
 * credential, under three seeds, and each time fail at least one of the requirements the
 * fault declares for that mode (`detectedBy`, `blind`). Detection must not depend on luck:
 * a fault caught under one seed and missed under another fails this test. A fault that one
 * admin credential cannot observe declares why (`blind: { unobservable }`) and is skipped in
 * blind mode only. Each run is narrowed to the declared requirements (`--only`) to keep the
 * matrix fast; the six runs of a fault share one server and run at the same time. The faults
 * are split over the files faults-N.test.ts (`FAULT_PARTS`, every N-th fault) so that vitest
 * runs them on its workers; faults.test.ts checks the declarations and that the parts take
 * every fault once.
 */

/** The seeds every fault is run under. */
export const SEEDS = [7, 1_000_003, 424_242] as const;

/** fast-check runs per property check: detection must come from data-driven picks, not volume. */
export const NUM_RUNS = 2;

/** The rate limit of the rate-limited servers of the matrix (see {@link serverFor}). */
const RATE_LIMIT = { limit: 30, windowMs: 1000 } as const;

/**
 * Server options a fault needs to be observable (a rate limit; small pages for paging; a
 * public URL with a path prefix, served behind a proxy that strips it, see `behindProxy`).
 * A rate-limited server reads a logical clock that stands still (the instant the fault's
 * test began), shared by the faulted and the unfaulted server: their windows never roll
 * over, so what they answer depends on the requests alone, never on how the runs are spread
 * over wall-clock time (see {@link exhaustRateLimit}).
 */
export function serverFor(fault: FaultName) {
  const now = Date.now();
  return {
    faults: [fault],
    pageSize: 40,
    ...(RATE_LIMITED_FAULTS.has(fault) ? { rateLimit: RATE_LIMIT, clock: () => now } : {}),
    ...(fault === 'paging-url-drops-prefix' ? { publicUrl: `${MEMORY_BASE_URL}/api/v1` } : {}),
    ...(REVISION_3_DATA_FAULTS.has(fault) ? { dataset: REVISION_3_DATASET } : {}),
  };
}

/** Faults of the 429's headers: observable only on a rate-limited server. */
export const RATE_LIMITED_FAULTS: ReadonlySet<FaultName> = new Set<FaultName>([
  'rate-limit-no-retry-after',
  'rate-limit-reset-milliseconds',
]);

/**
 * Faults observable only on data the canonical dataset lacks (two tags sent at the same
 * second; a recipient listed twice with events): served {@link REVISION_3_DATASET}, which
 * fixture mode then loads as its dataset.
 */
const REVISION_3_DATA_FAULTS: ReadonlySet<FaultName> = new Set<FaultName>([
  'order-hidden-subsecond',
  'event-recipient-name-last',
]);

/**
 * Spends the window of every canonical credential on `server` (`limit` requests each, its
 * clock standing still, see {@link serverFor}) and resolves the status of one request more.
 * Done to the faulted and to the unfaulted server before the runs, it makes every later
 * request of those credentials a 429 on both, whatever the order of the runs' requests: each
 * run's burst (RATE-429-HEADERS) meets 429s, and the differential audit compares a 429 of
 * the faulted server with one of the unfaulted server, not a 429 with a 200 that the other
 * runs' traffic on the shared faulted server happened to cause.
 */
export async function exhaustRateLimit(server: TagtrackServer, limit: number): Promise<number[]> {
  const send = async (c: (typeof CANONICAL_CREDENTIALS)[number]) => {
    const signed = signRequest(
      { baseUrl: MEMORY_BASE_URL, path: '/teams' },
      hmacAuthorizer(c.authId, c.accessKey),
    );
    const response = await server.fetch(
      new Request(signed.url, { headers: { authorization: signed.authorization ?? '' } }),
    );
    await response.arrayBuffer();
    return response.status;
  };
  const after: number[] = [];
  for (const c of CANONICAL_CREDENTIALS) {
    for (let i = 0; i < limit; i++) await send(c);
    after.push(await send(c));
  }
  return after;
}

/**
 * The faults fixture mode catches that blind mode with every canonical credential declared
 * cannot, each with its reason (`blindDeclared: { unobservable }`).
 */
export function blindDeclaredExceptions(): { name: string; reason: string }[] {
  return FAULTS.flatMap((f) => {
    const d = declaredFor(f, 'blind-declared');
    return 'unobservable' in d ? [{ name: f.name, reason: d.unobservable }] : [];
  });
}

export function idsOf(declared: readonly string[] | { unobservable: string }): readonly string[] {
  return Array.isArray(declared) ? declared : [];
}

/** `CHECK-ID: first failure` for checks that failed or errored. */
export function problems(result: RunResult): string[] {
  return result.checks
    .filter((c) => c.status === 'fail' || c.status === 'error')
    .map(
      (c) =>
        `${c.id}: ${c.reason ?? ''}${c.failures[0]?.message ?? ''} ${c.failures[0]?.counterexample ?? ''}`,
    );
}

/**
 * The answers of the unfaulted servers of the faults that run in this process (a vitest
 * worker runs several matrix files: isolate is off), by their options and the request: the
 * audits of most faults ask the same server (page size 40) nearly the same questions.
 */
const CLEAN_ANSWERS: RecordedAnswers = new Map();

/** The files of the fault matrix: faults-1.test.ts to faults-N.test.ts. */
export const FAULT_PARTS = 3;

/** The faults of part `part` (1-based): every {@link FAULT_PARTS}-th one from the part's number on. */
export function faultsOfPart(part: number): FaultInfo[] {
  return FAULTS.filter((_f, i) => i % FAULT_PARTS === part - 1);
}

/**
 * Declares one vitest test per fault of part `part` (see {@link FAULT_PARTS}; one file per
 * part), and prints what detected each fault after the last.
 */
export function describeFaults(part: number): void {
  const detections: [string, string, string[]][] = [];
  /** Per fault: how many requests the differential audit found answered differently. */
  const diffFound: [string, number[]][] = [];
  describe(`fault matrix, part ${part} of ${FAULT_PARTS}: the suite fails on every injected fault, in both modes, under three seeds`, () => {
    test.each(faultsOfPart(part).map((f) => [f.name, f.description, f] as const))(
      'fault %s (%s) fails the run and one of its declared requirements, per mode and seed',
      async (name, _description, fault) => {
        const options = serverFor(name as FaultName);
        const server = createServer({ publicUrl: MEMORY_BASE_URL, ...options });
        const { faults: _faults, ...cleanOptions } = options;
        // the answers of an unfaulted server are shared by its options, its dataset by name
        const cleanScope = JSON.stringify({
          ...cleanOptions,
          dataset: options.dataset === undefined ? undefined : 'revision-3',
        });
        const clean = createServer({ publicUrl: MEMORY_BASE_URL, ...cleanOptions });
        // Both servers answer by the request alone, except under a rate limit: each distinct
        // request goes to the faulted server once per fault (its six runs ask it the same
        // discovery and oracle questions: about a sixth of their requests are distinct) and
        // to the unfaulted one once per process and options; the others get the recorded
        // answer again (`recordedFetch`), the answer the server would give.
        const stateless = options.rateLimit === undefined;
        const faulted: (r: Request) => Promise<Response> = stateless
          ? recordedFetch((r) => server.fetch(r), '', new Map())
          : (r) => server.fetch(r);
        const unfaulted: (r: Request) => Promise<Response> = stateless
          ? recordedFetch((r) => clean.fetch(r), cleanScope, CLEAN_ANSWERS)
          : (r) => clean.fetch(r);
        const diffs: DiffResult[] = [];
        /** The audit of the faulted server (A) against the unfaulted one (B), blind mode. */
        const diffAgainstClean = (
          common: Pick<DiffOptions, 'baseUrl' | 'fetch' | 'seed' | 'numRuns' | 'only'>,
          profile: DiffOptions['profile'],
        ) =>
          runDiff({
            ...common,
            profile,
            authId: team1Admin.authId,
            accessKey: team1Admin.accessKey,
            against: common.baseUrl,
            fetchAgainst: behindProxy(unfaulted, common.baseUrl),
            compareMessages: true,
          });
        try {
          const { rateLimit } = options;
          if (rateLimit !== undefined) {
            const after = await Promise.all(
              [server, clean].map((s) => exhaustRateLimit(s, rateLimit.limit)),
            );
            expect(after.flat().every((status) => status === 429)).toBe(true);
          }
          const cases = (['fixture', 'blind', 'blind-declared'] as const).flatMap((mode) => {
            const declared = declaredFor(fault, mode);
            return Array.isArray(declared) ? SEEDS.map((seed) => ({ mode, seed, declared })) : [];
          });
          const baseUrl = options.publicUrl ?? MEMORY_BASE_URL;
          const runs = await Promise.all(
            cases.map(async ({ mode, seed, declared }) => {
              const common = {
                baseUrl,
                fetch: behindProxy(faulted, baseUrl),
                seed,
                numRuns: NUM_RUNS,
                only: declared.join(','),
              };
              if (mode === 'fixture') {
                const result = await runConformance({
                  ...common,
                  profile: profileFor(options),
                  mode,
                  ...(options.dataset === undefined ? {} : { dataset: options.dataset }),
                });
                return { mode, seed, declared, result };
              }
              // blind mode with every canonical credential declared (team1-admin the primary)
              if (mode === 'blind-declared') {
                const result = await runConformance({
                  ...common,
                  profile: profileFor(options),
                  mode: 'blind',
                });
                return { mode, seed, declared, result };
              }
              // blind mode, first seed: as a differential audit against the unfaulted server
              if (seed === SEEDS[0]) {
                const diff = await diffAgainstClean(common, {
                  ...profileFor(options),
                  credentials: [],
                });
                return {
                  mode,
                  seed,
                  declared,
                  result: diff.run,
                  diff: diff as DiffResult | undefined,
                };
              }
              const result = await runConformance({
                ...common,
                profile: { ...profileFor(options), credentials: [] },
                mode,
                authId: team1Admin.authId,
                accessKey: team1Admin.accessKey,
              });
              return { mode, seed, declared, result };
            }),
          );
          // a fault one admin credential cannot observe: the audit with every declared credential
          if (!Array.isArray(declaredFor(fault, 'blind'))) {
            const diff = await diffAgainstClean(
              {
                baseUrl,
                fetch: behindProxy(faulted, baseUrl),
                seed: SEEDS[0],
                numRuns: NUM_RUNS,
                only: fault.detectedBy.join(','),
              },
              profileFor(options),
            );
            diffs.push(diff);
          }
          for (const r of runs) if (r.diff !== undefined) diffs.push(r.diff);
          diffFound.push([name, diffs.map((d) => d.differing)]);
          expect(
            diffs.map((d) => d.differing).filter((n) => n > 0),
            'the differential audit against the unfaulted server finds the fault',
          ).not.toEqual([]);
          const missed: string[] = [];
          for (const { mode, seed, declared, result } of runs) {
            const failed = result.checks.filter((c) => c.status === 'fail').map((c) => c.id);
            detections.push([name, `${mode}/${seed}`, failed]);
            const errors = result.checks.filter((c) => c.status === 'error');
            if (errors.length > 0)
              missed.push(`${mode} seed ${seed}: errors ${problems(result).join('; ')}`);
            else if (result.ok || !failed.some((id) => declared.includes(id)))
              missed.push(
                `${mode} seed ${seed}: not caught by ${declared.join(', ')} (failing: ${failed.join(', ') || 'none'})`,
              );
            else {
              const failure = result.checks.find((c) => c.status === 'fail')!.failures[0]!;
              expect(failure.message.length).toBeGreaterThan(10);
            }
          }
          expect(missed).toEqual([]);
        } finally {
          await Promise.all([server.close(), clean.close()]);
        }
      },
      // minutes on a busy machine: nine narrowed runs and the audits
      600_000,
    );

    afterAll(() => {
      const width = Math.max(...detections.map(([n]) => n.length));
      console.log(
        `fault matrix, part ${part} of ${FAULT_PARTS} (fault, mode/seed → failing requirement ids):\n${detections
          .map(
            ([n, run, ids]) =>
              `  ${n.padEnd(width)}  ${run.padEnd(15)} ${ids.join(', ') || '(none)'}`,
          )
          .join('\n')}\ndifferential audit (fault → differing requests per audit run):\n${diffFound
          .map(([n, counts]) => `  ${n.padEnd(width)}  ${counts.join(', ')}`)
          .join('\n')}`,
      );
    });
  });
}
