import { type Check, defineCheck } from '../../check/define.ts';
import { describe } from '../../check/failure.ts';

import { declared, judgedDeclared, visibleOnce } from './visibility.ts';

/** What each caller sees (docs/spec.md §4, spec §4): teams never see each other; each account type sees its own scope. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'SCOPE-TEAM-ISOLATION',
    title: 'a caller never sees members or tags of another team',
    clause: 'spec §4 (a caller never sees anything of another team)',
    endpoints: ['teams.list', 'teams.tags'],
    skipIf: (env) =>
      new Set(declared(env).map((c) => c.teamID)).size < 2
        ? 'needs credentials of two teams with teamID and accountType in the profile'
        : undefined,
    async run(ctx) {
      const creds = await judgedDeclared(ctx);
      const view = visibleOnce(ctx);
      // the first caller that sees another team's data is enough
      await ctx.each(
        creds,
        async (a) => {
          for (const b of creds) {
            if (a.teamID === b.teamID) continue;
            const va = await view(a);
            const vb = await view(b);
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
    clause: 'spec §4 (account types)',
    endpoints: ['teams.list', 'teams.member'],
    skipIf: (env) =>
      declared(env).length > 0
        ? undefined
        : 'needs credentials with teamID and accountType in the profile',
    async run(ctx) {
      const creds = await judgedDeclared(ctx);
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
            const listed = new Set(ids);
            const unseen = theirs.find((id) => !listed.has(id));
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
];
