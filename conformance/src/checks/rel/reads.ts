import type { StatsSummary } from '@tagtrack/core';
import fc from 'fast-check';
import type { CheckContext, EndpointCall } from '../../check/context.ts';
import { describe, ensure, type FailureKind } from '../../check/failure.ts';
import { addDays, type MemberRecord, sendDays, showStats, statsKey } from '../../check/sample.ts';
import type { Exchange } from '../../http/client.ts';

/** Query pairs as sent. */
export type Pairs = [string, string][];

/** Every tag visible to the primary credential (of one member when `memberID` is given). */
export async function allTags(ctx: CheckContext, memberID?: string, query: Pairs = []) {
  return memberID === undefined
    ? (await ctx.walk('teams.tags', { query })).records
    : (await ctx.walk('teams.memberTags', { pathParams: { memberID }, query })).records;
}

/**
 * Days to draw window bounds from: the send days of the tags the discovery read (every
 * visible tag, or a seeded sample of a list too long to walk), and one day either side of
 * their range. Skips the check when no tag is visible: every window would select nothing, so
 * the relation would only compare empty answers (and a range could not be split). When the
 * discovery could not read the tags, the walk here reports why.
 */
export async function windowDays(ctx: CheckContext): Promise<string[]> {
  const d = await ctx.discover();
  const tags = d.tags.length > 0 || (d.problems ?? []).length === 0 ? d.tags : await allTags(ctx);
  const days = sendDays(tags);
  if (days.length === 0) ctx.skip('no tag is visible to the credential: every window is empty');
  return [addDays(days[0]!, -1), ...days, addDays(days[days.length - 1]!, 1)];
}

/**
 * An optional member id drawn from `ids` (`undefined`: the whole visible team); always
 * `undefined` when no member is visible. `freq` as in `fc.option` (1 in `freq` is undefined).
 */
export function arbMemberID(
  ids: readonly string[],
  freq?: number,
): fc.Arbitrary<string | undefined> {
  if (ids.length === 0) return fc.constant(undefined);
  return fc.option(fc.constantFrom(...ids), { nil: undefined, ...(freq ? { freq } : {}) });
}

/** An optional inclusive window drawn from `days` (start <= end). */
export function arbWindow(days: readonly string[]) {
  return fc
    .tuple(fc.option(fc.constantFrom(...days)), fc.option(fc.constantFrom(...days)))
    .map(([a, b]) => {
      if (a !== null && b !== null && a > b) [a, b] = [b, a];
      return { start: a ?? undefined, end: b ?? undefined };
    });
}

/** The stats endpoints (6, 7, 8, 13): their records are stats summaries. */
export type StatsEndpoint = 'stats.team' | 'stats.teamAlias' | 'stats.group' | 'stats.member';

/**
 * The one record `endpoint` answers with aggregateData=true added to `call`'s query, and the
 * page that carries it. Throws a Violation unless there is exactly one (kind `missing` for
 * none, `extra` for more).
 */
export async function aggregated(
  ctx: CheckContext,
  endpoint: StatsEndpoint,
  call: EndpointCall,
): Promise<{ record: StatsSummary; exchange: Exchange }> {
  const query: Pairs = [...((call.query ?? []) as Pairs), ['aggregateData', 'true']];
  const w = await ctx.walk(endpoint, { ...call, query });
  const ex = w.pages[0]!;
  ensure(
    w.records.length === 1,
    `${describe(ex)}: aggregateData=true gave ${w.records.length} records, expected exactly 1`,
    { kind: w.records.length === 0 ? 'missing' : 'extra', exchange: ex },
  );
  return { record: w.records[0]!, exchange: ex };
}

/**
 * Throws a Violation of `kind` with the violation core's law found (its domain words, after
 * `context` when given), or returns when the law holds (`problem` undefined).
 */
export function obey(
  problem: string | undefined,
  kind: FailureKind,
  exchange: Exchange | undefined,
  context?: string,
): void {
  ensure(
    problem === undefined,
    () => (context === undefined ? problem! : `${context}: ${problem}`),
    {
      kind,
      exchange,
    },
  );
}

/** Throws a Violation (kind `counter`) unless two stats summaries are equal; `what` says which. */
export function sameStats(
  expected: StatsSummary,
  actual: StatsSummary,
  what: string,
  exchange: Exchange,
): void {
  ensure(
    statsKey(expected) === statsKey(actual),
    () => `${what}: expected ${showStats(expected)}, got ${showStats(actual)}`,
    { kind: 'counter', exchange, expected, actual },
  );
}

/** Visible members of the caller (from /teams). */
export async function members(
  ctx: CheckContext,
  credential = ctx.primary,
): Promise<MemberRecord[]> {
  return (await ctx.walk('teams.list', { credential })).records;
}
