import { AsyncLocalStorage } from 'node:async_hooks';
import type { Exchange } from '../http/client.ts';
import { detached } from '../http/detached.ts';

/**
 * What kind of thing went wrong, so that reports group failures and a vendor sees at a glance
 * whether a status, a header or a counter is off (Schemathesis' failure classes, zod's issue
 * codes). Each kind with what it covers, in domain words.
 */
export const FAILURE_KINDS = {
  status: 'the HTTP status is not the one required',
  schema: 'a body is not JSON or does not match its schema (envelope, record, error body)',
  header:
    'a response header is wrong or missing (Content-Type, X-Total-Count, Link, Allow, rate-limit headers)',
  format:
    "a body parses but its form is wrong: an rtn=text or html table or document, an error body's statusCode, reason phrase or message",
  missing: 'something required is absent: a record, event, contact, column or group field',
  extra:
    'something is present that must not be: a record outside the selection, a body on HEAD or 204, a member of another team',
  order: 'records are not in the required order',
  counter: 'a counter or stats summary contradicts a law or another endpoint',
  value:
    'an answer differs from the expected one: the oracle, the same request in another form, a field',
  url: 'a paging URL or Link target is not the required one',
  summary: 'stands for the failures past a cap: how many there were in all',
} as const;

/** A failure's kind (see {@link FAILURE_KINDS}). */
export type FailureKind = keyof typeof FAILURE_KINDS;

/**
 * One failure of a check, in domain words, with what reproduces it. `kind` classifies it;
 * `key` identifies the problem, so a check reporting the same problem again counts it on the
 * first failure (`repeats`) instead of listing it twice.
 */
export interface Failure {
  readonly kind: FailureKind;
  /** Dedup key: by default `kind` and the message; a check may name a coarser one. */
  readonly key: string;
  readonly message: string;
  readonly expected?: string | undefined;
  readonly actual?: string | undefined;
  /** fast-check seed, path and the shrunk counterexample (JSON), for property checks. */
  readonly seed?: number | undefined;
  readonly path?: string | undefined;
  /** Which `ctx.property` call of the check failed (0 for the first): what replay reruns. */
  readonly property?: number | undefined;
  readonly counterexample?: string | undefined;
  readonly numShrinks?: number | undefined;
  /** The exchange that shows the failure. */
  readonly exchangeId?: number | undefined;
  readonly request?: string | undefined;
  /**
   * A `tagtrack-conformance request …` line reproducing the exchange: it names the
   * credential by its label and signs when run, so it holds no secret.
   */
  readonly reproduce?: string | undefined;
  /** A curl line with the signed header (results.json of 0.1 and 0.2 only; no longer written). */
  readonly curl?: string | undefined;
  /** How many more failures of the check had the same `key` (absent: none). */
  readonly repeats?: number | undefined;
}

/** What a {@link Violation} or `ctx.fail` records besides its message. */
export interface ViolationDetails {
  readonly kind: FailureKind;
  /** Dedup key (default: the kind and the message). */
  readonly key?: string | undefined;
  readonly exchange?: Exchange | undefined;
  readonly expected?: unknown;
  readonly actual?: unknown;
}

/**
 * The implementation broke the requirement. Thrown inside a check or a property predicate;
 * recorded as a failure of `details.kind` (not an error). `message` is in domain words.
 */
export class Violation extends Error {
  override readonly name = 'Violation';
  constructor(
    message: string,
    readonly details: ViolationDetails,
  ) {
    super(message);
    // a violation found is a comparison made (see countComparison)
    countComparison();
  }

  get kind(): FailureKind {
    return this.details.kind;
  }
}

/** Thrown by `ctx.skip(reason)`: the check does not apply. */
export class SkipCheck extends Error {
  override readonly name: string = 'SkipCheck';
}

/**
 * Thrown by a walk, as a caller other than the run's primary credential, of a list longer
 * than that caller's bound (`CheckContext.boundOf`): the check does not apply as
 * `caller` (the label of its credential). A check run once per caller passes over that caller,
 * a loop of `ctx.each` over that item; the check states how many callers it left out.
 */
export class CallerListTooLong extends SkipCheck {
  override readonly name = 'CallerListTooLong';
  constructor(
    message: string,
    readonly caller: string,
  ) {
    super(message);
  }
}

/**
 * Thrown by `ctx.stopAt(n)` (and `ctx.each(…, { stopAt })`): the check has failed enough, it
 * ends there as if `run` had returned. Its failures stand.
 */
export class StopCheck extends Error {
  override readonly name = 'StopCheck';
}

/** Throws a {@link Violation} with `message` and `details` unless `condition` holds. */
export function ensure(
  condition: unknown,
  message: string | (() => string),
  details: ViolationDetails,
): asserts condition {
  if (!condition) throw new Violation(typeof message === 'function' ? message() : message, details);
  countComparison();
}

/** `GET /teams/tags?x=1 (as admin-a)`: an exchange in words. */
export function describe(ex: Exchange): string {
  return `${ex.method} ${ex.target}${ex.credential === null ? ' (no credential)' : ` (as ${ex.credential})`}`;
}

/** Characters of a body a message quotes ({@link snippet}); a longer body ends in `…`. */
export const SNIPPET_CHARS = 200;

/** The first {@link SNIPPET_CHARS} characters of a body, whitespace collapsed, for messages. */
export function snippet(body: string): string {
  // cut before the whitespace is folded (no copy of a whole body), then copied: a message
  // kept in a failure must not keep the whole body alive (see detached.ts)
  const s = body.slice(0, 2000).replace(/\s+/g, ' ');
  return detached(s.length > SNIPPET_CHARS ? `${s.slice(0, SNIPPET_CHARS)}…` : s);
}

/**
 * The kind of a difference between the ids a list should hold and those it holds: `extra`
 * when it holds one it should not (or holds some twice), else `missing` when it lacks one,
 * else `order` (the same ids in another order).
 */
export function listDifferenceKind(
  expected: readonly unknown[],
  actual: readonly unknown[],
): 'extra' | 'missing' | 'order' {
  const want = new Set(expected);
  const got = new Set(actual);
  if (actual.some((x) => !want.has(x)) || actual.length > expected.length) return 'extra';
  if (expected.some((x) => !got.has(x)) || actual.length < expected.length) return 'missing';
  return 'order';
}

/**
 * One entry of a check's request log: the exchanges of one call (one, or a walk's pages, or a
 * discovery's requests), filled in when they arrive, or the log of one item of a parallel
 * {@link CheckContext.each} loop. Entries are reserved when the call is made, so the log's
 * order is the order of the calls, not of the answers: the same for every concurrency.
 */
export type LogEntry = { exchanges: readonly Exchange[] } | { log: LogEntry[] };

/** The exchanges of a request log, in call order (see {@link LogEntry}). */
export function flattenLog(log: readonly LogEntry[]): Exchange[] {
  return log.flatMap((e) => ('log' in e ? flattenLog(e.log) : e.exchanges));
}

/**
 * What the code running in a check's async context adds to: its comparisons (every
 * {@link ensure} that holds, every {@link Violation} made, every `countComparison()` of a
 * comparing helper, every run of `ctx.property` that holds, `ctx.compared(n)`) and its
 * request log. The runner runs each check
 * in a scope of its own; walks and discoveries, shared between checks, run in scopes of
 * theirs, so what a check counts never depends on which check asked first.
 */
export interface CheckScope {
  comparisons: number;
  readonly log: LogEntry[];
  /** Failures held back until a parallel loop takes them in item order (see `ctx.each`). */
  readonly pending?: Failure[];
}

const scopes = new AsyncLocalStorage<CheckScope>();

/** The scope of the running check (undefined outside one). */
export function currentScope(): CheckScope | undefined {
  return scopes.getStore();
}

/** Runs `fn` in `scope`: the comparisons and requests it makes are counted there. */
export function inScope<T>(scope: CheckScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** Counts `n` comparisons in the running check's scope (nothing outside a check). */
export function countComparison(n = 1): void {
  const scope = scopes.getStore();
  if (scope !== undefined) scope.comparisons += n;
}
