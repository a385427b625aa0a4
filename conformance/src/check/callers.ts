import { hashString } from './context/services.ts';
import type { CheckContext } from './context.ts';
import { type Check, runsPerCaller, type SuiteCredential } from './define.ts';

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
  if (ctx.credentials.length < 2) return [ctx.primary];
  // reading who the callers are compares nothing: its walks are not the check's comparisons
  const comparisons = ctx.scope.comparisons;
  try {
    return await classify(ctx);
  } finally {
    ctx.scope.comparisons = comparisons;
  }
}

/** {@link distinctCallers} with two credentials or more. */
async function classify(ctx: CheckContext): Promise<SuiteCredential[]> {
  const seen = new Set<string>();
  const out: SuiteCredential[] = [];
  for (const credential of [ctx.primary, ...ctx.credentials]) {
    if (out.includes(credential)) continue;
    const declared = credential.teamID !== undefined && credential.accountType !== undefined;
    if (!declared && credential !== ctx.primary) continue;
    let members: { memberID: string; groupID?: string | undefined }[] = [];
    if (declared)
      members = await ctx.walk('teams.list', { credential }).then(
        (w) => w.records,
        () => [],
      );
    const key = keyOf(callerClass(credential, members), credential);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(credential);
  }
  return out;
}

/**
 * Runs `check` as every caller of {@link distinctCallers} when it runs per caller
 * ({@link runsPerCaller}) in blind mode and there are several, else once as the primary
 * (unchanged; fixture mode's oracle checks judge every caller's exact answers). Each
 * caller gets an equal share of the property budget (at least one run) and a seed of its own
 * (the primary's is the check's); its failures name it. A caller for whom the check does not
 * apply (a `ctx.skip`, e.g. no group visible) is passed over; the check is skipped only when
 * it applies to no caller.
 */
export async function runPerCaller(check: Check, ctx: CheckContext): Promise<void> {
  if (!runsPerCaller(check) || ctx.mode !== 'blind' || ctx.credentials.length < 2)
    return check.run(ctx);
  const callers = await distinctCallers(ctx);
  if (callers.length < 2) return check.run(ctx);
  const numRuns = Math.max(1, Math.ceil(ctx.numRuns / callers.length));
  const skipped: string[] = [];
  for (const [i, credential] of callers.entries()) {
    const seedOffset = i === 0 ? 0 : hashString(credential.label);
    const outcome = await ctx.asCaller(
      { credential, numRuns, seedOffset, index: i, of: callers.length },
      () => check.run(ctx),
    );
    if (outcome.skipped !== undefined) skipped.push(`as ${credential.label}: ${outcome.skipped}`);
  }
  if (skipped.length === callers.length) ctx.skip(skipped.join('; '));
}
