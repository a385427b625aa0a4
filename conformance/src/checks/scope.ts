import { type EndpointId, normaliseEmail } from '@tagtrack/core';
import type { CheckContext } from './context.ts';
import { type Check, type CheckEnv, defineCheck, type SuiteCredential } from './define.ts';
import { expectError } from './err.ts';
import { describe, Violation } from './failure.ts';
import { dayOf } from './sample.ts';

/** Requirement id prefix of this file's checks (area `scope`). */
export const prefix = 'SCOPE';

function declared(env: Pick<CheckEnv, 'credentials'>): SuiteCredential[] {
  return env.credentials.filter((c) => c.teamID !== undefined && c.accountType !== undefined);
}

/** What a credential sees, as id sets. */
async function visible(ctx: CheckContext, credential: SuiteCredential) {
  const d = await ctx.discover(credential);
  return {
    members: new Set(d.members.map((m) => m.memberID)),
    tags: new Map(d.tags.map((t) => [t.tagID, t])),
    // contacts by normalised email (their ids are implementation-defined, decisions §8 Rev. 2)
    contacts: new Map(d.contacts.map((c) => [normaliseEmail(c.email), c.contactID])),
    groups: d.groups,
  };
}

/** Every endpoint that takes an id, which the scope checks ask with an out-of-scope one. */
const ID_ENDPOINTS: EndpointId[] = [
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

function needsTwoScopes(env: Pick<CheckEnv, 'credentials'>): string | undefined {
  return declared(env).length < 2
    ? 'needs two declared credentials with different scopes'
    : undefined;
}

/** Path parameters and query of one request naming an id. */
type IdCall = [EndpointId, Record<string, string>, [string, string][]];

/**
 * The requests naming an id that `other` sees and `c` does not: a member, a tag, a contact
 * and (of another team) a group, each on every endpoint that takes it.
 */
async function outOfScopeCalls(
  ctx: CheckContext,
  c: SuiteCredential,
  other: SuiteCredential,
): Promise<{ id: string; call: IdCall }[]> {
  const mine = await visible(ctx, c);
  const theirs = await visible(ctx, other);
  const member = [...theirs.members].find((id) => !mine.members.has(id));
  const tag = [...theirs.tags.values()].find((t) => !mine.tags.has(t.tagID));
  const contact = [...theirs.contacts].find(([email]) => !mine.contacts.has(email))?.[1];
  const group =
    other.teamID !== c.teamID
      ? theirs.groups.find((g) => !mine.groups.some((x) => x.groupID === g.groupID))
      : undefined;
  const out: { id: string; call: IdCall }[] = [];
  if (member)
    for (const e of ['teams.member', 'teams.memberTags', 'stats.member'] as const)
      out.push({ id: member, call: [e, { memberID: member }, []] });
  if (tag) {
    for (const e of ['opens.tag', 'clicks.tag', 'contacts.tag'] as const)
      out.push({ id: tag.tagID, call: [e, { tagID: tag.tagID }, []] });
    out.push({
      id: tag.tagID,
      call: ['tags.daily', { tagID: tag.tagID }, [['date', dayOf(tag.dateSent)]]],
    });
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
 * failures a pair).
 */
async function eachOutOfScope(
  ctx: CheckContext,
  creds: readonly SuiteCredential[],
  fn: (c: SuiteCredential, call: { id: string; call: IdCall }) => Promise<void> | void,
): Promise<void> {
  for (const c of creds) {
    for (const other of creds) {
      if (other === c) continue;
      await ctx.each(await outOfScopeCalls(ctx, c, other), (call) => fn(c, call), {
        note: () => `: ${other.label} can see it but ${c.label} cannot`,
        stopAt: 5,
      });
    }
  }
}

const HEX = '0123456789abcdef';
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
function bodyWithoutId(body: string, id: string): string {
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

/** Scoping by team and account type (decisions §2), with the profile's declared credentials. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'SCOPE-TEAM-ISOLATION',
    title: 'a caller never sees members or tags of another team',
    clause: 'decisions §2 (a caller never sees anything of another team)',
    endpoints: ['teams.list', 'teams.tags'],
    skipIf: (env) =>
      new Set(declared(env).map((c) => c.teamID)).size < 2
        ? 'needs credentials of two teams with teamID and accountType in the profile'
        : undefined,
    async run(ctx) {
      const creds = declared(ctx);
      // the first caller that sees another team's data is enough
      await ctx.each(
        creds,
        async (a) => {
          for (const b of creds) {
            if (a.teamID === b.teamID) continue;
            const va = await visible(ctx, a);
            const vb = await visible(ctx, b);
            const m = [...va.members].find((id) => vb.members.has(id));
            const t = [...va.tags.keys()].find((id) => vb.tags.has(id));
            // contacts are per email and may legitimately appear in both teams (with each
            // team's counters: REL-CONTACTS-TAGS and ORACLE-CONTACTS check those)
            if (m !== undefined)
              ctx.fail(
                `member ${m} is visible to ${a.label} (team ${a.teamID}) and to ${b.label} (team ${b.teamID})`,
                { kind: 'extra' },
              );
            if (t !== undefined)
              ctx.fail(`tag ${t} is visible to ${a.label} and to ${b.label} of another team`, {
                kind: 'extra',
              });
          }
        },
        { stopAt: 1 },
      );
    },
  }),
  defineCheck({
    id: 'SCOPE-ACCOUNT-TYPE',
    title: 'an admin sees the whole team, a manager the own group and self, a user only self',
    clause: 'decisions §2 (account types)',
    endpoints: ['teams.list', 'teams.member'],
    skipIf: (env) =>
      declared(env).some((c) => c.memberID !== undefined)
        ? undefined
        : 'needs credentials with teamID, accountType and memberID in the profile',
    async run(ctx) {
      const creds = declared(ctx).filter((c) => c.memberID !== undefined);
      for (const c of creds) {
        const w = await ctx.walk('teams.list', { credential: c });
        const ms = w.records;
        const ids = ms.map((m) => m.memberID);
        const self = ms.find((m) => m.memberID === c.memberID);
        if (self === undefined) {
          ctx.fail(
            `${describe(w.pages[0]!)}: the caller's own member ${c.memberID} is not listed`,
            { kind: 'missing', exchange: w.pages[0] },
          );
          continue;
        }
        if (c.accountType === 'user' && ms.length !== 1)
          ctx.fail(
            `${describe(w.pages[0]!)}: a user sees ${ms.length} members [${ids.join(', ')}], expected only self`,
            { kind: 'extra', exchange: w.pages[0] },
          );
        if (c.accountType === 'manager') {
          const group = self.groupID === '' ? undefined : self.groupID;
          const foreign = ms.find(
            (m) => m.memberID !== c.memberID && (group === undefined || m.groupID !== group),
          );
          if (foreign !== undefined)
            ctx.fail(
              `${describe(w.pages[0]!)}: a manager of group ${group ?? '(none)'} sees member ${foreign.memberID} of group ${foreign.groupID ?? '(none)'}`,
              { kind: 'extra', exchange: w.pages[0] },
            );
        }
        if (c.accountType === 'admin') {
          const mates = creds.filter((o) => o.teamID === c.teamID && !ids.includes(o.memberID!));
          if (mates.length > 0)
            ctx.fail(
              `${describe(w.pages[0]!)}: the admin does not see team member ${mates[0]!.memberID} (${mates[0]!.label})`,
              { kind: 'missing', exchange: w.pages[0] },
            );
        }
      }
    },
  }),
  defineCheck({
    id: 'SCOPE-404-OUT-OF-SCOPE',
    title: 'ids another caller can see but this one cannot answer 404, exactly like unknown ids',
    clause: 'decisions §2 (an id outside the caller’s scope answers 404: no existence oracle)',
    endpoints: ID_ENDPOINTS,
    skipIf: needsTwoScopes,
    async run(ctx) {
      const creds = declared(ctx);
      await eachOutOfScope(ctx, creds, async (c, { call: [endpoint, pathParams, query] }) =>
        expectError(await ctx.call(endpoint, { pathParams, query, credential: c }), 404),
      );
    },
  }),
  defineCheck({
    id: 'SCOPE-404-SAME-AS-UNKNOWN',
    title:
      'the 404 of an id outside the scope is the 404 of an unknown id, message included, only the echoed id differing',
    clause:
      'decisions §2 Revision 2 (the 404 of an out-of-scope id is identical to the 404 of an unknown id)',
    endpoints: ID_ENDPOINTS,
    skipIf: needsTwoScopes,
    async run(ctx) {
      const creds = declared(ctx);
      const known = new Set<string>();
      for (const c of creds) {
        const v = await visible(ctx, c);
        for (const id of [...v.members, ...v.tags.keys(), ...v.contacts.values()]) known.add(id);
        for (const g of v.groups) known.add(g.groupID).add(g.groupName);
      }
      let compared = 0;
      await eachOutOfScope(ctx, creds, async (c, { id, call: [endpoint, pathParams, query] }) => {
        const unknown = unknownIdLike(id, known);
        const unknownParams = Object.fromEntries(
          Object.entries(pathParams).map(([k, v]) => [k, v === id ? unknown : v]),
        );
        const hidden = await ctx.call(endpoint, { pathParams, query, credential: c });
        const absent = await ctx.call(endpoint, {
          pathParams: unknownParams,
          query,
          credential: c,
        });
        compared++;
        if (hidden.status !== absent.status)
          throw new Violation(
            `${describe(hidden)} answered ${hidden.status}, but the unknown id ${unknown} (${describe(absent)}) answered ${absent.status}: the status tells an out-of-scope id from an unknown one`,
            {
              kind: 'status',
              exchange: hidden,
              expected: absent.status,
              actual: hidden.status,
            },
          );
        const a = bodyWithoutId(hidden.body, id);
        const b = bodyWithoutId(absent.body, unknown);
        if (a !== b)
          throw new Violation(
            `${describe(hidden)}: the 404 of id ${id}, outside the caller's scope, differs from the 404 of the unknown id ${unknown} (${describe(absent)}) beyond the echoed id, so it tells that the id exists`,
            { kind: 'format', exchange: hidden, expected: b, actual: a },
          );
      });
      if (compared === 0) ctx.skip('no declared credential sees an id another one cannot');
    },
  }),
];
