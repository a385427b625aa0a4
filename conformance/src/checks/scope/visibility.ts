import { AccountType, type EndpointId, normaliseEmail, type StatsSummary } from '@tagtrack/core';
import { judgedCredentials } from '../../check/callers.ts';
import {
  type CheckContext,
  type DiscoveredPart,
  type EndpointCall,
  LOOP_BATCH,
} from '../../check/context.ts';
import type { CheckEnv, SuiteCredential } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import { dayOf, type Pair } from '../../check/sample.ts';
import type { Exchange } from '../../http/client.ts';
import { ensureSameAnswer } from '../input/same-answer.ts';

/** Helpers of the `scope` checks: declared credentials, what each sees, out-of-scope calls. */

/** The profile's credentials with `teamID` and `accountType` (the scope checks' callers). */
export function declared(env: Pick<CheckEnv, 'credentials'>): SuiteCredential[] {
  return env.credentials.filter((c) => c.teamID !== undefined && c.accountType !== undefined);
}

/**
 * The declared credentials a scope check judges (both sides of every pair): all of
 * {@link declared} while the distinct callers are within the run's `--max-callers`, else the
 * declared ones of the seeded sample (callers.ts `judgedCredentials`, coverage recorded).
 */
export async function judgedDeclared(ctx: CheckContext): Promise<SuiteCredential[]> {
  return declared({ credentials: await judgedCredentials(ctx) });
}

/**
 * What a credential sees, as ids: its members, its tags (each with its send time), its
 * contacts (normalised email → contactID) and groups. `sampled` names the parts read from a
 * seeded sample of a list too long to walk (see `Discovery.sampled`): an id missing from such
 * a part may still be visible. Ids only, no records: a check can hold every caller's at once.
 */
export interface Visible {
  readonly sampled: ReadonlySet<DiscoveredPart>;
  readonly members: ReadonlySet<string>;
  /** tagID → dateSent. */
  readonly tags: ReadonlyMap<string, string>;
  readonly contacts: ReadonlyMap<string, string>;
  readonly groups: readonly { readonly groupID: string; readonly groupName: string }[];
}

/** What `credential` sees ({@link Visible}), from its discovery. */
export async function visible(ctx: CheckContext, credential: SuiteCredential): Promise<Visible> {
  const d = await ctx.discover(credential);
  return {
    sampled: new Set(d.sampled ?? []),
    members: new Set(d.members.map((m) => m.memberID)),
    tags: new Map(d.tags.map((t) => [t.tagID, t.dateSent])),
    // contacts by normalised email (their ids are implementation-defined, spec §9 Rev. 2)
    contacts: new Map(d.contacts.map((c) => [normaliseEmail(c.email), c.contactID])),
    groups: d.groups.map((g) => ({ groupID: g.groupID, groupName: g.groupName })),
  };
}

/**
 * {@link visible} read once per credential for the check that calls it (the loops over pairs
 * of callers ask each many times): each credential's discovery is read, and joins the check's
 * log, once, even when the run's discovery cache cannot hold every caller's at once.
 */
export function visibleOnce(ctx: CheckContext): (credential: SuiteCredential) => Promise<Visible> {
  const seen = new Map<SuiteCredential, Promise<Visible>>();
  return (credential) => {
    let v = seen.get(credential);
    if (v === undefined) {
      v = visible(ctx, credential);
      seen.set(credential, v);
    }
    return v;
  };
}

/** Every endpoint that takes an id, which the scope checks ask with an out-of-scope one. */
export const ID_ENDPOINTS: EndpointId[] = [
  'teams.member',
  'teams.memberTags',
  'teams.group',
  'stats.group',
  'stats.member',
  'clicks.tag',
  'opens.tag',
  'tags.daily',
  'contacts.get',
  'contacts.tag',
];

export function needsTwoScopes(env: Pick<CheckEnv, 'credentials'>): string | undefined {
  return declared(env).length < 2
    ? 'needs two declared credentials with different scopes'
    : undefined;
}

/** Path parameters and query of one request naming an id. */
export type IdCall = [EndpointId, Record<string, string>, [string, string][]];

/**
 * The requests naming an id that `other` sees and `c` does not: a member, a tag, a contact
 * and (of another team) a group, each on every endpoint that takes it.
 */
export async function outOfScopeCalls(
  ctx: CheckContext,
  c: SuiteCredential,
  other: SuiteCredential,
  view: (credential: SuiteCredential) => Promise<Visible> = (x) => visible(ctx, x),
): Promise<{ id: string; call: IdCall }[]> {
  const mine = await view(c);
  const theirs = await view(other);
  // an id missing from a sampled part of c's discovery may be visible to c: members and tags
  // of another team are out of c's scope whatever c's list holds; contacts (one email may be a
  // contact of both teams) only when c's list was read whole
  const otherTeam = other.teamID !== c.teamID;
  const known = (part: DiscoveredPart) => otherTeam || !mine.sampled.has(part);
  const member = known('members')
    ? [...theirs.members].find((id) => !mine.members.has(id))
    : undefined;
  const tag = known('tags') ? [...theirs.tags].find(([tagID]) => !mine.tags.has(tagID)) : undefined;
  const contact = mine.sampled.has('contacts')
    ? undefined
    : [...theirs.contacts].find(([email]) => !mine.contacts.has(email))?.[1];
  const group =
    other.teamID !== c.teamID
      ? theirs.groups.find((g) => !mine.groups.some((x) => x.groupID === g.groupID))
      : undefined;
  const out: { id: string; call: IdCall }[] = [];
  if (member)
    for (const e of ['teams.member', 'teams.memberTags', 'stats.member'] as const)
      out.push({ id: member, call: [e, { memberID: member }, []] });
  if (tag) {
    const [tagID, dateSent] = tag;
    for (const e of ['opens.tag', 'clicks.tag', 'contacts.tag'] as const)
      out.push({ id: tagID, call: [e, { tagID }, []] });
    out.push({ id: tagID, call: ['tags.daily', { tagID }, [['date', dayOf(dateSent)]]] });
  }
  if (contact) out.push({ id: contact, call: ['contacts.get', { contactID: contact }, []] });
  if (group)
    for (const e of ['teams.group', 'stats.group'] as const)
      out.push({ id: group.groupID, call: [e, { group: group.groupID }, []] });
  return out;
}

/**
 * Runs `fn` as caller `c` on every request naming an id that another declared credential sees
 * and `c` does not, one {@link CheckContext.each} loop per pair of credentials (at most 5
 * failures a pair). A request `c` already made for an earlier credential of `creds` (same
 * endpoint, path parameters and query: the same id seen by several) is not made again, so
 * its note names the first credential that sees the id. `view` reads what each credential
 * sees (default: once per call of this function, {@link visibleOnce}).
 */
export async function eachOutOfScope(
  ctx: CheckContext,
  creds: readonly SuiteCredential[],
  fn: (c: SuiteCredential, call: { id: string; call: IdCall }) => Promise<void> | void,
  view: (credential: SuiteCredential) => Promise<Visible> = visibleOnce(ctx),
): Promise<void> {
  for (const c of creds) {
    const asked = new Set<string>();
    for (const other of creds) {
      if (other === c) continue;
      const calls = (await outOfScopeCalls(ctx, c, other, view)).filter(({ call }) => {
        const key = JSON.stringify(call);
        if (asked.has(key)) return false;
        asked.add(key);
        return true;
      });
      if (calls.length === 0) continue;
      await ctx.each(calls, (call) => fn(c, call), {
        note: () => `: ${other.label} can see it but ${c.label} cannot`,
        stopAt: 5,
        concurrency: LOOP_BATCH,
      });
    }
  }
}

export const HEX = '0123456789abcdef';
/**
 * An id of the same length and character classes as `id` that is none of `known`: hex digits
 * shifted by 8 within 0-9a-f (either case), other letters by 13, so a server checking the
 * shape of ids still reads it as a well-formed unknown id.
 */
export function unknownIdLike(id: string, known: ReadonlySet<string>): string {
  for (let shift = 8; shift < 8 + 16; shift++) {
    const candidate = [...id]
      .map((ch) => {
        const lower = ch.toLowerCase();
        const upper = ch !== lower;
        const h = HEX.indexOf(lower);
        let out = ch;
        if (h >= 0) out = HEX[(h + shift) % 16]!;
        else if (/[a-z]/.test(lower))
          out = String.fromCharCode(((lower.charCodeAt(0) - 97 + 13) % 26) + 97);
        return upper ? out.toUpperCase() : out;
      })
      .join('');
    if (!known.has(candidate) && candidate !== id) return candidate;
  }
  return `${id}0`;
}

/**
 * A body with every occurrence of `id` in its strings replaced by `{id}`, as JSON with sorted
 * keys (key order and escapes are free), or the raw body with `id` replaced when not JSON.
 */
export function bodyWithoutId(body: string, id: string): string {
  const strip = (v: unknown): unknown =>
    typeof v === 'string'
      ? v.split(id).join('{id}')
      : Array.isArray(v)
        ? v.map(strip)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v as Record<string, unknown>)
                .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
                .map(([k, x]) => [k, strip(x)]),
            )
          : v;
  try {
    return JSON.stringify(strip(JSON.parse(body)));
  } catch {
    return body.split(id).join('{id}');
  }
}

/** The violation of {@link ensureSameAnswer} between two answers, or undefined when alike. */
export function answerDifference(
  endpoint: EndpointId,
  a: Exchange,
  b: Exchange,
  what: string,
): Violation | undefined {
  try {
    ensureSameAnswer(endpoint, a, b, what, { urls: 'ignore' });
    return undefined;
  } catch (e) {
    if (e instanceof Violation) return e;
    throw e;
  }
}

/** The requests SCOPE-CACHE-PER-CALLER asks as two callers: lists and stats that differ by scope. */
export const CACHE_PROBES: readonly [EndpointId, Pair[]][] = [
  ['teams.list', []],
  ['teams.tags', []],
  ['contacts.list', []],
  ['stats.team', [['aggregateData', 'true']]],
];

/** The account types `type` takes (spec §6), from core. */
export const TYPES: readonly AccountType[] = AccountType.options;

/** The aggregated stats record of a stats request, or a Violation. */
export async function aggregatedStats(
  ctx: CheckContext,
  endpoint: 'stats.team' | 'stats.group',
  call: EndpointCall,
): Promise<{ record: StatsSummary; exchange: Exchange }> {
  const w = await ctx.walk(endpoint, {
    ...call,
    query: [...(call.query ?? []), ['aggregateData', 'true']],
  });
  const record = w.records[0];
  if (w.records.length !== 1 || record === undefined)
    throw new Violation(
      `${describe(w.pages[0]!)} answered ${w.records.length} records with aggregateData=true, expected one`,
      { kind: 'value', exchange: w.pages[0] },
    );
  return { record, exchange: w.pages[0]! };
}
