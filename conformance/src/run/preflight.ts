import type { PagingEnd, Rtn } from '@tagtrack/core';
import type { SuiteCredential } from '../check/define.ts';
import {
  ConnectionError,
  type Exchange,
  type HttpClient,
  type RequestSpec,
} from '../http/client.ts';
import type { Profile } from '../profile/profile.ts';

/**
 * The preflight of a run: before any check, establish that the configuration can
 * give a verdict at all. A misconfiguration is never a verdict: a wrong base URL, a rejected
 * credential or a profile option the implementation plainly did not choose is reported as
 * one line (`problem`), the run then checks nothing (the caller makes it a `ConfigError`,
 * exit 2). Only what is unambiguous is a problem: an implementation with a defect (a server
 * `--fault`) must still reach the checks that catch it, so every conclusion rests on an
 * observation that is consistent in itself and that matches another legal value as a whole.
 *
 * Three steps, every request signed, read-only and cached like any other request of the run
 * (the checks later reuse the answers):
 * 1. **This API** (docs/spec.md §2, §6): `GET /teams` answers 200 with the list envelope
 *    `{"data": [...]}`, 204, 401/403 (a credential problem, step 2) or something the checks
 *    judge (429, 5xx, a 4xx with the profile's JSON error body, a body that starts like JSON
 *    but does not parse). A 404 is confirmed on `GET /teams/tags`; both 404, a redirect (3xx,
 *    never followed), a 200 that is not the envelope (HTML, other JSON) or another 4xx
 *    without the error body: "no Tag Tracking API at …".
 * 2. **Credentials** (docs/spec.md §3): every declared credential (the profile's, or the given
 *    one) signs one `GET /teams`; a 401 or 403 names each rejected credential by its label and
 *    authId, never its key.
 * 3. **Profile options** ({@link observeOptions}): `pageSize` and `pagingEnd` on the first
 *    pages of `/teams` and `/teams/tags`, each declared `rtn` on `/teams`.
 *
 * Throws the {@link ConnectionError} of the first request (the base URL did not answer: the
 * caller reports it); a later request that gets no answer only leaves its observation out.
 */
export async function preflight(input: PreflightInput): Promise<Preflight> {
  const { http, profile, primary } = input;
  const exchanges: Exchange[] = [];
  const send = async (spec: RequestSpec): Promise<Exchange> => {
    const ex = await http.request(spec);
    exchanges.push(ex);
    return ex;
  };
  /** A later request: its ConnectionError is no answer (undefined), not the run's end. */
  const trySend = async (spec: RequestSpec): Promise<Exchange | undefined> => {
    try {
      return await send(spec);
    } catch (e) {
      if (e instanceof ConnectionError) return undefined;
      throw e;
    }
  };
  const done = (problem?: string, warnings: readonly string[] = []): Preflight => ({
    exchanges,
    warnings,
    ...(problem === undefined ? {} : { problem }),
  });

  // 1. this API
  const members = await send({ path: MEMBERS, credential: primary });
  let seen = judge(members);
  if (seen.kind === 'missing') {
    const tags = await trySend({ path: TAGS, credential: primary });
    const second = tags === undefined ? undefined : judge(tags);
    if (second === undefined || second.kind === 'missing')
      return done(
        `no Tag Tracking API at ${http.baseUrl}: GET ${MEMBERS} answered ${members.status}${tags === undefined ? '' : `, GET ${TAGS} answered ${tags.status}`} (is the base URL's path right?)`,
      );
    seen = second;
  }
  if (seen.kind === 'foreign') return done(`no Tag Tracking API at ${http.baseUrl}: ${seen.why}`);

  // 2. credentials
  const rejected: string[] = [];
  for (const credential of input.credentials) {
    const ex = credential === primary ? members : await trySend({ path: MEMBERS, credential });
    if (ex !== undefined && (ex.status === 401 || ex.status === 403))
      rejected.push(
        `credential ${credential.label} (authId ${credential.authId}) was rejected: GET ${MEMBERS} answered ${ex.status}`,
      );
  }
  if (rejected.length > 0) return done(rejected.join('; '));

  // 3. profile options
  if (judge(members).kind !== 'api') return done();
  const options = await observeOptions(profile, (spec) =>
    trySend({ ...spec, credential: primary }),
  );
  return done(
    options.mismatches.length === 0
      ? undefined
      : options.mismatches.map((m) => `profile declares ${m}`).join('; '),
    options.warnings,
  );
}

/** What {@link preflight} needs: the run's client, profile and credentials. */
export interface PreflightInput {
  readonly http: HttpClient;
  readonly profile: Profile;
  /** The credential of the checks (signs steps 1 and 3). */
  readonly primary: SuiteCredential;
  /** Every credential of the run, the primary included (step 2). */
  readonly credentials: readonly SuiteCredential[];
}

/** What the preflight found. */
export interface Preflight {
  /** Its requests, in order (the run's first exchanges). */
  readonly exchanges: readonly Exchange[];
  /** The configuration error, one line naming the cause; absent when the run may go on. */
  readonly problem?: string;
  /**
   * Observations that differ from the profile without matching another legal value as a
   * whole (a defect or a misconfiguration: the checks judge it), one line each.
   */
  readonly warnings: readonly string[];
}

/** The list endpoints the preflight reads: team members (1) and team tags (2). */
const MEMBERS = '/teams';
const TAGS = '/teams/tags';

/** What one answer to a list request says about the server. */
type Seen =
  /** This API: the list envelope (200) or an empty list (204). */
  | { readonly kind: 'api' }
  /** 401/403: a credential problem. */
  | { readonly kind: 'rejected' }
  /** 404: confirm on another path. */
  | { readonly kind: 'missing' }
  /** Clearly not this API, and why. */
  | { readonly kind: 'foreign'; readonly why: string }
  /** Maybe this API with a defect: the checks judge it. */
  | { readonly kind: 'unsure' };

/**
 * What an answer to `GET <list>` says (docs/spec.md §5, §6): see {@link preflight}. A 5xx or
 * a 429 is left to the checks (a 5xx fails the run, a 429 is the rate limit's business).
 */
function judge(ex: Exchange): Seen {
  const s = ex.status;
  const at = `GET ${ex.target} answered ${s}`;
  if (s === 204) return { kind: 'api' };
  if (s === 401 || s === 403) return { kind: 'rejected' };
  if (s === 404) return { kind: 'missing' };
  if (s >= 300 && s < 400) {
    const to = ex.responseHeaders.location;
    return {
      kind: 'foreign',
      why: `${at}${to === undefined ? '' : ` (a redirect to ${to})`}: the suite follows no redirect, give the base URL the implementation answers on`,
    };
  }
  if (s === 200) {
    const body = parseJson(ex.body);
    if (body === undefined) {
      // a body that starts like JSON but does not parse is a defect of this API, not another API
      if (/^\s*[[{]/.test(ex.body)) return { kind: 'unsure' };
    } else if (isObject(body) && Array.isArray(body.data)) return { kind: 'api' };
    return {
      kind: 'foreign',
      why: `${at} with ${body === undefined ? contentType(ex) : 'JSON'}, not the list envelope {"data": [...], "paging": {...}}`,
    };
  }
  if (s === 429 || s >= 500) return { kind: 'unsure' };
  return isErrorBody(parseJson(ex.body), s)
    ? { kind: 'unsure' }
    : {
        kind: 'foreign',
        why: `${at} without the JSON error body {"statusCode", "error", "message"} (${contentType(ex)})`,
      };
}

/** What {@link observeOptions} found: mismatches (each `"field": value, but …: set …`) and warnings. */
export interface OptionsSeen {
  readonly mismatches: readonly string[];
  readonly warnings: readonly string[];
}

/**
 * Compares the profile's `pageSize`, `pagingEnd` and `rtn` (docs/spec.md §5, §8) with what the
 * implementation does, over `send` (a signed GET; undefined when it got no answer).
 *
 * - `pageSize`: the first page of `/teams` and of `/teams/tags`, when consistent in itself
 *   ({@link firstPage}), bounds the page size: exactly its record count when the list goes on,
 *   at least that when the whole list fits. A mismatch when every list read gives a bound,
 *   the bounds agree and the declared size is outside them.
 * - `pagingEnd`: on each of those lists with records, the last page's `nextURL` (null:
 *   empty-page; `cursor=total`: no-content) and the answer at `cursor=total` (204: no-content;
 *   200 with `data: []`: empty-page). A mismatch when every list shows both signs of the
 *   same other value; one sign of each is a warning (a defect such as a fault of one sign).
 * - `rtn`: each declared format other than json on `/teams`; a 400 or 406 while the plain
 *   request answered 200 is a mismatch (the format is not supported).
 */
export async function observeOptions(
  profile: Profile,
  send: (spec: Omit<RequestSpec, 'credential'>) => Promise<Exchange | undefined>,
): Promise<OptionsSeen> {
  const mismatches: string[] = [];
  const warnings: string[] = [];
  // one request after the other: the run's exchanges come in the same order every time
  const lists: { path: string; ex: Exchange | undefined; page: FirstPage | undefined }[] = [];
  for (const path of [MEMBERS, TAGS]) {
    const ex = await send({ path });
    lists.push({ path, ex, page: ex === undefined ? undefined : firstPage(ex) });
  }

  // pageSize
  const bounds = lists.map((l) => (l.page === undefined ? undefined : pageSizeBound(l.page)));
  if (bounds.every((b) => b !== undefined)) {
    const informative = bounds.filter((b) => b !== null);
    const lo = Math.max(0, ...informative.map((b) => b.lo));
    const hi = Math.min(Number.POSITIVE_INFINITY, ...informative.map((b) => b.hi));
    const declared = profile.pageSize;
    if (informative.length > 0 && lo <= hi && (declared < lo || declared > hi)) {
      const i = bounds.findIndex((b) => b !== null && (declared < b.lo || declared > b.hi));
      const { path, page } = lists[i]!;
      const { n, total, totalHeader } = page!;
      const of =
        totalHeader === undefined
          ? `paging.cursors.total ${total}`
          : `X-Total-Count ${totalHeader}`;
      mismatches.push(
        Number.isFinite(hi)
          ? `"pageSize": ${declared}, but GET ${path} answered ${n} records with ${of}: set "pageSize": ${lo}`
          : `"pageSize": ${declared}, but GET ${path} answered all ${n} records on one page: set "pageSize" to the implementation's page size (at least ${lo})`,
      );
    }
  }

  // pagingEnd
  const ends: (EndSeen | 'empty' | undefined)[] = [];
  for (const l of lists)
    ends.push(l.page === undefined ? undefined : await pagingEndOf(l.path, l.page, send));
  const declaredEnd = profile.pagingEnd;
  const definite = ends.filter(
    (e): e is EndSeen & { value: PagingEnd } =>
      e !== undefined && e !== 'empty' && e.value !== undefined,
  );
  if (
    ends.every((e) => e === 'empty' || (e !== undefined && e.value !== undefined)) &&
    definite.length > 0 &&
    definite.every((e) => e.value === definite[0]!.value && e.value !== declaredEnd)
  ) {
    const e = definite[0]!;
    mismatches.push(
      `"pagingEnd": "${declaredEnd}", but ${e.pastEnd} and ${e.lastNext}: set "pagingEnd": "${e.value}"`,
    );
  } else {
    for (const e of ends) {
      if (e === undefined || e === 'empty' || e.value !== undefined) continue;
      if (e.signs.includes(otherEnd(declaredEnd)))
        warnings.push(
          `profile declares "pagingEnd": "${declaredEnd}"; ${e.pastEnd}, ${e.lastNext}: the signs disagree, the paging-end checks judge it`,
        );
    }
  }

  // rtn
  const plain = lists[0]!.ex;
  if (plain?.status === 200) {
    const refused: Rtn[] = [];
    let first: string | undefined;
    for (const rtn of profile.rtn) {
      if (rtn === 'json') continue;
      const ex = await send({ path: MEMBERS, query: [['rtn', rtn]] });
      if (ex !== undefined && (ex.status === 400 || ex.status === 406)) {
        refused.push(rtn);
        first ??= `GET ${ex.target} answered ${ex.status}`;
      }
    }
    if (refused.length > 0) {
      const kept = profile.rtn.filter((r) => !refused.includes(r));
      mismatches.push(
        `"rtn": ${JSON.stringify(profile.rtn)}, but ${first}: set "rtn": ${JSON.stringify(kept.length > 0 ? kept : ['json'])}`,
      );
    }
  }
  return { mismatches, warnings };
}

/** The first page (cursor 0) of a list, as far as the preflight reads it. */
export interface FirstPage {
  /** Records on the page. */
  readonly n: number;
  /** `paging.cursors.total`. */
  readonly total: number;
  /** `X-Total-Count` as sent (equal to `total` when sent). */
  readonly totalHeader: string | undefined;
  /** The cursor of `paging.nextURL`: null when null, undefined when it has none. */
  readonly nextCursor: number | null | undefined;
}

/**
 * The first page of a list answer when it is consistent in itself (docs/spec.md §5): a 204
 * with an empty body (an empty list in no-content), or 200, the
 * envelope with `data` and `paging.cursors`, `next` = the record count, no more records than
 * `total`, `X-Total-Count` (when sent) equal to `total`, and `nextURL` at `cursor=next` while
 * the list goes on (null or `cursor=total` on the last page). Else undefined: a page that
 * contradicts itself is a defect for the checks, never evidence of an option.
 */
export function firstPage(ex: Exchange): FirstPage | undefined {
  // an empty list in no-content: 204 with an empty body (its X-Total-Count, when sent, 0)
  const totalHeader = ex.responseHeaders['x-total-count'];
  if (ex.status === 204)
    return ex.body === '' && (totalHeader === undefined || totalHeader.trim() === '0')
      ? { n: 0, total: 0, totalHeader, nextCursor: null }
      : undefined;
  if (ex.status !== 200) return undefined;
  const body = parseJson(ex.body);
  if (!isObject(body) || !Array.isArray(body.data) || !isObject(body.paging)) return undefined;
  const cursors = body.paging.cursors;
  if (!isObject(cursors)) return undefined;
  const { total, next } = cursors;
  const n = body.data.length;
  if (!isCount(total) || next !== n || n > total) return undefined;
  if (totalHeader !== undefined && totalHeader.trim() !== String(total)) return undefined;
  const nextCursor = cursorOf(body.paging.nextURL);
  if (n < total ? nextCursor !== n : nextCursor !== null && nextCursor !== total) return undefined;
  return { n, total, totalHeader, nextCursor };
}

/**
 * The page sizes a consistent first page allows: exactly `n` when the list goes on, at least
 * `n` when it fits on the page; null when the list is empty (no bound).
 */
export function pageSizeBound(page: FirstPage): { lo: number; hi: number } | null {
  if (page.n === 0) return null;
  return page.n < page.total
    ? { lo: page.n, hi: page.n }
    : { lo: page.n, hi: Number.POSITIVE_INFINITY };
}

/** What one list shows of its paging end: the value both signs agree on, or the signs seen. */
export interface EndSeen {
  /** Both signs agree on this value; undefined when they do not (or one is missing). */
  readonly value: PagingEnd | undefined;
  /** The values the signs point at (0 to 2). */
  readonly signs: readonly PagingEnd[];
  /** The answer at `cursor=total`, in words. */
  readonly pastEnd: string;
  /** The last page's nextURL, in words. */
  readonly lastNext: string;
}

/**
 * The paging end a list shows (docs/spec.md §5): its last page's `nextURL` (the first page
 * when the list fits on it, else the page at `cursor=total-1`) and the answer at
 * `cursor=total`. `'empty'` for an empty list (no sign either way: an empty list answers the
 * same in `empty-page` and under a fault that renders no-content's 204 as 200); undefined when
 * a request got no usable answer.
 */
export async function pagingEndOf(
  path: string,
  first: FirstPage,
  send: (spec: Omit<RequestSpec, 'credential'>) => Promise<Exchange | undefined>,
): Promise<EndSeen | 'empty' | undefined> {
  const { total } = first;
  if (total === 0) return 'empty';
  let lastNext: number | null | undefined = first.nextCursor;
  let lastAt = path;
  if (first.n < total) {
    const ex = await send({ path, query: [['cursor', String(total - 1)]] });
    if (ex === undefined || ex.status !== 200) return undefined;
    const body = parseJson(ex.body);
    if (!isObject(body) || !Array.isArray(body.data) || body.data.length !== 1) return undefined;
    if (!isObject(body.paging)) return undefined;
    lastNext = cursorOf(body.paging.nextURL);
    lastAt = ex.target;
  }
  const past = await send({ path, query: [['cursor', String(total)]] });
  if (past === undefined) return undefined;
  const pastBody = parseJson(past.body);
  const pastSign: PagingEnd | undefined =
    past.status === 204 && past.body === ''
      ? 'no-content'
      : past.status === 200 &&
          isObject(pastBody) &&
          Array.isArray(pastBody.data) &&
          pastBody.data.length === 0
        ? 'empty-page'
        : undefined;
  const lastSign: PagingEnd | undefined =
    lastNext === null ? 'empty-page' : lastNext === total ? 'no-content' : undefined;
  const signs = [pastSign, lastSign].filter((s) => s !== undefined);
  const pastWords =
    pastSign === 'empty-page'
      ? `GET ${past.target} answered 200 with "data": []`
      : `GET ${past.target} answered ${past.status}`;
  const lastWords =
    lastNext === null
      ? `the last page's nextURL (GET ${lastAt}) is null`
      : lastNext === undefined
        ? `the last page's nextURL (GET ${lastAt}) has no cursor`
        : `the last page's nextURL (GET ${lastAt}) points at cursor=${lastNext}`;
  return {
    value: pastSign !== undefined && pastSign === lastSign ? pastSign : undefined,
    signs,
    pastEnd: pastWords,
    lastNext: lastWords,
  };
}

function otherEnd(end: PagingEnd): PagingEnd {
  return end === 'no-content' ? 'empty-page' : 'no-content';
}

/** The `cursor` of a paging URL: null for null, undefined when it is no URL with a cursor. */
function cursorOf(url: unknown): number | null | undefined {
  if (url === null) return null;
  if (typeof url !== 'string') return undefined;
  try {
    const c = new URL(url, 'http://base.invalid').searchParams.get('cursor');
    return c !== null && /^[0-9]{1,15}$/.test(c) ? Number(c) : undefined;
  } catch {
    return undefined;
  }
}

/** The profile's error body (docs/spec.md §6): `{statusCode, error, message}`, statusCode the status. */
function isErrorBody(body: unknown, status: number): boolean {
  return (
    isObject(body) &&
    body.statusCode === status &&
    typeof body.error === 'string' &&
    typeof body.message === 'string'
  );
}

function contentType(ex: Exchange): string {
  const type = ex.responseHeaders['content-type'];
  return type === undefined ? 'no Content-Type' : `Content-Type ${type}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
