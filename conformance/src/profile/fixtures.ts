import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import type { ProfileInput } from './profile.ts';

/**
 * The reference profile `tagtrack/v1` with the credentials of the canonical dataset (one
 * admin, manager and user per team): what fixtures/canonical-profile.json holds.
 */
export function canonicalProfile(): ProfileInput {
  return {
    name: 'tagtrack/v1',
    auth: 'hmac-sha1',
    pageSize: 250,
    pagingEnd: 'no-content',
    memberWithoutGroup: 'omit',
    rateLimit: null,
    rtn: ['json', 'text', 'html'],
    credentials: CANONICAL_CREDENTIALS.map((c) => ({
      label: c.label,
      authId: c.authId,
      accessKey: c.accessKey,
      teamID: c.teamID,
      accountType: c.accountType,
      memberID: c.memberID,
    })),
  };
}
