import {
  type Answer,
  buildPath,
  type EndpointId,
  endpointById,
  type PathParamName,
  parseQuery,
  type QueryOf,
  type RecordOf,
} from '@tagtrack/core';
import fc from 'fast-check';
import type { Credential, Exchange, HttpClient } from '../http.ts';
import type { Profile } from '../profile.ts';
import { type Watermarks, watermarkMove } from '../watermark.ts';
import type { CheckEnv, Oracle, SuiteCredential } from './define.ts';
import {
  type CheckScope,
  currentScope,
  type Failure,
  type FailureKind,
  inScope,
  type LogEntry,
  SkipCheck,
  StopCheck,
  Violation,
  type ViolationDetails,
} from './failure.ts';
import { type ListPage, readEnvelope, readPage, recordsOf, type Walk, walkPages } from './walk.ts';

/**
 * Path parameters and query of one request to catalogue endpoint `Id`. The query is sent as
 * `params` (the endpoint's parameters by name, typed by the catalogue's `QueryOf<Id>`; values
 * in any form, a string sent as it is) followed by the raw `query` pairs (any name, any value:
 * what the input and probe checks send).
 */
export interface EndpointCall<Id extends EndpointId = EndpointId> {
  readonly pathParams?: Partial<Record<PathParamName, string>>;
  readonly params?: { readonly [K in keyof QueryOf<Id>]?: string | number | boolean | undefined };
  readonly query?: readonly (readonly [string, string])[];
  /**
   * The query string to send verbatim instead of `params` and `query` (no leading `?`; empty
   * pieces, `+`, malformed escapes kept), signed exactly as sent: for the query-syntax checks
   * (decisions §4 Revision 3). Not for {@link CheckContext.walk}.
   */
  readonly rawQuery?: string;
  readonly credential?: Credential | null;
  readonly method?: 'GET' | 'HEAD' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly cache?: boolean;
}

/** The query pairs `call` sends: its named `params` (in their order) then its raw `query`. */
export function queryPairs(call: EndpointCall): readonly (readonly [string, string])[] {
  const named = Object.entries(call.params ?? {}).flatMap(([name, value]) =>
    value === undefined ? [] : [[name, String(value)] as const],
  );
  return named.length === 0 ? (call.query ?? []) : [...named, ...(call.query ?? [])];
}

/** Ids discovered from list endpoints for one credential (blind mode needs nothing else). */
export interface Discovery {
  readonly members: RecordOf<'teams.list'>[];
  readonly tags: RecordOf<'teams.tags'>[];
  readonly contacts: RecordOf<'contacts.list'>[];
  readonly groups: { groupID: string; groupName: string }[];
  /** The exchanges the discovery made, in call order (they join the log of each check using it). */
  readonly exchanges?: readonly Exchange[];
  /** Why a list could not be walked (its part is then empty), one line each. */
  readonly problems?: readonly string[];
}

/** Shared per-run services a {@link CheckContext} is built from. */
export interface RunServices {
  readonly http: HttpClient;
  readonly env: CheckEnv;
  readonly primary: SuiteCredential;
  readonly numRuns: number;
  readonly baseSeed: number;
  readonly discover: (credential: SuiteCredential) => Promise<Discovery>;
  readonly walkCache: Map<string, Promise<Walk>>;
  /**
   * Set by the run's data watch when it watches watermarks (attempt.ts, decisions §3 Revision
   * 3): reads them now, for {@link CheckContext.onStillData}. Absent on still data.
   */
  still?: StillWatch | undefined;
  /**
   * Replay (`tagtrack-conformance replay`): the fast-check seed and shrink path of a property
   * of a check, by `CHECK-ID#n` (n: the check's n-th `ctx.property` call, from 0). That
   * property runs only the recorded counterexample.
   */
  readonly replay?: ReadonlyMap<
    string,
    { readonly seed: number; readonly path?: string | undefined }
  >;
}

/** How {@link CheckContext.onStillData} reads the watermarks of the run (attempt.ts). */
export interface StillWatch {
  /** The watched credentials' watermarks now (uncached reads, counted as watermark requests). */
  read(): Promise<Watermarks>;
  /**
   * Whether the data has not moved since the cache epoch `epoch` (`HttpClient.epoch`) began,
   * for answers read through `http` (false for a fork: its cache outlives epochs): one
   * watermark read; a move seen starts a new epoch.
   */
  stillSince(epoch: number, http: HttpClient): Promise<boolean>;
  /** Tries at most (the run's `--attempts`). */
  readonly attempts: number;
}

/** Details of the Violations {@link CheckContext.onStillData} read on still data. */
const STILL_DETAILS = new WeakSet<object>();
/** Failures recorded from those Violations (see {@link readOnStillData}). */
const STILL_FAILURES = new WeakSet<object>();

/**
 * Whether `failure` (of a check's outcome) rests on reads made between two equal watermark
 * reads ({@link CheckContext.onStillData}): a failure that stands on moving data without the
 * check running again (decisions §3 Revision 3).
 */
export function readOnStillData(failure: object): boolean {
  return STILL_FAILURES.has(failure);
}

/** Items a {@link CheckContext.each} loop runs at once by default: one after the other. */
export const DEFAULT_EACH_CONCURRENCY = 1;

/**
 * Items at once for the loops of many independent requests that are the long chains of a
 * run (`ctx.each(items, fn, { concurrency: LOOP_BATCH })`): against a service answering in
 * 200 ms, a loop of 400 requests takes 10 s instead of 80 s. The run's pacer still keeps
 * every request to the declared rate.
 */
export const LOOP_BATCH = 8;

/** Failures of one {@link CheckContext.each} loop listed one by one unless it says otherwise. */
export const MAX_LISTED = 10;

/** Options of {@link CheckContext.each}. */
export interface EachOptions<T> {
  /**
   * Failures of this loop listed one by one (default {@link MAX_LISTED}); the rest are
   * counted, and one failure of kind `summary` says how many items failed in all.
   */
  readonly list?: number;
  /** Ends the check (as returning from `run` does) once it has this many failures, checked after each item. */
  readonly stopAt?: number;
  /** Words appended to the message of an item's failure (e.g. which header was sent). */
  readonly note?: (item: T) => string;
  /**
   * Items run at the same time, in batches of this size (default 1: one after the other):
   * for loops of many requests against a slow service. Items must then not depend on each
   * other; their failures, comparisons and request logs are still taken in item order, so
   * the verdict and the request log are those of the sequential loop.
   */
  readonly concurrency?: number;
  /**
   * Each item's verdict rests only on the reads the item makes (a status, a body, two forms
   * of one call), never on what the check read before the loop: a failing item is then read
   * again on still data when the data moves ({@link CheckContext.onStillData}, decisions §3
   * Revision 3), instead of the whole check running again.
   */
  readonly readsOwn?: boolean;
}

/**
 * What a running check can do: call endpoints, walk lists, read the oracle, record failures
 * (typed, deduplicated by key, capped per loop) and run properties.
 */
export class CheckContext {
  readonly seed: number;
  requests = 0;
  private readonly recorded: { -readonly [K in keyof Failure]: Failure[K] }[] = [];
  private count = 0;
  private properties = 0;
  private readonly problems: string[] = [];
  /** Tries of {@link onStillData} under way: calls and raw requests bypass the cache meanwhile. */
  private fresh = 0;

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
   * How many comparisons the check made: each `ensure` that held, each Violation made, each
   * `firstDifference` and error-body check, each walk that ended, each run of
   * {@link property} that held, each {@link fail} and {@link compared}. A loop item is not one
   * by itself: an item that judged nothing adds nothing. A check that compared nothing does
   * not pass (the runner makes it a skip, or an error when a discovery it used failed).
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
    const entry: { exchanges: readonly Exchange[] } = { exchanges: [] };
    this.active.log.push(entry);
    p.then(
      (ex) => {
        entry.exchanges = [ex];
      },
      () => {},
    );
    return p;
  }

  get profile(): Profile {
    return this.services.env.profile;
  }
  get mode(): 'blind' | 'fixture' {
    return this.services.env.mode;
  }
  get numRuns(): number {
    return this.services.numRuns;
  }
  get http(): HttpClient {
    return this.services.http;
  }
  /** The credential used when a call names none. */
  get primary(): SuiteCredential {
    return this.services.primary;
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
    return this.recorded;
  }
  /** How many failures were recorded, repeats included. */
  get failureCount(): number {
    return this.count;
  }

  /** Sends a request to a catalogue endpoint (signed with `call.credential`, default primary). */
  call<Id extends EndpointId>(endpoint: Id, call: EndpointCall<Id> = {}): Promise<Exchange> {
    this.requests++;
    return this.logged(
      this.services.http.request({
        method: call.method ?? 'GET',
        path: buildPath(endpointById(endpoint), call.pathParams ?? {}),
        query: queryPairs(call),
        ...(call.rawQuery === undefined ? {} : { rawQuery: call.rawQuery }),
        credential: call.credential === undefined ? this.primary : call.credential,
        ...(call.headers === undefined ? {} : { headers: call.headers }),
        ...(this.fresh > 0
          ? { cache: false }
          : call.cache === undefined
            ? {}
            : { cache: call.cache }),
      }),
    );
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
    // the named params become raw pairs once: each page's request adds only `cursor`
    const { params, ...rest } = named;
    const call: EndpointCall = params === undefined ? rest : { ...rest, query: queryPairs(named) };
    const credential = call.credential === undefined ? this.primary : call.credential;
    const key = JSON.stringify([endpoint, call.pathParams, call.query, credential?.label]);
    // the walk's pages join this check's log whether it made the walk or found it cached; a
    // walk that ends (envelopes valid, cursor advancing, total stable) is a comparison made
    const scope = this.active;
    const entry: { exchanges: readonly Exchange[] } = { exchanges: [] };
    scope.log.push(entry);
    // a try of onStillData walks again, without the cache, and leaves the cache as it was
    const fresh = this.fresh > 0;
    const hit = fresh ? undefined : this.services.walkCache.get(key);
    if (hit !== undefined) {
      // a walk another check made still counts as requests this check relied on
      return hit.then(
        (w) => {
          this.requests += w.pages.length;
          entry.exchanges = w.pages;
          scope.comparisons++;
          return w;
        },
        (e: unknown) => {
          entry.exchanges = WALKED.get(hit) ?? [];
          throw e;
        },
      );
    }
    // shared by every check that asks: its comparisons and calls count for none of them
    const pages: Exchange[] = [];
    const p = inScope({ comparisons: 0, log: [] }, () =>
      walkPages(endpoint, call.query ?? [], this.profile.pageSize, async (query) => {
        const ex = await this.call(endpoint, { ...call, credential, query });
        pages.push(ex);
        return ex;
      }),
    );
    WALKED.set(p, pages);
    if (!fresh) {
      this.services.walkCache.set(key, p);
      p.catch(() => this.services.walkCache.delete(key));
    }
    return p.then(
      (w) => {
        entry.exchanges = w.pages;
        scope.comparisons++;
        return w;
      },
      (e: unknown) => {
        entry.exchanges = pages;
        throw e;
      },
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
    const oracle = this.oracle;
    if (oracle === undefined) throw new Error('expected() needs fixture mode');
    const caller = oracle.callerOf(credential);
    if (caller === undefined)
      throw new Error(`credential ${credential.label} is not in the dataset`);
    const e = endpointById(endpoint);
    const parsed = parseQuery(query, { allowed: e.query, required: e.requiredQuery });
    return oracle.answer(caller, { endpoint, pathParams, query: parsed });
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
    this.count++;
    let same = this.recorded.find((f) => f.key === failure.key);
    if (same === undefined) {
      same = { ...failure };
      this.recorded.push(same);
    } else same.repeats = (same.repeats ?? 0) + 1;
    if (STILL_FAILURES.has(unredacted)) STILL_FAILURES.add(same);
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
    if (this.count >= n) throw new StopCheck(`${this.count} failures`);
  }

  /**
   * Runs `fn` on every item in order, recording each {@link Violation} it throws as a failure
   * (with `options.note(item)` appended) and going on: the one way a check loops over cases.
   * After `options.list` (default {@link MAX_LISTED}) failures of this loop, the others are
   * only counted, and one more failure (kind `summary`) says how many items failed in all.
   * With `options.stopAt`, ends the check once it has that many failures (checked after each
   * item). Any other exception propagates (an error of the check). Resolves the number of
   * items that failed. Not for use inside a property predicate (a Violation there is the
   * property's counterexample).
   */
  async each<T>(
    items: Iterable<T>,
    fn: (item: T) => Promise<void> | void,
    options: EachOptions<T> = {},
  ): Promise<number> {
    const list = options.list ?? MAX_LISTED;
    if (options.readsOwn) {
      const own = fn;
      fn = (item) => this.onStillData(async () => own(item));
    }
    let failed = 0;
    let n = 0;
    const onViolation = (item: T, e: Violation) => {
      failed++;
      if (failed <= list) this.fail(`${e.message}${options.note?.(item) ?? ''}`, e.details);
    };
    if ((options.concurrency ?? DEFAULT_EACH_CONCURRENCY) > 1) {
      n = await this.eachConcurrently([...items], fn, options, onViolation);
    } else {
      for (const item of items) {
        n++;
        try {
          await fn(item);
        } catch (e) {
          if (!(e instanceof Violation)) throw e;
          onViolation(item, e);
        }
        if (options.stopAt !== undefined) this.stopAt(options.stopAt);
      }
    }
    if (failed > list)
      this.fail(`${failed} of ${n} cases failed; the first ${list} are listed above`, {
        kind: 'summary',
      });
    return failed;
  }

  /**
   * {@link each} in batches of `options.concurrency` items run at the same time. Each item
   * runs in a scope of its own; the loop takes the items' outcomes in item order
   * (comparisons, request log, failures, then `stopAt`), so the verdict is that of the
   * sequential loop. A whole batch is always sent, so the requests are the same for every run
   * (a stop or an error cuts the rest of its batch from the log, not from the wire). Resolves
   * how many items were taken.
   */
  private async eachConcurrently<T>(
    all: readonly T[],
    fn: (item: T) => Promise<void> | void,
    options: EachOptions<T>,
    onViolation: (item: T, e: Violation) => void,
  ): Promise<number> {
    type Done = { scope: CheckScope & { pending: Failure[] }; error?: unknown };
    const size = options.concurrency ?? DEFAULT_EACH_CONCURRENCY;
    const runItem = (item: T): Promise<Done> => {
      const scope = { comparisons: 0, log: [] as LogEntry[], pending: [] as Failure[] };
      return inScope(scope, async (): Promise<Done> => {
        try {
          await fn(item);
          return { scope };
        } catch (error) {
          return { scope, error };
        }
      });
    };
    let taken = 0;
    for (let start = 0; start < all.length; start += size) {
      const batch = all.slice(start, start + size);
      const outcomes = await Promise.all(batch.map(runItem));
      for (const [k, { scope, error }] of outcomes.entries()) {
        taken++;
        const parent = this.active;
        parent.comparisons += scope.comparisons;
        parent.log.push({ log: scope.log });
        for (const f of scope.pending) this.record(f);
        if (error !== undefined) {
          if (!(error instanceof Violation)) throw error;
          onViolation(batch[k] as T, error);
        }
        if (options.stopAt !== undefined) this.stopAt(options.stopAt);
      }
    }
    return taken;
  }

  /**
   * For a comparison whose verdict rests only on the reads `fn` makes (one call in two
   * formats, say), not on what the check read before (decisions §3 Revision 3: a verdict of
   * non-conformance rests on responses read while the caller's data did not change). Runs
   * `fn(false)` (reads through the run's cache); when it throws a {@link Violation} and the
   * run watches its data ({@link RunServices.still}), runs `fn(true)` (every read sent again:
   * meanwhile the context's calls and walks bypass the caches) between two watermark reads,
   * up to the run's attempts: a pass there is the
   * pass (the first answers were read across a change); a Violation read between equal
   * watermarks is thrown marked as read on still data, so the check's failure stands without
   * the whole check running again (attempt.ts); so is the first Violation when one watermark
   * read shows that nothing moved since the epoch its reads were made in began; when the data moved on every try, the last
   * Violation is thrown as it is (the check runs again, or ends inconclusive). On still data
   * a failing comparison costs one watermark read (per watched credential); a passing one
   * costs nothing; on moving data a failing one costs its reads again and two watermark reads
   * per try. Other exceptions propagate.
   */
  async onStillData<T>(fn: (fresh: boolean) => Promise<T>): Promise<T> {
    const epoch = this.services.http.epoch;
    try {
      return await fn(false);
    } catch (e) {
      const still = this.services.still;
      if (!(e instanceof Violation) || still === undefined) throw e;
      // nothing moved since its reads' epoch began: the failure rests on still data already
      if (await still.stillSince(epoch, this.services.http)) {
        STILL_DETAILS.add(e.details);
        throw e;
      }
      let last: Violation = e;
      for (let i = 0; i < still.attempts; i++) {
        const w0 = await still.read();
        this.fresh++;
        try {
          return await fn(true);
        } catch (again) {
          if (!(again instanceof Violation)) throw again;
          last = again;
        } finally {
          this.fresh--;
        }
        if (watermarkMove(w0, await still.read()) === undefined) {
          STILL_DETAILS.add(last.details);
          throw last;
        }
      }
      throw last;
    }
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
   * Runs a fast-check property with the run's `numRuns` and this check's seed (plus the
   * given `examples`, tried first: edge cases that must always be checked). A
   * {@link Violation} thrown by `predicate` fails the property; the shrunk counterexample,
   * seed and path are recorded with the failing exchange (under a key of its own, so it is
   * never counted on another failure). Other exceptions propagate (error). With
   * `options.readsOwn`, each run's verdict rests only on the reads it makes (see
   * {@link EachOptions.readsOwn}): a failing run is read again on still data when the data moves.
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
    const replay = this.services.replay?.get(`${this.id}#${index}`);
    const details = await fc.check(
      fc.asyncProperty(arb, async (value) => {
        await predicate(value);
        // a run that held is a comparison made (a failing one counts by its Violation)
        this.active.comparisons++;
      }),
      {
        numRuns: options.numRuns ?? this.numRuns,
        seed: replay?.seed ?? this.seed,
        ...(replay?.path === undefined ? {} : { path: replay.path }),
        endOnFailure: false,
        examples: (options.examples ?? []).map((e): [T] => [e]),
      },
    );
    if (!details.failed) return;
    const err = details.errorInstance;
    if (!(err instanceof Violation)) throw err;
    const failure = this.failureOf(err.message, err.details);
    const counterexample: Failure = {
      ...failure,
      // never folded into a loop's failure of the same message: the counterexample reproduces it
      key: `${failure.key} (property)`,
      seed: details.seed,
      path: details.counterexamplePath ?? undefined,
      property: index,
      // a credential drawn by the property is shown by label: never print an access key
      counterexample: JSON.stringify(details.counterexample?.[0], (_k, v) =>
        this.services.http.redactor.replace(v),
      ),
      numShrinks: details.numShrinks,
    };
    if (STILL_FAILURES.has(failure)) STILL_FAILURES.add(counterexample);
    this.record(counterexample);
  }

  /** Builds a failure record from a message and details (exchange → reproduce line, key by default). */
  failureOf(message: string, details: ViolationDetails): Failure {
    const ex = details.exchange;
    const kind: FailureKind = details.kind;
    const failure: Failure = {
      kind,
      key: details.key ?? `${kind}: ${message}`,
      message,
      expected: details.expected === undefined ? undefined : show(details.expected),
      actual: details.actual === undefined ? undefined : show(details.actual),
      exchangeId: ex?.id,
      request: ex === undefined ? undefined : `${ex.method} ${ex.target}`,
      reproduce: ex === undefined ? undefined : this.services.http.reproduce(ex),
    };
    if (STILL_DETAILS.has(details)) STILL_FAILURES.add(failure);
    return failure;
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return v;
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
}

/** The pages a walk had fetched, by its promise (what a failed walk logs). */
const WALKED = new WeakMap<Promise<Walk>, readonly Exchange[]>();

/** FNV-1a 32-bit of a string (per-check seed offsets). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
