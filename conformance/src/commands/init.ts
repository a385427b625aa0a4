import { chmod, readFile, writeFile } from 'node:fs/promises';
import type { AccountType, PagingEnd, Rtn } from '@tagtrack/core';
import { type Command, Option } from 'commander';
import {
  ConnectionError,
  type Credential,
  type Exchange,
  type FetchLike,
  HttpClient,
  type RequestSpec,
} from '../http.ts';
import { type FirstPage, firstPage, pageSizeBound, pagingEndOf } from '../preflight.ts';
import { type Profile, ProfileError, type ProfileInput, parseProfile } from '../profile.ts';

/**
 * `tagtrack-conformance init`: discovers what a profile (docs/spec.md §0 "Profile options")
 * can say about an implementation from its answers, and writes that profile, so that a vendor
 * does not have to guess the options the suite checks against. Every request is a signed
 * read-only GET; nothing is guessed silently: each inferred value comes with its evidence,
 * and what the answers do not show is listed as not inferred (the reference default is kept).
 *
 * What it reads (docs/spec.md §4, §5, §7, §8, §9; decisions §2, §3, §6, §7, §8):
 * - `pageSize`: the first pages of `/teams`, `/teams/tags`, `/contacts`, `/opens`, `/clicks`;
 *   a list that goes on past its first page shows the size exactly.
 * - `pagingEnd`: the last page's `nextURL` and the answer at `cursor=total` (as the preflight).
 * - `memberWithoutGroup`: member records without a group: fields absent (`omit`) or `""` (`empty`).
 * - `rtn`: `/teams?rtn=text|html` answering 200 with the format's media type (400/406: not supported).
 * - `rateLimit`: `X-Rate-Limit-Limit` on any answer; the window from `X-Rate-Limit-Reset`.
 * - credentials: the members each one sees; overlapping member sets are one team (the API
 *   never shows a team id, so teams get labels `team-1`, `team-2`, …), and the account type
 *   where the list shows it (see {@link callerOf}).
 */

/** One inferred value and the answers it rests on, printed as one line. */
export interface Inferred {
  /** The profile field, e.g. `pageSize` or `credentials[team1-admin].accountType`. */
  readonly field: string;
  readonly value: unknown;
  /** The answers that show it, in words (no secret). */
  readonly evidence: string;
}

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
/** The reference profile's page size (decisions §3), kept when no list goes past a page. */
const DEFAULT_PAGE_SIZE = 250;
/** Pages of `/teams` read per credential at most. */
const MAX_MEMBER_PAGES = 200;
/** Times one request is sent again after a 429. */
const MAX_RETRIES = 5;
/** Longest wait for a rate-limit window, in milliseconds. */
const MAX_WAIT_MS = 65_000;

const MEDIA: Record<Exclude<Rtn, 'json'>, string> = { text: 'text/plain', html: 'text/html' };

/** A member record as far as init reads it. */
interface MemberSeen {
  readonly memberID: string;
  readonly accountType: unknown;
  /** `undefined`: no group field; `''`: an empty group field. */
  readonly groupID: unknown;
  readonly hasGroupField: boolean;
}

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

/**
 * The profile credentials with the team and account type their member lists show
 * (docs/spec.md §4: an admin sees the whole team, a manager the own group and self, a user
 * only self; a caller never sees another team):
 * - teams: credentials whose member sets overlap, directly or through another credential,
 *   are one team, labelled `team-1`, `team-2`, … in the order given (the API shows no team
 *   id; two credentials of one team that see no common member stay apart: say so);
 * - one member visible: that member is the caller (its `accountType` and `memberID`);
 * - several visible, of more than one group (or with and without a group): an admin, which
 *   is the one admin listed when there is one;
 * - several of one group: a manager when no admin is listed or another credential of the
 *   team sees more; else ambiguous (an admin of a one-group team, or a manager whose group
 *   holds an admin): `accountType` left out, so the scope checks do not rely on a guess.
 * Pushes each value's evidence to `inferred`, each gap to `unknown`.
 */
function describeCredentials(
  given: readonly Credential[],
  seen: ReadonlyMap<string, readonly MemberSeen[]>,
  inferred: Inferred[],
  unknown: string[],
): ProfileInput['credentials'] {
  const ids = new Map(
    given.map((c) => [c.label, new Set(seen.get(c.label)!.map((m) => m.memberID))]),
  );
  // union-find over overlapping member sets
  const parent = given.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i]!;
    return i;
  };
  for (let i = 0; i < given.length; i++)
    for (let j = i + 1; j < given.length; j++) {
      const a = ids.get(given[i]!.label)!;
      const b = ids.get(given[j]!.label)!;
      if ([...a].some((id) => b.has(id))) parent[find(j)] = find(i);
    }
  const teamOf = new Map<number, string>();
  const team = given.map((_, i) => {
    const root = find(i);
    if (!teamOf.has(root)) teamOf.set(root, `team-${teamOf.size + 1}`);
    return teamOf.get(root)!;
  });
  if (teamOf.size > 1 && given.length > 1)
    unknown.push(
      `teamID: the API shows no team id; ${teamOf.size} teams are labelled by overlapping member lists (two credentials of one team that see no common member, e.g. two users, get two labels: correct them if so)`,
    );

  return given.map((c, i) => {
    const ms = seen.get(c.label)!;
    const teamMates = given.filter((_, j) => j !== i && team[j] === team[i]);
    const caller = callerOf(
      c,
      ms,
      teamMates.map((o) => ids.get(o.label)!),
    );
    const field = `credentials[${c.label}]`;
    const base = { label: c.label, authId: c.authId, accessKey: c.accessKey };
    if (ms.length === 0) {
      unknown.push(
        `${field}: sees no member at all (not even itself): team and account type unknown`,
      );
      return base;
    }
    if (caller.accountType === undefined) {
      unknown.push(`${field}.accountType: ${caller.evidence}`);
      return { ...base, teamID: team[i]! };
    }
    inferred.push({
      field,
      value: {
        teamID: team[i],
        accountType: caller.accountType,
        ...(caller.memberID === undefined ? {} : { memberID: caller.memberID }),
      },
      evidence: `${caller.evidence}${teamMates.length === 0 ? '' : `; shares members with ${teamMates.map((o) => o.label).join(', ')}`}`,
    });
    return {
      ...base,
      teamID: team[i]!,
      accountType: caller.accountType,
      ...(caller.memberID === undefined ? {} : { memberID: caller.memberID }),
    };
  });
}

/** The account type (and member id) of the caller `c` its member list shows, with the evidence; see {@link describeCredentials}. */
function callerOf(
  c: Credential,
  ms: readonly MemberSeen[],
  mates: readonly ReadonlySet<string>[],
): { accountType?: AccountType; memberID?: string; evidence: string } {
  const types = ms.map((m) => m.accountType);
  const isType = (v: unknown): v is AccountType => v === 'admin' || v === 'manager' || v === 'user';
  if (ms.length === 1) {
    const self = ms[0]!;
    return isType(self.accountType)
      ? {
          accountType: self.accountType,
          memberID: self.memberID,
          evidence: `GET /teams as ${c.label} lists one member, the caller (${self.memberID}), of accountType ${self.accountType}`,
        }
      : { evidence: `the one member listed has accountType ${JSON.stringify(self.accountType)}` };
  }
  const groups = new Set(ms.map((m) => (typeof m.groupID === 'string' ? m.groupID : '')));
  const admins = ms.filter((m) => m.accountType === 'admin');
  const managers = ms.filter((m) => m.accountType === 'manager');
  const mine = new Set(ms.map((m) => m.memberID));
  const someoneSeesMore = mates.some((o) => [...o].some((id) => !mine.has(id)));
  const summary = `GET /teams as ${c.label} lists ${ms.length} members (${[...new Set(types)].join(', ')}) in ${groups.size} group${groups.size === 1 ? '' : 's'}${groups.has('') ? ' (counting no group as one)' : ''}`;
  if (groups.size > 1 && !someoneSeesMore)
    return {
      accountType: 'admin',
      ...(admins.length === 1 ? { memberID: admins[0]!.memberID } : {}),
      evidence: `${summary}: only an admin sees more than one group`,
    };
  if (admins.length === 0 || someoneSeesMore)
    return {
      accountType: 'manager',
      ...(managers.length === 1 ? { memberID: managers[0]!.memberID } : {}),
      evidence: `${summary}: a manager of a group (${admins.length === 0 ? 'no admin listed, and an admin sees itself' : 'another credential of the team sees members it does not'})`,
    };
  return {
    evidence: `${summary} with an admin: an admin of a team in one group or a manager whose group holds an admin (ambiguous: left out)`,
  };
}

// ---- the command ----

/** The options of `init` as commander parses them. */
interface InitOptions {
  readonly baseUrl?: string;
  readonly authId?: string;
  readonly accessKey?: string;
  /** `--credential LABEL:AUTHID`, as given (absent: none). */
  readonly credential?: readonly string[] | undefined;
  readonly credentialsFile?: string | undefined;
  readonly auth: Profile['auth'];
  readonly out: string;
  readonly force?: boolean;
  readonly timeout: number;
}

/** The environment variable holding the access key of `--credential LABEL:AUTHID`. */
export function accessKeyVariable(label: string): string {
  return `TAGTRACK_ACCESS_KEY_${label.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/**
 * The credentials of the `init` options, or a usage message (no secret in it). Three forms,
 * none of which puts a key on the command line: `--credentials-file FILE` (a JSON array of
 * `{label, authId, accessKey}` or a profile with `credentials`), `--credential LABEL:AUTHID`
 * (repeatable; the key in `TAGTRACK_ACCESS_KEY_<LABEL>`, the label upper-cased with every
 * run of other characters than A-Z and 0-9 as `_`), and the pair of
 * `--auth-id`/`--access-key` (`TAGTRACK_AUTH_ID`/`TAGTRACK_ACCESS_KEY`), labelled `given`.
 */
export async function initCredentials(
  opts: Pick<InitOptions, 'authId' | 'accessKey' | 'credential' | 'credentialsFile'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Credential[] | string> {
  const out: Credential[] = [];
  if (opts.credentialsFile !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(opts.credentialsFile, 'utf8'));
    } catch (e) {
      return `cannot read --credentials-file ${opts.credentialsFile}: ${(e as Error).message.split('\n')[0]}`;
    }
    const list = Array.isArray(json) ? json : isObject(json) ? json.credentials : undefined;
    if (!Array.isArray(list))
      return `--credentials-file ${opts.credentialsFile}: expected a JSON array of {label, authId, accessKey} or a profile with "credentials"`;
    for (const [i, c] of list.entries()) {
      if (
        !isObject(c) ||
        typeof c.label !== 'string' ||
        typeof c.authId !== 'string' ||
        typeof c.accessKey !== 'string' ||
        c.label === '' ||
        c.authId === '' ||
        c.accessKey === ''
      )
        return `--credentials-file ${opts.credentialsFile}: entry ${i} needs non-empty label, authId and accessKey strings`;
      out.push({ label: c.label, authId: c.authId, accessKey: c.accessKey });
    }
  }
  for (const spec of opts.credential ?? []) {
    const colon = spec.indexOf(':');
    if (colon <= 0 || colon === spec.length - 1)
      return `--credential ${JSON.stringify(spec)} is not LABEL:AUTHID`;
    const label = spec.slice(0, colon);
    const variable = accessKeyVariable(label);
    const accessKey = env[variable];
    if (accessKey === undefined || accessKey === '')
      return `--credential ${label}: set its access key in ${variable}`;
    out.push({ label, authId: spec.slice(colon + 1), accessKey });
  }
  if (opts.authId !== undefined || opts.accessKey !== undefined) {
    if (!opts.authId || !opts.accessKey)
      return 'give both --auth-id and --access-key (or TAGTRACK_AUTH_ID and TAGTRACK_ACCESS_KEY)';
    // the environment's pair is often one of the listed credentials: listed once
    if (!out.some((c) => c.authId === opts.authId))
      out.push({ label: 'given', authId: opts.authId, accessKey: opts.accessKey });
  }
  if (out.length === 0)
    return 'no credential: give --credentials-file FILE, --credential LABEL:AUTHID (key in TAGTRACK_ACCESS_KEY_<LABEL>), or TAGTRACK_AUTH_ID and TAGTRACK_ACCESS_KEY';
  const labels = out.map((c) => c.label);
  const twice = labels.find((l, i) => labels.indexOf(l) !== i);
  if (twice !== undefined) return `credential label ${JSON.stringify(twice)} is given twice`;
  return out;
}

const INIT_HELP = `
Credentials (no key on the command line, so none in the shell history):
  --credentials-file FILE     JSON: [{"label", "authId", "accessKey"}, ...] or a profile
  --credential LABEL:AUTHID   repeatable; the access key in TAGTRACK_ACCESS_KEY_<LABEL>
                              (LABEL upper-cased, other characters as _), e.g.
                              TAGTRACK_ACCESS_KEY_TEAM1_ADMIN for team1-admin
  TAGTRACK_AUTH_ID, TAGTRACK_ACCESS_KEY   one credential, labelled "given"

Give credentials of several account types and teams: the team grouping and the account types
come from the members each one sees. The profile written holds the access keys (the suite
signs with them): it is created with file mode 0600; keep it out of version control.

Example:
  TAGTRACK_ACCESS_KEY_ADMIN=... tagtrack-conformance init --base-url http://127.0.0.1:8080 \\
    --credential admin:MGJMG9Z56RWV3AZE12LJ --out profile.json
  tagtrack-conformance run --base-url http://127.0.0.1:8080 --profile profile.json
`;

/** Registers `init` on the `tagtrack-conformance` program; `done` receives its exit code. */
export function addInitCommand(program: Command, done: (code: number) => void): void {
  program
    .command('init')
    .description(
      'discover the profile options of an implementation from its answers and write a profile file, explaining every value',
    )
    .addOption(
      new Option('--base-url <url>', 'base URL of the implementation').env('TAGTRACK_BASE_URL'),
    )
    .addOption(
      new Option(
        '--credential <label:authId>',
        'a credential; its key in TAGTRACK_ACCESS_KEY_<LABEL> (repeatable)',
      ).argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]),
    )
    .addOption(
      new Option(
        '--credentials-file <file>',
        'JSON list of {label, authId, accessKey}, or a profile',
      ),
    )
    .addOption(
      new Option('--auth-id <id>', 'one credential’s authentication id').env('TAGTRACK_AUTH_ID'),
    )
    .addOption(
      new Option('--access-key <key>', 'its access key (prefer the variable)').env(
        'TAGTRACK_ACCESS_KEY',
      ),
    )
    .addOption(
      new Option('--auth <scheme>', 'how requests are signed')
        .choices(['hmac-sha1', 'bearer'])
        .default('hmac-sha1'),
    )
    .addOption(new Option('--out <file>', 'profile file to write').default('tagtrack-profile.json'))
    .addOption(new Option('--force', 'overwrite --out if it exists'))
    .addOption(
      new Option('--timeout <ms>', 'per-request timeout in milliseconds')
        .argParser((v: string) => {
          if (!/^[1-9][0-9]*$/.test(v.trim()))
            throw new Error('--timeout must be a positive integer');
          return Number(v);
        })
        .default(10_000),
    )
    .addHelpText('after', INIT_HELP)
    .action(async (opts: InitOptions) => {
      done(await initCommand(opts));
    });
}

async function initCommand(opts: InitOptions): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`tagtrack-conformance init: ${message}\n`);
    return 2;
  };
  if (opts.baseUrl === undefined) return fail('missing --base-url (or TAGTRACK_BASE_URL)');
  try {
    new URL(opts.baseUrl);
  } catch {
    return fail(`--base-url ${JSON.stringify(opts.baseUrl)} is not a URL`);
  }
  const credentials = await initCredentials(opts);
  if (typeof credentials === 'string') return fail(credentials);
  let result: InitResult;
  try {
    result = await inferProfile({
      baseUrl: opts.baseUrl,
      credentials,
      auth: opts.auth,
      timeoutMs: opts.timeout,
    });
  } catch (e) {
    if (e instanceof InitError || e instanceof ProfileError) return fail(e.message);
    throw e;
  }
  const out = process.stdout;
  out.write(`inferred from ${opts.baseUrl}:\n`);
  for (const i of result.inferred)
    out.write(`  ${i.field}: ${JSON.stringify(i.value)}  (${i.evidence})\n`);
  if (result.unknown.length > 0) {
    out.write('not inferred:\n');
    for (const u of result.unknown) out.write(`  ${u}\n`);
  }
  try {
    await writeFile(opts.out, `${JSON.stringify(result.profile, null, 2)}\n`, {
      mode: 0o600,
      flag: opts.force === true ? 'w' : 'wx',
    });
    await chmod(opts.out, 0o600);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return fail(
      err.code === 'EEXIST'
        ? `${opts.out} exists: pass --force to overwrite it, or --out another file`
        : `cannot write ${opts.out}: ${err.message}`,
    );
  }
  out.write(
    `wrote ${opts.out} (file mode 0600: it holds the access keys of ${credentials.length} credential${credentials.length === 1 ? '' : 's'}; keep it out of version control)\n` +
      `next: tagtrack-conformance run --base-url ${opts.baseUrl} --profile ${opts.out}\n`,
  );
  return 0;
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
