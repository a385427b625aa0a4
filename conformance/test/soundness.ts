import { type Dataset, type Rtn, validateDataset } from '@tagtrack/core';
import { generateDataset, withEveryEdgeCase } from '@tagtrack/dataset';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { openSqlEngine, type SqlEngine } from '@tagtrack/engine';
import { createServer, type ServerOptions, VARIANTS, type VariantName } from '@tagtrack/server';
import fc from 'fast-check';
import { runDiff } from '../src/diff/differential.ts';
import type { ProfileCredential, ProfileInput } from '../src/profile/profile.ts';
import { type RunResult, runConformance } from '../src/run/runner.ts';
import { MEMORY_BASE_URL, type RecordedAnswers, recordedFetch } from './helpers.ts';

/**
 * The suite's soundness search: a conforming server must pass the suite whatever
 * the data, the caller and the profile options. A configuration names a dataset (the canonical
 * one, or one the generator makes from a seed, with or without every edge case of
 * `SOUNDNESS_EDGE_CASES`), the reference server's profile options (page size, paging end,
 * members without a group, a declared rate limit), the `rtn` formats the profile declares,
 * who runs (each credential alone in blind mode, all credentials declared in blind mode, and
 * fixture mode with every credential), and the suite's seed. Any failed or errored check
 * against the reference server is a suite bug: {@link runSoundness} reports it with the
 * configuration that reproduces it.
 */

/** Where a configuration's data comes from. */
export type SoundnessData =
  | { readonly kind: 'canonical' }
  | {
      readonly kind: 'generated';
      readonly seed: number;
      readonly scale: 'tiny' | 'small';
      readonly edgeCases: boolean;
    };

/** Who runs the suite: one credential alone (blind), all declared (blind), or fixture mode. */
export type SoundnessCaller =
  | { readonly kind: 'one'; readonly index: number }
  | { readonly kind: 'all' }
  | { readonly kind: 'fixture' };

/** One point of the search space. */
export interface SoundnessConfig {
  readonly data: SoundnessData;
  readonly pageSize: number;
  readonly pagingEnd: 'no-content' | 'empty-page';
  readonly memberWithoutGroup: 'omit' | 'empty';
  readonly rtn: readonly Rtn[];
  /** Requests per second per credential the server enforces and the profile declares, or null. */
  readonly rateLimit: number | null;
  readonly caller: SoundnessCaller;
  /** The suite's base seed. */
  readonly seed: number;
  /**
   * Freedoms of the profile the server takes another way (`VARIANTS` that set no profile
   * option and are observable in memory); none when absent.
   */
  readonly variants?: readonly VariantName[];
  /**
   * What answers: the in-memory index (default), the SQL engine on embedded
   * PGlite, or on the PostgreSQL server of `TAGTRACK_TEST_DATABASE_URL` (the dataset loaded
   * into it first).
   */
  readonly engine?: SoundnessEngine;
}

/** The engines a configuration may draw: `postgres` only when a server is configured. */
export type SoundnessEngine = 'memory' | 'pglite' | 'postgres';

/** The PostgreSQL server the search may load datasets into (`.ci/run` sets it), or undefined. */
export function soundnessDatabaseUrl(): string | undefined {
  return process.env.TAGTRACK_TEST_DATABASE_URL || undefined;
}

/** The variants a configuration may draw: no profile option, observable through `fetch`. */
export const SOUNDNESS_VARIANTS: readonly VariantName[] = VARIANTS.filter(
  (v) => !v.transport && !('profile' in v && v.profile !== undefined),
).map((v) => v.name as VariantName);

/** A configuration's outcome: the failed or errored checks, with their first message. */
export interface SoundnessOutcome {
  readonly config: SoundnessConfig;
  /** What ran, in words: dataset, options and caller (labels, never keys). */
  readonly label: string;
  readonly failures: readonly { id: string; status: string; message: string }[];
  readonly checks: number;
  readonly passed: number;
  readonly skipped: number;
  readonly requests: number;
}

const datasets = new Map<string, Dataset>();

/** The dataset of `data` (memoised: generating and checking it once per process). */
export function datasetOf(data: SoundnessData): Dataset {
  if (data.kind === 'canonical') return canonicalDataset;
  const key = JSON.stringify(data);
  let dataset = datasets.get(key);
  if (dataset === undefined) {
    const generated = generateDataset({ seed: data.seed, scale: data.scale });
    dataset = data.edgeCases ? withEveryEdgeCase(generated, data.seed) : generated;
    const problems = validateDataset(dataset);
    if (problems.length > 0)
      throw new Error(`soundness dataset ${key} is invalid: ${problems.slice(0, 3).join('; ')}`);
    datasets.set(key, dataset);
  }
  return dataset;
}

/**
 * Every credential of `dataset`, labelled by team, account type and group
 * (`t2-user-g1-2`, `t1-manager-nogroup-1`), with team, account type and member id; for the
 * canonical dataset, its own labels (`CANONICAL_CREDENTIALS`).
 */
export function credentialsOf(dataset: Dataset): ProfileCredential[] {
  if (dataset === canonicalDataset)
    return CANONICAL_CREDENTIALS.map(
      ({ label, authId, accessKey, teamID, accountType, memberID }) => ({
        label,
        authId,
        accessKey,
        teamID,
        accountType,
        memberID,
      }),
    );
  const out: ProfileCredential[] = [];
  const seen = new Map<string, number>();
  dataset.teams.forEach((team, t) => {
    for (const member of team.members) {
      const credential = dataset.credentials.find((c) => c.memberID === member.memberID);
      if (credential === undefined) continue;
      const g = team.groups.findIndex((x) => x.groupID === member.groupID);
      const base = `t${t + 1}-${member.accountType}-${g < 0 ? 'nogroup' : `g${g + 1}`}`;
      const k = (seen.get(base) ?? 0) + 1;
      seen.set(base, k);
      out.push({
        label: `${base}-${k}`,
        authId: credential.authId,
        accessKey: credential.accessKey,
        teamID: team.teamID,
        accountType: member.accountType,
        memberID: member.memberID,
      });
    }
  });
  return out;
}

/** A configuration in words (labels and options; never a key). */
export function describeConfig(config: SoundnessConfig): string {
  const d = config.data;
  const data =
    d.kind === 'canonical'
      ? 'canonical dataset'
      : `generated seed ${d.seed} ${d.scale}${d.edgeCases ? ' + every edge case' : ''}`;
  const credentials = credentialsOf(datasetOf(d));
  const caller =
    config.caller.kind === 'one'
      ? `blind as ${credentials[config.caller.index % credentials.length]?.label}`
      : config.caller.kind === 'all'
        ? `blind with all ${credentials.length} credentials`
        : `fixture with all ${credentials.length} credentials`;
  const rate = config.rateLimit === null ? '' : `, rate limit ${config.rateLimit}/s`;
  const variants =
    config.variants === undefined || config.variants.length === 0
      ? ''
      : `, variants ${config.variants.join('+')}`;
  const engine =
    config.engine === undefined || config.engine === 'memory' ? '' : `, engine ${config.engine}`;
  return `${data}${engine}; pageSize ${config.pageSize}, pagingEnd ${config.pagingEnd}, memberWithoutGroup ${config.memberWithoutGroup}, rtn ${config.rtn.join('+')}${rate}${variants}; ${caller}; suite seed ${config.seed}`;
}

/**
 * Opens the SQL engine of `config` (`engine` `pglite` or `postgres`) with its dataset loaded,
 * or resolves undefined for the in-memory index. The caller closes it.
 */
export async function openSoundnessEngine(config: SoundnessConfig): Promise<SqlEngine | undefined> {
  if (config.engine !== 'pglite' && config.engine !== 'postgres') return undefined;
  const databaseUrl = config.engine === 'postgres' ? soundnessDatabaseUrl() : undefined;
  if (config.engine === 'postgres' && databaseUrl === undefined)
    throw new Error('engine postgres needs TAGTRACK_TEST_DATABASE_URL');
  return openSqlEngine({
    load: datasetOf(config.data),
    memberWithoutGroup: config.memberWithoutGroup,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
  });
}

/** What several runs of one server configuration share (see {@link runSoundness}). */
export interface SoundnessShared {
  /**
   * The SQL engine to answer from, opened by {@link openSoundnessEngine} for a configuration
   * with the same dataset, engine and `memberWithoutGroup`; the caller closes it.
   */
  readonly engine?: SqlEngine | undefined;
  /**
   * The server's recorded answers, for runs whose configurations differ only in the caller
   * and the suite's seed (the same server options, dataset and engine).
   */
  readonly answers?: RecordedAnswers;
  /**
   * With a SQL engine: the run is also a differential audit of the SQL-backed server against
   * the in-memory one with the same options (`runDiff`, side A the SQL engine), and every
   * request answered differently is a failure (`DIFF-…`), as diff-sql.test.ts asserts for
   * the data it audits.
   */
  readonly diffAgainstMemory?: boolean;
}

/** Base URL of the in-memory side of a differential audit (never resolved). */
const MEMORY_SIDE_URL = 'http://memory-side.memory';

/**
 * Runs the suite in memory against the reference server of `config` and returns what failed.
 * `numRuns`: fast-check runs per property check. Without a rate limit the server answers by
 * the request alone, so each distinct request reaches it once and a repeat gets the recorded
 * answer (`recordedFetch`): in `shared.answers` when given (the caller's runs of the same
 * server), else for this run. `shared.engine`: the SQL engine to answer from; without it the
 * run opens and closes its own.
 */
export async function runSoundness(
  config: SoundnessConfig,
  numRuns: number,
  shared: SoundnessShared = {},
): Promise<SoundnessOutcome> {
  const { engine } = shared;
  const dataset = datasetOf(config.data);
  const credentials = credentialsOf(dataset);
  const rateLimit =
    config.rateLimit === null ? undefined : { limit: config.rateLimit, windowMs: 1000 };
  const serverOptions: ServerOptions = {
    publicUrl: MEMORY_BASE_URL,
    dataset,
    pageSize: config.pageSize,
    pagingEnd: config.pagingEnd,
    memberWithoutGroup: config.memberWithoutGroup,
    ...(rateLimit === undefined ? {} : { rateLimit }),
    ...(config.variants === undefined ? {} : { variants: config.variants }),
  };
  const one =
    config.caller.kind === 'one'
      ? credentials[config.caller.index % credentials.length]
      : undefined;
  const declared =
    config.caller.kind === 'one'
      ? []
      : config.caller.kind === 'all'
        ? credentials.map(({ memberID: _, ...c }) => c)
        : credentials;
  const profile: ProfileInput = {
    pageSize: config.pageSize,
    pagingEnd: config.pagingEnd,
    memberWithoutGroup: config.memberWithoutGroup,
    rtn: [...config.rtn],
    rateLimit: rateLimit === undefined ? null : { ...rateLimit, retryAfter: true },
    credentials: declared,
  };
  const own = engine === undefined ? await openSoundnessEngine(config) : undefined;
  const sql = engine ?? own;
  const server = createServer(
    sql === undefined ? serverOptions : { ...serverOptions, engine: sql },
  );
  if (shared.diffAgainstMemory === true && rateLimit !== undefined)
    throw new Error('a differential audit needs a server without a rate limit on both sides');
  const memory =
    shared.diffAgainstMemory === true && sql !== undefined
      ? createServer({ ...serverOptions, publicUrl: MEMORY_SIDE_URL })
      : undefined;
  let result: RunResult;
  const differences: { id: string; status: string; message: string }[] = [];
  try {
    const options = {
      baseUrl: MEMORY_BASE_URL,
      fetch:
        rateLimit === undefined
          ? recordedFetch((r) => server.fetch(r), '', shared.answers ?? new Map())
          : (r: Request) => server.fetch(r),
      profile,
      mode: config.caller.kind === 'fixture' ? ('fixture' as const) : ('blind' as const),
      ...(config.caller.kind === 'fixture' ? { dataset } : {}),
      ...(one === undefined ? {} : { authId: one.authId, accessKey: one.accessKey }),
      seed: config.seed,
      numRuns,
    };
    if (memory === undefined) result = await runConformance(options);
    else {
      const diff = await runDiff({
        ...options,
        against: MEMORY_SIDE_URL,
        fetchAgainst: (r) => memory.fetch(r),
      });
      result = diff.run;
      for (const c of diff.checks)
        for (const f of c.failures)
          differences.push({
            id: c.id,
            status: 'differs from the in-memory engine',
            message: `${f.message}\n  A: ${f.expected}\n  B: ${f.actual}`,
          });
      if (diff.compared < 200)
        differences.push({
          id: 'DIFF',
          status: 'compared too little',
          message: `only ${diff.compared} requests compared with the in-memory engine`,
        });
    }
  } finally {
    await Promise.all([server.close(), memory?.close()]);
    await own?.close();
  }
  const failures: { id: string; status: string; message: string }[] = result.checks
    .filter((c) => c.status === 'fail' || c.status === 'error')
    .map((c) => ({
      id: c.id,
      status: c.status,
      message: c.failures[0]?.message ?? c.reason ?? '',
    }));
  failures.push(...differences);
  // a run that is not ok without a failed check (a 5xx, a stale entry, an interruption, a
  // configuration error) is a finding too
  if (!result.ok && failures.length === 0)
    failures.push({
      id: 'RUN',
      status: 'not ok',
      message: result.interrupted ?? 'the run is not ok (a 5xx answer or a configuration error)',
    });
  return {
    config,
    label: describeConfig(config),
    failures,
    checks: result.checks.length,
    passed: result.checks.filter((c) => c.status === 'pass').length,
    skipped: result.checks.filter((c) => c.status === 'skip').length,
    requests: result.requests.sent,
  };
}

/** The `rtn` subsets a profile may declare (json always: the suite reads records from it). */
const RTN_SUBSETS: readonly (readonly Rtn[])[] = [
  ['json', 'text', 'html'],
  ['json'],
  ['json', 'text'],
  ['json', 'html'],
];

/**
 * Configurations of the search: any generated dataset (tiny or small, with every edge case
 * more often than not), any page size from 1 to 300 (small ones more often), both paging ends,
 * both member-without-group forms, any rtn subset, a declared rate limit sometimes, any caller
 * and any seed. Page sizes below 5 only on tiny datasets (each page is a request).
 */
export function arbSoundnessConfig(
  options: { canonical?: boolean; rateLimit?: boolean; engines?: readonly SoundnessEngine[] } = {},
): fc.Arbitrary<SoundnessConfig> {
  const engines = options.engines ?? ['memory'];
  const data: fc.Arbitrary<SoundnessData> = options.canonical
    ? fc.constant({ kind: 'canonical' } as const)
    : fc.record({
        kind: fc.constant('generated' as const),
        seed: fc.integer({ min: 1, max: 1_000_000 }),
        scale: fc.constantFrom('tiny' as const, 'small' as const),
        edgeCases: fc.oneof(
          { weight: 3, arbitrary: fc.constant(true) },
          { weight: 1, arbitrary: fc.constant(false) },
        ),
      });
  return fc
    .record({
      data,
      pageSize: fc.oneof(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 11, max: 300 }),
        fc.constant(250),
      ),
      pagingEnd: fc.constantFrom('no-content' as const, 'empty-page' as const),
      memberWithoutGroup: fc.constantFrom('omit' as const, 'empty' as const),
      rtn: fc.constantFrom(...RTN_SUBSETS),
      rateLimit: options.rateLimit
        ? fc.option(fc.constantFrom(500, 2000), { freq: 4 })
        : fc.constant(null),
      caller: fc.oneof(
        { weight: 4, arbitrary: fc.nat().map((index) => ({ kind: 'one' as const, index })) },
        { weight: 1, arbitrary: fc.constant({ kind: 'all' as const }) },
        { weight: 1, arbitrary: fc.constant({ kind: 'fixture' as const }) },
      ),
      seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      variants: fc.oneof(
        { weight: 1, arbitrary: fc.constant([] as VariantName[]) },
        {
          weight: 1,
          arbitrary: fc.uniqueArray(fc.constantFrom(...SOUNDNESS_VARIANTS), { maxLength: 3 }),
        },
      ),
      engine: fc.constantFrom(...engines),
    })
    .map((c) =>
      // a tiny page on a small dataset is hundreds of requests per walk: keep it to tiny ones
      c.pageSize < 5 && c.data.kind === 'generated' && c.data.scale !== 'tiny'
        ? { ...c, pageSize: c.pageSize + 5 }
        : c.pageSize < 5 && c.data.kind === 'canonical'
          ? { ...c, pageSize: c.pageSize + 20 }
          : c,
    );
}
