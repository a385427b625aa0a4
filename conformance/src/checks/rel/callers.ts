import {
  callerWithinAdmin,
  contactCountsCallerTags,
  groupNameInCallerTeam,
  managerGroupStatsAsAdmin,
  normaliseEmail,
  plainEventsSteps,
} from '@tagtrack/core';
import { judgedCallers } from '../../check/callers.ts';
import { leftOutWords, unlessTooLong } from '../../check/context/caller-lists.ts';
import type { CheckContext } from '../../check/context.ts';
import { type Check, lawCheck, type SuiteCredential } from '../../check/define.ts';
import { describe } from '../../check/failure.ts';
import { middleWindow, sendDays, windowQuery } from '../../check/sample.ts';
import { applyLaw, sliced } from '../../check/slices.ts';
import { aggregated, obey, type Pairs } from './reads.ts';

/**
 * Relations between the answers of two declared callers (spec §4): a manager's or user's
 * lists within its admin's, a manager's group stats as its admin's, each caller's contact
 * record over its own tags, group names resolved within the caller's team. Each asks as
 * several credentials itself (`perCaller: false`); a comparison that fails is read again on
 * still data (`readsOwn`): two callers' reads made while the data moved are inconclusive,
 * never a failure (spec §5 Revision 3).
 */

/** A declared team: its first declared admin (if any) and its distinct callers. */
interface DeclaredTeam {
  readonly teamID: string;
  readonly admin: SuiteCredential | undefined;
  readonly callers: readonly SuiteCredential[];
}

/** The declared teams, each with its admin credential and its judged callers (`callers.ts`). */
async function declaredTeams(ctx: CheckContext): Promise<DeclaredTeam[]> {
  const callers = (await judgedCallers(ctx)).filter(
    (c) => c.teamID !== undefined && c.accountType !== undefined,
  );
  const teams = new Map<string, DeclaredTeam>();
  for (const c of callers) {
    const teamID = c.teamID!;
    const team = teams.get(teamID) ?? {
      teamID,
      admin: ctx.credentials.find((x) => x.teamID === teamID && x.accountType === 'admin'),
      callers: [],
    };
    teams.set(teamID, { ...team, callers: [...team.callers, c] });
  }
  return [...teams.values()];
}

/** Needs a declared admin and a declared manager or user of the same team. */
function needsAdminAndOther(env: {
  readonly credentials: readonly SuiteCredential[];
}): string | undefined {
  const admins = new Set(
    env.credentials.filter((c) => c.accountType === 'admin').map((c) => c.teamID),
  );
  return env.credentials.some(
    (c) => c.accountType !== undefined && c.accountType !== 'admin' && admins.has(c.teamID),
  )
    ? undefined
    : 'needs a declared admin and a declared manager or user of the same team (teamID and accountType in the profile)';
}

/** What a caller lists: members, tags and contacts, walked (cached for the run). */
async function listsOf(ctx: CheckContext, credential: SuiteCredential) {
  const members = await ctx.walk('teams.list', { credential });
  const tags = await ctx.walk('teams.tags', { credential });
  const contacts = await ctx.walk('contacts.list', { credential });
  return {
    lists: { members: members.records, tags: tags.records, contacts: contacts.records },
    exchange: members.pages[0],
  };
}

/**
 * The group of a manager, read from the members it sees (a manager sees its own group and
 * self, spec §4): the one groupID they share, or `undefined` when none has a group or
 * they are of several groups (SCOPE-ACCOUNT-TYPE judges that).
 */
async function managerGroup(
  ctx: CheckContext,
  manager: SuiteCredential,
): Promise<string | undefined> {
  const members = (await ctx.walk('teams.list', { credential: manager })).records;
  const groups = new Set(
    members.map((m) => m.groupID).filter((g): g is string => g !== undefined && g !== ''),
  );
  return groups.size === 1 ? [...groups][0] : undefined;
}

/** Contacts asked per caller in REL-CONTACT-CALLER-TAGS, at most. */
const CONTACTS_PER_CALLER = 3;

export const checks: readonly Check[] = [
  lawCheck(callerWithinAdmin, {
    perCaller: false, // compares callers itself
    skipIf: needsAdminAndOther,
    async run(ctx) {
      const items = (await declaredTeams(ctx)).flatMap((team) =>
        team.admin === undefined
          ? []
          : team.callers
              .filter((c) => c.accountType !== 'admin')
              .map((caller) => ({ caller, admin: team.admin! })),
      );
      if (items.length === 0)
        ctx.skip('no declared manager or user has a declared admin of its team');
      await ctx.each(
        items,
        async ({ caller, admin }) => {
          const theirs = await listsOf(ctx, admin);
          const mine = await listsOf(ctx, caller);
          obey(
            callerWithinAdmin.check({
              caller: caller.label,
              view: mine.lists,
              admin: theirs.lists,
            }),
            'extra',
            mine.exchange,
            `as ${caller.label} against ${admin.label}`,
          );
        },
        { readsOwn: true },
      );
    },
  }),
  lawCheck(managerGroupStatsAsAdmin, {
    perCaller: false, // compares callers itself
    skipIf: (env) =>
      env.credentials.some((c) => c.accountType === 'manager') &&
      needsAdminAndOther(env) === undefined
        ? undefined
        : 'needs a declared manager and the declared admin of its team',
    async run(ctx) {
      const items: {
        manager: SuiteCredential;
        admin: SuiteCredential;
        group: string;
        query: Pairs;
        /** The manager's team stats (/stats) rather than its stats of the group. */
        whole: boolean;
      }[] = [];
      for (const team of await declaredTeams(ctx)) {
        if (team.admin === undefined) continue;
        for (const manager of team.callers.filter((c) => c.accountType === 'manager')) {
          const group = await managerGroup(ctx, manager);
          if (group === undefined) continue;
          const tags = (
            await unlessTooLong(ctx, () => ctx.walk('teams.tags', { credential: manager }))
          )?.records;
          if (tags === undefined) continue;
          const mid = middleWindow(sendDays(tags));
          const window = mid === undefined ? [] : windowQuery(mid.start, mid.end);
          // the whole range and a window, untyped and of one type; the group and the team
          const queries: Pairs[] = [
            [],
            [...window, ['type', 'user']],
            window,
            [['type', 'manager']],
          ];
          for (const query of queries)
            for (const whole of [false, true])
              items.push({ manager, admin: team.admin, group, query, whole });
        }
      }
      if (items.length === 0)
        ctx.skip(
          `no declared manager sees a group, beside a declared admin of its team${leftOutWords(ctx)}`,
        );
      await ctx.each(
        items,
        async ({ manager, admin, group, query, whole }) => {
          const asAdmin = await aggregated(ctx, 'stats.group', {
            pathParams: { group },
            query,
            credential: admin,
          });
          const asManager = whole
            ? await aggregated(ctx, 'stats.team', { query, credential: manager })
            : await aggregated(ctx, 'stats.group', {
                pathParams: { group },
                query,
                credential: manager,
              });
          const span = query.map(([k, v]) => `${k}=${v}`).join('&');
          obey(
            managerGroupStatsAsAdmin.check({
              subject: `${whole ? `team stats (/stats, the manager's group ${group} and self)` : `stats of group ${group}`}${span === '' ? '' : ` with ${span}`}`,
              caller: manager.label,
              asCaller: asManager.record,
              asAdmin: asAdmin.record,
            }),
            'counter',
            asManager.exchange,
            `against ${describe(asAdmin.exchange)} as ${admin.label}`,
          );
        },
        { readsOwn: true },
      );
    },
  }),
  lawCheck(contactCountsCallerTags, {
    perCaller: false, // asks as every caller itself
    reads: ['contacts.list'],
    skipIf: (env) =>
      env.credentials.filter((c) => c.teamID !== undefined && c.accountType !== undefined).length <
      2
        ? 'needs two declared credentials (teamID and accountType in the profile)'
        : undefined,
    async run(ctx) {
      const items: { caller: SuiteCredential; contactID: string }[] = [];
      for (const team of await declaredTeams(ctx)) {
        // by normalised email: how many tags sent to it each caller's list counts
        const sent = new Map<string, Map<SuiteCredential, { id: string; sent: number }>>();
        for (const caller of team.callers) {
          // a caller whose list is too long to read whole is left out (caller-lists.ts)
          const listed = await unlessTooLong(ctx, () =>
            ctx.walk('contacts.list', { credential: caller }),
          );
          for (const c of listed?.records ?? []) {
            const email = normaliseEmail(c.email);
            const by = sent.get(email) ?? new Map();
            by.set(caller, { id: c.contactID, sent: c.stats.totalSent });
            sent.set(email, by);
          }
        }
        // each caller's first contacts (by email) that another caller of the team sees sent
        // more or fewer tags: there the record must follow the caller
        for (const caller of team.callers) {
          const picked = [...sent.entries()]
            .filter(([, by]) => {
              const mine = by.get(caller);
              return mine !== undefined && [...by.values()].some((o) => o.sent !== mine.sent);
            })
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .slice(0, CONTACTS_PER_CALLER);
          for (const [, by] of picked) items.push({ caller, contactID: by.get(caller)!.id });
        }
      }
      if (items.length === 0)
        ctx.skip(
          `no contact is seen over different tags by two declared callers of a team${leftOutWords(ctx)}`,
        );
      await ctx.each(
        items,
        async ({ caller, contactID }) => {
          const ex = await ctx.call('contacts.get', {
            pathParams: { contactID },
            credential: caller,
          });
          const contact = ctx.single('contacts.get', ex);
          const tags = (await ctx.walk('teams.tags', { credential: caller })).records;
          const opens = (await ctx.walk('opens.list', { credential: caller })).records;
          const clicks = (await ctx.walk('clicks.list', { credential: caller })).records;
          obey(
            await applyLaw(contactCountsCallerTags, {
              caller: caller.label,
              contact,
              tags,
              opens: await sliced(plainEventsSteps(opens)),
              clicks: await sliced(plainEventsSteps(clicks)),
            }),
            'counter',
            ex,
            describe(ex),
          );
        },
        { readsOwn: true },
      );
    },
  }),
  lawCheck(groupNameInCallerTeam, {
    perCaller: false, // asks as every caller itself
    skipIf: (env) =>
      env.credentials.filter((c) => c.teamID !== undefined && c.accountType !== undefined).length <
      2
        ? 'needs two declared credentials (teamID and accountType in the profile)'
        : undefined,
    async run(ctx) {
      const callers = (await declaredTeams(ctx)).flatMap((t) => t.callers);
      // every group name a declared caller sees, asked as every other caller
      const names = new Map<string, SuiteCredential>();
      for (const c of callers)
        for (const g of (await ctx.discover(c)).groups)
          if (!names.has(g.groupName)) names.set(g.groupName, c);
      const items = callers.flatMap((caller) =>
        [...names].map(([segment, from]) => ({ caller, segment, from })),
      );
      await ctx.each(
        items,
        async ({ caller, segment, from }) => {
          const ex = await ctx.call('teams.group', {
            pathParams: { group: segment },
            credential: caller,
          });
          // a 404 resolves to no group; another status is for the input and scope checks
          if (ex.status !== 200 && ex.status !== 204 && ex.status !== 404) return;
          const answered =
            ex.status === 404
              ? []
              : (
                  await ctx.walk('teams.group', {
                    pathParams: { group: segment },
                    credential: caller,
                  })
                ).records;
          const visible = (await ctx.walk('teams.list', { credential: caller })).records.map(
            (m) => m.memberID,
          );
          obey(
            groupNameInCallerTeam.check({ caller: caller.label, segment, visible, answered }),
            'extra',
            ex,
            `${describe(ex)} (a group name ${from.label} sees)`,
          );
        },
        { readsOwn: true },
      );
    },
  }),
];
