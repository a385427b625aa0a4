import {
  type Answer,
  buildPath,
  type Caller,
  type EndpointId,
  endpointById,
  envelopeSchema,
  type PathParamName,
  parseQuery,
  type ReportingIndex,
} from '@tagtrack/core';
import fc from 'fast-check';
import type { Credential, Exchange, HttpClient } from '../http.ts';
import type { Profile } from '../profile.ts';

/**
 * The check API. A check is plain data plus an async `run(ctx)`:
 *
 * ```ts
 * export const checks = [
 *   defineCheck({
 *     id: 'AGG-UNIQUE-LE-TOTAL',            // requirement id, AREA-WORDS
 *     area: 'laws',                         // summary group; one file per area
 *     title: 'uniqueOpens <= totalOpens on every tag',
 *     clause: 'decisions §9',               // where the requirement comes from
 *     endpoints: ['teams.tags'],            // for the coverage matrix
 *     async run(ctx) {
 *       const tags = await ctx.records('teams.tags');
 *       for (const t of tags) if (bad(t)) ctx.fail(`… in domain words …`, { exchange });
 *       // or: throw new Violation('…', { exchange }) to stop at the first failure
 *       // or: await ctx.property(arb, async (value) => { … throw new Violation(…) … })
 *     },
 *   }),
 * ];
 * ```
 * Outcome: `pass` when run resolves with no failure recorded; `fail` when `ctx.fail` was
 * called or a {@link Violation} escaped; `error` for any other exception (a suite or
 * connection problem); `skip` when `skipIf` returns a reason or `ctx.skip(reason)` is called.
 * Register a new file's checks in `checks/index.ts`.
 */
export interface Check {
  /** Requirement id, e.g. `AUTH-401-MISSING`: unique, upper case, area prefix first. */
  readonly id: string;
  /** Requirement area (one file under checks/ per area). */
  readonly area: Area;
  readonly title: string;
  /** The clause the requirement traces to, e.g. `decisions §9` or `source: Endpoints`. */
  readonly clause: string;
  /** Endpoints the check exercises (the report's coverage matrix). */
  readonly endpoints: readonly EndpointId[];
  /** Whether the check is required for the run to pass (default true). */
  readonly required?: boolean;
  /** A reason the check does not apply to this profile/mode (reported as skip), or undefined. */
  skipIf?(env: CheckEnv): string | undefined;
  run(ctx: CheckContext): Promise<void>;
}

/** Requirement areas, in report order. */
export const AREAS = [
  'schema',
  'laws',
  'relations',
  'pagination',
  'input',
  'auth',
  'scope',
  'oracle',
  'rate',
  'methods',
] as const;
export type Area = (typeof AREAS)[number];

/** Identity helper giving a check literal its type. */
export function defineCheck(check: Check): Check {
  return check;
}

/** What a check may know before it runs (for `skipIf`). */
export interface CheckEnv {
  readonly profile: Profile;
  readonly mode: 'blind' | 'fixture';
  readonly probeMethods: boolean;
  readonly credentials: readonly SuiteCredential[];
  readonly oracle: Oracle | undefined;
}

/** A credential with what the profile says about its owner. */
export interface SuiteCredential extends Credential {
  readonly teamID?: string | undefined;
  readonly accountType?: 'admin' | 'manager' | 'user' | undefined;
  readonly memberID?: string | undefined;
}

/** Fixture mode's expected answers: core's `buildIndex` over the canonical dataset. */
export interface Oracle {
  readonly index: ReportingIndex;
  /** The caller a credential belongs to in the dataset, or undefined when unknown. */
  callerOf(credential: Credential): Caller | undefined;
}

/** One failure of a check, in domain words, with what reproduces it. */
export interface Failure {
  readonly message: string;
  readonly expected?: string | undefined;
  readonly actual?: string | undefined;
  /** fast-check seed, path and the shrunk counterexample (JSON), for property checks. */
  readonly seed?: number | undefined;
  readonly path?: string | undefined;
  readonly counterexample?: string | undefined;
  readonly numShrinks?: number | undefined;
  /** The exchange that shows the failure, and a curl line reproducing it. */
  readonly exchangeId?: number | undefined;
  readonly request?: string | undefined;
  readonly curl?: string | undefined;
}

/** Details attached to a {@link Violation} or `ctx.fail`. */
export interface ViolationDetails {
  readonly exchange?: Exchange | undefined;
  readonly expected?: unknown;
  readonly actual?: unknown;
}

/**
 * The implementation broke the requirement. Thrown inside a check or a property predicate;
 * recorded as a failure (not an error). `message` is in domain words.
 */
export class Violation extends Error {
  override readonly name = 'Violation';
  constructor(
    message: string,
    readonly details: ViolationDetails = {},
  ) {
    super(message);
  }
}

/** Thrown by `ctx.skip(reason)`: the check does not apply. */
export class SkipCheck extends Error {
  override readonly name = 'SkipCheck';
}

/** Throws a {@link Violation} with `message` unless `condition` holds. */
export function ensure(
  condition: unknown,
  message: string | (() => string),
  details: ViolationDetails = {},
): asserts condition {
  if (!condition) throw new Violation(typeof message === 'function' ? message() : message, details);
}

/** Path parameters and query pairs of one request to a catalogue endpoint. */
export interface EndpointCall {
  readonly pathParams?: Partial<Record<PathParamName, string>>;
  readonly query?: readonly (readonly [string, string])[];
  readonly credential?: Credential | null;
  readonly method?: 'GET' | 'HEAD' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly cache?: boolean;
}

/** The `paging` object of a list body (decisions §3). */
export interface PagingBody {
  readonly cursors: { readonly previous: number; readonly next: number; readonly total: number };
  readonly previousURL: string | null;
  readonly nextURL: string | null;
}

/** One list response read as a page (see `CheckContext.page`). */
export interface ListPage {
  readonly data: unknown[];
  /** `undefined` for a 204 No Content. */
  readonly paging: PagingBody | undefined;
  readonly noContent: boolean;
}

/** A walked list: every record of every page, and the pages' exchanges. */
export interface Walk {
  readonly records: unknown[];
  readonly pages: Exchange[];
  readonly total: number;
}

/** Ids discovered from list endpoints for one credential (blind mode needs nothing else). */
export interface Discovery {
  readonly members: Record<string, unknown>[];
  readonly tags: Record<string, unknown>[];
  readonly contacts: Record<string, unknown>[];
  readonly groups: { groupID: string; groupName: string }[];
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
}

/** What a running check can do: call endpoints, read the oracle, record failures, run properties. */
export class CheckContext {
  readonly failures: Failure[] = [];
  readonly seed: number;
  requests = 0;

  constructor(
    readonly check: Check,
    private readonly services: RunServices,
  ) {
    this.seed = (services.baseSeed + hashString(check.id)) | 0;
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

  /** Sends a request to a catalogue endpoint (signed with `call.credential`, default primary). */
  call(endpoint: EndpointId, call: EndpointCall = {}): Promise<Exchange> {
    this.requests++;
    return this.services.http.request({
      method: call.method ?? 'GET',
      path: buildPath(endpointById(endpoint), call.pathParams ?? {}),
      query: call.query ?? [],
      credential: call.credential === undefined ? this.primary : call.credential,
      ...(call.headers === undefined ? {} : { headers: call.headers }),
      ...(call.cache === undefined ? {} : { cache: call.cache }),
    });
  }

  /** Sends a raw request (any path). */
  raw(spec: Parameters<HttpClient['request']>[0]): Promise<Exchange> {
    this.requests++;
    return this.services.http.request(spec);
  }

  /**
   * Parses a 200 JSON response of `endpoint` with core's envelope schema. Throws a
   * {@link Violation} for another status, a body that is not JSON, or one that does not
   * conform (message from zod).
   */
  envelope(endpoint: EndpointId, exchange: Exchange): { data: unknown; paging?: unknown } {
    ensure(
      exchange.status === 200,
      () =>
        `${describe(exchange)} answered ${exchange.status}, expected 200: ${snippet(exchange.body)}`,
      { exchange },
    );
    const body = parseJson(exchange);
    const e = endpointById(endpoint);
    const parsed = envelopeSchema(e).safeParse(body);
    ensure(
      parsed.success,
      () =>
        `${describe(exchange)}: body does not match the ${e.id} envelope: ${parsed.error?.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
          .join('; ')}`,
      { exchange },
    );
    return body as { data: unknown; paging?: unknown };
  }

  /**
   * Walks a list endpoint from cursor 0 following `paging.cursors.next` until the list ends,
   * whichever paging end the implementation uses (decisions §3 Revision 2): `next >= total`,
   * a 200 page with `data: []`, or a 204 No Content (its body is not read). Judging which end
   * the profile declares is the job of PAGE-END-NO-CONTENT and PAGE-END-EMPTY-PAGE, so a walk
   * never fails on the other form. Bounded by total/pageSize + 3 pages. Cached per run.
   * When the first page is a 204, `total` is its `X-Total-Count` (0 when absent).
   */
  walk(endpoint: EndpointId, call: EndpointCall = {}): Promise<Walk> {
    const credential = call.credential === undefined ? this.primary : call.credential;
    const key = JSON.stringify([endpoint, call.pathParams, call.query, credential?.label]);
    const hit = this.services.walkCache.get(key);
    if (hit !== undefined) {
      // a walk another check made still counts as requests this check relied on
      return hit.then((w) => {
        this.requests += w.pages.length;
        return w;
      });
    }
    const p = this.doWalk(endpoint, { ...call, credential });
    this.services.walkCache.set(key, p);
    p.catch(() => this.services.walkCache.delete(key));
    return p;
  }

  private async doWalk(endpoint: EndpointId, call: EndpointCall): Promise<Walk> {
    const records: unknown[] = [];
    const pages: Exchange[] = [];
    let cursor = 0;
    let total = 0;
    for (let i = 0; ; i++) {
      const query = [...(call.query ?? [])];
      if (cursor > 0) query.push(['cursor', String(cursor)]);
      const ex = await this.call(endpoint, { ...call, query });
      pages.push(ex);
      if (ex.status === 204) {
        if (i === 0) total = headerCount(ex) ?? 0;
        break;
      }
      const env = this.envelope(endpoint, ex) as {
        data: unknown[];
        paging: { cursors: { next: number; total: number } };
      };
      total = env.paging.cursors.total;
      records.push(...env.data);
      const next = env.paging.cursors.next;
      if (env.data.length === 0 || next >= total) break;
      ensure(next > cursor, `${describe(ex)}: paging.cursors.next ${next} does not advance`, {
        exchange: ex,
      });
      ensure(
        i <= total / this.profile.pageSize + 3,
        `${describe(ex)}: walking the pages does not end after ${i + 1} pages`,
        { exchange: ex },
      );
      cursor = next;
    }
    return { records, pages, total };
  }

  /**
   * One response of a list endpoint as a page: a 200 parsed with the envelope schema, or a
   * 204 No Content read as a page without records (`paging` undefined, `noContent` true)
   * whatever the declared paging end (decisions §3 Revision 2; the PAGE-END checks judge the
   * form). Throws a {@link Violation} for any other status or a body that does not conform.
   */
  page(endpoint: EndpointId, exchange: Exchange): ListPage {
    if (exchange.status === 204) return { data: [], paging: undefined, noContent: true };
    const body = this.envelope(endpoint, exchange) as { data: unknown[]; paging: PagingBody };
    return { data: body.data, paging: body.paging, noContent: false };
  }

  /** All records of a list endpoint (walked), or the one record of a single endpoint. */
  async records<T = Record<string, unknown>>(
    endpoint: EndpointId,
    call: EndpointCall = {},
  ): Promise<T[]> {
    if (endpointById(endpoint).response === 'single') {
      const ex = await this.call(endpoint, call);
      return [this.envelope(endpoint, ex).data as T];
    }
    return (await this.walk(endpoint, call)).records as T[];
  }

  /** Ids discovered from the list endpoints for `credential` (default primary). */
  discover(credential: SuiteCredential = this.primary): Promise<Discovery> {
    return this.services.discover(credential);
  }

  /**
   * The oracle's answer to a request (fixture mode): parses the query with core's
   * `parseQuery` and asks `index.answer`. Throws when not in fixture mode.
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
    return oracle.index.answer(caller, { endpoint, pathParams, query: parsed });
  }

  /** Records a failure and continues. */
  fail(message: string, details: ViolationDetails = {}): void {
    this.failures.push(this.failureOf(message, details));
  }

  /** Marks the check skipped (does not return). */
  skip(reason: string): never {
    throw new SkipCheck(reason);
  }

  /**
   * Runs a fast-check property with the run's `numRuns` and this check's seed (plus the
   * given `examples`, tried first: edge cases that must always be checked). A
   * {@link Violation} thrown by `predicate` fails the property; the shrunk counterexample,
   * seed and path are recorded with the failing exchange. Other exceptions propagate (error).
   */
  async property<T>(
    arb: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<void>,
    options: { numRuns?: number; examples?: readonly T[] } = {},
  ): Promise<void> {
    const details = await fc.check(
      fc.asyncProperty(arb, async (value) => {
        await predicate(value);
      }),
      {
        numRuns: options.numRuns ?? this.numRuns,
        seed: this.seed,
        endOnFailure: false,
        examples: (options.examples ?? []).map((e): [T] => [e]),
      },
    );
    if (!details.failed) return;
    const err = details.errorInstance;
    if (!(err instanceof Violation)) throw err;
    const base = this.failureOf(err.message, err.details);
    this.failures.push({
      ...base,
      seed: details.seed,
      path: details.counterexamplePath ?? undefined,
      // a credential drawn by the property is shown by label: never print an access key
      counterexample: JSON.stringify(details.counterexample?.[0], (k, v) =>
        k === 'accessKey' ? '<redacted>' : v,
      ),
      numShrinks: details.numShrinks,
    });
  }

  /** Builds a failure record from a message and details (exchange → curl). */
  failureOf(message: string, details: ViolationDetails): Failure {
    const ex = details.exchange;
    return {
      message,
      expected: details.expected === undefined ? undefined : show(details.expected),
      actual: details.actual === undefined ? undefined : show(details.actual),
      exchangeId: ex?.id,
      request: ex === undefined ? undefined : `${ex.method} ${ex.target}`,
      curl: ex === undefined ? undefined : this.services.http.curl(ex),
    };
  }
}

/** `GET /teams/tags?x=1 (as admin-a)`: an exchange in words. */
export function describe(ex: Exchange): string {
  return `${ex.method} ${ex.target}${ex.credential === null ? ' (no credential)' : ` (as ${ex.credential})`}`;
}

/** `X-Total-Count` of a response as a number, or `undefined` when absent or not a count. */
export function headerCount(exchange: Exchange): number | undefined {
  const v = exchange.responseHeaders['x-total-count'];
  return v !== undefined && /^[0-9]+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

/** The first 200 characters of a body, for messages. */
export function snippet(body: string): string {
  const s = body.replace(/\s+/g, ' ');
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** Parses a JSON body or throws a {@link Violation} naming the exchange. */
export function parseJson(exchange: Exchange): unknown {
  try {
    return JSON.parse(exchange.body);
  } catch {
    throw new Violation(`${describe(exchange)}: body is not JSON: ${snippet(exchange.body)}`, {
      exchange,
    });
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return v;
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
}

/** FNV-1a 32-bit of a string (per-check seed offsets). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
