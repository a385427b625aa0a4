import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  buildPath,
  ENDPOINT_LIST,
  type EndpointId,
  hmacAuthorizer,
  matchEndpoint,
  normaliseEmail,
  parseJsonExact,
  signRequest,
  walkCursor,
} from '@tagtrack/core';
import type { Failure } from '../check/failure.ts';
import type { FetchLike } from '../http/client.ts';
import { suiteCommand } from '../http/invocation.ts';
import { type Rerun, rerunWords, shellQuote } from '../http/rerun.ts';
import { sendHolding, tlsFetch } from '../http/transport.ts';
import { type Profile, parseProfile } from '../profile/profile.ts';
import type { CheckResult, RunOptions, RunResult } from '../run/runner.ts';
import { runConformance } from '../run/runner.ts';
import { type DiffCause, groupCauses } from './causes.ts';
import { type CompareOptions, type Difference, differences } from './compare.ts';
import { observe, type ReceivedResponse, resetForm, type SideContext } from './observe.ts';

/** Options of {@link runDiff}: those of a blind `run` against A, plus side B. */
export interface DiffOptions extends Omit<RunOptions, 'expectedFailures' | 'bail'> {
  /** Base URL of side B, which gets every request A gets. */
  readonly against: string;
  /** A fetch for side B (e.g. another in-memory server); default the global fetch. */
  readonly fetchAgainst?: FetchLike | undefined;
  /** Compare error messages word for word (their wording is free; default false). */
  readonly compareMessages?: boolean | undefined;
  /** Largest body read from either side for the comparison, in bytes (default 8 MiB). */
  readonly maxBodyBytes?: number | undefined;
  /** Only the answers of these catalogue endpoints are compared (`--only contacts.list`). */
  readonly diffEndpoints?: ReadonlySet<EndpointId> | undefined;
  /** The answers of these catalogue endpoints are left out (`--exclude contacts.list`). */
  readonly skipEndpoints?: ReadonlySet<EndpointId> | undefined;
}

/**
 * A diff's result: a {@link RunResult} whose checks are the comparison groups (`DIFF-<endpoint>`
 * per catalogue endpoint, `DIFF-OTHER-PATHS` for probes outside it), each failing with the
 * differences found on its requests; plus the counts and the suite's own verdict on side A.
 */
export interface DiffResult extends RunResult {
  readonly against: string;
  /** Request pairs compared (distinct requests). */
  readonly compared: number;
  /** Request pairs whose answers differ. */
  readonly differing: number;
  /** The conformance run against side A that generated the requests (its own verdict). */
  readonly run: RunResult;
  /** The differences grouped by root cause, most answers first (diff/causes.ts). */
  readonly causes: readonly DiffCause[];
}

/** One compared request: what identifies it and the differences found (bodies are not kept). */
interface Pair {
  readonly key: string;
  readonly method: string;
  readonly target: string;
  /** The path and query sent to B (contact ids translated). */
  readonly targetB: string;
  /** Headers sent besides Authorization and the run's extra headers, as `name: value`. */
  readonly headers: readonly string[];
  readonly credential: string | undefined;
  readonly endpoint: EndpointId | undefined;
  readonly found: readonly Difference[];
  /** Short forms of the two answers, kept only when they differ. */
  readonly a?: string | undefined;
  readonly b?: string | undefined;
}

const DEFAULT_MAX_BODY = 8 * 1024 * 1024;

/** Reads at most `max` bytes of a body as UTF-8 (a longer body is cut there). */
async function readCapped(response: Response, max: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= max) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

async function received(response: Response, max: number): Promise<ReceivedResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    headers[k] = v;
  });
  return { status: response.status, headers, body: await readCapped(response, max) };
}

/** The label of the credential whose signature an Authorization value carries. */
function credentialOf(authorization: string | null, profile: Profile, extra: DiffOptions) {
  if (authorization === null) return undefined;
  let authId: string;
  try {
    authId = Buffer.from(authorization, 'base64').toString('utf8').split(':')[0] ?? '';
  } catch {
    return 'a malformed Authorization';
  }
  const c = profile.credentials.find((x) => x.authId === authId);
  if (c !== undefined) return c.label;
  return authId === extra.authId ? 'given' : 'another Authorization';
}

/**
 * The command lines that send a compared request to A and then to B (`;`-joined, runnable
 * as printed where the diff started: credentials, extra headers and TLS settings read from
 * where the diff read them, see rerun.ts; no secret). A request that carried an
 * Authorization of no known credential (a probe's) is sent without one, and says so.
 */
function reproduceOnBoth(
  pair: Pair,
  baseA: string,
  baseB: string,
  rerun: Rerun | undefined,
): string {
  const label = pair.credential;
  const known = label !== undefined && !label.includes(' ');
  const line = (base: string, target: string) =>
    [
      `${suiteCommand()} request`,
      pair.method,
      shellQuote(target),
      '--base-url',
      shellQuote(base),
      ...rerunWords(rerun),
      ...(known ? ['--credential', shellQuote(label)] : ['--no-credential']),
      ...pair.headers.flatMap((h) => ['--header', shellQuote(h)]),
    ].join(' ');
  const comment =
    label !== undefined && !known ? `  # the request carried ${label} (a probe's own)` : '';
  return `${line(baseA, pair.target)}; ${line(baseB, pair.targetB)}${comment}`;
}

/**
 * Contact ids by normalised email, as one side names them, from its `/contacts` lists walked
 * with every credential (ids are free, spec §9; both sides are compared through email).
 */
async function contactIds(
  baseUrl: string,
  fetchFn: FetchLike,
  credentials: readonly { authId: string; accessKey: string }[],
): Promise<Map<string, string>> {
  const byId = new Map<string, string>();
  for (const c of credentials) {
    const authorize = hmacAuthorizer(c.authId, c.accessKey);
    const fetchPage = async (cursor: number) => {
      const signed = signRequest(
        { baseUrl, path: '/contacts', query: cursor === 0 ? [] : [['cursor', String(cursor)]] },
        authorize,
      );
      const r = await fetchFn(
        new Request(signed.url, { headers: { authorization: signed.authorization ?? '' } }),
      );
      if (r.status !== 200) return { end: true as const, page: [] as unknown[] };
      const body = (await r.json()) as {
        data?: { contactID?: string; email?: string }[];
        paging?: { cursors?: { next?: number; total?: number } };
      };
      const data = Array.isArray(body.data) ? body.data : [];
      if (data.length === 0) return { end: true as const, page: data };
      return {
        end: false as const,
        page: data,
        count: data.length,
        next: body.paging?.cursors?.next ?? cursor + data.length,
        total: body.paging?.cursors?.total ?? cursor + data.length,
      };
    };
    for await (const step of walkCursor(fetchPage, { maxPages: 10_000 })) {
      if (step.kind === 'violation') break;
      for (const x of step.page as { contactID?: string; email?: string }[])
        if (typeof x.contactID === 'string' && typeof x.email === 'string')
          byId.set(x.contactID, normaliseEmail(x.email));
    }
  }
  return byId;
}

/**
 * The differential audit (issue "production-sized data"): runs the conformance suite in
 * blind mode against side A and sends every request it makes, byte for byte (the same
 * signed `Authorization`: signatures cover the query string only), to side B as well, with
 * contact ids in paths translated through email. Compares each pair of answers by meaning
 * ({@link differences}) and reports every difference in domain words, grouped by endpoint.
 * Both sides must accept the profile's credentials and use the same page size. Throws what
 * {@link runConformance} throws for unusable options or an unreachable side A.
 */
export async function runDiff(options: DiffOptions): Promise<DiffResult> {
  const profile = parseProfile(options.profile ?? {});
  const tls = await tlsFetch(options.tls);
  const fetchA: FetchLike = options.fetch ?? tls ?? ((r) => fetch(r));
  const fetchB: FetchLike = options.fetchAgainst ?? tls ?? ((r) => fetch(r));
  // the run's extra headers (`-H`): their values are secrets, never part of a key or a line
  const extraNames = new Set(Object.keys(options.headers ?? {}).map((k) => k.toLowerCase()));
  const baseA = options.baseUrl.replace(/\/+$/, '');
  const baseB = options.against.replace(/\/+$/, '');
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const credentials = [
    ...profile.credentials,
    ...(options.authId && options.accessKey
      ? [{ authId: options.authId, accessKey: options.accessKey }]
      : []),
  ];
  const [idsA, idsB] = await Promise.all([
    contactIds(baseA, fetchA, credentials),
    contactIds(baseB, fetchB, credentials),
  ]);
  const sideA: SideContext = { baseUrl: baseA, contactEmail: idsA };
  const sideB: SideContext = { baseUrl: baseB, contactEmail: idsB };
  const emailToB = new Map([...idsB].map(([id, email]) => [email, id]));

  /** Side B's URL for a request to A: same path and query, contact ids translated. */
  const urlOnB = (url: string): string => {
    const rest = url.startsWith(baseA) ? url.slice(baseA.length) : new URL(url).pathname;
    const [path, ...query] = rest.split('?');
    const match = matchEndpoint(path!);
    let pathOnB = path!;
    const contactID = match?.pathParams.contactID;
    if (match !== undefined && contactID !== undefined) {
      const email = idsA.get(contactID);
      const idOnB = email === undefined ? undefined : emailToB.get(email);
      if (idOnB !== undefined)
        pathOnB = buildPath(match.endpoint, { ...match.pathParams, contactID: idOnB });
    }
    return `${baseB}${pathOnB}${query.length > 0 ? `?${query.join('?')}` : ''}`;
  };

  const compareOptions: CompareOptions = { compareMessages: options.compareMessages ?? false };
  const pairs = new Map<string, Pair>();
  const mirror: FetchLike = async (request) => {
    const urlB = urlOnB(request.url);
    // B's request ends with A's (the deadline of the client sending both)
    const requestB = new Request(urlB, {
      method: request.method,
      headers: request.headers,
      redirect: 'manual',
      signal: request.signal,
    });
    const [responseA, responseB] = await Promise.all([
      fetchA(request),
      sendHolding(fetchB, requestB).then(
        (r) => received(r, max),
        (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
      ),
    ]);
    const target = request.url.startsWith(baseA)
      ? request.url.slice(baseA.length)
      : new URL(request.url).pathname;
    const credential = credentialOf(request.headers.get('authorization'), profile, options);
    const otherHeaders: string[] = [];
    const shownHeaders: string[] = [];
    request.headers.forEach((v, k) => {
      if (k === 'authorization' || extraNames.has(k)) return;
      otherHeaders.push(`${k}=${v}`);
      shownHeaders.push(`${k}: ${v}`);
    });
    // the key names the credential and a digest of the header, never the signed value
    const authorization = request.headers.get('authorization');
    const signedBy =
      authorization === null
        ? '-'
        : `${credential} ${createHash('sha256').update(authorization).digest('hex').slice(0, 12)}`;
    const key = `${request.method} ${target} ${signedBy} ${otherHeaders.sort().join('&')}`;
    if (!pairs.has(key)) {
      const a = await received(responseA.clone(), max);
      const found: Difference[] =
        responseB instanceof Error
          ? [{ kind: 'status', message: `no answer on B: ${responseB.message}` }]
          : sameAnswer(a, responseB, baseA, baseB)
            ? []
            : differences(
                target,
                observe(target, a, sideA),
                observe(target, responseB, sideB),
                compareOptions,
              );
      pairs.set(key, {
        key,
        method: request.method,
        target,
        targetB: urlB.slice(baseB.length),
        headers: shownHeaders,
        credential,
        endpoint: matchEndpoint(target.split('?')[0]!)?.endpoint.id,
        found,
        ...(found.length === 0
          ? {}
          : {
              a: summary(a),
              b: responseB instanceof Error ? responseB.message : summary(responseB),
            }),
      });
    }
    return responseA;
  };

  const run = await runConformance({
    ...options,
    mode: options.mode ?? 'blind',
    profile,
    fetch: mirror,
    probeMethods: options.probeMethods ?? false,
  });

  const groups = new Map<string, { compared: number; failures: Failure[] }>();
  const groupOf = (endpoint: EndpointId | undefined) => {
    const id = `DIFF-${endpoint === undefined ? 'OTHER-PATHS' : endpoint.toUpperCase().replace('.', '-')}`;
    let g = groups.get(id);
    if (g === undefined) {
      g = { compared: 0, failures: [] };
      groups.set(id, g);
    }
    return g;
  };
  for (const e of ENDPOINT_LIST) groupOf(e.id);
  groupOf(undefined);
  let differing = 0;
  const order = (p: Pair) => `${p.target.includes('%') ? 1 : 0} ${p.key}`;
  const sorted = [...pairs.values()].sort((x, y) =>
    order(x) < order(y) ? -1 : order(x) > order(y) ? 1 : 0,
  );
  const narrowed = sorted.filter(
    (p) =>
      (options.diffEndpoints === undefined ||
        (p.endpoint !== undefined && options.diffEndpoints.has(p.endpoint))) &&
      (p.endpoint === undefined || !options.skipEndpoints?.has(p.endpoint)),
  );
  const causes = groupCauses(
    narrowed.map((pair) =>
      pair.found.map((d) => ({
        kind: d.kind,
        message: d.message,
        request: `${pair.method} ${pair.target} ${pair.credential === undefined ? 'without Authorization' : `as ${pair.credential}`}`,
        endpoint: pair.endpoint,
      })),
    ),
  );
  for (const pair of narrowed) {
    const group = groupOf(pair.endpoint);
    group.compared++;
    const found = pair.found;
    if (found.length === 0) continue;
    differing++;
    const who = pair.credential === undefined ? 'without Authorization' : `as ${pair.credential}`;
    const reproduce = reproduceOnBoth(pair, baseA, baseB, options.rerun);
    group.failures.push({
      kind: found[0]!.kind,
      key: pair.key,
      message: `${pair.method} ${pair.target} ${who}: ${found.map((d) => d.message).join('; ')}`,
      request: `${pair.method} ${pair.target}`,
      expected: pair.a,
      actual: pair.b,
      reproduce,
    });
  }
  const checks: CheckResult[] = [...groups].map(([id, g]) => ({
    id,
    area: 'diff',
    title:
      id === 'DIFF-OTHER-PATHS'
        ? 'requests outside the catalogue (probes) answer alike on A and B'
        : `${id.slice(5).toLowerCase()} answers alike on A and B`,
    clause: 'differential audit',
    endpoints: [],
    required: true,
    status: g.failures.length > 0 ? 'fail' : g.compared > 0 ? 'pass' : 'skip',
    reason: g.compared === 0 ? 'no request of the run reached this endpoint' : undefined,
    failures: g.failures,
    seed: run.seed,
    requests: g.compared,
    durationMs: 0,
  }));
  const summaryCounts = {
    skip: 0,
    pass: 0,
    inconclusive: 0,
    fail: 0,
    error: 0,
    expectedFailures: 0,
  };
  for (const c of checks) summaryCounts[c.status]++;
  return {
    ...run,
    checks,
    summary: summaryCounts,
    staleExpectedFailures: [],
    ok: differing === 0,
    against: baseB,
    compared: narrowed.length,
    differing,
    run,
    causes,
  };
}

/** The headers {@link sameAnswer} requires equal (after the base URLs): those the audit compares. */
const COMPARED_HEADERS = [
  'content-type',
  'x-total-count',
  'link',
  'allow',
  'x-rate-limit-limit',
] as const;

/**
 * The fast path of the audit: two answers that are the same bytes once each side's base URL
 * is swapped for the other's (or, for JSON, the same value: key order and whitespace aside)
 * with the same status and compared headers mean the same, without reading them as tables.
 * `false` only means "compare in full".
 */
export function sameAnswer(
  a: ReceivedResponse,
  b: ReceivedResponse,
  baseA: string,
  baseB: string,
): boolean {
  if (a.status !== b.status) return false;
  if ((a.headers['retry-after'] === undefined) !== (b.headers['retry-after'] === undefined))
    return false;
  if (resetForm(a.headers['x-rate-limit-reset']) !== resetForm(b.headers['x-rate-limit-reset']))
    return false;
  const swap = (text: string) => (baseA === baseB ? text : text.replaceAll(baseA, () => baseB));
  for (const h of COMPARED_HEADERS) {
    const va = a.headers[h];
    const vb = b.headers[h];
    if (va !== vb && (va === undefined || vb === undefined || swap(va) !== vb)) return false;
  }
  const body = swap(a.body);
  if (body === b.body) return true;
  if (!(a.headers['content-type'] ?? '').includes('json')) return false;
  try {
    // exactly: a number above 2^53 - 1 (a huge cursor's previous) is not rounded
    return isDeepStrictEqual(parseJsonExact(body), parseJsonExact(b.body));
  } catch {
    return false;
  }
}

/** A short form of an answer for the report: status, media type and the start of the body. */
function summary(r: ReceivedResponse): string {
  const body = r.body.length > 300 ? `${r.body.slice(0, 300)}…` : r.body;
  return `${r.status} ${r.headers['content-type'] ?? ''} ${body}`.trim();
}
