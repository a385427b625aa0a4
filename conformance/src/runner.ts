import {
  type Answer,
  type Caller,
  type Dataset,
  type EndpointId,
  plainAnswer,
} from '@tagtrack/core';
import { canonicalDataset } from '@tagtrack/core/canonical';
import { type DataReport, DataWatch } from './attempt.ts';
import { CheckContext, type Discovery, type RunServices } from './checks/context.ts';
import {
  AREAS,
  type Area,
  type Check,
  type CheckEnv,
  FORMER_AREAS,
  type Oracle,
  priorityOf,
  runsAlone,
  type SuiteCredential,
} from './checks/define.ts';
import {
  type CheckScope,
  describe,
  type Failure,
  flattenLog,
  inScope,
  SkipCheck,
  StopCheck,
  Violation,
} from './checks/failure.ts';
import { ALL_CHECKS } from './checks/index.ts';
import type { Walk } from './checks/walk.ts';
import { type ChecksError, validateChecks } from './custom-checks.ts';
import type { ExpectedFailure } from './expected-failures.ts';
import { ConnectionError, type Exchange, type FetchLike, HttpClient } from './http.ts';
import { preflight } from './preflight.ts';
import { type Profile, type ProfileInput, parseProfile } from './profile.ts';
import type { Rerun } from './rerun.ts';
import { specClause } from './spec-clause.ts';
import { type TlsOptions, tlsConnectOptions, tlsFetch } from './transport.ts';
import type { DataMode } from './watermark.ts';

/**
 * Check outcome, ordered skip < pass < inconclusive < fail < error (OCI distribution-spec
 * scale). `inconclusive`: the check failed only on data that changed during each of its runs
 * (decisions §3 Revision 3, see attempt.ts): never a pass, never a fail.
 */
export type CheckStatus = 'skip' | 'pass' | 'inconclusive' | 'fail' | 'error';
export const STATUS_ORDER: readonly CheckStatus[] = [
  'skip',
  'pass',
  'inconclusive',
  'fail',
  'error',
];

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
  /** Progress events (start, each check as it ends, end). */
  readonly onEvent?: ((event: RunEvent) => void) | undefined;
  /**
   * Checks run at the same time (default {@link defaultConcurrency}: 1 when a rate limit is
   * declared or given, 4 for a local or in-memory base URL, 2 otherwise). One scheduler paces
   * every request to the rate; results are the same for a seed whatever the concurrency.
   */
  readonly concurrency?: number | undefined;
  /**
   * Request budget: at most this many requests go out (cache hits are free). Checks run by
   * priority; those the budget does not reach are skipped "not run: request budget spent".
   */
  readonly maxRequests?: number | undefined;
  /**
   * Overall deadline in ms: when it passes the run stops, unfinished checks are errors
   * ("interrupted: ...") and the result has `interrupted` set.
   */
  readonly maxDurationMs?: number | undefined;
  /** Aborting it stops the run as the deadline does (the CLI aborts it on SIGINT/SIGTERM). */
  readonly signal?: AbortSignal | undefined;
  /** Enables RATE-RESPONSE-TIME: every response must arrive within this many ms. */
  readonly maxResponseTimeMs?: number | undefined;
  /** Only the checks with exactly these ids (after `only`/`exclude`), e.g. for a replay. */
  readonly ids?: readonly string[] | undefined;
  /** Property seeds and shrink paths to replay, by `CHECK-ID#n` (see `RunServices.replay`). */
  readonly replay?: RunServices['replay'];
  /**
   * The checks to choose from, in run order; default the built-in ones (`ALL_CHECKS`). Add
   * your own with `[...builtInChecks, myCheck]`: ids unique, none a built-in id but the
   * built-in check itself (a {@link ChecksError} names the offending check).
   */
  readonly checks?: readonly Check[] | undefined;
  /**
   * Whether the data may change during the run (decisions §3 Revision 3; see `DataMode` in
   * watermark.ts): `still`, `watch` or `auto`. Default `still` in fixture mode, `auto` in blind.
   */
  readonly data?: DataMode | undefined;
  /** Runs of a failing check made again at most when its data moved (default 3). */
  readonly attempts?: number | undefined;
  /**
   * Only checks whose `endpoints` include one of these catalogue endpoints (`--endpoint`,
   * see endpoint-filter.ts); a check of no endpoint (a probe outside the catalogue) is left out.
   */
  readonly endpoints?: readonly EndpointId[] | undefined;
  /** Stop after this many failed (or errored) required checks; the rest are reported as not run. */
  readonly maxFailures?: number | undefined;
  /**
   * Extra headers sent with every request, by name (`-H`, e.g. a gateway's key): values are
   * secrets, never in a report. `Authorization` is refused ({@link ConfigError}): the suite signs.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** TLS settings over sockets (`--ca-file`, `--insecure`; see transport.ts). Ignored with `fetch`. */
  readonly tls?: TlsOptions | undefined;
  /** Where the run took its credentials, headers and TLS settings, as printed commands name it (rerun.ts). */
  readonly rerun?: Rerun | undefined;
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
  /**
   * Comparisons the check made (each assertion that held or failed, each case of a loop, each
   * property run): a check that compared nothing is never a pass.
   */
  readonly comparisons?: number | undefined;
  /** Ids of the exchanges the check relied on, in call order (walks and discoveries included). */
  readonly exchangeIds?: readonly number[] | undefined;
  /**
   * How many times the check ran, when it ran again because its data changed (decisions §3
   * Revision 3); absent when it ran once. `requests` and `durationMs` add up every run.
   */
  readonly attempts?: number | undefined;
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
  /**
   * Checks by status; a check the expected-failures file lists that failed or errored counts
   * in `expectedFailures` only, never in `fail` or `error` (the counts add up to the checks).
   */
  readonly summary: Readonly<Record<Exclude<CheckStatus, 'inconclusive'>, number>> & {
    readonly expectedFailures: number;
    /** Checks whose data changed during every run (set by every run; optional for results built elsewhere). */
    readonly inconclusive?: number | undefined;
  };
  /** Expected-failure entries whose check passed: they make the run fail. */
  readonly staleExpectedFailures: readonly string[];
  /**
   * True when every required check passed (or failed as expected), no entry is stale, no
   * request was answered with a 5xx and the run was not interrupted.
   */
  readonly ok: boolean;
  /** Checks run at the same time (set by every run; optional for results built elsewhere). */
  readonly concurrency?: number | undefined;
  /** Why the run stopped early (deadline, SIGINT, SIGTERM); absent when it ran to the end. */
  readonly interrupted?: string | undefined;
  /**
   * Why no check ran, one line: the preflight (preflight.ts) found a misconfiguration (no
   * Tag Tracking API at the base URL, a rejected credential, a profile option the
   * implementation did not choose) or the base URL did not answer. Every check is then an
   * error "not run: …" (or "interrupted: the base URL did not answer: …"), never a verdict.
   */
  readonly configError?: string | undefined;
  /** What the preflight saw differ from the profile without proving it wrong (one line each). */
  readonly warnings?: readonly string[] | undefined;
  /** How the run watched for data changing under it (set by every run; see attempt.ts). */
  readonly data?: DataReport | undefined;
  /** Where the run took its credentials, headers and TLS settings (no secret; see rerun.ts). */
  readonly rerun?: Rerun | undefined;
  readonly exchanges: readonly Exchange[];
}

/** The options are unusable (no credential, unknown expected-failure id, rejected credential). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'invalid_configuration' as const;
  /**
   * Set by `runConformance` when its preflight found the misconfiguration: the run's result,
   * every check an error "not run: …" and `configError` set, so that callers can still write
   * reports.
   */
  result?: RunResult | undefined;
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
 * The oracle's answers over core's canonical dataset (a constant of core), by profile option,
 * caller and request, kept across the runs of the process: a fixture run asks about 170
 * questions, nearly the same ones whatever the seed, and the plain rules take up to 150 ms
 * for one. Frozen: a run (or a check of your own) cannot change what the next one is told.
 */
const CANONICAL_ANSWERS = new Map<string, Answer>();

/** Answers kept at most, per oracle memo (the oldest go first). */
const CANONICAL_ANSWERS_MAX = 2000;

/** `value`, with every object and array in it frozen. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Fixture mode's oracle: core's plain rules (`plainAnswer`) over `dataset`, independent of
 * the reference server's engine. A credential's caller is the member of the first dataset
 * credential with its auth id whose member exists (decisions §1), when the access key
 * matches. Answers are memoised per caller and request (checks repeat requests; the plain
 * rules recompute every list, about 150 ms for `contacts.list` on the canonical dataset):
 * for the canonical dataset in {@link CANONICAL_ANSWERS}, shared by the runs of the process,
 * for any other dataset per run.
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
  const answers = dataset === canonicalDataset ? CANONICAL_ANSWERS : new Map<string, Answer>();
  return {
    dataset,
    callerOf(credential) {
      const c = credentials.get(credential.authId);
      return c !== undefined && c.accessKey === credential.accessKey ? c.caller : undefined;
    },
    answer(caller, request) {
      const key = JSON.stringify([
        profile.memberWithoutGroup,
        caller.memberID,
        request.endpoint,
        request.pathParams,
        request.query,
      ]);
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = deepFreeze(
          plainAnswer(dataset, caller, request, {
            memberWithoutGroup: profile.memberWithoutGroup,
          }),
        );
        if (answers.size >= CANONICAL_ANSWERS_MAX) answers.delete(answers.keys().next().value!);
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
  const byEndpoint = options.endpoints;
  const selected = selectChecks(catalogue, options.only, options.exclude).filter(
    (c) =>
      (options.ids === undefined || options.ids.includes(c.id)) &&
      (byEndpoint === undefined || c.endpoints.some((e) => byEndpoint.includes(e))),
  );
  if (selected.length === 0)
    throw new ConfigError(
      options.ids === undefined
        ? `no selected check covers the endpoints ${byEndpoint?.join(', ')} (--endpoint)`
        : `no check with the id ${options.ids.join(', ')} is selected`,
    );
  if (Object.keys(options.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
    throw new ConfigError(
      'an extra header cannot be Authorization: the suite signs every request itself (decisions §1); give the credential with --auth-id/--access-key or --profile',
    );
  const expected = new Map((options.expectedFailures ?? []).map((e) => [e.id, e.reason ?? '']));
  const knownIds = new Set(catalogue.map((c) => c.id));
  const unknown = [...expected.keys()].filter((id) => !knownIds.has(id));
  if (unknown.length > 0)
    throw new ConfigError(`expected-failures lists unknown requirement ids: ${unknown.join(', ')}`);
  for (const [name, value] of [
    ['concurrency', options.concurrency],
    ['max-requests', options.maxRequests],
    ['max-duration', options.maxDurationMs],
    ['max-response-time', options.maxResponseTimeMs],
    ['max-failures', options.maxFailures],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      throw new ConfigError(`${name} must be a positive integer, got ${value}`);
  }

  const rate =
    options.rateLimit ??
    (profile.rateLimit === null
      ? undefined
      : (profile.rateLimit.limit / profile.rateLimit.windowMs) * 1000 * 0.9);
  const concurrency =
    options.concurrency ??
    defaultConcurrency(options.baseUrl, {
      rateLimited: rate !== undefined,
      inMemory: options.fetch !== undefined,
    });
  const tlsConnect = options.fetch === undefined ? await tlsConnectOptions(options.tls) : undefined;
  const transport = options.fetch ?? (await tlsFetch(options.tls));
  const guard = new RunGuard(options);
  const http = new HttpClient({
    baseUrl: options.baseUrl,
    auth: profile.auth,
    fetch: guard.fetch(transport),
    signal: guard.signal,
    ownFetch: options.fetch !== undefined,
    timeoutMs: options.timeoutMs ?? 10_000,
    ratePerSecond: rate,
    maxBodyBytes: options.maxBodyBytes,
    credentials: all,
    headers: lowerCaseNames(options.headers),
    rerun: options.rerun,
    tlsConnect,
  });

  const oracle =
    mode === 'fixture' ? makeOracle(options.dataset ?? canonicalDataset, profile) : undefined;
  const env: CheckEnv = {
    profile,
    mode,
    probeMethods: options.probeMethods ?? false,
    credentials: all,
    oracle,
    maxResponseTimeMs: options.maxResponseTimeMs,
  };

  // Preflight (preflight.ts): the base URL answers with this API, every credential is
  // accepted, the profile's observable options match. A misconfiguration is never a verdict:
  // no check runs, and the ConfigError is thrown with the result at the end (reports written)
  let pre: readonly Exchange[] = [];
  let warnings: readonly string[] = [];
  let unreachable: ConnectionError | undefined;
  let misconfigured: ConfigError | undefined;
  try {
    const found = await preflight({ http, profile, primary, credentials: all });
    pre = found.exchanges;
    warnings = found.warnings;
    if (found.problem !== undefined) misconfigured = new ConfigError(found.problem);
  } catch (e) {
    // no answer: the run still builds its result (every check an error naming the cause), so
    // that the reports are written; the ConnectionError is thrown with it at the end
    if (e instanceof ConnectionError && guard.interrupted === undefined) {
      unreachable = e;
      guard.stop(`the base URL did not answer: ${e.message}`);
    } else if (guard.interrupted === undefined && !guard.budgetSpent) {
      // stopped before it answered: the run reports every check as not finished
      guard.dispose();
      throw e;
    }
  }
  const notRun = unreachable ?? misconfigured;

  // progress is not reported for a run the preflight stopped (its cause is one line)
  const onEvent = (event: RunEvent) => {
    if (notRun === undefined) options.onEvent?.(event);
  };
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
    ...(options.replay === undefined ? {} : { replay: options.replay }),
  };
  const watch = await DataWatch.start({
    services,
    mode: notRun === undefined ? options.data : 'still',
    attempts: options.attempts,
    credentials: all,
    discover,
    clearShared: () => discoveries.clear(),
    stopped: () => guard.interrupted !== undefined || guard.budgetSpent,
  }).catch((e: unknown) => {
    guard.dispose();
    throw e;
  });

  // One scheduler: checks start by priority (catalogue order among equals), up to
  // `concurrency` at a time, a check that runs alone with nothing beside it; every request
  // goes through the one HttpClient, whose pacer keeps to the rate whatever runs at once.
  onEvent({ type: 'start', checks: selected });
  const ordered = selected
    .map((check, index) => ({ check, index }))
    .sort((a, b) => priorityOf(a.check) - priorityOf(b.check) || a.index - b.index)
    .map((x) => x.check);
  // a check's log is kept as ids only: the exchanges (whole bodies) are not held to the end
  const done = new Map<string, { result: CheckResult; exchanges: readonly { id: number }[] }>();
  const running = new Set<Promise<void>>();
  let bailed = false;
  let failedChecks = 0;
  const maxFailures = options.maxFailures ?? (options.bail ? 1 : undefined);
  const halted = () =>
    misconfigured !== undefined || bailed || guard.interrupted !== undefined || guard.budgetSpent;
  const launch = (check: Check): Promise<void> => {
    const epoch = watch.epoch;
    const p: Promise<void> = runCheck(check, services, env, guard)
      .then((first) => watch.settle(first, epoch, (fresh) => runCheck(check, fresh, env, guard)))
      // a suite bug outside the check's own code is that check's error, not a lost result
      .catch((e: unknown) => ({
        outcome: { ...skipped(errorText(e), 0), status: 'error' as const },
        exchanges: [] as readonly Exchange[],
      }))
      .then(({ outcome, exchanges }) => {
        if (done.has(check.id)) return;
        const result = resultOf(check, outcome, expected.get(check.id));
        done.set(check.id, { result, exchanges: exchanges.map(({ id }) => ({ id })) });
        onEvent({ type: 'check', result });
        if (isBad(result) && maxFailures !== undefined && ++failedChecks >= maxFailures)
          bailed = true;
      })
      .finally(() => running.delete(p));
    running.add(p);
    return p;
  };
  const settle = () =>
    Promise.race([Promise.allSettled([...running]), guard.graceAfterStop(INTERRUPT_GRACE_MS)]);
  if (!halted()) {
    for (const check of ordered) {
      if (runsAlone(check)) {
        await settle();
        if (halted()) break;
        await Promise.race([launch(check), guard.graceAfterStop(INTERRUPT_GRACE_MS)]);
        continue;
      }
      while (running.size >= concurrency && !halted()) await Promise.race(running);
      if (halted()) break;
      launch(check);
    }
  }
  await settle();
  guard.dispose();

  // what did not run (or did not end): in catalogue order, with why
  for (const check of selected) {
    if (done.has(check.id)) continue;
    // a check that does not apply says so, whatever stopped the run; one still running when
    // the grace ended, or never started, is an error of the interrupted run
    const notApplicable = check.skipIf?.(env);
    const outcome: Outcome =
      misconfigured !== undefined
        ? { ...skipped(`not run: ${misconfigured.message}`, seed), status: 'error' }
        : notApplicable !== undefined
          ? skipped(notApplicable, seed)
          : guard.interrupted !== undefined
            ? { ...skipped(`interrupted: ${guard.interrupted}`, seed), status: 'error' }
            : guard.budgetSpent
              ? skipped(
                  `not run: request budget spent (--max-requests ${options.maxRequests})`,
                  seed,
                )
              : skipped(
                  options.maxFailures === undefined
                    ? 'not run: an earlier check failed and --bail is set'
                    : `not run: ${options.maxFailures} check${options.maxFailures === 1 ? '' : 's'} failed (--max-failures ${options.maxFailures})`,
                  seed,
                );
    const result = resultOf(check, outcome, expected.get(check.id));
    done.set(check.id, { result, exchanges: [] });
    onEvent({ type: 'check', result });
  }

  // exchange ids in a deterministic order: the preflight, then each check's log in catalogue
  // order, then any other (an item cut by a stop), whatever order the answers came in
  const renumber = new Map<number, number>();
  const take = (id: number) => {
    if (!renumber.has(id)) renumber.set(id, renumber.size + 1);
  };
  for (const ex of pre) take(ex.id);
  for (const check of selected) for (const ex of done.get(check.id)!.exchanges) take(ex.id);
  for (const ex of http.exchanges) take(ex.id);
  const newId = (id: number | undefined) => (id === undefined ? undefined : renumber.get(id));
  const results = selected.map((check) => {
    const { result, exchanges } = done.get(check.id)!;
    return {
      ...result,
      failures: result.failures.map((f) =>
        f.exchangeId === undefined ? f : { ...f, exchangeId: newId(f.exchangeId) },
      ),
      exchangeIds: exchanges.map((ex) => newId(ex.id) as number),
    };
  });
  const exchanges = http.exchanges
    .map((ex) => ({ ...ex, id: newId(ex.id) as number }))
    .sort((a, b) => a.id - b.id);

  const summary = { skip: 0, pass: 0, inconclusive: 0, fail: 0, error: 0, expectedFailures: 0 };
  // a listed check that failed (or errored) is an expected failure, counted apart: never also
  // a failure or an error
  for (const r of results) {
    if (r.expectedFailure !== undefined && (r.status === 'fail' || r.status === 'error'))
      summary.expectedFailures++;
    else summary[r.status]++;
  }
  const stale = results.filter((r) => r.expectedFailure !== undefined && r.status === 'pass');
  // a 5xx fails the run whichever check got it, listed in the expected-failures file or not
  const serverError = results.some((r) => r.failures.some((f) => f.key.startsWith(FIVE_XX)));
  const result: RunResult = {
    suite: 'tagtrack-conformance',
    profile,
    mode,
    baseUrl: http.baseUrl,
    seed,
    numRuns,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    requests: { sent: guard.sent, cacheHits: http.cacheHits },
    checks: results,
    summary,
    staleExpectedFailures: stale.map((r) => r.id),
    ok:
      !results.some(isBad) &&
      stale.length === 0 &&
      !serverError &&
      guard.interrupted === undefined &&
      notRun === undefined,
    concurrency,
    ...(guard.interrupted === undefined ? {} : { interrupted: guard.interrupted }),
    ...(notRun === undefined ? {} : { configError: notRun.message }),
    ...(warnings.length === 0 ? {} : { warnings }),
    data: watch.report(),
    ...(options.rerun === undefined ? {} : { rerun: options.rerun }),
    exchanges,
  };
  onEvent({ type: 'end', result });
  if (notRun !== undefined) {
    notRun.result = result;
    throw notRun;
  }
  return result;
}

/** `headers` with lower-case names (what a Fetch Request sends); undefined when there are none. */
function lowerCaseNames(
  headers: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (headers === undefined || Object.keys(headers).length === 0) return undefined;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** How long running checks get to end once the run is stopped, in ms. */
const INTERRUPT_GRACE_MS = 2000;

/** Dedup-key prefix of the failure a 5xx answer adds to the check that got it. */
const FIVE_XX = '5xx: ';

/** Default `concurrency` for a local (or in-memory) base URL and for any other. */
export const DEFAULT_CONCURRENCY = { local: 4, remote: 2 } as const;

/**
 * The default number of checks run at once: 1 when a rate limit is declared or given (the
 * rate is the bottleneck, and the rate checks must see the run undisturbed), else
 * {@link DEFAULT_CONCURRENCY}`.local` for an in-memory run or a loopback host (`localhost`,
 * `127.x.x.x`, `::1`), `.remote` for any other host (a vendor's staging service).
 */
export function defaultConcurrency(
  baseUrl: string,
  { rateLimited, inMemory }: { readonly rateLimited: boolean; readonly inMemory: boolean },
): number {
  if (rateLimited) return 1;
  if (inMemory) return DEFAULT_CONCURRENCY.local;
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return DEFAULT_CONCURRENCY.remote;
  }
  const local = host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
  return local ? DEFAULT_CONCURRENCY.local : DEFAULT_CONCURRENCY.remote;
}

/** Thrown by the guarded fetch once the run is stopped or its request budget is spent. */
class RunStopped extends Error {
  override readonly name = 'RunStopped';
}

/**
 * What stops a run early: the deadline (`maxDurationMs`), an outside signal (SIGINT,
 * SIGTERM) and the request budget (`maxRequests`). Its {@link fetch} wraps the transport:
 * refuses requests once stopped or over budget, and ends those in flight on a stop (which
 * the HTTP client aborts through {@link signal}).
 */
class RunGuard {
  /** Requests handed to the transport (what `requests.sent` reports). */
  sent = 0;
  /** Set when a request was refused because the budget was spent. */
  budgetSpent = false;
  /** The request budget (`maxRequests`), if any. */
  get budget(): number | undefined {
    return this.options.maxRequests;
  }
  private readonly controller = new AbortController();
  private readonly stopped: Promise<never>;
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onOutside: (() => void) | undefined;

  constructor(
    private readonly options: Pick<RunOptions, 'maxRequests' | 'maxDurationMs' | 'signal'>,
  ) {
    this.stopped = new Promise<never>((_, reject) => {
      this.controller.signal.addEventListener(
        'abort',
        () => reject(new RunStopped(`interrupted: ${this.interrupted}`)),
        { once: true },
      );
    });
    this.stopped.catch(() => {});
    const outside = options.signal;
    if (outside !== undefined) {
      this.onOutside = () => this.stop(reasonText(outside.reason));
      if (outside.aborted) this.onOutside();
      else outside.addEventListener('abort', this.onOutside, { once: true });
    }
    if (options.maxDurationMs !== undefined) {
      const ms = options.maxDurationMs;
      this.timer = setTimeout(() => this.stop(`--max-duration ${ms / 1000} s reached`), ms);
      this.timer.unref?.();
    }
  }

  /** Aborts when the run stops (its reason the stop's): the HTTP client aborts what is in flight. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the run stopped, or undefined while it goes on. */
  get interrupted(): string | undefined {
    return this.controller.signal.aborted ? String(this.controller.signal.reason) : undefined;
  }

  stop(reason: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** Resolves `ms` after the run is stopped (never when it is not). */
  graceAfterStop(ms: number): Promise<void> {
    return this.stopped.catch(() => new Promise<void>((r) => setTimeout(r, ms).unref?.()));
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.onOutside !== undefined)
      this.options.signal?.removeEventListener('abort', this.onOutside);
  }

  /** The transport, guarded (see the class). */
  fetch(inner: FetchLike | undefined): FetchLike {
    const send: FetchLike = inner ?? ((r) => fetch(r));
    return async (request) => {
      if (this.interrupted !== undefined) throw new RunStopped(`interrupted: ${this.interrupted}`);
      const max = this.options.maxRequests;
      if (max !== undefined && this.sent >= max) {
        this.budgetSpent = true;
        throw new RunStopped(`request budget spent (--max-requests ${max})`);
      }
      this.sent++;
      // the request's signal already aborts on the run's stop (HttpClient's `signal`): no
      // clone of each request with a combined signal (AbortSignal.any)
      return Promise.race([send(request), this.stopped]);
    };
  }
}

/** An abort reason in words (a string as it is, an Error's message). */
function reasonText(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error) return reason.message;
  return 'interrupted';
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
  readonly comparisons: number;
  /** Runs made, when the check ran again because its data changed (attempt.ts). */
  readonly attempts?: number | undefined;
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
    // as docs/spec.md numbers it: users have no decisions document
    clause: specClause(check.clause),
    endpoints: check.endpoints,
    required: check.required ?? true,
    status: outcome.status,
    reason: outcome.reason,
    failures: outcome.failures,
    seed: outcome.seed,
    requests: outcome.requests,
    durationMs: outcome.durationMs,
    comparisons: outcome.comparisons,
    exchangeIds: [],
    ...(outcome.attempts === undefined ? {} : { attempts: outcome.attempts }),
    ...(expectedFailure === undefined ? {} : { expectedFailure }),
  };
}

function skipped(reason: string, seed: number): Outcome {
  return { status: 'skip', reason, failures: [], seed, requests: 0, durationMs: 0, comparisons: 0 };
}

/**
 * Runs one check: `skipIf`, then `run` in a scope of its own (its comparisons and request
 * log). A {@link SkipCheck} skips it, a {@link StopCheck} ends it normally, an escaped
 * {@link Violation} is one more failure, any other exception is an error (its message and
 * the first stack line). Then:
 * - a 5xx answer to any request of its log is a failure naming the request (unless one of its
 *   failures already shows that exchange): a 5xx fails the run whichever check sent it;
 * - a pass that compared nothing is a skip, or an error when a discovery it used failed;
 * - stopped by the run: an error "interrupted: …", or for the request budget a skip
 *   (a fail when it had failures already).
 * Fails when a failure was recorded. Resolves the outcome and the log's exchanges.
 */
async function runCheck(
  check: Check,
  services: RunServices,
  env: CheckEnv,
  guard: RunGuard,
): Promise<{ outcome: Outcome; exchanges: readonly Exchange[] }> {
  const reason = check.skipIf?.(env);
  const scope: CheckScope = { comparisons: 0, log: [] };
  const ctx = new CheckContext(check.id, services, scope);
  if (reason !== undefined) return { outcome: skipped(reason, ctx.seed), exchanges: [] };
  const t0 = performance.now();
  let status: CheckStatus = 'pass';
  let why: string | undefined;
  try {
    await inScope(scope, () => check.run(ctx));
  } catch (e) {
    if (e instanceof SkipCheck) {
      status = 'skip';
      why = e.message;
    } else if (e instanceof Violation) {
      ctx.fail(e.message, e.details);
    } else if (!(e instanceof StopCheck)) {
      status = 'error';
      // an error's message may quote a body a server echoed a header in: no secret in reports
      why = services.http.redactor.redact(errorText(e));
    }
  }
  const exchanges = flattenLog(scope.log);
  const shown = new Set(ctx.failures.map((f) => f.exchangeId));
  for (const ex of exchanges) {
    if (ex.status < 500 || shown.has(ex.id)) continue;
    shown.add(ex.id);
    ctx.record(
      ctx.failureOf(
        `${describe(ex)} answered ${ex.status}: a 5xx fails the run, whichever check sent the request`,
        { kind: 'status', key: `${FIVE_XX}${ex.method} ${ex.target}`, exchange: ex },
      ),
    );
  }
  if (status === 'error' && guard.interrupted !== undefined) {
    why = `interrupted: ${guard.interrupted}`;
  } else if (status === 'error' && guard.budgetSpent && isBudgetRefusal(why)) {
    status = ctx.failures.length > 0 ? 'fail' : 'skip';
    why = `not finished: request budget spent (--max-requests ${guard.budget})`;
  } else if (status === 'skip' && ctx.failures.length > 0) {
    status = 'fail';
  } else if (status === 'pass' && ctx.failures.length === 0 && ctx.comparisons === 0) {
    const problems = ctx.discoveryProblems;
    if (problems.length > 0) {
      status = 'error';
      why = `compared nothing: discovery failed: ${problems.join('; ')}`;
    } else {
      status = 'skip';
      why = 'compared nothing: no case of this requirement in the data the implementation serves';
    }
  }
  if (status === 'pass' && ctx.failures.length > 0) status = 'fail';
  return {
    outcome: {
      status,
      reason: why,
      failures: ctx.failures,
      seed: ctx.seed,
      requests: ctx.requests,
      durationMs: Math.round(performance.now() - t0),
      comparisons: ctx.comparisons,
    },
    exchanges,
  };
}

/** Whether an error message is the guarded fetch's refusal for the budget. */
function isBudgetRefusal(message: string | undefined): boolean {
  return message?.includes('request budget spent') ?? false;
}

/** An unexpected exception in words: a ConnectionError's message, else name, message and where. */
function errorText(e: unknown): string {
  if (e instanceof ConnectionError) return e.message;
  const err = e as Error | undefined;
  const at = err?.stack ? ` (${err.stack.split('\n')[1]?.trim()})` : '';
  return `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}${at}`;
}

/**
 * Walks the list endpoints for a credential, in a scope of its own (no check counts its
 * comparisons; its exchanges join the log of each check that uses it). A list that cannot be
 * walked gives an empty part and a line in `problems` (the checks using it report it).
 */
async function discover(services: RunServices, credential: SuiteCredential): Promise<Discovery> {
  const scope: CheckScope = { comparisons: 0, log: [] };
  const ctx = new CheckContext('DISCOVERY', services, scope);
  const problems: string[] = [];
  const list = async <Id extends EndpointId>(endpoint: Id) => {
    try {
      return (await ctx.walk(endpoint, { credential })).records;
    } catch (e) {
      if (!(e instanceof Violation)) throw e;
      problems.push(`${endpoint} as ${credential.label}: ${e.message}`);
      return [];
    }
  };
  const [members, tags, contacts] = await inScope(scope, () =>
    Promise.all([list('teams.list'), list('teams.tags'), list('contacts.list')]),
  );
  const groups = new Map<string, { groupID: string; groupName: string }>();
  for (const m of members) {
    const id = m.groupID;
    const name = m.groupName;
    if (typeof id === 'string' && id !== '' && typeof name === 'string')
      groups.set(id, { groupID: id, groupName: name });
  }
  return {
    members,
    tags,
    contacts,
    groups: [...groups.values()],
    exchanges: flattenLog(scope.log),
    problems,
  };
}
