import type { Check } from './api.ts';
import { checks as auth } from './auth.ts';
import { checks as input } from './input.ts';
import { checks as laws } from './laws.ts';
import { checks as methods } from './methods.ts';
import { checks as oracle } from './oracle.ts';
import { checks as pagination } from './pagination.ts';
import { checks as rate } from './ratelimit.ts';
import { checks as relations } from './relations.ts';
import { checks as relationsContacts } from './relations-contacts.ts';
import { checks as schema } from './schema.ts';
import { checks as scope } from './scope.ts';

/**
 * Every check of the suite, in run order. The rate-limit checks run last: one of them reads
 * every exchange of the run, and the burst must not disturb the others.
 */
export const ALL_CHECKS: readonly Check[] = [
  ...schema,
  ...laws,
  ...relations,
  ...relationsContacts,
  ...pagination,
  ...input,
  ...auth,
  ...scope,
  ...oracle,
  ...methods,
  ...rate,
];

export * from './api.ts';
