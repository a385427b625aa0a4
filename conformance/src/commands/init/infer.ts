import type { PagingEnd, Rtn } from '@tagtrack/core';
import {
  ConnectionError,
  type Credential,
  type Exchange,
  type FetchLike,
  HttpClient,
  type RequestSpec,
} from '../../http/client.ts';
import { type Profile, type ProfileInput, parseProfile } from '../../profile/profile.ts';
import { type FirstPage, firstPage, pageSizeBound, pagingEndOf } from '../../run/preflight.ts';
import { describeCredentials } from './credentials.ts';
import type { Inferred, MemberSeen } from './types.ts';

export type { Inferred, MemberSeen } from './types.ts';

/**
 * What `tagtrack-conformance init` infers from an implementation's answers (see `../init.ts`):
 * the profile values and their evidence.
 */

/** What {@link inferProfile} found. */
export interface InitResult {
  /** The profile (validated by the `Profile` schema), credentials with their access keys. */
  readonly profile: Profile;
  /** Every value read from the answers, with its evidence. */
  readonly inferred: readonly Inferred[];
  /** What the answers did not show (the profile keeps the reference default or leaves it out), one line each. */
  readonly unknown: readonly string[];
}

/** What {@link inferProfile} needs. */
export interface InitInput {
  readonly baseUrl: string;
  /** The credentials to probe, each with a unique label (at least one). */
  readonly credentials: readonly Credential[];
  /** How requests are signed (profile `auth`); default `hmac-sha1`. */
  readonly auth?: Profile['auth'] | undefined;
  /** In-memory fetch (tests); default the global fetch. */
  readonly fetch?: FetchLike | undefined;
  /** Per-request timeout in milliseconds; default 10,000. */
  readonly timeoutMs?: number | undefined;
  /** Waits `ms` milliseconds (the rate limit's reset, a 429's Retry-After); default setTimeout. */
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** The implementation cannot be probed: no answer, not this API, or a credential rejected. One line. */
export class InitError extends Error {
  override readonly name = 'InitError';
}

/** Lists whose first page shows the page size (members, tags, contacts, opens, clicks). */
const LISTS = ['/teams', '/teams/tags', '/contacts', '/opens', '/clicks'] as const;
/** The reference profile's page size (spec §5), kept when no list goes past a page. */
const DEFAULT_PAGE_SIZE = 250;
/** Pages of `/teams` read per credential at most. */
const MAX_MEMBER_PAGES = 200;
/** Times one request is sent again after a 429. */
const MAX_RETRIES = 5;
/** Longest wait for a rate-limit window, in milliseconds. */
const MAX_WAIT_MS = 65_000;

const MEDIA: Record<Exclude<Rtn, 'json'>, string> = { text: 'text/plain', html: 'text/html' };

/**
 * Probes the implementation at `baseUrl` with `credentials` and returns the profile its
 * answers show (see the module comment). Throws {@link InitError} when the base URL does not
 * answer, does not answer like this API, or rejects a credential (named by label and authId,
 * never its key).
 */
export async function inferProfile(input: InitInput): Promise<InitResult> {
  if (input.credentials.length === 0) throw new InitError('no credential to probe with');
  const auth = input.auth ?? 'hmac-sha1';
  const sleep = input.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const http = new HttpClient({
    baseUrl: input.baseUrl,
    auth,
    fetch: input.fetch,
    timeoutMs: input.timeoutMs ?? 10_000,
    credentials: input.credentials,
  });
  const inferred: Inferred[] = [];
  const unknown: string[] = [];
  const rate: { limit?: string; reset?: number; at?: number; retryAfter?: boolean } = {};

  /** A signed GET, sent again after a 429 (waiting its Retry-After) and paced by X-Rate-Limit-Remaining. */
  const send = async (spec: Omit<RequestSpec, 'cache'>): Promise<Exchange> => {
    for (let attempt = 0; ; attempt++) {
      const ex = await http.request({ ...spec, cache: false });
      const h = ex.responseHeaders;
      if (h['x-rate-limit-limit'] !== undefined) {
        rate.limit = h['x-rate-limit-limit'];
        const reset = Number(h['x-rate-limit-reset']);
        if (Number.isFinite(reset)) {
          rate.reset = reset;
          rate.at = Date.now();
        }
      }
      if (ex.status === 429) {
        rate.retryAfter = h['retry-after'] !== undefined;
        if (attempt >= MAX_RETRIES) return ex;
        const after = Number(h['retry-after']);
        await sleep(Number.isFinite(after) ? Math.min(after * 1000, MAX_WAIT_MS) : waitForReset());
        continue;
      }
      if (h['x-rate-limit-remaining']?.trim() === '0') await sleep(waitForReset());
      return ex;
    }
  };
  const waitForReset = () =>
    rate.reset === undefined
      ? 1000
      : Math.min(Math.max(rate.reset * 1000 - Date.now() + 50, 50), MAX_WAIT_MS);
  const get = async (spec: Omit<RequestSpec, 'cache'>): Promise<Exchange> => {
    try {
      return await send(spec);
    } catch (e) {
      if (e instanceof ConnectionError) throw new InitError(e.message);
      throw e;
    }
  };

  // 1. every credential's members (the whole list, page by page)
  const seen = new Map<string, MemberSeen[]>();
  for (const credential of input.credentials) {
    seen.set(credential.label, await membersOf(credential, get, input.baseUrl));
  }
  // the options are read as the credential that sees the most members (an admin, if given)
  const primary = [...input.credentials].sort(
    (a, b) => seen.get(b.label)!.length - seen.get(a.label)!.length,
  )[0]!;

  // 2. pageSize and pagingEnd, from the first pages of the lists
  const firsts: { path: string; ex: Exchange; page: FirstPage | undefined }[] = [];
  for (const path of LISTS) {
    const ex = await get({ path, credential: primary });
    firsts.push({ path, ex, page: firstPage(ex) });
  }
  const pageSize = inferPageSize(firsts);
  if (pageSize.exact) inferred.push({ field: 'pageSize', ...pageSize.inferred });
  else unknown.push(pageSize.why);

  const ends: { value: PagingEnd; evidence: string }[] = [];
  const unclear: string[] = [];
  for (const { path, page } of firsts) {
    if (page === undefined || page.total === 0) continue;
    const end = await pagingEndOf(path, page, (spec) =>
      get({ ...spec, credential: primary }).catch((e: unknown) => {
        if (e instanceof InitError) return undefined;
        throw e;
      }),
    );
    if (end === undefined || end === 'empty') continue;
    if (end.value === undefined) unclear.push(`${end.pastEnd}; ${end.lastNext}`);
    else ends.push({ value: end.value, evidence: `${end.pastEnd}; ${end.lastNext}` });
  }
  const endValues = new Set(ends.map((e) => e.value));
  if (endValues.size === 1 && unclear.length === 0)
    inferred.push({ field: 'pagingEnd', value: ends[0]!.value, evidence: ends[0]!.evidence });
  else
    unknown.push(
      ends.length === 0 && unclear.length === 0
        ? 'pagingEnd: no list with records to read its end on (kept "no-content")'
        : `pagingEnd: the lists disagree (${[...ends.map((e) => e.evidence), ...unclear].join(' | ')}): kept "no-content", the paging-end checks will judge it`,
    );

  // 3. members without a group
  const all = [...seen.entries()].flatMap(([label, ms]) => ms.map((m) => ({ label, m })));
  const omitted = all.find(({ m }) => !m.hasGroupField);
  const empty = all.find(({ m }) => m.hasGroupField && m.groupID === '');
  if (omitted !== undefined && empty === undefined)
    inferred.push({
      field: 'memberWithoutGroup',
      value: 'omit',
      evidence: `member ${omitted.m.memberID} (GET /teams as ${omitted.label}) has no groupID or groupName field`,
    });
  else if (empty !== undefined && omitted === undefined)
    inferred.push({
      field: 'memberWithoutGroup',
      value: 'empty',
      evidence: `member ${empty.m.memberID} (GET /teams as ${empty.label}) has "groupID": ""`,
    });
  else
    unknown.push(
      omitted === undefined
        ? 'memberWithoutGroup: no member without a group is visible to these credentials (kept "omit")'
        : `memberWithoutGroup: member ${omitted.m.memberID} has no group fields but member ${empty!.m.memberID} has "groupID": "" (kept "omit", the value checks will judge it)`,
    );

  // 4. formats
  const rtn: Rtn[] = ['json'];
  const plain = firsts[0]!.ex;
  for (const format of ['text', 'html'] as const) {
    const ex = await get({ path: '/teams', query: [['rtn', format]], credential: primary });
    const type = ex.responseHeaders['content-type'] ?? '';
    const media = type.split(';')[0]!.trim().toLowerCase();
    if (ex.status === 400 || ex.status === 406) {
      unknown.push(`rtn: ${format} left out: GET ${ex.target} answered ${ex.status}`);
    } else if (ex.status === plain.status && media === MEDIA[format]) {
      rtn.push(format);
      inferred.push({
        field: `rtn ${format}`,
        value: true,
        evidence: `GET ${ex.target} answered ${ex.status} with Content-Type ${type}`,
      });
    } else {
      // neither refused nor right: declared, so that the format checks judge it
      rtn.push(format);
      unknown.push(
        `rtn: ${format} kept: GET ${ex.target} answered ${ex.status} with ${type === '' ? 'no Content-Type' : `Content-Type ${type}`} (neither ${MEDIA[format]} nor a refusal: the format checks will judge it)`,
      );
    }
  }
  inferred.push({ field: 'rtn', value: rtn, evidence: 'json is the default format' });

  // 5. rate limit
  let rateLimit: ProfileInput['rateLimit'] = null;
  const limit = rate.limit === undefined ? Number.NaN : Number(rate.limit);
  if (rate.limit === undefined) {
    inferred.push({
      field: 'rateLimit',
      value: null,
      evidence: `no answer of ${http.requestCount} carried X-Rate-Limit-Limit`,
    });
  } else if (!Number.isSafeInteger(limit) || limit < 1) {
    unknown.push(
      `rateLimit: X-Rate-Limit-Limit ${JSON.stringify(rate.limit)} is not a positive integer (kept null)`,
    );
  } else {
    const left = rate.reset === undefined ? undefined : rate.reset - (rate.at ?? 0) / 1000;
    const windowMs =
      left === undefined || left <= 1.5 ? 1000 : left <= 61 ? 60_000 : Math.ceil(left) * 1000;
    rateLimit = { limit, windowMs, retryAfter: rate.retryAfter ?? true };
    inferred.push({
      field: 'rateLimit.limit',
      value: limit,
      evidence: `answers carry X-Rate-Limit-Limit: ${rate.limit}`,
    });
    unknown.push(
      `rateLimit.windowMs: ${windowMs} is a guess (${left === undefined ? 'no X-Rate-Limit-Reset' : `X-Rate-Limit-Reset was ${left.toFixed(1)} s ahead`}): set the window the implementation documents`,
    );
    if (rate.retryAfter === undefined)
      unknown.push(
        'rateLimit.retryAfter: no 429 was answered (kept true: a 429 carries Retry-After)',
      );
    else
      inferred.push({
        field: 'rateLimit.retryAfter',
        value: rate.retryAfter,
        evidence: `a 429 answer ${rate.retryAfter ? 'carried' : 'carried no'} Retry-After`,
      });
  }

  // 6. credentials: teams and account types
  const credentials = describeCredentials(input.credentials, seen, inferred, unknown);
  inferred.push({
    field: 'auth',
    value: auth,
    evidence: `GET /teams signed with ${auth} was accepted for ${input.credentials.length === 1 ? 'the credential' : `all ${input.credentials.length} credentials`}`,
  });

  const profile = parseProfile(
    {
      auth,
      pageSize: pageSize.value,
      pagingEnd: endValues.size === 1 && unclear.length === 0 ? ends[0]!.value : 'no-content',
      memberWithoutGroup: empty !== undefined && omitted === undefined ? 'empty' : 'omit',
      rateLimit,
      rtn,
      credentials,
    } satisfies ProfileInput,
    'inferred profile',
  );
  return { profile, inferred, unknown };
}

/**
 * Every member `credential` sees on `GET /teams`, page by page (docs/spec.md §5). Throws
 * {@link InitError} on a rejected credential (401/403) or an answer that is not this API.
 */
async function membersOf(
  credential: Credential,
  get: (spec: Omit<RequestSpec, 'cache'>) => Promise<Exchange>,
  baseUrl: string,
): Promise<MemberSeen[]> {
  const out: MemberSeen[] = [];
  let cursor: number | undefined;
  for (let i = 0; i < MAX_MEMBER_PAGES; i++) {
    const ex = await get({
      path: '/teams',
      ...(cursor === undefined ? {} : { query: [['cursor', String(cursor)]] }),
      credential,
    });
    if (ex.status === 401 || ex.status === 403)
      throw new InitError(
        `credential ${credential.label} (authId ${credential.authId}) was rejected: GET ${ex.target} answered ${ex.status}`,
      );
    if (ex.status === 204) return out;
    const body = parseJson(ex.body);
    if (ex.status !== 200 || !isObject(body) || !Array.isArray(body.data))
      throw new InitError(
        `no Tag Tracking API at ${baseUrl}: GET ${ex.target} as ${credential.label} answered ${ex.status}${ex.status === 200 ? ' without the list envelope {"data": [...]}' : ''}`,
      );
    for (const r of body.data) {
      if (!isObject(r) || typeof r.memberID !== 'string') continue;
      out.push({
        memberID: r.memberID,
        accountType: r.accountType,
        groupID: r.groupID,
        hasGroupField: 'groupID' in r || 'groupName' in r,
      });
    }
    const paging = isObject(body.paging) ? body.paging : undefined;
    const cursors = paging !== undefined && isObject(paging.cursors) ? paging.cursors : undefined;
    const next = cursors?.next;
    const total = cursors?.total;
    if (
      body.data.length === 0 ||
      typeof next !== 'number' ||
      typeof total !== 'number' ||
      next >= total ||
      next === cursor
    )
      return out;
    cursor = next;
  }
  return out;
}

/**
 * The page size the first pages show (docs/spec.md §5): exactly the record count of a list
 * that goes on past its first page; when every list fits on one page only a lower bound
 * (then the reference 250 is kept, or the bound when it is larger).
 */
function inferPageSize(
  firsts: readonly { path: string; ex: Exchange; page: FirstPage | undefined }[],
):
  | { exact: true; value: number; inferred: { value: number; evidence: string } }
  | { exact: false; value: number; why: string } {
  const exact = firsts.filter(
    (f) => f.page !== undefined && f.page.n > 0 && f.page.n < f.page.total,
  );
  const sizes = new Set(exact.map((f) => f.page!.n));
  if (sizes.size === 1) {
    const { path, ex, page } = exact[0]!;
    const of =
      page!.totalHeader === undefined
        ? `paging.cursors.total ${page!.total}`
        : `X-Total-Count ${page!.totalHeader}`;
    return {
      exact: true,
      value: page!.n,
      inferred: {
        value: page!.n,
        evidence: `GET ${ex.target || path} answered ${page!.n} records of ${of}, nextURL at cursor=${page!.nextCursor}${exact.length > 1 ? ` (and ${exact.length - 1} more list${exact.length > 2 ? 's' : ''} agree)` : ''}`,
      },
    };
  }
  if (sizes.size > 1)
    return {
      exact: false,
      value: DEFAULT_PAGE_SIZE,
      why: `pageSize: the lists' first pages disagree (${exact.map((f) => `${f.path}: ${f.page!.n} of ${f.page!.total}`).join(', ')}): kept ${DEFAULT_PAGE_SIZE}, the paging checks will judge it`,
    };
  const bounds = firsts.map((f) => (f.page === undefined ? null : pageSizeBound(f.page)));
  const lo = Math.max(0, ...bounds.map((b) => b?.lo ?? 0));
  const value = Math.max(lo, DEFAULT_PAGE_SIZE);
  return {
    exact: false,
    value,
    why: `pageSize: every list read fits on its first page (the longest has ${lo} records), so the page size is at least ${lo}: kept ${value}${value === DEFAULT_PAGE_SIZE ? ' (the reference page size)' : ''}; set it if yours differs`,
  };
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
