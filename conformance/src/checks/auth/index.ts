import type { Check } from '../../check/define.ts';
import { checks as header } from './header.ts';
import { checks as refusals } from './refusals.ts';
import { checks as signature } from './signature.ts';

/** Requirement id prefix of this folder's checks (area `auth`). */
export const prefix = 'AUTH';

/**
 * Authentication (spec §3): every endpoint refuses missing, malformed and wrong
 * credentials (`refusals.ts`), the signature's hex case, scope and decoded form
 * (`signature.ts`), the Authorization header's forms and name (`header.ts`).
 */
export const checks: readonly Check[] = [...refusals, ...signature, ...header];
