import { readFile } from 'node:fs/promises';
import { AccountType, DEFAULT_PAGE_SIZE, DEFAULT_PAGING_END, PagingEnd, Rtn } from '@tagtrack/core';
import * as z from 'zod';

/**
 * One credential pair the suite may use. `teamID`, `accountType` and `memberID` are optional
 * in blind mode; fixture mode uses them to pick the admin/manager/user callers of each team
 * (decisions §1, §2).
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
 * A rate limit an implementation declares (decisions §6, option): at most `limit` requests
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
 * - `auth`: `hmac-sha1` (decisions §1) or `bearer` (`Authorization: Bearer <accessKey>`).
 * - `pageSize`: records per page (decisions §3), default 250.
 * - `pagingEnd`: how a list ends (decisions §3 Revision 2): `no-content` (default: the last
 *   non-empty page links to `cursor=total`, a page without records answers 204 with an empty
 *   body) or `empty-page` (`nextURL` null on the last page, 200 `data: []` past the end).
 * - `memberWithoutGroup`: `omit` the group fields or send them `empty` (decisions §8).
 * - `rateLimit`: the declared limit, or `null` for none (decisions §6).
 * - `rtn`: the supported response formats (decisions §7); checks of others are skipped.
 * - `credentials`: credential pairs; fixture mode needs the canonical ones.
 */
export const Profile = z
  .object({
    name: z.string().min(1).default('tagtrack/v1'),
    auth: z.enum(['hmac-sha1', 'bearer']).default('hmac-sha1'),
    pageSize: z.int().positive().default(DEFAULT_PAGE_SIZE),
    pagingEnd: PagingEnd.default(DEFAULT_PAGING_END),
    memberWithoutGroup: z.enum(['omit', 'empty']).default('omit'),
    rateLimit: ProfileRateLimit.nullable().default(null),
    rtn: z.array(Rtn).min(1).default(['json', 'text', 'html']),
    credentials: z.array(ProfileCredential).default([]),
  })
  .strict();
export type Profile = z.infer<typeof Profile>;
/** The profile as written in a file (defaults not yet applied). */
export type ProfileInput = z.input<typeof Profile>;

/** A profile file or value failed validation; `message` names the fields (zod's prettified error). */
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
    throw new ProfileError(source, `invalid ${source}:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
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
