import { readFile } from 'node:fs/promises';
import { AccountType, DEFAULT_PAGE_SIZE, DEFAULT_PAGING_END, PagingEnd, Rtn } from '@tagtrack/core';
import * as z from 'zod';
import { CURRENT_REVISION, OLDEST_REVISION } from './revisions.ts';

/**
 * One credential pair the suite may use. `teamID`, `accountType` and `memberID` are optional
 * in blind mode; fixture mode uses them to pick the admin/manager/user callers of each team
 * (spec §3, §4).
 */
export const ProfileCredential = z
  .object({
    label: z.string().min(1),
    authId: z.string().min(1),
    accessKey: z.string().min(1),
    teamID: z.string().min(1).optional(),
    accountType: AccountType.optional(),
    memberID: z.string().min(1).optional(),
  })
  .strict();
export type ProfileCredential = z.infer<typeof ProfileCredential>;

/**
 * A rate limit an implementation declares (spec §7, option): at most `limit` requests
 * per `windowMs` milliseconds per credential. `retryAfter`: whether its 429 carries
 * `Retry-After` (the reference profile does).
 */
export const ProfileRateLimit = z
  .object({
    limit: z.int().positive(),
    windowMs: z.int().positive(),
    retryAfter: z.boolean().default(true),
  })
  .strict();
export type ProfileRateLimit = z.infer<typeof ProfileRateLimit>;

/**
 * Which options of the reference profile (docs/spec.md) an implementation chose (the "profile"). Every field has the
 * reference profile `tagtrack/v1` as its default, so `{}` is the reference profile.
 *
 * - `auth`: `hmac-sha1` (spec §3) or `bearer` (`Authorization: Bearer <accessKey>`).
 * - `pageSize`: records per page (spec §5), default 250.
 * - `pagingEnd`: how a list ends (spec §5 Revision 2): `no-content` (default: the last
 *   non-empty page links to `cursor=total`, a page without records answers 204 with an empty
 *   body) or `empty-page` (`nextURL` null on the last page, 200 `data: []` past the end).
 * - `memberWithoutGroup`: `omit` the group fields or send them `empty` (spec §9).
 * - `rateLimit`: the declared limit, or `null` for none (spec §7).
 * - `rtn`: the supported response formats (spec §8); checks of others are skipped.
 * - `credentials`: credential pairs; fixture mode needs the canonical ones.
 * - `revision`: the revision of the profile the implementation is certified against (spec
 *   §12), {@link OLDEST_REVISION}..{@link CURRENT_REVISION}; default the current one. A rule
 *   changed since is judged as the pinned revision stated it (revisions.ts).
 * - `maxInconclusive`, `maxSkipped`: the most inconclusive or skipped checks a passing run may
 *   have (the run's gates; the options `--max-inconclusive`/`--max-skipped` override them);
 *   absent: no bound.
 * - `require`: requirement ids that must pass, not merely not fail (a skip or an
 *   inconclusive fails the run); joined with `--require`.
 */
export const Profile = z
  .object({
    name: z.string().min(1).default('tagtrack/v1'),
    revision: z
      .int()
      .min(
        OLDEST_REVISION,
        `Revision 1 is no longer judged: the oldest revision this suite judges is ${OLDEST_REVISION} (spec §12 lists what changed)`,
      )
      .max(
        CURRENT_REVISION,
        `this suite states revisions up to ${CURRENT_REVISION}; upgrade the suite to judge a newer one`,
      )
      .default(CURRENT_REVISION),
    auth: z.enum(['hmac-sha1', 'bearer']).default('hmac-sha1'),
    pageSize: z.int().positive().default(DEFAULT_PAGE_SIZE),
    pagingEnd: PagingEnd.default(DEFAULT_PAGING_END),
    memberWithoutGroup: z.enum(['omit', 'empty']).default('omit'),
    rateLimit: ProfileRateLimit.nullable().default(null),
    rtn: z.array(Rtn).min(1).default(['json', 'text', 'html']),
    credentials: z.array(ProfileCredential).default([]),
    maxInconclusive: z.int().nonnegative().optional(),
    maxSkipped: z.int().nonnegative().optional(),
    require: z.array(z.string().min(1)).optional(),
  })
  .strict();
export type Profile = z.infer<typeof Profile>;
/** The profile as written in a file (defaults not yet applied). */
export type ProfileInput = z.input<typeof Profile>;

/**
 * A profile file or value failed validation; `message` is one line naming each offending
 * field by its path (`credentials[0].accessKey: …`), an unknown key with the known key it is
 * closest to (`unknown key "pagesize" (did you mean "pageSize"?)`).
 */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';
  readonly code = 'invalid_profile' as const;
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(message);
  }
}

/** Validates a profile value; throws {@link ProfileError} naming each offending field. */
export function parseProfile(value: unknown, source = 'profile'): Profile {
  const parsed = Profile.safeParse(value);
  if (!parsed.success) {
    throw new ProfileError(
      source,
      `invalid ${source}: ${parsed.error.issues.map(describeIssue).join('; ')}`,
    );
  }
  return parsed.data;
}

/** A path as `credentials[0].accessKey` (the profile root: empty). */
function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

/** The keys the object at `path` of a profile may have: the profile's, a credential's or the rate limit's. */
function knownKeys(path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return Object.keys(Profile.shape);
  if (path[0] === 'credentials' && path.length === 2) return Object.keys(ProfileCredential.shape);
  if (path[0] === 'rateLimit' && path.length === 1) return Object.keys(ProfileRateLimit.shape);
  return [];
}

/** One zod issue in words, prefixed by its path; an unknown key with its did-you-mean. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const at = pathText(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(issue.path);
    return issue.keys
      .map((key) => {
        const near = closest(key, known);
        return `${at === '' ? '' : `${at}: `}unknown key ${JSON.stringify(key)}${near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`}`;
      })
      .join('; ');
  }
  return `${at === '' ? 'profile' : at}: ${issue.message.replace(/\s*\n\s*/g, ' ')}`;
}

/**
 * The known word closest to `word`: the same word in another letter case, else the one at the
 * smallest edit distance when that is at most a third of the word's length (at least 1);
 * undefined when none is that close.
 */
export function closest(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance (insertions, deletions, substitutions of UTF-16 code units). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}

/** Reads and validates a JSON profile file. Throws {@link ProfileError} (unreadable, not JSON, invalid). */
export async function loadProfile(file: string): Promise<Profile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ProfileError(file, `cannot read profile ${file}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ProfileError(file, `profile ${file} is not JSON: ${(e as Error).message}`);
  }
  return parseProfile(json, `profile ${file}`);
}
