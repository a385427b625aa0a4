import type { EndpointId } from '@tagtrack/core';
import { ByteCache } from '../../http/byte-cache.ts';
import type { Exchange } from '../../http/client.ts';
import { pagedTotalOf } from '../../http/client-options.ts';
import { type CheckScope, inScope } from '../failure.ts';
import type { SuiteCredential } from '../types.ts';
import { type Walk, walkPages } from '../walk.ts';
import { type EndpointCall, queryPairs } from './calls.ts';
import { sampleCursorsOf } from './sampled-list.ts';

/** What {@link walkThroughCache} needs of the check walking (`CheckContext`). */
export interface WalkHost {
  /** The scope the walk is logged and counted in. */
  readonly scope: CheckScope;
  /** A try of `onStillData` is under way: walk again, leave the cache as it was. */
  readonly fresh: boolean;
  /** The run's walks, by endpoint, path parameters, query and credential. */
  readonly cache: ByteCache<Walk>;
  readonly pageSize: number;
  /** The credential used when the call names none. */
  readonly primary: SuiteCredential;
  /** What the check's log keeps of an exchange (`HttpClient.forLog`: the report's copy). */
  forLog(exchange: Exchange): Exchange;
  /** Counts `n` requests this check relied on (a cached walk's pages). */
  countRequests(n: number): void;
  /**
   * A list of more records than this is long (the run's `sampleAbove`): the pages of its walk
   * after the first are kept in the response cache compressed only, not whole (`cache:
   * 'read'`), the walk keeping their records.
   */
  readonly longAbove: number;
  /** The run's seed (which pages a sample reads: `sampleCursorsOf`). */
  readonly baseSeed: number;
  /** Sends one page's request (`CheckContext.call`). */
  call(endpoint: EndpointId, call: EndpointCall): Promise<Exchange>;
  /** Records of a list walked whole as `credential` (`CheckContext.boundOf`). */
  wholeUpTo(credential: SuiteCredential | null | undefined): number;
}

/**
 * An empty cache of walks capped at `maxBytes` (least recently used go first; a walk asked
 * for again after it went is walked again from the run's kept answers, with no request,
 * unless a check still holds it: then it is shared, so that checks running at once never hold
 * two copies of one long list). A walk counts three times its pages' body characters: the
 * bodies its pages keep and the records parsed from them.
 */
export function newWalkCache(maxBytes: number): ByteCache<Walk> {
  return new ByteCache<Walk>(
    maxBytes,
    (w) => 3 * (WALKED_CHARS.get(w) ?? bodyChars(w.pages)) + 1024,
    {
      shareWhileAlive: true,
    },
  );
}

/** The body characters of `pages`. */
function bodyChars(pages: readonly Exchange[]): number {
  let chars = 0;
  for (const p of pages) chars += p.body.length;
  return chars;
}

/** The body characters a walk's pages had when read (its pages past the first keep less). */
const WALKED_CHARS = new WeakMap<Walk, number>();

/**
 * `w`, counted in the cache by the characters its pages had when read (`walkedChars`). The
 * walk keeps its records and its first page as read; the pages after it are already the
 * report's copies of their exchanges (`forLog`, applied by `walkPages` as each page is read:
 * a bounded part of the body), since only the records are read again, and a page's exchange
 * serves failures and logs. A long list's walk then holds its records, not every page's body
 * besides.
 */
function counted(w: Walk, walkedChars: number): Walk {
  WALKED_CHARS.set(w, walkedChars);
  return w;
}

/**
 * The cursors a sample of the list reads (`sampleCursorsOf`): the pages a long list's walk
 * still keeps in the response cache, for the checks that read them one by one.
 */
function sampledPages(
  host: WalkHost,
  endpoint: EndpointId,
  call: EndpointCall,
  credential: SuiteCredential | null | undefined,
  total: number,
): Set<number> {
  const query = (call.query ?? []) as readonly (readonly [string, string])[];
  return new Set(
    sampleCursorsOf(
      { baseSeed: host.baseSeed, pageSize: host.pageSize, sampleAbove: host.longAbove },
      endpoint,
      call.pathParams,
      query,
      credential,
      total,
    ),
  );
}

/** The pages a walk had fetched, by its promise (what a failed walk logs). */
const WALKED = new WeakMap<Promise<Walk>, readonly Exchange[]>();

/**
 * `CheckContext.walk` untyped, through the run's walk cache: a walk another check made is
 * reused (its pages join this check's log and count as its requests); a walk that ends
 * (envelopes valid, cursor advancing, total stable) is one comparison.
 */
export function walkThroughCache(
  host: WalkHost,
  endpoint: EndpointId,
  named: EndpointCall,
): Promise<Walk> {
  // the named params become raw pairs once: each page's request adds only `cursor`
  const { params, ...rest } = named;
  const call: EndpointCall = params === undefined ? rest : { ...rest, query: queryPairs(named) };
  const credential = call.credential === undefined ? host.primary : call.credential;
  const key = JSON.stringify([endpoint, call.pathParams, call.query, credential?.label]);
  // the walk's pages join this check's log whether it made the walk or found it cached; a
  // walk that ends (envelopes valid, cursor advancing, total stable) is a comparison made
  const scope = host.scope;
  const entry: { exchanges: readonly Exchange[] } = { exchanges: [] };
  scope.log.push(entry);
  // a try of onStillData walks again, without the cache, and leaves the cache as it was
  const fresh = host.fresh;
  const hit = fresh ? undefined : host.cache.get(key);
  if (hit !== undefined) {
    // a walk another check made still counts as requests this check relied on
    return hit.then(
      (w) => {
        host.countRequests(w.pages.length);
        entry.exchanges = w.pages.map(host.forLog);
        scope.comparisons++;
        return w;
      },
      (e: unknown) => {
        entry.exchanges = (WALKED.get(hit) ?? []).map(host.forLog);
        throw e;
      },
    );
  }
  // a walk made before in the cache epoch and let go is read again from the kept answers:
  // those reads are no cache hits (the counts do not depend on when the walk went)
  const rebuild = !fresh && host.cache.wasSet(key);
  // the pages as the walk keeps them (the first whole, the others as the report keeps them),
  // for the log of a walk that fails
  const pages: Exchange[] = [];
  // the characters of the pages' bodies as read (what the walk counts in the cache)
  let walkedChars = 0;
  // a long list's pages that a sample reads (they stay in the response cache)
  let sampled: Set<number> | undefined;
  // shared by every check that asks: its comparisons and calls count for none of them
  const p = inScope({ comparisons: 0, log: [] }, () =>
    walkPages(
      endpoint,
      call.query ?? [],
      host.pageSize,
      async (query) => {
        // past the first page of a long list the answers are kept compressed only, not whole
        // (the walk keeps the records), except for the pages a sample of the list reads, which
        // checks read one by one
        const total = pages[0] === undefined ? undefined : pagedTotalOf(pages[0].body);
        const long = total !== undefined && total > host.longAbove && call.cache !== false;
        if (long && sampled === undefined)
          sampled = sampledPages(host, endpoint, call, credential, total);
        const cursor = Number(query.find(([k]) => k === 'cursor')?.[1] ?? 0);
        const readOnly = long && sampled !== undefined && !sampled.has(cursor);
        const ex = await host.call(endpoint, {
          ...call,
          credential,
          query,
          ...(readOnly ? { cache: 'read' as const } : {}),
          ...(rebuild ? { rebuild: true } : {}),
        });
        pages.push(pages.length === 0 ? ex : host.forLog(ex));
        walkedChars += ex.body.length;
        return ex;
      },
      host.wholeUpTo(credential),
      // a page's records are all the walk reads of it again: its body goes once they are read
      host.forLog,
    ),
  ).then((w) => counted(w, walkedChars));
  WALKED.set(p, pages);
  if (!fresh) host.cache.set(key, p);
  return p.then(
    (w) => {
      entry.exchanges = w.pages.map(host.forLog);
      scope.comparisons++;
      return w;
    },
    (e: unknown) => {
      entry.exchanges = pages.map(host.forLog);
      throw e;
    },
  );
}
