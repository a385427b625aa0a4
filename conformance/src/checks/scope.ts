import { type EndpointId, normaliseEmail } from '@tagtrack/core';
import type { CheckContext } from './context.ts';
import { type Check, type CheckEnv, defineCheck, type SuiteCredential } from './define.ts';
import { expectError } from './err.ts';
import { describe } from './failure.ts';
import { type ContactRecord, dayOf, type MemberRecord, type TagRecord } from './sample.ts';

/** Requirement id prefix of this file's checks (area `scope`). */
export const prefix = 'SCOPE';

function declared(env: Pick<CheckEnv, 'credentials'>): SuiteCredential[] {
  return env.credentials.filter((c) => c.teamID !== undefined && c.accountType !== undefined);
}

/** What a credential sees, as id sets. */
async function visible(ctx: CheckContext, credential: SuiteCredential) {
  const d = await ctx.discover(credential);
  return {
    members: new Set((d.members as unknown as MemberRecord[]).map((m) => m.memberID)),
    tags: new Map((d.tags as unknown as TagRecord[]).map((t) => [t.tagID, t])),
    // contacts by normalised email (their ids are implementation-defined, decisions §8 Rev. 2)
    contacts: new Map(
      (d.contacts as unknown as ContactRecord[]).map((c) => [normaliseEmail(c.email), c.contactID]),
    ),
    groups: d.groups,
  };
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
        const ms = w.records as MemberRecord[];
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
    endpoints: [
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
    ],
    skipIf: (env) =>
      declared(env).length < 2 ? 'needs two declared credentials with different scopes' : undefined,
    async run(ctx) {
      const creds = declared(ctx);
      for (const c of creds) {
        const mine = await visible(ctx, c);
        for (const other of creds) {
          if (other === c) continue;
          const theirs = await visible(ctx, other);
          const member = [...theirs.members].find((id) => !mine.members.has(id));
          const tag = [...theirs.tags.values()].find((t) => !mine.tags.has(t.tagID));
          const contact = [...theirs.contacts].find(([email]) => !mine.contacts.has(email))?.[1];
          const group =
            other.teamID !== c.teamID
              ? theirs.groups.find((g) => !mine.groups.some((x) => x.groupID === g.groupID))
              : undefined;
          const calls: [EndpointId, Record<string, string>, [string, string][]][] = [];
          if (member) {
            calls.push(['teams.member', { memberID: member }, []]);
            calls.push(['teams.memberTags', { memberID: member }, []]);
            calls.push(['stats.member', { memberID: member }, []]);
          }
          if (tag) {
            calls.push(['opens.tag', { tagID: tag.tagID }, []]);
            calls.push(['clicks.tag', { tagID: tag.tagID }, []]);
            calls.push(['tags.daily', { tagID: tag.tagID }, [['date', dayOf(tag.dateSent)]]]);
            calls.push(['contacts.tag', { tagID: tag.tagID }, []]);
          }
          if (contact) calls.push(['contacts.get', { contactID: contact }, []]);
          if (group) {
            calls.push(['teams.group', { group: group.groupID }, []]);
            calls.push(['stats.group', { group: group.groupID }, []]);
          }
          await ctx.each(
            calls,
            async ([endpoint, pathParams, query]) =>
              expectError(await ctx.call(endpoint, { pathParams, query, credential: c }), 404),
            { note: () => `: ${other.label} can see it but ${c.label} cannot`, stopAt: 5 },
          );
        }
      }
    },
  }),
];
