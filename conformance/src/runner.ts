import {
  type Answer,
  type Caller,
  type Dataset,
  type EndpointId,
  plainAnswer,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/core/canonical';
import { CheckContext, type Discovery, type RunServices } from './checks/context.ts';
import {
  AREAS,
  type Area,
  type Check,
  type CheckEnv,
  FORMER_AREAS,
  type Oracle,
  type SuiteCredential,
} from './checks/define.ts';
import { type Failure, SkipCheck, StopCheck, Violation } from './checks/failure.ts';
import { ALL_CHECKS } from './checks/index.ts';
import { type ChecksError, validateChecks } from './custom-checks.ts';
import type { Walk } from './checks/walk.ts';
import type { ExpectedFailure } from './expected-failures.ts';
import { ConnectionError, type Exchange, type FetchLike, HttpClient } from './http.ts';
import { type Profile, type ProfileInput, parseProfile } from './profile.ts';

/** Check outcome, ordered skip < pass < fail < error (OCI distribution-spec scale). */
export type CheckStatus = 'skip' | 'pass' | 'fail' | 'error';
export const STATUS_ORDER: readonly CheckStatus[] = ['skip', 'pass', 'fail', 'error'];

/** Options of {@link runConformance}. Only `baseUrl` is required. */
export interface RunOptions {
  /** Base URL of the implementation, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  readonly baseUrl: string;
  /** One working credential (blind mode needs it unless the profile lists credentials). */
  readonly authId?: string | undefined;
  readonly accessKey?: string | undefined;
  /** The implementation's profile (validated); default: the reference profile `tagtrack/v1`. */
  readonly profile?: Profile | ProfileInput | undefined;
  /** `blind` (any data) or `fixture` (the canonical dataset is loaded). Default `blind`. */
  readonly mode?: 'blind' | 'fixture' | undefined;
  /** fast-check runs per property check. Default {@link DEFAULT_NUM_RUNS}. */
  readonly numRuns?: number | undefined;
  /** Base seed; each check's seed derives from it. Default: random (reported). */
  readonly seed?: number | undefined;
  /**
   * Only checks whose requirement id or area matches: substring, or glob with `*`/`?`;
   * comma-separated. The area names of 0.1 (`laws`, `relations`, `pagination`, `methods`,
   * and `input` for ERR-BODY-JSON) still select what they did, for one release.
   */
  readonly only?: string | undefined;
  /**
   * Leave out checks whose requirement id or area matches (same syntax as {@link only}).
   * A pattern of either that matches no check is a {@link ConfigError}.
   */
  readonly exclude?: string | undefined;
  /** Requests per second to pace to; default: the profile's rate limit, else unpaced. */
  readonly rateLimit?: number | undefined;
  /** Per-request timeout in ms. Default 10,000. */
  readonly timeoutMs?: number | undefined;
  /**
   * Largest response body read, in bytes (default 32 MiB, `DEFAULT_MAX_BODY_BYTES`): a
   * bigger body is not read past the cap and its request is an error naming the cap.
   */
  readonly maxBodyBytes?: number | undefined;
  readonly expectedFailures?: readonly ExpectedFailure[] | undefined;
  /** Stop after the first failing check (the rest are skipped). */
  readonly bail?: boolean | undefined;
  /** Opt in to the 405 probe, which sends POST/PUT/DELETE/PATCH. */
  readonly probeMethods?: boolean | undefined;
  /** A fetch to use instead of the global one, e.g. `server.fetch` for an in-memory run. */
  readonly fetch?: FetchLike | undefined;
  /** The fixture-mode dataset; default the canonical dataset. */
  readonly dataset?: Dataset | undefined;
  /** Progress events (start, each check, end). */
  readonly onEvent?: ((event: RunEvent) => void) | undefined;
  /**
   * The checks to choose from, in run order; default the built-in ones (`ALL_CHECKS`). Add
   * your own with `[...builtInChecks, myCheck]`: ids unique, none a built-in id but the
   * built-in check itself (a {@link ChecksError} names the offending check).
   */
  readonly checks?: readonly Check[] | undefined;
}

/** Default fast-check runs per property check. */
export const DEFAULT_NUM_RUNS = 25;

/** Progress of a run. */
export type RunEvent =
  | { readonly type: 'start'; readonly checks: readonly Check[] }
  | { readonly type: 'check'; readonly result: CheckResult }
  | { readonly type: 'end'; readonly result: RunResult };

/** The result of one check. */
export interface CheckResult {
  readonly id: string;
  readonly area: string;
  readonly title: string;
  readonly clause: string;
  readonly endpoints: readonly EndpointId[];
  readonly required: boolean;
  readonly status: CheckStatus;
  /** Why it was skipped, or the error message. */
  readonly reason?: string | undefined;
  readonly failures: readonly Failure[];
  /** Set when the expected-failures file lists the check (its reason, or ''). */
  readonly expectedFailure?: string | undefined;
  readonly seed: number;
  readonly requests: number;
  readonly durationMs: number;
}

/** The structured result of a run (what results.json holds, plus the exchanges). */
export interface RunResult {
  readonly suite: 'tagtrack-conformance';
  readonly profile: Profile;
  readonly mode: 'blind' | 'fixture';
  readonly baseUrl: string;
  readonly seed: number;
  readonly numRuns: number;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly requests: { readonly sent: number; readonly cacheHits: number };
  readonly checks: readonly CheckResult[];
  readonly summary: Readonly<Record<CheckStatus, number>> & { readonly expectedFailures: number };
  /** Expected-failure entries whose check passed: they make the run fail. */
  readonly staleExpectedFailures: readonly string[];
  /** True when every required check passed (or failed as expected) and no entry is stale. */
  readonly ok: boolean;
  readonly exchanges: readonly Exchange[];
}

/** The options are unusable (no credential, unknown expected-failure id, rejected credential). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'invalid_configuration' as const;
}

/**
 * Whether a requirement id or area matches an `--only` pattern (see {@link RunOptions.only}):
 * the id, the area, or the area's former name (`FORMER_AREAS`, accepted for one release).
 */
export function matchesOnly(check: Pick<Check, 'id' | 'area'>, only: string | undefined): boolean {
  const patterns = splitPatterns(only);
  return patterns.length === 0 || patterns.some((p) => matchesPattern(check, p));
}

/** The comma-separated patterns of `--only`/`--exclude`, trimmed, empty ones dropped. */
export function splitPatterns(patterns: string | undefined): string[] {
  return (patterns ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** Whether one pattern (substring, or glob with `*`/`?`; any case) matches the id or area. */
export function matchesPattern(check: Pick<Check, 'id' | 'area'>, pattern: string): boolean {
  const former = (AREAS as readonly string[]).includes(check.area)
    ? FORMER_AREAS[check.area as Area]
    : undefined;
  const subjects = [check.id, check.area, ...(former === undefined ? [] : [former])].map((s) =>
    s.toUpperCase(),
  );
  const p = pattern.trim().toUpperCase();
  if (/[*?]/.test(p)) {
    const re = new RegExp(
      `^${p
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    return subjects.some((s) => re.test(s));
  }
  return subjects.some((s) => s.includes(p));
}

/**
 * The checks `only` and `exclude` select. Throws {@link ConfigError} when a pattern of either
 * matches no check (a typo would otherwise pass silently) or when nothing is left to run.
 */
export function selectChecks<C extends Pick<Check, 'id' | 'area'>>(
  checks: readonly C[],
  only: string | undefined,
  exclude: string | undefined,
): C[] {
  for (const [flag, patterns] of [
    ['--only', only],
    ['--exclude', exclude],
  ] as const) {
    for (const p of splitPatterns(patterns)) {
      if (!checks.some((c) => matchesPattern(c, p)))
        throw new ConfigError(
          `${flag} pattern ${JSON.stringify(p)} matches no requirement id or area (list them with: tagtrack-conformance requirements)`,
        );
    }
  }
  const excluded = splitPatterns(exclude);
  const selected = checks.filter(
    (c) => matchesOnly(c, only) && !excluded.some((p) => matchesPattern(c, p)),
  );
  if (selected.length === 0)
    throw new ConfigError('--only and --exclude together leave no check to run');
  return selected;
}

function credentialsOf(
  options: RunOptions,
  profile: Profile,
): {
  primary: SuiteCredential;
  all: SuiteCredential[];
} {
  const declared: SuiteCredential[] = profile.credentials.map((c) => ({ ...c }));
  let primary: SuiteCredential | undefined;
  if (options.authId !== undefined || options.accessKey !== undefined) {
    if (!options.authId || !options.accessKey)
      throw new ConfigError('give both --auth-id and --access-key (or neither)');
    primary = declared.find(
      (c) => c.authId === options.authId && c.accessKey === options.accessKey,
    ) ?? { label: 'given', authId: options.authId, accessKey: options.accessKey };
  }
  primary ??= declared.find((c) => c.accountType === 'admin') ?? declared[0];
  if (primary === undefined)
    throw new ConfigError(
      'no credential: pass --auth-id and --access-key (or TAGTRACK_AUTH_ID/TAGTRACK_ACCESS_KEY), or list credentials in the profile',
    );
  const all = [primary, ...declared.filter((c) => c.authId !== primary.authId)];
  return { primary, all };
}

/**
 * Fixture mode's oracle: core's plain rules (`plainAnswer`) over `dataset`, independent of
 * the reference server's engine. A credential's caller is the member of the first dataset
 * credential with its auth id whose member exists (decisions §1), when the access key
 * matches. Answers are memoised per caller and request (checks repeat requests; the plain
 * rules recompute every list, about 150 ms for `contacts.list` on the canonical dataset).
 */
function makeOracle(dataset: Dataset, profile: Profile): Oracle {
  const members = new Map(
    dataset.teams.flatMap((t) =>
      t.members.map((m) => [m.memberID, { teamID: t.teamID, accountType: m.accountType }]),
    ),
  );
  const credentials = new Map<string, { accessKey: string; caller: Caller }>();
  for (const c of dataset.credentials) {
    const m = members.get(c.memberID);
    if (m !== undefined && !credentials.has(c.authId))
      credentials.set(c.authId, { accessKey: c.accessKey, caller: { memberID: c.memberID, ...m } });
  }
  const answers = new Map<string, Answer>();
  return {
    dataset,
    callerOf(credential) {
      const c = credentials.get(credential.authId);
      return c !== undefined && c.accessKey === credential.accessKey ? c.caller : undefined;
    },
    answer(caller, request) {
      const key = JSON.stringify([
        caller.memberID,
        request.endpoint,
        request.pathParams,
        request.query,
      ]);
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = plainAnswer(dataset, caller, request, {
          memberWithoutGroup: profile.memberWithoutGroup,
        });
        answers.set(key, answer);
      }
      return answer;
    },
  };
}

/**
 * Runs the conformance suite against `options.baseUrl` and returns structured results.
 * Read-only unless `probeMethods`. Throws {@link ConnectionError} when the base URL cannot be
 * reached, {@link ConfigError} for unusable options, `ProfileError` for an invalid profile,
 * {@link ChecksError} for an invalid `checks` list.
 */
export async function runConformance(options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const profile = parseProfile(options.profile ?? {});
  const mode = options.mode ?? 'blind';
  const numRuns = options.numRuns ?? DEFAULT_NUM_RUNS;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const { primary, all } = credentialsOf(options, profile);
  const catalogue = options.checks === undefined ? ALL_CHECKS : validateChecks(options.checks);
  const selected = selectChecks(catalogue, options.only, options.exclude);
  const expected = new Map((options.expectedFailures ?? []).map((e) => [e.id, e.reason ?? '']));
  const knownIds = new Set(catalogue.map((c) => c.id));
  const unknown = [...expected.keys()].filter((id) => !knownIds.has(id));
  if (unknown.length > 0)
    throw new ConfigError(`expected-failures lists unknown requirement ids: ${unknown.join(', ')}`);

  const rate =
    options.rateLimit ??
    (profile.rateLimit === null
      ? undefined
      : (profile.rateLimit.limit / profile.rateLimit.windowMs) * 1000 * 0.9);
  const http = new HttpClient({
    baseUrl: options.baseUrl,
    auth: profile.auth,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs ?? 10_000,
    ratePerSecond: rate,
    maxBodyBytes: options.maxBodyBytes,
    credentials: all,
  });

  const oracle =
    mode === 'fixture' ? makeOracle(options.dataset ?? canonicalDataset, profile) : undefined;
  const env: CheckEnv = {
    profile,
    mode,
    probeMethods: options.probeMethods ?? false,
    credentials: all,
    oracle,
  };

  // Preflight: the base URL answers and the primary credential is accepted.
  const pre = await http.request({ path: '/teams', credential: primary });
  if (pre.status === 401 || pre.status === 403)
    throw new ConfigError(
      `the credential ${primary.label} (authId ${primary.authId}) was rejected: GET /teams answered ${pre.status}`,
    );

  const walkCache = new Map<string, Promise<Walk>>();
  const discoveries = new Map<string, Promise<Discovery>>();
  const services: RunServices = {
    http,
    env,
    primary,
    numRuns,
    baseSeed: seed,
    walkCache,
    discover: (credential) => {
      let p = discoveries.get(credential.authId);
      if (p === undefined) {
        p = discover(services, credential);
        discoveries.set(credential.authId, p);
      }
      return p;
    },
  };

  options.onEvent?.({ type: 'start', checks: selected });
  const results: CheckResult[] = [];
  let bailed = false;
  for (const check of selected) {
    const outcome = bailed
      ? skipped('not run: an earlier check failed and --bail is set', seed)
      : await runCheck(check, services, env);
    const result = resultOf(check, outcome, expected.get(check.id));
    results.push(result);
    options.onEvent?.({ type: 'check', result });
    if (options.bail && isBad(result)) bailed = true;
  }

  const summary = { skip: 0, pass: 0, fail: 0, error: 0, expectedFailures: 0 };
  for (const r of results) {
    summary[r.status]++;
    if (r.expectedFailure !== undefined && (r.status === 'fail' || r.status === 'error'))
      summary.expectedFailures++;
  }
  const stale = results.filter((r) => r.expectedFailure !== undefined && r.status === 'pass');
  const result: RunResult = {
    suite: 'tagtrack-conformance',
    profile,
    mode,
    baseUrl: http.baseUrl,
    seed,
    numRuns,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    requests: { sent: http.requestCount, cacheHits: http.cacheHits },
    checks: results,
    summary,
    staleExpectedFailures: stale.map((r) => r.id),
    ok: !results.some(isBad) && stale.length === 0,
    exchanges: http.exchanges,
  };
  options.onEvent?.({ type: 'end', result });
  return result;
}

/** A failed or errored required check not covered by the expected-failures file. */
function isBad(r: CheckResult): boolean {
  return (
    (r.status === 'fail' || r.status === 'error') && r.required && r.expectedFailure === undefined
  );
}

/** What running a check gave, before it becomes a {@link CheckResult}. */
interface Outcome {
  readonly status: CheckStatus;
  readonly reason?: string | undefined;
  readonly failures: readonly Failure[];
  readonly seed: number;
  readonly requests: number;
  readonly durationMs: number;
}

/**
 * The one place a check's result is built: the check's data, its outcome and the
 * expected-failures file's reason when the file lists it (`''` without a reason).
 */
function resultOf(
  check: Check,
  outcome: Outcome,
  expectedFailure: string | undefined,
): CheckResult {
  return {
    id: check.id,
    area: check.area,
    title: check.title,
    clause: check.clause,
    endpoints: check.endpoints,
    required: check.required ?? true,
    status: outcome.status,
    reason: outcome.reason,
    failures: outcome.failures,
    seed: outcome.seed,
    requests: outcome.requests,
    durationMs: outcome.durationMs,
    ...(expectedFailure === undefined ? {} : { expectedFailure }),
  };
}

function skipped(reason: string, seed: number): Outcome {
  return { status: 'skip', reason, failures: [], seed, requests: 0, durationMs: 0 };
}

/**
 * Runs one check: `skipIf`, then `run`. A {@link SkipCheck} skips it, a {@link StopCheck}
 * ends it normally, an escaped {@link Violation} is one more failure, any other exception
 * is an error (its message and the first stack line). Fails when a failure was recorded.
 */
async function runCheck(check: Check, services: RunServices, env: CheckEnv): Promise<Outcome> {
  const reason = check.skipIf?.(env);
  const ctx = new CheckContext(check.id, services);
  if (reason !== undefined) return skipped(reason, ctx.seed);
  const t0 = performance.now();
  let status: CheckStatus = 'pass';
  let why: string | undefined;
  try {
    await check.run(ctx);
  } catch (e) {
    if (e instanceof SkipCheck) {
      status = 'skip';
      why = e.message;
    } else if (e instanceof Violation) {
      ctx.fail(e.message, e.details);
    } else if (!(e instanceof StopCheck)) {
      status = 'error';
      why = errorText(e);
    }
  }
  if (status === 'pass' && ctx.failures.length > 0) status = 'fail';
  return {
    status,
    reason: why,
    failures: ctx.failures,
    seed: ctx.seed,
    requests: ctx.requests,
    durationMs: Math.round(performance.now() - t0),
  };
}

/** An unexpected exception in words: a ConnectionError's message, else name, message and where. */
function errorText(e: unknown): string {
  if (e instanceof ConnectionError) return e.message;
  const err = e as Error | undefined;
  const at = err?.stack ? ` (${err.stack.split('\n')[1]?.trim()})` : '';
  return `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}${at}`;
}

/** Walks the list endpoints for a credential; a broken list gives an empty part (checks report it). */
async function discover(services: RunServices, credential: SuiteCredential): Promise<Discovery> {
  const ctx = new CheckContext('DISCOVERY', services);
  const list = async <Id extends EndpointId>(endpoint: Id) => {
    try {
      return (await ctx.walk(endpoint, { credential })).records;
    } catch (e) {
      if (e instanceof Violation) return [];
      throw e;
    }
  };
  const members = await list('teams.list');
  const tags = await list('teams.tags');
  const contacts = await list('contacts.list');
  const groups = new Map<string, { groupID: string; groupName: string }>();
  for (const m of members) {
    const id = m.groupID;
    const name = m.groupName;
    if (typeof id === 'string' && id !== '' && typeof name === 'string')
      groups.set(id, { groupID: id, groupName: name });
  }
  return { members, tags, contacts, groups: [...groups.values()] };
}
