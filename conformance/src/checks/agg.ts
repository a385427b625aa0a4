import {
  type CountedRecord,
  contactSumsEqualTagSums,
  type DailyCounts,
  dailyAtMostUnique,
  dailySumAtLeastUnique,
  dailyZeroBeforeSend,
  deviceAtMostTotal,
  type Law,
  uniqueAtMostRecipients,
  uniqueAtMostTotal,
  uniqueZeroIffTotalZero,
} from '@tagtrack/core';
import type { CheckContext } from '../check/context.ts';
import { type Check, lawCheck } from '../check/define.ts';
import { Violation } from '../check/failure.ts';
import { addDays, dayOf, type TagRecord } from '../check/sample.ts';
import { applyLaw } from '../check/slices.ts';
import { WALK_MAX_RECORDS } from '../check/walk.ts';
import type { Exchange } from '../http/client.ts';

/** Requirement id prefix of this file's checks (area `agg`). */
export const prefix = 'AGG';

/**
 * Counter records on live responses: every visible tag, contact, and stats record (the tags
 * and contacts of a list longer than the run's `--sample-above`: a seeded sample of them,
 * the law holding record by record).
 */
async function counterRecords(
  ctx: CheckContext,
): Promise<{ record: CountedRecord; exchange: Exchange | undefined }[]> {
  const out: { record: CountedRecord; exchange: Exchange | undefined }[] = [];
  const tags = await ctx.sampledList('teams.tags', {}, 'tags');
  for (const record of tags.records) out.push({ record, exchange: tags.pages[0] });
  const contacts = await ctx.sampledList('contacts.list', {}, 'contacts');
  for (const record of contacts.records) out.push({ record, exchange: contacts.pages[0] });
  for (const aggregate of ['false', 'true']) {
    const stats = await ctx.walk('stats.team', { params: { aggregateData: aggregate } });
    for (const record of stats.records) out.push({ record, exchange: stats.pages[0] });
  }
  return out;
}

/** Lists at most this many violations per law (one is enough to fail; more is noise). */
const MAX_LISTED = 5;

/**
 * The check of core's law `law` (its predicate, in domain words) over every counter record
 * (`lawCheck`: id, title, clause and endpoints are the law's).
 */
function counterLawCheck(law: Law<CountedRecord>): Check {
  return lawCheck(law, {
    async run(ctx) {
      const records = await counterRecords(ctx);
      if (records.length === 0) ctx.skip('no tag, contact or stats record is visible');
      await ctx.each(
        records,
        (r) => {
          const problem = law.check(r.record);
          if (problem !== undefined)
            throw new Violation(problem, { kind: 'counter', exchange: r.exchange });
        },
        { list: MAX_LISTED },
      );
    },
  });
}

/**
 * The tags the daily laws look at: up to `numRuns` (3 to 12) of the busiest visible tags (of
 * a seeded sample of a list too long to walk whole). Skips the check when no tag is visible.
 */
async function dailySubjects(ctx: CheckContext): Promise<TagRecord[]> {
  const tags = (await ctx.sampledList('teams.tags', {}, 'tags', WALK_MAX_RECORDS)).records;
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
  const opens = await ctx.records('opens.tag', { pathParams: { tagID } });
  const clicks = await ctx.records('clicks.tag', { pathParams: { tagID } });
  return [
    ...new Set([...opens.map((o) => dayOf(o.openDate)), ...clicks.map((c) => dayOf(c.clickDate))]),
  ].sort();
}

async function daily(ctx: CheckContext, tagID: string, date: string) {
  const ex = await ctx.call('tags.daily', { pathParams: { tagID }, params: { date } });
  const data = ctx.single('tags.daily', ex);
  return { ...data, exchange: ex };
}

/**
 * The daily counts of a tag on each of `days`: asked at once (a slow service answers them
 * together), read in day order (the first that does not parse throws, whatever answered
 * first).
 */
async function dailies(ctx: CheckContext, tagID: string, days: readonly string[]) {
  const answers = await Promise.all(
    days.map((date) => ctx.call('tags.daily', { pathParams: { tagID }, params: { date } })),
  );
  return answers.map((ex) => ({ ...ctx.single('tags.daily', ex), exchange: ex }));
}

/** Laws on live responses (spec §10): counters that cannot contradict each other. */
export const checks: readonly Check[] = [
  counterLawCheck(uniqueAtMostTotal),
  counterLawCheck(uniqueZeroIffTotalZero),
  counterLawCheck(deviceAtMostTotal),
  lawCheck(uniqueAtMostRecipients, {
    async run(ctx) {
      // record by record: a long list is verified on a seeded sample of its pages
      const tags = await ctx.sampledList('teams.tags', {}, 'tags');
      const contacts = await ctx.sampledList('contacts.list', {}, 'contacts');
      if (tags.records.length + contacts.records.length === 0)
        ctx.skip('no tag or contact is visible to the credential');
      const cases = [
        ...tags.records.map((record) => ({ record, exchange: tags.pages[0] })),
        ...contacts.records.map((record) => ({
          record,
          exchange: contacts.pages[0],
        })),
      ].map(({ record, exchange }) => () => {
        const problem = uniqueAtMostRecipients.check(record);
        if (problem !== undefined) throw new Violation(problem, { kind: 'counter', exchange });
      });
      await ctx.each(cases, (judge) => judge(), { list: MAX_LISTED });
    },
  }),
  lawCheck(dailyAtMostUnique, {
    reads: ['opens.tag', 'clicks.tag'],
    async run(ctx) {
      let compared = 0;
      for (const t of await dailySubjects(ctx)) {
        const days = await eventDays(ctx, t.tagID);
        const answers = await dailies(ctx, t.tagID, days);
        for (const [i, day] of days.entries()) {
          compared++;
          const d = answers[i]!;
          const problem = dailyAtMostUnique.check({ tag: t, date: day, daily: d });
          if (problem !== undefined) ctx.fail(problem, { kind: 'counter', exchange: d.exchange });
          ctx.stopAt(MAX_LISTED);
        }
      }
      if (compared === 0) ctx.skip('the busiest visible tags have no open or click event');
    },
  }),
  lawCheck(dailySumAtLeastUnique, {
    async run(ctx) {
      for (const t of await dailySubjects(ctx)) {
        let last: Exchange | undefined;
        const series: { date: string; daily: DailyCounts }[] = [];
        const days = await eventDays(ctx, t.tagID);
        const answers = await dailies(ctx, t.tagID, days);
        for (const [i, day] of days.entries()) {
          const d = answers[i]!;
          series.push({ date: day, daily: d });
          last = d.exchange;
        }
        const problem = dailySumAtLeastUnique.check({ tag: t, days: series });
        if (problem !== undefined) ctx.fail(problem, { kind: 'counter', exchange: last });
      }
    },
  }),
  lawCheck(dailyZeroBeforeSend, {
    async run(ctx) {
      for (const t of await dailySubjects(ctx)) {
        for (const back of [1, 30]) {
          const day = addDays(dayOf(t.dateSent), -back);
          const d = await daily(ctx, t.tagID, day);
          const problem = dailyZeroBeforeSend.check({ tag: t, date: day, daily: d });
          if (problem !== undefined) ctx.fail(problem, { kind: 'counter', exchange: d.exchange });
        }
      }
    },
  }),
  lawCheck(contactSumsEqualTagSums, {
    async run(ctx) {
      const tags = await ctx.walk('teams.tags');
      const contacts = await ctx.walk('contacts.list');
      if (tags.records.length + contacts.records.length === 0)
        ctx.skip('no tag or contact is visible to the credential');
      const problem = await applyLaw(contactSumsEqualTagSums, {
        contacts: contacts.records,
        tags: tags.records,
      });
      ctx.compared(1);
      if (problem !== undefined)
        ctx.fail(problem, { kind: 'counter', exchange: contacts.pages[0] });
    },
  }),
];
