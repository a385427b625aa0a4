import { leaveOut } from './context/caller-lists.ts';
import { hashString } from './context/services.ts';
import type { CheckContext } from './context.ts';
import { type Coverage, DEFAULT_MAX_CALLERS, seededOrder } from './coverage.ts';
import { type Check, runsPerCaller, type SuiteCredential } from './define.ts';
import { CallerListTooLong } from './failure.ts';

/**
 * The callers a check runs as in blind mode (spec §4: every rule of the profile holds for
 * every caller, and what a caller sees depends on its team, its account type and whether it
 * has a group): the run's primary credential first, then one credential of every other
 * distinct (team, account type, with/without a group) the profile declares.
 */

/** With or without a group, or not known (an admin without a declared `memberID`). */
export type GroupHolding = 'group' | 'no group' | 'unknown';

/** A declared caller's class: its team, its account type and whether it has a group. */
export interface CallerClass {
  readonly teamID: string;
  readonly accountType: 'admin' | 'manager' | 'user';
  readonly group: GroupHolding;
}

/** Whether a member record names a group (`memberWithoutGroup` omits or empties the fields). */
function inGroup(m: { readonly groupID?: string | undefined }): boolean {
  return m.groupID !== undefined && m.groupID !== '';
}

/**
 * The class of a declared credential (`undefined` when it lacks `teamID` or `accountType`),
 * reading whether it has a group from the members it sees: its own record when `memberID` is
 * declared; else a user's one member, and for a manager any member in a group (a manager
 * without a group sees only self, spec §4); an admin's group is then `unknown`.
 */
export function callerClass(
  credential: SuiteCredential,
  members: readonly { readonly memberID: string; readonly groupID?: string | undefined }[],
): CallerClass | undefined {
  const { teamID, accountType } = credential;
  if (teamID === undefined || accountType === undefined) return undefined;
  const self =
    credential.memberID === undefined
      ? undefined
      : members.find((m) => m.memberID === credential.memberID);
  let group: GroupHolding = 'unknown';
  if (self !== undefined) group = inGroup(self) ? 'group' : 'no group';
  else if (accountType === 'user' && members.length === 1)
    group = inGroup(members[0]!) ? 'group' : 'no group';
  else if (accountType === 'manager' && members.length > 0)
    group = members.some(inGroup) ? 'group' : 'no group';
  return { teamID, accountType, group };
}

/** A caller class as one key. */
function keyOf(c: CallerClass | undefined, credential: SuiteCredential): string {
  return c === undefined
    ? `undeclared ${credential.authId}`
    : JSON.stringify([c.teamID, c.accountType, c.group]);
}

/**
 * One credential of every distinct caller class ({@link callerClass}): the primary first,
 * then the first declared credential (profile order) of every other class; credentials
 * without `teamID` and `accountType` are left out (the primary aside). Reads each declared
 * credential's member list (cached for the run: the scope checks and discovery read it too);
 * a list that cannot be read leaves the group `unknown`. Only the primary with one credential.
 */
export async function distinctCallers(ctx: CheckContext): Promise<SuiteCredential[]> {
  return (await classified(ctx)).map((c) => c.credential);
}

/** A caller of {@link distinctCallers} with its class (`undefined`: an undeclared primary). */
export interface ClassifiedCaller {
  readonly credential: SuiteCredential;
  readonly class: CallerClass | undefined;
}

/** {@link distinctCallers} with each caller's class. */
async function classified(ctx: CheckContext): Promise<ClassifiedCaller[]> {
  if (ctx.credentials.length < 2) return [{ credential: ctx.primary, class: undefined }];
  // reading who the callers are compares nothing: its walks are not the check's comparisons
  const comparisons = ctx.scope.comparisons;
  try {
    return await classify(ctx);
  } finally {
    ctx.scope.comparisons = comparisons;
  }
}

/** {@link classified} with two credentials or more. */
async function classify(ctx: CheckContext): Promise<ClassifiedCaller[]> {
  const seen = new Set<string>();
  const out: ClassifiedCaller[] = [];
  for (const credential of [ctx.primary, ...ctx.credentials]) {
    if (out.some((c) => c.credential === credential)) continue;
    const declared = credential.teamID !== undefined && credential.accountType !== undefined;
    if (!declared && credential !== ctx.primary) continue;
    let members: { memberID: string; groupID?: string | undefined }[] = [];
    if (declared)
      members = await ctx.walk('teams.list', { credential }).then(
        (w) => w.records,
        () => [],
      );
    const cls = callerClass(credential, members);
    const key = keyOf(cls, credential);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ credential, class: cls });
  }
  return out;
}

/** The callers a run judges, and what they cover of the distinct callers declared. */
export interface CallerSample {
  /** Distinct callers judged, primary first, in the order of {@link distinctCallers}. */
  readonly callers: readonly SuiteCredential[];
  /** Present when the callers are a sample: e.g. 12 of 30 callers, with what it covers. */
  readonly coverage?: Coverage | undefined;
}

/** A caller's kind: its account type and group holding, whatever its team. */
function kindOf(c: ClassifiedCaller): string {
  return c.class === undefined ? 'undeclared' : `${c.class.accountType} ${c.class.group}`;
}

/**
 * The callers of {@link distinctCallers} the run judges (the bound on callers, a policy of
 * the suite like `--sample-above`: docs/conformance.md "Several credentials in blind mode").
 * At most the run's `maxCallers` (`--max-callers`, default `DEFAULT_MAX_CALLERS`): all of
 * them when there are no more; else a seeded sample of that many: the primary first, then one
 * caller of every (account type, group holding) kind declared that the primary's is not, then
 * the others in an order the run's seed picks, until the bound is reached. The run's seed
 * alone picks them, so every check of a run judges the same callers, at any concurrency.
 * Returns them in the order of {@link distinctCallers}, with the coverage when sampled; in
 * fixture mode, all of them.
 */
export async function sampledCallers(ctx: CheckContext): Promise<CallerSample> {
  const all = await classified(ctx);
  // fixture mode's exact answers judge every caller: its caller comparisons take them all
  const max = ctx.mode === 'blind' ? (ctx.env.maxCallers ?? DEFAULT_MAX_CALLERS) : Infinity;
  return pickCallers(all, max, ctx.env.seed ?? 0);
}

/**
 * {@link sampledCallers} over callers already classified (primary first): all of them when
 * at most `max`, else `max` of them picked by `seed` (any integer), with the coverage.
 */
export function pickCallers(
  all: readonly ClassifiedCaller[],
  max: number,
  seed: number,
): CallerSample {
  if (all.length <= max) return { callers: all.map((c) => c.credential) };
  const [primary, ...others] = all;
  const order = seededOrder(others, seed);
  const kinds = new Set(all.map(kindOf));
  const covered = new Set([kindOf(primary!)]);
  const chosen = new Set<ClassifiedCaller>([primary!]);
  for (const c of order)
    if (chosen.size < max && !covered.has(kindOf(c))) {
      chosen.add(c);
      covered.add(kindOf(c));
    }
  for (const c of order) if (chosen.size < max) chosen.add(c);
  const detail =
    covered.size === kinds.size
      ? 'every account type and group holding covered'
      : `${covered.size} of ${kinds.size} account type and group holdings covered`;
  return {
    callers: all.filter((c) => chosen.has(c)).map((c) => c.credential),
    coverage: {
      subject: 'callers',
      verb: 'as',
      verified: chosen.size,
      of: all.length,
      sampled: true,
      detail,
    },
  };
}

/** Records the callers' coverage on the check once (several helpers of one check ask). */
function coverCallers(ctx: CheckContext, sample: CallerSample): void {
  if (sample.coverage !== undefined && !ctx.coverage.some((c) => c.subject === 'callers'))
    ctx.covered(sample.coverage);
}

/**
 * The callers a check judges, recording their coverage when sampled: the sampled callers
 * of {@link sampledCallers} when the bound leaves some out, else every credential the profile
 * declares (`ctx.credentials`, in profile order: what checks asking as every credential or
 * pairing credentials read with no bound). Used by the checks that pair callers (scope) or
 * ask as every credential themselves, so both sides of a pair come from the same sample.
 */
export async function judgedCredentials(ctx: CheckContext): Promise<readonly SuiteCredential[]> {
  // no more credentials than the bound: no more classes either, and nothing is read to know
  const max = ctx.env.maxCallers ?? DEFAULT_MAX_CALLERS;
  if (ctx.mode !== 'blind' || ctx.credentials.length <= max) return ctx.credentials;
  const sample = await sampledCallers(ctx);
  if (sample.coverage === undefined) return ctx.credentials;
  coverCallers(ctx, sample);
  return sample.callers;
}

/**
 * The distinct callers a check judges ({@link sampledCallers}), recording their coverage on
 * the check when sampled: for checks that compare callers themselves.
 */
export async function judgedCallers(ctx: CheckContext): Promise<readonly SuiteCredential[]> {
  const sample = await sampledCallers(ctx);
  coverCallers(ctx, sample);
  return sample.callers;
}

/**
 * Runs `check` as every caller of {@link sampledCallers} (their coverage recorded when
 * sampled) when it runs per caller ({@link runsPerCaller}) in blind mode and there are
 * several, else once as the primary
 * (unchanged; fixture mode's oracle checks judge every caller's exact answers). Each
 * caller gets an equal share of the property budget (at least one run) and a seed of its own
 * (the primary's is the check's); its failures name it. A caller for whom the check does not
 * apply (a `ctx.skip`, e.g. no group visible, or a list too long to read whole as it:
 * caller-lists.ts) is passed over; the check is skipped only when it applies to no caller.
 */
export async function runPerCaller(check: Check, ctx: CheckContext): Promise<void> {
  if (!runsPerCaller(check) || ctx.mode !== 'blind' || ctx.credentials.length < 2)
    return check.run(ctx);
  const sample = await sampledCallers(ctx);
  const callers = sample.callers;
  if (callers.length < 2) return check.run(ctx);
  coverCallers(ctx, sample);
  const numRuns = Math.max(1, Math.ceil(ctx.numRuns / callers.length));
  const skipped: string[] = [];
  for (const [i, credential] of callers.entries()) {
    const seedOffset = i === 0 ? 0 : hashString(credential.label);
    const outcome = await ctx.asCaller(
      { credential, numRuns, seedOffset, index: i, of: callers.length },
      async () => {
        try {
          await check.run(ctx);
        } catch (e) {
          // a list too long to read whole as this caller: the caller is left out, and said so
          if (e instanceof CallerListTooLong) leaveOut(ctx, e);
          throw e;
        }
      },
    );
    if (outcome.skipped !== undefined) skipped.push(`as ${credential.label}: ${outcome.skipped}`);
  }
  if (skipped.length === callers.length) ctx.skip(skipped.join('; '));
}
