import {
  AccountType,
  type EndpointId,
  mergeAllStats,
  normaliseEmail,
  type StatsSummary,
} from '@tagtrack/core';
import type { Exchange } from '../http.ts';
import { type CheckContext, type EndpointCall, LOOP_BATCH } from './context.ts';
import { type Check, type CheckEnv, defineCheck, type SuiteCredential } from './define.ts';
import { expectError } from './err.ts';
import { describe, Violation } from './failure.ts';
import { ensureSameAnswer } from './input/same-answer.ts';
import { dayOf, firstDifference, type Pair, showStats } from './sample.ts';

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
        concurrency: LOOP_BATCH,
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

/** The violation of {@link ensureSameAnswer} between two answers, or undefined when alike. */
function answerDifference(
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
const CACHE_PROBES: readonly [EndpointId, Pair[]][] = [
  ['teams.list', []],
  ['teams.tags', []],
  ['contacts.list', []],
  ['stats.team', [['aggregateData', 'true']]],
];

/** The account types `type` takes (decisions §4), from core. */
const TYPES: readonly AccountType[] = AccountType.options;

/** The aggregated stats record of a stats request, or a Violation. */
async function aggregatedStats(
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
            ctx.compared(va.members.size + va.tags.size);
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
    title:
      'an admin sees the whole team, a manager the own group and self, a user only self (with or without declared memberIDs)',
    clause: 'decisions §2 (account types)',
    endpoints: ['teams.list', 'teams.member'],
    skipIf: (env) =>
      declared(env).length > 0
        ? undefined
        : 'needs credentials with teamID and accountType in the profile',
    async run(ctx) {
      const creds = declared(ctx);
      for (const c of creds) {
        const w = await ctx.walk('teams.list', { credential: c });
        const ms = w.records;
        const ids = ms.map((m) => m.memberID);
        const page = w.pages[0]!;
        const fail = (message: string, kind: 'missing' | 'extra') =>
          ctx.fail(`${describe(page)} as ${c.label}: ${message}`, { kind, exchange: page });
        // without a declared memberID, self is unknown: the rules are read from the list alone
        const self =
          c.memberID === undefined ? undefined : ms.find((m) => m.memberID === c.memberID);
        if (c.memberID !== undefined && self === undefined) {
          fail(`the caller's own member ${c.memberID} is not listed`, 'missing');
          continue;
        }
        if (c.accountType === 'user' && ms.length !== 1)
          fail(`a user sees ${ms.length} members [${ids.join(', ')}], expected only self`, 'extra');
        if (c.accountType === 'manager' && ms.length > 1) {
          const group = self === undefined ? ms[0]!.groupID : self.groupID;
          const foreign = ms.find(
            (m) =>
              m.memberID !== c.memberID &&
              (group === undefined || group === '' || m.groupID !== group),
          );
          if (foreign !== undefined)
            fail(
              `a manager of group ${group || '(none)'} sees member ${foreign.memberID} of group ${foreign.groupID || '(none)'}`,
              'extra',
            );
        }
        if (c.accountType === 'admin') {
          for (const o of creds.filter((x) => x !== c && x.teamID === c.teamID)) {
            const theirs =
              o.memberID !== undefined
                ? [o.memberID]
                : (await ctx.discover(o)).members.map((m) => m.memberID);
            const unseen = theirs.find((id) => !ids.includes(id));
            if (unseen !== undefined) {
              fail(
                `the admin does not see team member ${unseen}, whom ${o.label} of the same team sees`,
                'missing',
              );
              break;
            }
          }
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
        ctx.compared();
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
  defineCheck({
    id: 'SCOPE-TYPE-FILTER',
    title:
      'type=X lists only members of account type X, and the three typed lists partition the untyped one (teams, every visible group); the typed stats of admin, manager and user merge to the untyped stats',
    clause: 'decisions §4 (type), §9 (merging stats records), §2 (account types)',
    endpoints: ['teams.list', 'teams.group', 'stats.team', 'stats.group'],
    async run(ctx) {
      const d = await ctx.discover();
      const lists: { endpoint: 'teams.list' | 'teams.group'; call: EndpointCall; what: string }[] =
        [
          { endpoint: 'teams.list', call: {}, what: 'the team' },
          ...d.groups.map((g) => ({
            endpoint: 'teams.group' as const,
            call: { pathParams: { group: g.groupID } },
            what: `group ${g.groupID} ${JSON.stringify(g.groupName)}`,
          })),
        ];
      const members = (endpoint: 'teams.list' | 'teams.group', call: EndpointCall) =>
        endpoint === 'teams.list'
          ? ctx.walk<'teams.list'>('teams.list', call)
          : ctx.walk<'teams.group'>('teams.group', call);
      await ctx.each(
        lists,
        async ({ endpoint, call, what }) => {
          const all = await members(endpoint, call);
          const seen: string[] = [];
          for (const type of TYPES) {
            const w = await members(endpoint, { ...call, query: [['type', type]] });
            const wrong = w.records.find((m) => m.accountType !== type);
            if (wrong !== undefined)
              throw new Violation(
                `${describe(w.pages[0]!)} lists member ${wrong.memberID} of account type ${wrong.accountType} (${what})`,
                { kind: 'extra', exchange: w.pages[0] },
              );
            seen.push(...w.records.map((m) => m.memberID));
          }
          const expected = all.records.map((m) => m.memberID).sort();
          const missing = expected.find((id) => !seen.includes(id));
          const extra = seen.find((id) => !expected.includes(id));
          if (missing !== undefined || extra !== undefined || seen.length !== expected.length)
            throw new Violation(
              `the lists of ${what} with type=${TYPES.join(', type=')} hold ${seen.length} members, the list without type ${expected.length}${missing === undefined ? '' : `; member ${missing} is in no typed list`}${extra === undefined ? '' : `; member ${extra} is only in a typed list`}`,
              { kind: missing !== undefined ? 'missing' : 'extra', exchange: all.pages[0] },
            );
        },
        { stopAt: 3 },
      );
      const stats: { endpoint: 'stats.team' | 'stats.group'; call: EndpointCall; what: string }[] =
        [
          { endpoint: 'stats.team', call: {}, what: 'team stats' },
          ...d.groups.slice(0, 2).map((g) => ({
            endpoint: 'stats.group' as const,
            call: { pathParams: { group: g.groupID } },
            what: `stats of group ${g.groupID}`,
          })),
        ];
      await ctx.each(
        stats,
        async ({ endpoint, call, what }) => {
          const whole = await aggregatedStats(ctx, endpoint, call);
          const parts: StatsSummary[] = [];
          for (const type of TYPES)
            parts.push(
              (await aggregatedStats(ctx, endpoint, { ...call, query: [['type', type]] })).record,
            );
          const merged = mergeAllStats(parts);
          // one way: fields only the implementation sends are free (decisions §8 Revision 2)
          const diff = firstDifference(merged, whole.record);
          if (diff !== undefined)
            throw new Violation(
              `${describe(whole.exchange)}: ${what} ${showStats(whole.record)} are not the merge of the stats with type=${TYPES.join(', type=')} ${showStats(merged)} (${diff})`,
              { kind: 'counter', exchange: whole.exchange },
            );
        },
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'SCOPE-CACHE-PER-CALLER',
    title:
      'the same URL asked by two callers gives each its own answer: a response cached for one caller is never served to another',
    clause: 'decisions §2 (everything follows the caller’s scope)',
    endpoints: CACHE_PROBES.map(([e]) => e),
    skipIf: (env) =>
      env.credentials.length < 2 ? 'needs two credentials (list them in the profile)' : undefined,
    async run(ctx) {
      const others = ctx.credentials.filter((c) => c.authId !== ctx.primary.authId);
      // the primary and each other credential, the one or the other asking first (both ways
      // with a single other), each pair on two of the probes (rotating): about 50 requests
      const pairs = others.flatMap((o, i) =>
        [
          { first: ctx.primary, second: o },
          { first: o, second: ctx.primary },
        ].filter((_, k) => others.length === 1 || k === i % 2),
      );
      let compared = 0;
      // `total` is ignored (decisions §3 Revision 2): a value of its own makes a URL no other
      // request of the run asked, so the first caller to ask it is known
      let n = 0;
      const fresh = (query: Pair[], tag: string): Pair[] => [
        ...query,
        ['total', `scope-cache-${tag}-${n++}`],
      ];
      await ctx.each(
        pairs.flatMap((p, i) =>
          [i, i + 1].map((k) => {
            const [endpoint, query] = CACHE_PROBES[k % CACHE_PROBES.length]!;
            return { ...p, endpoint, query };
          }),
        ),
        async ({ first, second, endpoint, query }) => {
          // each caller's own answer, on URLs only that caller asks
          const own = await ctx.call(endpoint, {
            query: fresh(query, 'own'),
            credential: second,
            cache: false,
          });
          const theirs = await ctx.call(endpoint, {
            query: fresh(query, 'theirs'),
            credential: first,
            cache: false,
          });
          if (answerDifference(endpoint, own, theirs, 'as another caller') === undefined) return;
          compared++;
          ctx.compared();
          // one URL, asked first by `first`, then by `second`
          const shared = fresh(query, 'shared');
          await ctx.call(endpoint, { query: shared, credential: first, cache: false });
          const after = await ctx.call(endpoint, {
            query: shared,
            credential: second,
            cache: false,
          });
          const d = answerDifference(
            endpoint,
            own,
            after,
            `as ${second.label}, right after ${first.label} asked the same URL`,
          );
          if (d === undefined) return;
          const replayed = answerDifference(endpoint, theirs, after, '') === undefined;
          throw new Violation(
            `${d.message}${replayed ? `: it is ${first.label}'s answer (a response cache keyed without the caller)` : ''}`,
            { kind: 'value', exchange: after },
          );
        },
        { stopAt: 3 },
      );
      if (compared === 0) ctx.skip('no two credentials get different answers to the same request');
    },
  }),
];
