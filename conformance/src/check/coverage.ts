import fc from 'fast-check';

/**
 * Sampling of long lists and the coverage a check states (the suite's policy, not a rule of
 * the profile; docs/conformance.md "Long lists: seeded samples, coverage stated").
 *
 * A law whose input list holds more records than the run's bound (`--sample-above`,
 * {@link DEFAULT_SAMPLE_ABOVE}) is verified on a seeded sample of that list: whole pages at
 * sampled cursors, about the bound's number of records. The same seed picks the same pages
 * whatever the concurrency (the pick depends on the seed, the check, the list and its total
 * only). At or below the bound every record is verified, as without sampling.
 */

/**
 * Records of one list a check verifies whole by default (`--sample-above`,
 * `TAGTRACK_SAMPLE_ABOVE`, `RunOptions.sampleAbove`): above it, a seeded sample of about as
 * many records (whole pages). The canonical dataset's longest list (about 400 contacts, 300
 * tags) is far below it, so a run of the canonical dataset verifies every record.
 */
export const DEFAULT_SAMPLE_ABOVE = 5000;

/**
 * Distinct callers a blind run judges its per-caller checks as, by default (`--max-callers`,
 * `TAGTRACK_MAX_CALLERS`, `RunOptions.maxCallers`): with more caller classes declared, a
 * seeded sample of this many (callers.ts `sampledCallers`). The canonical profile declares
 * 10 classes and the reference server at medium prints 12, so both are judged whole.
 */
export const DEFAULT_MAX_CALLERS = 12;

/**
 * What a check verified of one kind of record (`subject`, a plural noun: `contacts`,
 * `tags`, `event groups`): `verified` of `of`, and whether a seeded sample was taken (`sampled`:
 * `verified < of` because the list was longer than the bound). Entries of the same subject
 * add up (a check that samples the contacts of three callers states one line).
 */
export interface Coverage {
  readonly subject: string;
  readonly verified: number;
  readonly of: number;
  readonly sampled: boolean;
  /** The word before the counts (default `verified`; `as` for callers: `as 12 of 30 callers`). */
  readonly verb?: string | undefined;
  /** What the sample is sure to hold, after `seeded sample; ` (e.g. `every account type … covered`). */
  readonly detail?: string | undefined;
}

/** `1,234`: a count in the reports' words (en-US digit groups). */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * One coverage entry in words: `verified 200 of 48,113 contacts (seeded sample)`, `as 12 of
 * 30 callers (seeded sample; every account type and group holding covered)`, or `verified
 * all 300 tags` when nothing was sampled.
 */
export function coverageWords(c: Coverage): string {
  const verb = c.verb ?? 'verified';
  return c.sampled
    ? `${verb} ${count(c.verified)} of ${count(c.of)} ${c.subject} (seeded sample${c.detail === undefined ? '' : `; ${c.detail}`})`
    : `${verb} all ${count(c.of)} ${c.subject}`;
}

/**
 * Entries of the same subject and verb added up, in first-seen order (see {@link Coverage}):
 * `as 12 of 30 callers` and `whole lists as 8 of 12 callers` stay apart.
 */
export function mergeCoverage(entries: readonly Coverage[]): Coverage[] {
  const bySubject = new Map<string, Coverage>();
  for (const e of entries) {
    const key = JSON.stringify([e.verb ?? 'verified', e.subject]);
    const seen = bySubject.get(key);
    bySubject.set(
      key,
      seen === undefined
        ? e
        : {
            subject: e.subject,
            verified: seen.verified + e.verified,
            of: seen.of + e.of,
            sampled: seen.sampled || e.sampled,
            ...(seen.verb === undefined ? {} : { verb: seen.verb }),
            ...(seen.detail === undefined ? {} : { detail: seen.detail }),
          },
    );
  }
  return [...bySubject.values()];
}

/**
 * `k` distinct integers of `0 .. n - 1`, ascending, picked by `seed` (fast-check's
 * generator: the same seed and arguments give the same picks on any machine); all of them
 * when `k >= n`. `first` (default none) is always among the picks.
 */
export function seededPicks(n: number, k: number, seed: number, first?: number): number[] {
  if (k >= n) return Array.from({ length: n }, (_, i) => i);
  const rest = Array.from({ length: n }, (_, i) => i).filter((i) => i !== first);
  const want = first === undefined ? k : k - 1;
  const [picked] = fc.sample(fc.shuffledSubarray(rest, { minLength: want, maxLength: want }), {
    seed,
    numRuns: 1,
  });
  return [...(first === undefined ? [] : [first]), ...(picked ?? [])].sort((a, b) => a - b);
}

/**
 * The cursors of the pages a sampled read of a list of `total` records fetches, at
 * `pageSize` records a page: page 0 (already read to learn the total) and seeded others,
 * `ceil(bound / pageSize)` pages in all (at least 1), ascending. Every page when the list has
 * at most `bound` records.
 */
export function sampledCursors(
  total: number,
  pageSize: number,
  bound: number,
  seed: number,
): number[] {
  const pages = Math.ceil(total / pageSize);
  if (total <= bound || pages <= 1) return Array.from({ length: pages }, (_, i) => i * pageSize);
  const k = Math.max(1, Math.ceil(bound / pageSize));
  return seededPicks(pages, k, seed, 0).map((p) => p * pageSize);
}

/**
 * `k` items of `items` picked by `seed` (in their order), all when there are at most `k`:
 * a seeded sample of records already read (see {@link seededPicks}).
 */
export function seededSample<T>(items: readonly T[], k: number, seed: number): T[] {
  if (items.length <= k) return [...items];
  return seededPicks(items.length, k, seed).map((i) => items[i]!);
}

/**
 * Every item of `items` once, in an order picked by `seed` (fast-check's generator: the same
 * seed and items give the same order on any machine).
 */
export function seededOrder<T>(items: readonly T[], seed: number): T[] {
  if (items.length < 2) return [...items];
  const [order] = fc.sample(
    fc.shuffledSubarray([...items], { minLength: items.length, maxLength: items.length }),
    { seed, numRuns: 1 },
  );
  return order ?? [...items];
}
