import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { newWalkCache } from '../check/context/walk-cache.ts';
import type { RunServices } from '../check/context.ts';
import { DEFAULT_MAX_CALLERS, DEFAULT_SAMPLE_ABOVE } from '../check/coverage.ts';
import type { CheckEnv } from '../check/define.ts';
import { ALL_CHECKS } from '../checks/index.ts';
import { cacheShares, DEFAULT_CACHE_BYTES } from '../http/byte-cache.ts';
import { ConnectionError, type Exchange, HttpClient } from '../http/client.ts';
import { tlsConnectOptions, tlsFetch } from '../http/transport.ts';
import { parseProfile } from '../profile/profile.ts';
import { unjudgedChecks, upgradeWarning } from '../profile/revisions.ts';
import { DataWatch } from './attempt.ts';
import { type ChecksError, validateChecks } from './custom-checks.ts';
import { discover, newDiscoveryCache } from './discover.ts';
import { ConfigError } from './errors.ts';
import { makeOracle } from './fixture-oracle.ts';
import { gateFailures, gatePolicy, unknownRequired } from './gates.ts';
import { RunGuard } from './guard.ts';
import {
  credentialsOf,
  DEFAULT_NUM_RUNS,
  defaultConcurrency,
  lowerCaseNames,
  type RunOptions,
  validateRunOptions,
} from './options.ts';
import { preflight } from './preflight.ts';
import {
  type CheckResult,
  isBad,
  PreflightError,
  type RunEvent,
  type RunResult,
  summaryOf,
} from './result.ts';
import { schedule } from './schedule.ts';
import { selectChecks } from './select.ts';

export { type CheckStatus, STATUS_ORDER } from '../check/outcome.ts';
// The run, split by concern: options and their defaults (run-options.ts), selection
// (select.ts), the fixture oracle (fixture-oracle.ts), the guard that stops a run
// (run-guard.ts), discovery (discover.ts), one check's run (run-check.ts), the verdict on a
// check (verdict.ts), the scheduler (schedule.ts), results (run-result.ts). What other
// modules import from here stays importable from here:
export { ConfigError } from './errors.ts';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_NUM_RUNS,
  defaultConcurrency,
  type RunOptions,
} from './options.ts';
export { type CheckResult, PreflightError, type RunEvent, type RunResult } from './result.ts';
export { matchesOnly, matchesPattern, selectChecks, splitPatterns } from './select.ts';

/**
 * Runs the conformance suite against `options.baseUrl` and returns structured results.
 * Read-only unless `probeMethods`. Throws {@link PreflightError} (with the result, every check
 * an error naming the cause) when the base URL cannot be reached or the preflight finds the
 * implementation contradicting the options, {@link ConfigError} for unusable options,
 * `ProfileError` for an invalid profile, {@link ChecksError} for an invalid `checks` list.
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
  const expected = validateRunOptions(options, new Set(catalogue.map((c) => c.id)));
  const policy = gatePolicy(options, profile);
  const unknownGate = unknownRequired(policy, new Set(catalogue.map((c) => c.id)));
  if (unknownGate !== undefined) throw new ConfigError(unknownGate);

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
  const cacheBytes = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
  const http = new HttpClient({
    baseUrl: options.baseUrl,
    auth: profile.auth,
    fetch: guard.fetch(transport),
    signal: guard.signal,
    ownFetch: options.fetch !== undefined,
    timeoutMs: options.timeoutMs ?? 10_000,
    retries: options.retries,
    retryBackoffMs: options.retryBackoffMs,
    ratePerSecond: rate,
    maxBodyBytes: options.maxBodyBytes,
    credentials: all,
    headers: lowerCaseNames(options.headers),
    rerun: options.rerun,
    tlsConnect,
    cacheBytes: cacheShares(cacheBytes).responses,
    hotCacheBytes: cacheShares(cacheBytes).hotResponses,
    longListAbove: options.sampleAbove ?? DEFAULT_SAMPLE_ABOVE,
  });

  const oracle =
    mode === 'fixture' ? makeOracle(options.dataset ?? canonicalDataset, profile) : undefined;
  const upgrades = new Map<string, string>();
  const env: CheckEnv = {
    upgrades,
    profile,
    mode,
    probeMethods: options.probeMethods ?? false,
    credentials: all,
    oracle,
    maxResponseTimeMs: options.maxResponseTimeMs,
    maxCallers: options.maxCallers ?? DEFAULT_MAX_CALLERS,
    seed,
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
  const walkCache = newWalkCache(cacheShares(cacheBytes).walks);
  const discoveries = newDiscoveryCache(cacheShares(cacheBytes).discoveries);
  const services: RunServices = {
    http,
    env,
    primary,
    numRuns,
    baseSeed: seed,
    walkCache,
    sampleAbove: options.sampleAbove ?? DEFAULT_SAMPLE_ABOVE,
    discover: (credential) => {
      let p = discoveries.get(credential.authId);
      if (p === undefined) {
        // one the cache let go is made again from the kept answers: no request, no cache hit
        const again = discoveries.wasSet(credential.authId);
        p = discover(again ? { ...services, http: http.rebuilding() } : services, credential);
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

  const done = await schedule({
    selected,
    services,
    env,
    guard,
    watch,
    concurrency,
    expected,
    misconfigured,
    options,
    seed,
    onEvent,
  });

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
  // a rule the revision the profile pins did not state is no verdict: its check's failure
  // (not a 5xx) is a skip naming the revision, and the run warns (profile/revisions.ts)
  const unjudged = unjudgedChecks(profile.revision);
  const results = selected.map((check): CheckResult => {
    const { result, exchanges, serverErrors } = done.get(check.id)!;
    const change = unjudged.get(check.id);
    if (change !== undefined && result.status === 'fail' && serverErrors === 0) {
      if (!upgrades.has(change.id))
        upgrades.set(
          change.id,
          upgradeWarning(change.id, check.id, result.failures[0]?.message ?? 'failed'),
        );
      return {
        ...result,
        status: 'skip',
        reason: `the profile pins Revision ${profile.revision}, which did not state this rule (${change.section}, changed in Revision ${change.revision})`,
        failures: [],
        exchangeIds: exchanges.map((ex) => newId(ex.id) as number),
      };
    }
    return {
      ...result,
      failures: result.failures.map((f) =>
        f.exchangeId === undefined ? f : { ...f, exchangeId: newId(f.exchangeId) },
      ),
      ...(result.retried === undefined
        ? {}
        : {
            retried: result.retried.map((r) => ({
              ...r,
              exchangeId: newId(r.exchangeId) as number,
            })),
          }),
      exchangeIds: exchanges.map((ex) => newId(ex.id) as number),
    };
  });
  const exchanges = http.exchanges
    .map((ex) => ({ ...ex, id: newId(ex.id) as number }))
    .sort((a, b) => a.id - b.id);

  // a listed check that failed (or errored) is an expected failure, counted apart: never also
  // a failure or an error
  const { summary, stale } = summaryOf(results);
  // a 5xx fails the run whichever check got it, listed in the expected-failures file or not
  const serverError = selected.some((check) => done.get(check.id)!.serverErrors > 0);
  // the release gate's policy (gates.ts): judged only on a run whose checks ran
  const gates = notRun === undefined ? gateFailures(results, policy) : [];
  const result: RunResult = {
    suite: 'tagtrack-conformance',
    profile,
    mode,
    baseUrl: http.baseUrl,
    seed,
    numRuns,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    requests: {
      sent: guard.sent,
      cacheHits: http.cacheHits,
      retried: http.retriedCount,
      retries: http.retries,
    },
    checks: results,
    summary,
    staleExpectedFailures: stale,
    ok:
      !results.some(isBad) &&
      stale.length === 0 &&
      !serverError &&
      guard.interrupted === undefined &&
      notRun === undefined &&
      gates.length === 0,
    concurrency,
    ...(guard.interrupted === undefined ? {} : { interrupted: guard.interrupted }),
    ...(notRun === undefined ? {} : { configError: notRun.message }),
    ...(gates.length === 0 ? {} : { gateFailures: gates }),
    ...(warnings.length + upgrades.size === 0
      ? {}
      : { warnings: [...warnings, ...upgrades.values()] }),
    data: watch.report(),
    ...(options.rerun === undefined ? {} : { rerun: options.rerun }),
    exchanges,
  };
  onEvent({ type: 'end', result });
  if (notRun !== undefined) throw new PreflightError(result, notRun);
  return result;
}
