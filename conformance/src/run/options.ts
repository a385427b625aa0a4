import type { Dataset, EndpointId } from '@tagtrack/core';
import type { RunServices } from '../check/context.ts';
import type { Check, SuiteCredential } from '../check/define.ts';
import type { DataMode } from '../check/watermark.ts';
import type { FetchLike } from '../http/client.ts';
import type { Rerun } from '../http/rerun.ts';
import type { TlsOptions } from '../http/transport.ts';
import type { Profile, ProfileInput } from '../profile/profile.ts';
import type { ChecksError } from './custom-checks.ts';
import { ConfigError } from './errors.ts';
import type { ExpectedFailure } from './expected-failures.ts';
import type { RunEvent } from './result.ts';

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
  /** Per-request timeout in ms (of each try). Default 10,000. */
  readonly timeoutMs?: number | undefined;
  /**
   * Retries of a GET or HEAD whose transport failed: a timeout, a reset connection, a 502,
   * 503 or 504 (never a 500), after a backoff or the server's `Retry-After` (http/retry.ts,
   * docs/spec.md §11). Default 2 (`DEFAULT_RETRIES`); 0 sends each request once. A non-negative
   * integer, else a {@link ConfigError}.
   */
  readonly retries?: number | undefined;
  /** Wait before the first retry in ms, doubled each time (default 250). */
  readonly retryBackoffMs?: number | undefined;
  /**
   * Bytes the run's caches may hold together (default `DEFAULT_CACHE_BYTES`, 128 MiB), shared
   * as `cacheShares` says: the kept (compressed) answers, which alone decide whether a request
   * is sent (each once per cache epoch while they fit their share), and the whole answers,
   * walks and discoveries, which only save CPU (past their shares the least recently used go
   * and are rebuilt from the kept answers, with no request).
   */
  readonly cacheBytes?: number | undefined;
  /**
   * Records of one list a law verifies whole (default `DEFAULT_SAMPLE_ABOVE`, 5,000): a law
   * over a longer list verifies a seeded sample of about as many records (whole pages at
   * sampled cursors), and its result states the coverage (`CheckResult.coverage`, e.g.
   * "verified 5,000 of 48,113 contacts (seeded sample)"). `Infinity` verifies every record
   * of every list. A positive integer or `Infinity`, else a {@link ConfigError}.
   */
  readonly sampleAbove?: number | undefined;
  /**
   * Distinct callers (team, account type, group holding) a blind run judges its per-caller
   * checks and its caller-pairing checks as (default `DEFAULT_MAX_CALLERS`, 12): with more
   * declared, a seeded sample of this many, the primary first and every account type and group
   * holding declared among them (callers.ts `sampledCallers`), its coverage stated
   * (`CheckResult.coverage`, e.g. "as 12 of 30 callers (seeded sample; every account type and
   * group holding covered)"). `Infinity` judges every class. A positive integer or
   * `Infinity`, else a {@link ConfigError}.
   */
  readonly maxCallers?: number | undefined;
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
   * Whether the data may change during the run (spec §5 Revision 3; see `DataMode` in
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
  /**
   * Gate: the most checks that may end inconclusive for the run to pass (`--max-inconclusive`,
   * overrides the profile's `maxInconclusive`; see gates.ts). Absent: no bound.
   */
  readonly maxInconclusive?: number | undefined;
  /** Gate: the most skipped checks, those the profile rules out not counted (`--max-skipped`). */
  readonly maxSkipped?: number | undefined;
  /** Gate: ids of checks that must pass, not merely not fail (`--require`; joined with the profile's). */
  readonly require?: readonly string[] | undefined;
}

/** Default fast-check runs per property check. */
export const DEFAULT_NUM_RUNS = 25;

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

/** The credential checks run as (`primary`) and every declared one, the primary first. Throws {@link ConfigError} when there is none or only half of one is given. */
export function credentialsOf(
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

/** `headers` with lower-case names (what a Fetch Request sends); undefined when there are none. */
export function lowerCaseNames(
  headers: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (headers === undefined || Object.keys(headers).length === 0) return undefined;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * Checks the options `runConformance` cannot run with, in this order: an `Authorization`
 * extra header, an expected-failures id not in the catalogue (`knownIds`), a limit
 * (`concurrency`, `maxRequests`, `maxDurationMs`, `maxResponseTimeMs`, `maxFailures`) not a
 * positive integer. Throws {@link ConfigError} naming the first; returns the expected
 * failures by check id (their reason, or `''`).
 */
export function validateRunOptions(
  options: RunOptions,
  knownIds: ReadonlySet<string>,
): Map<string, string> {
  if (Object.keys(options.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
    throw new ConfigError(
      'an extra header cannot be Authorization: the suite signs every request itself (spec §3); give the credential with --auth-id/--access-key or --profile',
    );
  const expected = new Map((options.expectedFailures ?? []).map((e) => [e.id, e.reason ?? '']));
  const unknown = [...expected.keys()].filter((id) => !knownIds.has(id));
  if (unknown.length > 0)
    throw new ConfigError(`expected-failures lists unknown requirement ids: ${unknown.join(', ')}`);
  for (const [name, value] of [
    ['concurrency', options.concurrency],
    ['max-requests', options.maxRequests],
    ['max-duration', options.maxDurationMs],
    ['max-response-time', options.maxResponseTimeMs],
    ['max-failures', options.maxFailures],
    [
      'sample-above',
      options.sampleAbove === Number.POSITIVE_INFINITY ? undefined : options.sampleAbove,
    ],
    [
      'max-callers',
      options.maxCallers === Number.POSITIVE_INFINITY ? undefined : options.maxCallers,
    ],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      throw new ConfigError(`${name} must be a positive integer, got ${value}`);
  }
  for (const [name, value] of [
    ['retries', options.retries],
    ['retry-backoff', options.retryBackoffMs],
    ['max-inconclusive', options.maxInconclusive],
    ['max-skipped', options.maxSkipped],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      throw new ConfigError(`${name} must be a non-negative integer, got ${value}`);
  }
  return expected;
}
