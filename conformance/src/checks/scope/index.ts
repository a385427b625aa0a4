import type { Check } from '../../check/define.ts';
import { checks as filters } from './filters.ts';
import { checks as isolation } from './isolation.ts';
import { checks as outOfScope } from './out-of-scope.ts';

/** Requirement id prefix of this folder's checks (area `scope`). */
export const prefix = 'SCOPE';

/** Scoping by team and account type (spec §4), with the profile's declared credentials. */
export const checks: readonly Check[] = [...isolation, ...outOfScope, ...filters];
