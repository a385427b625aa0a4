import type { Exchange } from '../http.ts';
import type { CheckContext } from './context.ts';
import { type Check, defineCheck, type RequirementId } from './define.ts';
import { Violation } from './failure.ts';
import { addDays, type ContactRecord, dayOf, recipientEmails, type TagRecord } from './sample.ts';

/** Requirement id prefix of this file's checks (area `agg`). */
export const prefix = 'AGG';

/** Counter records on live responses: every visible tag, contact, and stats record. */
async function counterRecords(
  ctx: CheckContext,
): Promise<{ label: string; stats: Record<string, number>; exchange: Exchange | undefined }[]> {
  const out: { label: string; stats: Record<string, number>; exchange: Exchange | undefined }[] =
    [];
  const tags = await ctx.walk('teams.tags');
  for (const t of tags.records as TagRecord[]) {
    out.push({ label: `tag ${t.tagID}`, stats: t.stats, exchange: tags.pages[0] });
  }
  const contacts = await ctx.walk('contacts.list');
  for (const c of contacts.records as ContactRecord[]) {
    out.push({ label: `contact ${c.contactID}`, stats: c.stats, exchange: contacts.pages[0] });
  }
  for (const aggregate of ['false', 'true']) {
    const stats = await ctx.walk('stats.team', { query: [['aggregateData', aggregate]] });
    for (const s of stats.records as Record<string, number>[]) {
      out.push({
        label: `team stats record${s.date === undefined ? ' (aggregated)' : ` of ${s.date}`}`,
        stats: s,
        exchange: stats.pages[0],
      });
    }
  }
  return out;
}

/** Lists at most this many violations per law (one is enough to fail; more is noise). */
const MAX_LISTED = 5;

/** A law over every counter record: `test` says what is wrong with one, in domain words. */
function law(
  id: RequirementId,
  title: string,
  test: (s: Record<string, number>, label: string) => string | undefined,
): Check {
  return defineCheck({
    id,
    title,
    clause: 'decisions §9 (invariants)',
    endpoints: ['teams.tags', 'contacts.list', 'stats.team'],
    async run(ctx) {
      const records = await counterRecords(ctx);
      if (records.length === 0) ctx.skip('no tag, contact or stats record is visible');
      await ctx.each(
        records,
        (r) => {
          const problem = test(r.stats, r.label);
          if (problem !== undefined)
            throw new Violation(problem, { kind: 'counter', exchange: r.exchange });
        },
        { list: MAX_LISTED },
      );
    },
  });
}

/**
 * The tags the daily laws look at: up to `numRuns` (3 to 12) of the busiest visible tags.
 * Skips the check when no tag is visible.
 */
async function dailySubjects(ctx: CheckContext): Promise<TagRecord[]> {
  const tags = (await ctx.walk('teams.tags')).records as TagRecord[];
  if (tags.length === 0) ctx.skip('no tag is visible to the credential');
  return [...tags]
    .sort(
      (a, b) =>
        b.stats.totalOpens! + b.stats.totalClicks! - a.stats.totalOpens! - a.stats.totalClicks!,
    )
    .slice(0, Math.max(3, Math.min(ctx.numRuns, 12)));
}

/** Days with at least one open or click of a tag (from endpoints 10 and 12). */
async function eventDays(ctx: CheckContext, tagID: string): Promise<string[]> {
  const opens = await ctx.records<{ openDate: string }>('opens.tag', { pathParams: { tagID } });
  const clicks = await ctx.records<{ clickDate: string }>('clicks.tag', { pathParams: { tagID } });
  return [
    ...new Set([...opens.map((o) => dayOf(o.openDate)), ...clicks.map((c) => dayOf(c.clickDate))]),
  ].sort();
}

async function daily(ctx: CheckContext, tagID: string, date: string) {
  const ex = await ctx.call('tags.daily', { pathParams: { tagID }, query: [['date', date]] });
  const { data } = ctx.envelope('tags.daily', ex) as { data: { opens: number; clicks: number } };
  return { ...data, exchange: ex };
}

/** Laws on live responses (decisions §9): counters that cannot contradict each other. */
export const checks: readonly Check[] = [
  law('AGG-UNIQUE-LE-TOTAL', 'unique opens/clicks never exceed total opens/clicks', (s, l) => {
    if (s.uniqueOpens! > s.totalOpens!)
      return `uniqueOpens ${s.uniqueOpens} > totalOpens ${s.totalOpens} for ${l}`;
    if (s.uniqueClicks! > s.totalClicks!)
      return `uniqueClicks ${s.uniqueClicks} > totalClicks ${s.totalClicks} for ${l}`;
    return undefined;
  }),
  law(
    'AGG-UNIQUE-ZERO-IFF-TOTAL-ZERO',
    'unique opens/clicks are 0 exactly when total opens/clicks are 0',
    (s, l) => {
      if ((s.uniqueOpens === 0) !== (s.totalOpens === 0))
        return `uniqueOpens ${s.uniqueOpens} but totalOpens ${s.totalOpens} for ${l}`;
      if ((s.uniqueClicks === 0) !== (s.totalClicks === 0))
        return `uniqueClicks ${s.uniqueClicks} but totalClicks ${s.totalClicks} for ${l}`;
      return undefined;
    },
  ),
  law('AGG-DEVICE-LE-TOTAL', 'desktop + mobile opens/clicks never exceed the totals', (s, l) => {
    if (s.desktopOpens === undefined) return undefined; // stats records carry no device counters
    if (s.desktopOpens + s.mobileOpens! > s.totalOpens!)
      return `desktopOpens ${s.desktopOpens} + mobileOpens ${s.mobileOpens} > totalOpens ${s.totalOpens} for ${l}`;
    if (s.desktopClicks! + s.mobileClicks! > s.totalClicks!)
      return `desktopClicks ${s.desktopClicks} + mobileClicks ${s.mobileClicks} > totalClicks ${s.totalClicks} for ${l}`;
    return undefined;
  }),
  defineCheck({
    id: 'AGG-UNIQUE-LE-RECIPIENTS',
    title:
      'unique opens/clicks of a tag never exceed its number of recipients; a contact’s never exceed its totalSent',
    clause: 'decisions §9 (invariants)',
    endpoints: ['teams.tags', 'contacts.list'],
    async run(ctx) {
      const tags = await ctx.walk('teams.tags');
      const contacts = await ctx.walk('contacts.list');
      if (tags.records.length + contacts.records.length === 0)
        ctx.skip('no tag or contact is visible to the credential');
      const cases = [
        ...(tags.records as TagRecord[]).flatMap((t) =>
          ['uniqueOpens', 'uniqueClicks'].map((k) => () => {
            const n = recipientEmails(t).length;
            if (t.stats[k]! > n)
              throw new Violation(`${k} ${t.stats[k]} > ${n} recipients for tag ${t.tagID}`, {
                kind: 'counter',
                exchange: tags.pages[0],
              });
          }),
        ),
        ...(contacts.records as ContactRecord[]).flatMap((c) =>
          ['uniqueOpens', 'uniqueClicks'].map((k) => () => {
            if (c.stats[k]! > c.stats.totalSent!)
              throw new Violation(
                `${k} ${c.stats[k]} > totalSent ${c.stats.totalSent} for contact ${c.contactID}`,
                { kind: 'counter', exchange: contacts.pages[0] },
              );
          }),
        ),
      ];
      await ctx.each(cases, (judge) => judge(), { list: MAX_LISTED });
    },
  }),
  defineCheck({
    id: 'AGG-DAILY-LE-UNIQUE',
    title: 'daily opens/clicks of a tag never exceed its uniqueOpens/uniqueClicks',
    clause: 'decisions §9 (daily counts)',
    endpoints: ['tags.daily', 'teams.tags', 'opens.tag', 'clicks.tag'],
    async run(ctx) {
      let compared = 0;
      for (const t of await dailySubjects(ctx)) {
        for (const day of await eventDays(ctx, t.tagID)) {
          compared++;
          const d = await daily(ctx, t.tagID, day);
          if (d.opens > t.stats.uniqueOpens!)
            ctx.fail(
              `daily opens ${d.opens} > uniqueOpens ${t.stats.uniqueOpens} for tag ${t.tagID} on ${day}`,
              { kind: 'counter', exchange: d.exchange },
            );
          if (d.clicks > t.stats.uniqueClicks!)
            ctx.fail(
              `daily clicks ${d.clicks} > uniqueClicks ${t.stats.uniqueClicks} for tag ${t.tagID} on ${day}`,
              { kind: 'counter', exchange: d.exchange },
            );
          ctx.stopAt(MAX_LISTED);
        }
      }
      if (compared === 0) ctx.skip('the busiest visible tags have no open or click event');
    },
  }),
  defineCheck({
    id: 'AGG-DAILY-SUM-GE-UNIQUE',
    title:
      'the daily opens/clicks of a tag summed over its event days are at least its unique counts',
    clause: 'decisions §9 (daily counts)',
    endpoints: ['tags.daily', 'teams.tags', 'opens.tag', 'clicks.tag'],
    async run(ctx) {
      for (const t of await dailySubjects(ctx)) {
        let opens = 0;
        let clicks = 0;
        let last: Exchange | undefined;
        const days = await eventDays(ctx, t.tagID);
        for (const day of days) {
          const d = await daily(ctx, t.tagID, day);
          opens += d.opens;
          clicks += d.clicks;
          last = d.exchange;
        }
        if (opens < t.stats.uniqueOpens!)
          ctx.fail(
            `daily opens summed over ${days.length} event days = ${opens} < uniqueOpens ${t.stats.uniqueOpens} for tag ${t.tagID}`,
            { kind: 'counter', exchange: last },
          );
        if (clicks < t.stats.uniqueClicks!)
          ctx.fail(
            `daily clicks summed over ${days.length} event days = ${clicks} < uniqueClicks ${t.stats.uniqueClicks} for tag ${t.tagID}`,
            { kind: 'counter', exchange: last },
          );
      }
    },
  }),
  defineCheck({
    id: 'AGG-DAILY-ZERO-BEFORE-SEND',
    title: 'daily counts are 0 on the days before the tag was sent',
    clause: 'decisions §9 (daily counts)',
    endpoints: ['tags.daily', 'teams.tags'],
    async run(ctx) {
      for (const t of await dailySubjects(ctx)) {
        for (const back of [1, 30]) {
          const day = addDays(dayOf(t.dateSent), -back);
          const d = await daily(ctx, t.tagID, day);
          if (d.opens !== 0 || d.clicks !== 0)
            ctx.fail(
              `daily opens ${d.opens}, clicks ${d.clicks} on ${day}, before tag ${t.tagID} was sent (${t.dateSent})`,
              { kind: 'counter', exchange: d.exchange },
            );
        }
      }
    },
  }),
];
