import type { Credential, HttpClient } from '../http/client.ts';

/**
 * How the run treats data that may change while it reads (spec §5 Revision 3):
 * - `still`: the data does not change during the run; a failure stands as found (no extra
 *   request). Fixture mode's default (the canonical dataset is loaded and stays as it is).
 * - `auto`: blind mode's default. Reads each credential's {@link Watermark} once at the start;
 *   a failing check reads them again, and when they moved the check is run again on its own
 *   until an attempt reads still data (see attempt.ts). Costs nothing on still data beyond the
 *   start's reads; falls back to `still` (with a note) when no watermark can be read.
 * - `watch`: as `auto`, but a watermark that cannot be read at the start is a configuration
 *   error: the caller said the data moves, so the run must be able to see it move.
 */
export type DataMode = 'still' | 'watch' | 'auto';

/** The values `--data` takes. */
export const DATA_MODES: readonly DataMode[] = ['still', 'watch', 'auto'];

/** Runs of a failing check made again, at most, when the data moved (`--attempts`). */
export const DEFAULT_ATTEMPTS = 3;

/**
 * One credential's watermark: the caller's aggregated stats (`GET /stats?aggregateData=true`,
 * docs/spec.md §6, endpoint 13) as the implementation answered them. Every tag sent and every
 * open and click appended in the caller's scope moves one of its counters (data is
 * append-only in practice), so equal watermarks read at two instants mean the caller's tags
 * and events did not change in between. Not detected: edits of members and groups, and a
 * change that adds and removes as much (neither happens on an append-only service).
 */
export interface Watermark {
  readonly totalSent: unknown;
  readonly totalOpens: unknown;
  readonly totalClicks: unknown;
  readonly uniqueOpens: unknown;
  readonly uniqueClicks: unknown;
  readonly dateLastSent: unknown;
}

/** The fields of a {@link Watermark}, in the order a move is described. */
export const WATERMARK_FIELDS = [
  'totalSent',
  'totalOpens',
  'totalClicks',
  'uniqueOpens',
  'uniqueClicks',
  'dateLastSent',
] as const satisfies readonly (keyof Watermark)[];

/**
 * Watermarks by credential label, read at one instant: a {@link Watermark}, or a string
 * saying why that credential's could not be read (status, body, connection).
 */
export type Watermarks = ReadonlyMap<string, Watermark | string>;

/**
 * Reads the watermark of each credential (one uncached `GET /stats?aggregateData=true` each,
 * paced with every other request of the run, in parallel). Never throws: a credential whose
 * read fails has a string saying why (a connection error, a stopped run, a non-200 answer, a
 * body without one stats record).
 */
export async function readWatermarks(
  http: HttpClient,
  credentials: readonly Credential[],
): Promise<Watermarks> {
  const read = async (credential: Credential): Promise<[string, Watermark | string]> => {
    try {
      const ex = await http.request({
        path: '/stats',
        query: [['aggregateData', 'true']],
        credential,
        cache: false,
      });
      if (ex.status !== 200) return [credential.label, `GET /stats answered ${ex.status}`];
      return [credential.label, watermarkOf(ex.body)];
    } catch (e) {
      return [credential.label, `GET /stats: ${(e as Error)?.message ?? String(e)}`];
    }
  };
  return new Map(await Promise.all(credentials.map(read)));
}

/** The watermark in a `/stats?aggregateData=true` body, or why there is none. */
function watermarkOf(body: string): Watermark | string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return 'GET /stats answered a body that is not JSON';
  }
  const data = (json as { data?: unknown } | null)?.data;
  const record = Array.isArray(data) ? data[0] : undefined;
  if (typeof record !== 'object' || record === null)
    return 'GET /stats answered no aggregated stats record';
  const r = record as Record<string, unknown>;
  return Object.fromEntries(WATERMARK_FIELDS.map((f) => [f, r[f]])) as unknown as Watermark;
}

/** The credentials whose watermark could be read, by label. */
export function readable(marks: Watermarks): string[] {
  return [...marks].filter(([, w]) => typeof w !== 'string').map(([label]) => label);
}

/**
 * How `after` differs from `before`, in words (`undefined` when every watermark readable in
 * `before` is equal in `after`): the first moved field of each credential, e.g. `stats
 * watermark of team1-admin moved: totalOpens 351 -> 354` (the first two credentials named, the
 * others counted). A watermark readable before and not
 * after counts as moved (nothing shows the data was still); credentials unreadable in `before`
 * are not watched.
 */
export function watermarkMove(before: Watermarks, after: Watermarks): string | undefined {
  const moves: string[] = [];
  for (const [label, b] of before) {
    if (typeof b === 'string') continue;
    const a = after.get(label);
    if (a === undefined || typeof a === 'string') {
      moves.push(`stats watermark of ${label} could not be read again (${a ?? 'not read'})`);
      continue;
    }
    const field = WATERMARK_FIELDS.find((f) => !Object.is(b[f], a[f]));
    if (field !== undefined)
      moves.push(
        `stats watermark of ${label} moved: ${field} ${show(b[field])} -> ${show(a[field])}`,
      );
  }
  if (moves.length === 0) return undefined;
  const more = moves.length - MOVES_NAMED;
  return more > 0
    ? `${moves.slice(0, MOVES_NAMED).join('; ')}; and those of ${more} more credential${more === 1 ? '' : 's'}`
    : moves.join('; ');
}

/** Credentials whose move {@link watermarkMove} names; the others are counted. */
const MOVES_NAMED = 2;

function show(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
}
