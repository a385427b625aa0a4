import type { EndpointId, Law } from '@tagtrack/core';
import type { CheckContext } from './context.ts';
import type { CheckEnv } from './types.ts';

export type { CheckEnv, Oracle, SuiteCredential } from './types.ts';

/**
 * Requirement areas, in report order. An area is its requirement ids' prefix in lower case,
 * and its checks live in `checks/<area>.ts` (or `checks/<area>/` when they outgrow one file):
 * `AUTH-401-MISSING` is area `auth`, folder `checks/auth/`.
 */
export const AREAS = [
  'schema',
  'agg',
  'rel',
  'page',
  'input',
  'err',
  'auth',
  'scope',
  'oracle',
  'rate',
  'method',
] as const;
export type Area = (typeof AREAS)[number];

/** A requirement id prefix: an area in upper case (`AGG`, `REL`, …). */
export type Prefix = Uppercase<Area>;

/** A requirement id: `PREFIX-WORDS`, upper case, e.g. `AUTH-401-MISSING`. */
export type RequirementId = `${Prefix}-${string}`;

/** What each area holds, in domain words (README of the checks, report headings). */
export const AREA_TITLES: Readonly<Record<Area, string>> = {
  schema: 'bodies and content types of every endpoint in every format',
  agg: 'laws of the counters on live responses',
  rel: 'metamorphic and cross-endpoint relations',
  page: 'pagination: walking, cursors, paging ends, URLs, headers, order',
  input: 'bad input answers 400 or 404, never a 5xx',
  err: 'the error body',
  auth: 'authentication',
  scope: 'scoping by team and account type',
  oracle: 'exact answers against the canonical dataset (fixture mode)',
  rate: 'the declared rate limit',
  method: 'methods other than GET and HEAD (opt-in)',
};

/**
 * Area names of 0.1, accepted by `--only` for one release (they select what they selected):
 * AGG was `laws`, REL `relations`, PAGE `pagination`, METHOD `methods`, and ERR-BODY-JSON
 * was in `input`.
 * @deprecated use the area names of {@link AREAS}; these aliases go in the next release.
 */
export const FORMER_AREAS: Readonly<Partial<Record<Area, string>>> = {
  agg: 'laws',
  rel: 'relations',
  page: 'pagination',
  err: 'input',
  method: 'methods',
};

/**
 * The area of a check: one of {@link AREAS}, or a vendor's own prefix in lower case (a custom
 * check `ACME-VERSION-HEADER` is area `acme`; reports list it like a built-in area).
 */
export type CheckArea = Area | (string & {});

/** What a requirement id looks like: upper-case words joined by `-`, at least two. */
export const REQUIREMENT_ID = /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/;

/** The area of a requirement id (its prefix in lower case), or undefined for another prefix. */
export function areaOf(id: string): Area | undefined {
  const prefix = id.slice(0, id.indexOf('-')).toLowerCase();
  return (AREAS as readonly string[]).includes(prefix) ? (prefix as Area) : undefined;
}

/**
 * A check: plain data plus an async `run(ctx)`.
 *
 * ```ts
 * export const prefix = 'REL';
 * export const checks = [
 *   defineCheck({
 *     id: 'REL-TAG-SUBJECT-KEPT',           // requirement id: the file's prefix, then words
 *     title: 'a tag keeps its subject in every list',
 *     clause: 'spec §10',               // where the requirement comes from
 *     endpoints: ['teams.tags'],            // for the coverage matrix
 *     async run(ctx) {
 *       const tags = await ctx.records('teams.tags');
 *       await ctx.each(tags, (t) => {       // a Violation per bad tag, capped
 *         if (bad(t)) throw new Violation(`… in domain words …`, { kind: 'value' });
 *       });
 *       // or ctx.fail(message, { kind, exchange }) to record and go on
 *       // or: await ctx.property(arb, async (value) => { … throw new Violation(…) … })
 *     },
 *   }),
 * ];
 * ```
 * A check of a law of core (`LAWS`) is built with {@link lawCheck} instead: the law gives its
 * id, title, clause and endpoints, and `run` applies `law.check`.
 * Outcome: `pass` when run resolves with no failure recorded; `fail` when a failure was
 * recorded or a {@link Violation} escaped; `error` for any other exception (a suite or
 * connection problem); `skip` when `skipIf` returns a reason or `ctx.skip(reason)` is called.
 */
export interface Check {
  /** Requirement id, e.g. `AUTH-401-MISSING`: unique, upper case, area prefix first. */
  readonly id: string;
  /** Requirement area: the id's prefix in lower case (set by {@link defineCheck}). */
  readonly area: CheckArea;
  readonly title: string;
  /** The clause the requirement traces to, e.g. `spec §10` or `source: Endpoints`. */
  readonly clause: string;
  /** Endpoints the check exercises (the report's coverage matrix). */
  readonly endpoints: readonly EndpointId[];
  /** Whether the check is required for the run to pass (default true). */
  readonly required?: boolean;
  /**
   * When the check runs, lower first (default: its area's {@link AREA_PRIORITY}): with
   * `--max-requests` the most valuable checks spend the budget first.
   */
  readonly priority?: number;
  /**
   * Runs alone, once every check started before it has finished, and no other starts until it
   * ends (default: true for the `rate` area, whose burst passes the rate limit and whose
   * checks read every exchange of the run).
   */
  readonly exclusive?: boolean;
  /**
   * Reads whole event lists and keeps what it derives from them while it runs: no other such
   * check runs at the same time (others do), so a run holds one check's copies of a long
   * list at a time, not one per check running at once (default false).
   */
  readonly wholeLists?: boolean;
  /**
   * Whether, in blind mode with several declared credentials, the check runs once as each
   * distinct declared caller (one credential of every team, account type and with/without a
   * group, `callers.ts`), each with its share of the property budget, its failures naming
   * the caller (default: true for the `agg` and `rel` areas, whose laws and relations hold
   * for every caller; false for a check that asks as several credentials itself).
   */
  readonly perCaller?: boolean;
  /** A reason the check does not apply to this profile/mode (reported as skip), or undefined. */
  skipIf?(env: CheckEnv): string | undefined;
  run(ctx: CheckContext): Promise<void>;
}

/**
 * A check as written: its id starts with an area's prefix (a built-in {@link RequirementId}),
 * or, for a vendor's own check, with the vendor's prefix (`ACME-VERSION-HEADER`); its area
 * follows from it.
 */
export type CheckSpec = Omit<Check, 'area' | 'id'> & {
  readonly id: RequirementId | (string & {});
};

/**
 * Gives a check literal its type and its area: the id's prefix in lower case, a built-in
 * area of {@link AREAS} or a custom one. Throws an `Error` naming the id when it is not upper
 * case words joined by `-` ({@link REQUIREMENT_ID}).
 */
export function defineCheck(spec: CheckSpec): Check {
  if (!REQUIREMENT_ID.test(spec.id))
    throw new Error(
      `requirement id ${JSON.stringify(spec.id)} must be upper-case words joined by "-", its prefix first (e.g. ACME-VERSION-HEADER)`,
    );
  return { ...spec, area: areaOf(spec.id) ?? spec.id.slice(0, spec.id.indexOf('-')).toLowerCase() };
}

/**
 * How a check applies a law: everything of a {@link Check} but what the law states (`id`,
 * `title`, `clause`, `endpoints`). `reads` names further endpoints the check reads to gather
 * the law's input (added to the law's endpoints for the coverage matrix); `also` words what
 * else the check judges beside the law (appended to the law's title).
 */
export type LawCheckSpec = Omit<CheckSpec, 'id' | 'title' | 'clause' | 'endpoints'> & {
  readonly reads?: readonly EndpointId[];
  readonly also?: string;
};

/** The law each check built by {@link lawCheck} applies. */
const LAW_OF = new WeakMap<Check, Law<never>>();

/**
 * The check that applies core's law `law` (`LAWS` of @tagtrack/core, docs/spec.md §5, §10):
 * its id, title, clause and endpoints are the law's, so a law is written once and the suite
 * names no law id of its own. `run` applies `law.check` to live records. Throws like
 * {@link defineCheck} for an id that is no requirement id.
 */
export function lawCheck<In>(law: Law<In>, spec: LawCheckSpec): Check {
  const { reads = [], also, ...rest } = spec;
  const check = defineCheck({
    ...rest,
    id: law.id,
    title: also === undefined ? law.title : `${law.title}; also: ${also}`,
    clause: law.clause,
    endpoints: [...new Set([...law.endpoints, ...reads])],
  });
  LAW_OF.set(check, law);
  return check;
}

/** The law a check applies when {@link lawCheck} built it, else `undefined`. */
export function lawOf(check: Check): Law<never> | undefined {
  return LAW_OF.get(check);
}

/**
 * Run order of the areas, lower first (see {@link Check.priority}): exact answers first, then
 * scoping, counter laws, relations (what blind mode judges answers by) and authentication,
 * then bodies, errors and paging, then the input fuzzing and method probes; the rate-limit
 * checks last (they read the whole run). Within an area, catalogue order.
 * A vendor's own area runs at 5.
 */
export const AREA_PRIORITY: Readonly<Record<Area, number>> = {
  oracle: 0,
  scope: 1,
  agg: 1,
  auth: 1,
  rel: 1,
  schema: 2,
  err: 2,
  page: 2,
  input: 3,
  method: 3,
  rate: 9,
};

/** A check's priority: its own, else its area's {@link AREA_PRIORITY}, else 5. */
export function priorityOf(check: Pick<Check, 'area' | 'priority'>): number {
  return check.priority ?? AREA_PRIORITY[check.area as Area] ?? 5;
}

/** Whether a check runs once per distinct declared caller (see {@link Check.perCaller}). */
export function runsPerCaller(check: Pick<Check, 'area' | 'perCaller'>): boolean {
  return check.perCaller ?? (check.area === 'agg' || check.area === 'rel');
}

/** Whether a check reads whole event lists (see {@link Check.wholeLists}). */
export function readsWholeLists(check: Pick<Check, 'wholeLists'>): boolean {
  return check.wholeLists ?? false;
}

/** Whether a check runs alone (see {@link Check.exclusive}). */
export function runsAlone(check: Pick<Check, 'area' | 'exclusive'>): boolean {
  return check.exclusive ?? check.area === 'rate';
}
