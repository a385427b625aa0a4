import type { Check, Prefix } from '../check/define.ts';
import * as agg from './agg.ts';
import * as auth from './auth/index.ts';
import * as err from './err.ts';
import * as input from './input/index.ts';
import * as method from './method.ts';
import * as oracle from './oracle.ts';
import * as page from './page/index.ts';
import * as rate from './rate.ts';
import * as rel from './rel/index.ts';
import * as schema from './schema.ts';
import * as scope from './scope/index.ts';

/** A module of checks: one per requirement area, `checks/<area>.ts` or `checks/<area>/index.ts`. */
export interface CheckModule {
  /** The requirement id prefix of every check in the module: its area in upper case. */
  readonly prefix: Prefix;
  readonly checks: readonly Check[];
}

/**
 * The check modules in run order. The rate-limit checks run last: one of them reads every
 * exchange of the run, and the burst must not disturb the others.
 */
export const CHECK_MODULES: readonly CheckModule[] = [
  schema,
  agg,
  rel,
  page,
  input,
  err,
  auth,
  scope,
  oracle,
  method,
  rate,
] satisfies readonly CheckModule[];

/** Every check of the suite, in run order. */
export const ALL_CHECKS: readonly Check[] = CHECK_MODULES.flatMap((m) => m.checks);
