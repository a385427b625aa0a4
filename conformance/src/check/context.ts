/**
 * `CheckContext`, what a running check is handed: its calls, walks and discoveries, the
 * oracle, its failures and loops, properties and reads on still data (spec §5 Revision 3).
 * The work behind its methods is in `context/` (calls, loops, properties, callers, caches).
 */
import {
  type Answer,
  type EndpointId,
  endpointById,
  type PathParamName,
  type RecordOf,
} from '@tagtrack/core';
import type fc from 'fast-check';
import type { Credential, Exchange, HttpClient } from '../http/client.ts';
import type { Profile } from '../profile/profile.ts';
import { judgesOldRule, upgradeWarning } from '../profile/revisions.ts';
import { leaveOut, wholeListBound } from './context/caller-lists.ts';
import {
  type CallerShare,
  failureAsCaller,
  itemsOfCaller,
  runAsCaller,
} from './context/caller-share.ts';
import { type EachOptions, type EndpointCall, readAhead, requestOfCall } from './context/calls.ts';
import { runEach } from './context/each.ts';
import { oracleAnswer } from './context/expected.ts';
import { FailureLog } from './context/failure-log.ts';
import { runProperty } from './context/property.ts';
import { credentialsOf, logWhenDone } from './context/request-log.ts';
import { readSampledList, type SampledList } from './context/sampled-list.ts';
import { type Discovery, hashString, type RunServices, readOnStill } from './context/services.ts';
import { walkThroughCache } from './context/walk-cache.ts';
import { type Coverage, DEFAULT_SAMPLE_ABOVE } from './coverage.ts';
import {
  type CheckScope,
  currentScope,
  type Failure,
  SkipCheck,
  StopCheck,
  Violation,
  type ViolationDetails,
} from './failure.ts';
import type { CheckEnv, Oracle, SuiteCredential } from './types.ts';
import { type ListPage, readEnvelope, readPage, recordsOf, type Walk } from './walk.ts';

export type { CallerShare } from './context/caller-share.ts';
export {
  DEFAULT_EACH_CONCURRENCY,
  type EachOptions,
  type EndpointCall,
  LOOP_BATCH,
  MAX_LISTED,
  queryPairs,
} from './context/calls.ts';
export type { SampledList } from './context/sampled-list.ts';
export {
  type DiscoveredPart,
  type Discovery,
  hashString,
  type RunServices,
  readOnStillData,
  type StillWatch,
} from './context/services.ts';

/**
 * What a running check can do: call endpoints, walk lists, read the oracle, record failures
 * (typed, deduplicated by key, capped per loop) and run properties.
 */
export class CheckContext {
  readonly seed: number;
  requests = 0;
  private readonly recorded = new FailureLog();
  private properties = 0;
  private readonly problems: string[] = [];
  /** Tries of {@link onStillData} under way: calls and raw requests bypass the cache meanwhile. */
  private fresh = 0;
  /** The caller the check runs as while {@link asCaller} runs it (see {@link CallerShare}). */
  private share: CallerShare | undefined;
  /** What the check verified of the lists it sampled (see {@link covered}). */
  private readonly coverageLog: Coverage[] = [];

  /**
   * `id` is the check's requirement id (its seed derives from it). `scope` counts its
   * comparisons and logs its requests; the runner runs `run` inside it (`inScope`).
   */
  constructor(
    readonly id: string,
    private readonly services: RunServices,
    readonly scope: CheckScope = { comparisons: 0, log: [] },
  ) {
    this.seed = (services.baseSeed + hashString(id)) | 0;
  }

  /** The scope calls are counted in: the running item of a parallel `each`, else the check's. */
  private get active(): CheckScope {
    return currentScope() ?? this.scope;
  }

  /**
   * How many comparisons the check made: each `ensure` that held, Violation made,
   * `firstDifference`, error-body check, walk ended, property run held, {@link fail} and
   * {@link compared} (a loop item adds only what it judged). Zero comparisons never pass.
   */
  get comparisons(): number {
    return this.scope.comparisons;
  }
  /** Counts `n` comparisons made without the helpers (e.g. a hand-written `if`). */
  compared(n = 1): void {
    this.active.comparisons += n;
  }
  /** Why a discovery this check used could not walk a list (see {@link Discovery.problems}). */
  get discoveryProblems(): readonly string[] {
    return this.problems;
  }
  /** Reserves the log entry of a call now (call order) and fills it when `p` resolves. */
  private logged(p: Promise<Exchange>): Promise<Exchange> {
    return logWhenDone(this.active, p, (ex) => [this.services.http.forLog(ex)]);
  }
  get profile(): Profile {
    return this.services.env.profile;
  }
  /** Whether changed rule `id` (revisions.ts, spec §12) is judged as the pinned revision says. */
  judgesOldRule(id: string): boolean {
    return judgesOldRule(this.profile.revision, id);
  }

  /**
   * Records that the implementation passed changed rule `id` only as the profile's older pinned
   * revision states it (`example`: the answer, in words); the run warns once per rule.
   */
  failsNewerRule(id: string, example: string): void {
    const sink = this.services.env.upgrades;
    if (sink !== undefined && !sink.has(id)) sink.set(id, upgradeWarning(id, this.id, example));
  }
  get mode(): 'blind' | 'fixture' {
    return this.services.env.mode;
  }
  /** fast-check runs per property: the run's, or a caller's share of it (see {@link asCaller}). */
  get numRuns(): number {
    return this.share?.numRuns ?? this.services.numRuns;
  }
  get http(): HttpClient {
    return this.services.http;
  }
  /** The credential used when a call names none: the run's, or the caller of {@link asCaller}. */
  get primary(): SuiteCredential {
    return this.share?.credential ?? this.services.primary;
  }
  /** The cases of a fixed list this caller takes (see `itemsOfCaller`). */
  callerShare<T>(items: readonly T[]): T[] {
    return itemsOfCaller(items, this.share, this.services.baseSeed);
  }

  /** The caller the check runs as when it runs once per caller (see {@link asCaller}), else undefined. */
  get caller(): SuiteCredential | undefined {
    return this.share?.credential;
  }
  /**
   * Runs `fn` as `share.credential`: meanwhile it is {@link primary}, {@link numRuns} is
   * `share.numRuns` and every failure names it (`as LABEL: …`, its key too); see
   * `runAsCaller` for what escapes `fn`. Not re-entrant: one caller at a time.
   */
  asCaller(share: CallerShare, fn: () => Promise<void>): Promise<{ skipped?: string }> {
    if (this.share !== undefined) throw new Error('asCaller: already running as a caller');
    return runAsCaller(
      share,
      fn,
      (s) => {
        this.share = s;
      },
      (e) => this.fail(e.message, e.details),
    );
  }
  get credentials(): readonly SuiteCredential[] {
    return this.services.env.credentials;
  }
  get oracle(): Oracle | undefined {
    return this.services.env.oracle;
  }
  /** What the check may know about the run (profile, mode, credentials, options). */
  get env(): CheckEnv {
    return this.services.env;
  }
  /** The failures recorded so far, deduplicated (a repeated key counts on its first failure). */
  get failures(): readonly Failure[] {
    return this.recorded.recorded;
  }
  /** How many failures were recorded, repeats included. */
  get failureCount(): number {
    return this.recorded.count;
  }

  /** Sends a request to a catalogue endpoint (signed with `call.credential`, default primary). */
  call<Id extends EndpointId>(endpoint: Id, call: EndpointCall<Id> = {}): Promise<Exchange> {
    this.requests++;
    const request = requestOfCall(endpoint, call, this.primary, this.fresh > 0);
    return this.logged(this.services.http.request(request)).then(readAhead(endpoint));
  }

  /** Sends a raw request (any path). */
  raw(spec: Parameters<HttpClient['request']>[0]): Promise<Exchange> {
    this.requests++;
    return this.logged(
      this.services.http.request(this.fresh > 0 ? { ...spec, cache: false } : spec),
    );
  }

  /** A 200 JSON response of `endpoint` parsed with core's envelope schema (see `readEnvelope`). */
  envelope(endpoint: EndpointId, exchange: Exchange): { data: unknown; paging?: unknown } {
    return readEnvelope(endpoint, exchange);
  }

  /**
   * The record of a 200 answer of a single endpoint, parsed with core's envelope schema and
   * typed by the catalogue (`single('tags.daily', ex)` is `DailyCounts`); a `Violation` else.
   */
  single<Id extends EndpointId>(endpoint: Id, exchange: Exchange): RecordOf<Id> {
    return recordsOf(endpoint, [readEnvelope(endpoint, exchange).data])[0]!;
  }

  /**
   * One list response as a page, a 204 as a page without records (see `readPage`). Use it
   * instead of `envelope` wherever a list may be empty.
   */
  page(endpoint: EndpointId, exchange: Exchange): ListPage {
    return readPage(endpoint, exchange);
  }

  /**
   * Every record of a list endpoint, walked from cursor 0 whatever paging end the
   * implementation uses (see `walkPages`), bounded by total/pageSize + 3 pages. Cached per
   * run by endpoint, path parameters, query and credential. Typed by the catalogue:
   * `walk('teams.tags')` gives `Walk<Tag>` (`RecordOf<'teams.tags'>`).
   */
  walk<Id extends EndpointId>(
    endpoint: Id,
    call: EndpointCall<Id> = {},
  ): Promise<Walk<RecordOf<Id>>> {
    return this.walkOnce(endpoint, call).then((w) => ({
      ...w,
      records: recordsOf(endpoint, w.records),
    }));
  }

  /** {@link walk} untyped, through the run's walk cache. */
  private walkOnce(endpoint: EndpointId, named: EndpointCall): Promise<Walk> {
    return walkThroughCache(
      {
        scope: this.active,
        fresh: this.fresh > 0,
        cache: this.services.walkCache,
        pageSize: this.profile.pageSize,
        primary: this.primary,
        forLog: (ex) => this.services.http.forLog(ex),
        longAbove: this.sampleAbove,
        baseSeed: this.services.baseSeed,
        countRequests: (n) => {
          this.requests += n;
        },
        call: (endpoint, call) => this.call(endpoint, call),
        wholeUpTo: (c) => this.boundOf(c ?? null),
      },
      endpoint,
      named,
    );
  }

  /**
   * All records of a list endpoint (walked), or the one record of a single endpoint, typed
   * by the catalogue (`records('opens.tag')` gives `Open[]`).
   */
  async records<Id extends EndpointId>(
    endpoint: Id,
    call: EndpointCall<Id> = {},
  ): Promise<RecordOf<Id>[]> {
    if (endpointById(endpoint).response === 'single') {
      const ex = await this.call(endpoint, call);
      return recordsOf(endpoint, [this.envelope(endpoint, ex).data]);
    }
    return (await this.walk(endpoint, call)).records;
  }

  /** Records of a list verified whole before a sample is taken (the run's `sampleAbove`). */
  get sampleAbove(): number {
    return this.services.sampleAbove ?? DEFAULT_SAMPLE_ABOVE;
  }
  /** Records of a list read whole as `credential` (caller-lists.ts `wholeListBound`). */
  boundOf(credential: SuiteCredential | null): number {
    return wholeListBound(this.services, this.sampleAbove, credential);
  }

  /**
   * A list endpoint's records for a law that holds record by record: every record when the
   * list has at most {@link sampleAbove}, else whole pages at seeded cursors, with coverage
   * of `subject` recorded (see `readSampledList`). Throws a {@link Violation} as walk does.
   * `wholeUpTo` (at least {@link sampleAbove}) reads lists up to that many records whole:
   * a discovery samples only the lists too long to walk.
   */
  sampledList<Id extends EndpointId>(
    endpoint: Id,
    call: EndpointCall<Id>,
    subject: string,
    wholeUpTo?: number,
  ): Promise<SampledList<RecordOf<Id>>> {
    return readSampledList(
      {
        sampleAbove: this.sampleAbove,
        baseSeed: this.services.baseSeed,
        pageSize: this.profile.pageSize,
        primary: this.primary,
        call: (e, c) => this.call(e, c),
        page: (e, ex) => this.page(e, ex),
        walk: (e, c) => this.walkOnce(e, c),
        covered: (entry) => this.covered(entry),
        compared: () => this.compared(),
      },
      endpoint,
      call,
      subject,
      wholeUpTo && Math.min(wholeUpTo, this.boundOf(call.credential ?? this.primary)),
    );
  }

  /**
   * Records what the check verified of `subject` (see {@link Coverage}): entries of the same
   * subject add up in the check's result, and the reports state them when one was sampled.
   */
  covered(entry: Coverage): void {
    this.coverageLog.push(entry);
  }

  /** What the check verified of the lists it read through {@link sampledList}, in order. */
  get coverage(): readonly Coverage[] {
    return this.coverageLog;
  }

  /** Ids discovered from the list endpoints for `credential` (default primary). */
  discover(credential: SuiteCredential = this.primary): Promise<Discovery> {
    const entry: { exchanges: readonly Exchange[] } = { exchanges: [] };
    this.active.log.push(entry);
    return this.services.discover(credential).then((d) => {
      entry.exchanges = d.exchanges ?? [];
      for (const p of d.problems ?? []) if (!this.problems.includes(p)) this.problems.push(p);
      return d;
    });
  }

  /**
   * The oracle's answer to a request (fixture mode): parses the query with core's
   * `parseQuery` and asks the plain rules (`Oracle.answer`). Throws when not in fixture mode.
   */
  expected(
    credential: Credential,
    endpoint: EndpointId,
    pathParams: Partial<Record<PathParamName, string>>,
    query: readonly (readonly [string, string])[],
  ): Answer {
    return oracleAnswer(this.oracle, credential, endpoint, pathParams, query);
  }

  /** Records a failure of `details.kind` and continues (a failure is a comparison made). */
  fail(message: string, details: ViolationDetails): void {
    this.active.comparisons++;
    this.record(this.failureOf(message, details));
  }

  /** Records a failure built elsewhere (a Violation that escaped `run`, a property's). */
  record(unredacted: Failure): void {
    // no secret in any artifact: access keys, signatures and signed headers become labels
    const failure = this.services.http.redactor.redactValue(unredacted);
    // an item of a parallel `each` keeps its failures until the loop takes them in item order
    const pending = currentScope()?.pending;
    if (pending !== undefined && currentScope() !== this.scope) {
      pending.push(failure);
      return;
    }
    this.recorded.add(failure, unredacted);
  }

  /** Marks the check skipped (does not return). */
  skip(reason: string): never {
    throw new SkipCheck(reason);
  }

  /**
   * Ends the check (as returning from `run` does; its failures stand) when it has recorded
   * `n` failures or more: more would be noise, or cost requests against a broken server.
   */
  stopAt(n: number): void {
    const count = this.recorded.count;
    if (count >= n) throw new StopCheck(`${count} failures`);
  }

  /**
   * Runs `fn` on every item in order, recording each {@link Violation} it throws as a failure
   * and going on: the one way a check loops over cases (see `runEach` for caps and stops).
   */
  async each<T>(
    items: Iterable<T>,
    fn: (item: T) => Promise<void> | void,
    options: EachOptions<T> = {},
  ): Promise<number> {
    return runEach(
      {
        active: () => this.active,
        fail: (message, details) => this.fail(message, details),
        record: (failure) => this.record(failure),
        stopAt: (n) => this.stopAt(n),
        onStillData: (f) => this.onStillData(f),
        leaveOut: (e) => leaveOut(this, e),
      },
      items,
      fn,
      options,
    );
  }

  /**
   * For a comparison whose verdict rests only on the reads `fn` makes (spec §5 Revision 3):
   * `fn(false)` through the caches; a {@link Violation} is read again with `fn(true)` between
   * two watermark reads, and stands only when read on still data (see `readOnStill`).
   */
  async onStillData<T>(fn: (fresh: boolean) => Promise<T>): Promise<T> {
    // the watermarks of the credentials `fn`'s own reads used (its verdict rests on them
    // alone), else of every credential the check used so far
    const scope = this.active;
    const from = scope.log.length;
    return readOnStill(
      this.services.http,
      this.services.still,
      fn,
      (d) => {
        this.fresh += d;
      },
      () => {
        const own = credentialsOf([{ ...scope, log: scope.log.slice(from) }]);
        // else those that signed every request of the check's log so far (walks included)
        return own.size > 0 ? own : credentialsOf([this.scope, this.active]);
      },
    );
  }

  /**
   * Runs `fn` once: resolves its value, or records the {@link Violation} it throws as a
   * failure and resolves `undefined`. Any other exception propagates.
   */
  async attempt<T>(fn: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof Violation)) throw e;
      this.fail(e.message, e.details);
      return undefined;
    }
  }

  /**
   * Runs a fast-check property with the run's `numRuns` and this check's seed, `examples`
   * first; a {@link Violation} fails it (see `runProperty`). Other exceptions propagate.
   */
  async property<T>(
    arb: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<void>,
    options: { numRuns?: number; examples?: readonly T[]; readsOwn?: boolean } = {},
  ): Promise<void> {
    const index = this.properties++;
    if (options.readsOwn) {
      const own = predicate;
      predicate = (value) => this.onStillData(() => own(value));
    }
    return runProperty(
      {
        index,
        replay: this.services.replay?.get(`${this.id}#${index}`),
        numRuns: options.numRuns ?? this.numRuns,
        seed: (this.seed + (this.share?.seedOffset ?? 0)) | 0,
        countComparison: () => {
          this.active.comparisons++;
        },
        failureOf: (message, details) => this.failureOf(message, details),
        record: (failure) => this.record(failure),
        redact: (v) => this.services.http.redactor.replace(v),
      },
      arb,
      predicate,
      options.examples ?? [],
    );
  }

  /**
   * Builds a failure record from a message and details (exchange → reproduce line, key by
   * default); while the check runs as a caller ({@link asCaller}) the message and key start
   * with `as LABEL: `.
   */
  failureOf(message: string, details: ViolationDetails): Failure {
    return failureAsCaller(this.share?.credential.label, message, details, this.services.http);
  }
}
