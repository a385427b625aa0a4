import {
  type EndpointId,
  IGNORED_PARAMS,
  runAtOnce,
  runInSlices,
  type Steps,
} from '@tagtrack/core';
import { comparableDataSteps } from '../../check/compare.ts';
import { describe, type FailureKind, Violation } from '../../check/failure.ts';
import {
  differenceEitherWay,
  differenceEitherWaySteps,
  type Pair,
  showPairs,
} from '../../check/sample.ts';
import { parseJson } from '../../check/walk.ts';
import type { Exchange } from '../../http/client.ts';

/** How {@link ensureSameAnswer} compares `paging.previousURL` and `paging.nextURL`. */
export interface SameAnswerOptions {
  /**
   * `same-query`: the URLs of `other` are those of `plain` with `kept` added to the query
   * (the URLs keep the request's parameters, spec §5 Revision 2). `ignore`: only
   * whether each URL is null (e.g. when the two requests have different paths).
   */
  readonly urls: 'same-query' | 'ignore';
  /** Parameters `other` sent on top of `plain` that its paging URLs must keep. */
  readonly kept?: readonly Pair[];
}

const URL_BASE = 'http://base.invalid';

/**
 * Why the paging URL `actual` (of a request that sent `kept` on top of the request behind
 * `expected`) is not `expected` with `kept` in its query, or `undefined` when it is: same
 * origin and path, the same query once `total` and `next` are removed (order and values,
 * `cursor` included; compared decoded), and exactly the `total`/`next` pairs of `kept`
 * (as a multiset, compared decoded). Relative URLs are read against a placeholder base.
 */
export function keptParamsProblem(
  expected: string,
  actual: string,
  kept: readonly Pair[],
): string | undefined {
  let a: URL;
  let b: URL;
  try {
    a = new URL(expected, URL_BASE);
    b = new URL(actual, URL_BASE);
  } catch {
    return `${JSON.stringify(actual)} or ${JSON.stringify(expected)} is not a URL`;
  }
  if (a.origin !== b.origin || a.pathname !== b.pathname)
    return `points at ${b.origin}${b.pathname}, not ${a.origin}${a.pathname}`;
  const strip = (u: URL) => [...u.searchParams].filter(([k]) => !IGNORED_PARAMS.has(k));
  const rest = strip(b);
  if (JSON.stringify(rest) !== JSON.stringify(strip(a)))
    return `query ${JSON.stringify(b.search)} is not ${JSON.stringify(a.search)} with only total and next added`;
  const key = (pairs: readonly Pair[]) =>
    JSON.stringify(
      pairs
        .filter(([k]) => IGNORED_PARAMS.has(k))
        .map((p) => JSON.stringify(p))
        .sort(),
    );
  const inUrl = [...b.searchParams].filter(([k]) => IGNORED_PARAMS.has(k));
  const notFromA = inUrl.filter(
    ([k, v]) => ![...a.searchParams].some(([x, y]) => x === k && y === v),
  );
  if (key(notFromA) !== key(kept))
    return `query ${JSON.stringify(b.search)} does not keep the sent ${showPairs(kept.filter(([k]) => IGNORED_PARAMS.has(k))) || '(nothing)'}`;
  return undefined;
}

/**
 * Asserts that `other` answers like `plain` (spec §5, §6): the same status, the same
 * `X-Total-Count` (or none on both), and for a 200 JSON body the same `data` by value (in
 * both directions, so a missing or an extra field counts; event ties compared as sets) and
 * the same `paging`: equal cursors, each URL null on both or on neither, and URLs compared
 * per `options.urls`. `what` says how `other` differs from `plain`, in domain words.
 */
export function ensureSameAnswer(
  endpoint: EndpointId,
  plain: Exchange,
  other: Exchange,
  what: string,
  options: SameAnswerOptions,
): void {
  runAtOnce(sameAnswerSteps(endpoint, plain, other, what, options));
}

/**
 * {@link ensureSameAnswer} in time slices: two lists of records are put in comparable form and
 * compared record by record, with the event loop turning between slices. Same verdict, same
 * message, same comparisons counted.
 */
export function ensureSameAnswerInSlices(
  endpoint: EndpointId,
  plain: Exchange,
  other: Exchange,
  what: string,
  options: SameAnswerOptions,
): Promise<void> {
  return runInSlices(sameAnswerSteps(endpoint, plain, other, what, options));
}

/** {@link ensureSameAnswer} as {@link Steps} (yielding while it compares the records). */
function* sameAnswerSteps(
  endpoint: EndpointId,
  plain: Exchange,
  other: Exchange,
  what: string,
  options: SameAnswerOptions,
): Steps<void> {
  const before = describe(plain);
  const fail = (kind: FailureKind, detail: string): never => {
    throw new Violation(`${describe(other)} (${what}) ${detail}`, { kind, exchange: other });
  };
  if (other.status !== plain.status)
    fail('status', `answered ${other.status}, but ${before} answered ${plain.status}`);
  const ta = plain.responseHeaders['x-total-count'];
  const tb = other.responseHeaders['x-total-count'];
  if (ta !== tb)
    fail('header', `has X-Total-Count ${tb ?? '(none)'}, but ${before} has ${ta ?? '(none)'}`);
  if (plain.status !== 200) return;
  const a = parseJson(plain) as { data?: unknown; paging?: Record<string, unknown> };
  const b = parseJson(other) as { data?: unknown; paging?: Record<string, unknown> };
  // the records of a 200 JSON body as one array (a single record as a one-element array)
  const formA = yield* comparableDataSteps(endpoint, a.data);
  const formB = yield* comparableDataSteps(endpoint, b.data);
  const d = yield* differenceEitherWaySteps(formA, formB);
  if (d !== undefined) fail('value', `changed the data compared with ${before}: ${d}`);
  const pa = a.paging;
  const pb = b.paging;
  if (pa === undefined && pb === undefined) return;
  if (pa === undefined || pb === undefined)
    fail(
      pb === undefined ? 'missing' : 'extra',
      `has ${pb === undefined ? 'no' : 'a'} paging object, but ${before} has ${pa === undefined ? 'none' : 'one'}`,
    );
  const dc = differenceEitherWay(pa!.cursors, pb!.cursors);
  if (dc !== undefined) fail('value', `changed paging.cursors compared with ${before}: ${dc}`);
  for (const k of ['previousURL', 'nextURL'] as const) {
    const ua = pa![k];
    const ub = pb![k];
    if ((ua === null) !== (ub === null))
      fail('url', `has paging.${k} ${JSON.stringify(ub)}, but ${before} has ${JSON.stringify(ua)}`);
    if (options.urls === 'same-query' && typeof ua === 'string' && typeof ub === 'string') {
      const p = keptParamsProblem(ua, ub, options.kept ?? []);
      if (p !== undefined)
        fail(
          'url',
          `has paging.${k} ${JSON.stringify(ub)}, which ${p} (${before} has ${JSON.stringify(ua)})`,
        );
    }
  }
}
