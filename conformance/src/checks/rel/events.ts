import {
  dailyAreDistinctRecipients,
  normaliseEmail,
  parseTimestampMs,
  plainEventsByTagSteps,
  uniqueOpensAreDistinctRecipients,
  windowBounds,
  withFields,
} from '@tagtrack/core';
import fc from 'fast-check';
import { comparable, instantOf } from '../../check/compare.ts';
import { type Check, defineCheck, lawCheck } from '../../check/define.ts';
import { describe, ensure, Violation } from '../../check/failure.ts';
import {
  addDays,
  boundaryWindowsInSlices,
  dayOf,
  eventsOf,
  firstDifference,
  flattenEvents,
  flattenEventsInSlices,
  type GroupedEvent,
  nearMidnightSteps,
  windowQuery,
  withPicks,
} from '../../check/sample.ts';
import { collect, firstNotIn, setInSlices, sliced } from '../../check/slices.ts';
import { allTags, arbWindow } from './reads.ts';

/** Counter mismatches listed one by one (one is enough to fail; more is noise). */
const MAX_LISTED = 5;

/** Days of one tag's daily series at most (from the day before sending to after the last event). */
const MAX_SERIES_DAYS = 40;

/**
 * Every UTC day from the day before `sent` (a tag's dateSent) to the day after the last of
 * `eventDates` (its events), at most {@link MAX_SERIES_DAYS}, oldest first: the tag's daily
 * counts are known on each, zeros included (spec §10).
 */
function seriesDays(sent: string, eventDates: readonly string[]): string[] {
  const first = addDays(dayOf(sent), -1);
  const last = addDays([dayOf(sent), ...eventDates.map(dayOf)].sort().at(-1)!, 1);
  const out: string[] = [];
  for (let d = first; d <= last && out.length < MAX_SERIES_DAYS; d = addDays(d, 1)) out.push(d);
  return out;
}

/** An event's identity for set comparisons: tag, recipient by normalised email, instant, details. */
function eventKey(e: GroupedEvent) {
  return JSON.stringify([
    e.tagID,
    normaliseEmail(e.recipient.email),
    instantOf(e.date),
    e.details.device,
    e.details.city,
    e.details.os,
  ]);
}

/** Counters against the events they count, and event windows (spec §6, §9, §10). */
export const checks: readonly Check[] = [
  lawCheck(uniqueOpensAreDistinctRecipients, {
    wholeLists: true,
    async run(ctx) {
      const tags = await allTags(ctx);
      if (tags.length === 0) ctx.skip('no tag is visible to the credential');
      const openGroups = (await ctx.walk('opens.list')).records;
      const clickGroups = (await ctx.walk('clicks.list')).records;
      // every tag's counters against the events /opens and /clicks list for it (core's law),
      // each tag given only its own events (indexed once: linear in tags and events)
      const opens = await sliced(plainEventsByTagSteps(openGroups));
      const clicks = await sliced(plainEventsByTagSteps(clickGroups));
      const exchange = (await ctx.walk('opens.list')).pages[0];
      await ctx.each(
        tags,
        (tag) => {
          const problem = uniqueOpensAreDistinctRecipients.check({
            tag,
            opens: opens.get(tag.tagID) ?? [],
            clicks: clicks.get(tag.tagID) ?? [],
          });
          if (problem !== undefined) throw new Violation(problem, { kind: 'counter', exchange });
        },
        { list: MAX_LISTED },
      );
      // and the per-tag endpoints list the same events as the groups
      await ctx.property(fc.constantFrom(...tags), async (tag) => {
        for (const kind of ['opens', 'clicks'] as const) {
          const endpoint = kind === 'opens' ? 'opens.tag' : 'clicks.tag';
          const ex = await ctx.call(endpoint, { pathParams: { tagID: tag.tagID } });
          const events = await ctx.records(endpoint, {
            pathParams: { tagID: tag.tagID },
          });
          const grouped = flattenEvents(
            (kind === 'opens' ? openGroups : clickGroups).filter((g) => g.tagID === tag.tagID),
          );
          const want = grouped.map((e) => withFields(e.details, { tagID: tag.tagID }));
          // events of the same instant may come in any order (spec §5 Revision 2)
          const diff = firstDifference(comparable(endpoint, want), comparable(endpoint, events));
          ensure(
            diff === undefined,
            () =>
              `tag ${tag.tagID}: /${kind}/tag differs from the events /${kind} groups for it: ${diff}`,
            {
              kind: 'value',
              exchange: ex,
            },
          );
        }
      });
    },
  }),
  lawCheck(dailyAreDistinctRecipients, {
    wholeLists: true,
    async run(ctx) {
      const openGroups = (await ctx.walk('opens.list')).records;
      const clickGroups = (await ctx.walk('clicks.list')).records;
      const events = await flattenEventsInSlices([...openGroups, ...clickGroups]);
      const pairs = await collect(events, (e): [string, string] => [e.tagID, dayOf(e.date)]);
      if (pairs.length === 0) ctx.skip('no open or click event is visible to the credential');
      // each tag's events indexed once: a judgement reads only the events of its tag
      const opens = await sliced(plainEventsByTagSteps(openGroups));
      const clicks = await sliced(plainEventsByTagSteps(clickGroups));
      const judge = async (tagID: string, day: string) => {
        const ex = await ctx.call('tags.daily', { pathParams: { tagID }, query: [['date', day]] });
        const data = ctx.single('tags.daily', ex);
        const problem = dailyAreDistinctRecipients.check({
          tag: { tagID },
          date: day,
          daily: data,
          opens: opens.get(tagID) ?? [],
          clicks: clicks.get(tagID) ?? [],
        });
        if (problem !== undefined) throw new Violation(problem, { kind: 'counter', exchange: ex });
      };
      // picked from the data, always checked: the tags of the events nearest a UTC midnight,
      // every day from the day before sending to the day after the last event (zeros on the
      // days without events), so a shifted day boundary fails every run
      const sent = new Map((await allTags(ctx)).map((t) => [t.tagID, t.dateSent]));
      const edge = new Set(await sliced(nearMidnightSteps(events.map((e) => e.date))));
      const subjects = [
        ...new Set(await collect(events, (e) => (edge.has(e.date) ? e.tagID : undefined))),
      ]
        .filter((id) => sent.has(id))
        .slice(0, 2);
      const series = subjects.flatMap((tagID) =>
        seriesDays(sent.get(tagID)!, [
          ...(opens.get(tagID) ?? []).map((e) => e.date),
          ...(clicks.get(tagID) ?? []).map((e) => e.date),
        ]).map((day) => [tagID, day] as const),
      );
      await ctx.each(series, ([tagID, day]) => judge(tagID, day), { list: MAX_LISTED });
      await ctx.property(fc.constantFrom(...pairs), ([tagID, day]) => judge(tagID, day));
    },
  }),
  defineCheck({
    id: 'REL-EVENT-RECIPIENT',
    title:
      'the recipient of every event of /opens and /clicks is one of its tag’s recipients by normalised email, named as the tag’s recipients name that email (its first entry); the email’s spelling is free',
    clause: 'spec §9 Revision 3 (the recipient of an event on endpoints 9 and 11)',
    endpoints: ['opens.list', 'clicks.list', 'teams.tags'],
    async run(ctx) {
      // the tag's recipients list each normalised email once, with its first entry's name
      // (spec §5 Revision 2): that is the name every event by that email must carry. Built for
      // the tags the sampled events name, when the first of them is judged: a long tag list
      // holds far more tags than a sample of events names
      const tags = new Map((await allTags(ctx)).map((t) => [t.tagID, t]));
      const names = new Map<string, Map<string, string>>();
      const namesOf = (tagID: string): Map<string, string> => {
        let byEmail = names.get(tagID);
        if (byEmail === undefined) {
          byEmail = new Map();
          for (const r of tags.get(tagID)!.recipients) {
            const email = normaliseEmail(r.email);
            if (!byEmail.has(email)) byEmail.set(email, r.name);
          }
          names.set(tagID, byEmail);
        }
        return byEmail;
      };
      let compared = 0;
      for (const endpoint of ['opens.list', 'clicks.list'] as const) {
        // the law holds event by event: a long list is verified on a seeded sample of pages
        const w = await ctx.sampledList(
          endpoint,
          {},
          endpoint === 'opens.list' ? 'open groups' : 'click groups',
        );
        // the events one at a time from their groups, not a copy of them all (an event of a
        // tag the tag list lacks is the scoping checks' to judge)
        function* events(): Generator<GroupedEvent> {
          for (const e of eventsOf(w.records))
            if (tags.has(e.tagID)) {
              compared++;
              yield e;
            }
        }
        await ctx.each(
          events(),
          (e) => {
            const email = normaliseEmail(e.recipient.email);
            const want = namesOf(e.tagID).get(email);
            ensure(
              want !== undefined,
              () =>
                `${describe(w.pages[0]!)}: an event of tag ${e.tagID} (${e.date}) has the recipient ${JSON.stringify(e.recipient.email)}, which is not among the tag's recipients`,
              { kind: 'value', exchange: w.pages[0] },
            );
            ensure(
              e.recipient.name === want,
              () =>
                `${describe(w.pages[0]!)}: an event of tag ${e.tagID} by ${email} (${e.date}) names its recipient ${JSON.stringify(e.recipient.name)}; the tag's recipients name ${email} ${JSON.stringify(want)}`,
              {
                kind: 'value',
                exchange: w.pages[0],
                expected: want,
                actual: e.recipient.name,
              },
            );
          },
          { list: MAX_LISTED },
        );
      }
      if (compared === 0) ctx.skip('no open or click event is visible to the credential');
    },
  }),
  defineCheck({
    id: 'REL-EVENTS-WINDOW',
    wholeLists: true,
    title:
      'start/end on /opens and /clicks select events by their own date (openDate, clickDate), inclusive',
    clause: 'spec §6 (start/end select events by their own date on endpoints 9 and 11)',
    endpoints: ['opens.list', 'clicks.list'],
    async run(ctx) {
      const all = {
        opens: await flattenEventsInSlices((await ctx.walk('opens.list')).records),
        clicks: await flattenEventsInSlices((await ctx.walk('clicks.list')).records),
      };
      // each event's instant once (not at every run of the property); its identity only for
      // the events a window selects (a long list's keys would be held for the whole check)
      const instants = async (events: readonly GroupedEvent[]) =>
        Float64Array.from(await collect(events, (e) => parseTimestampMs(e.date)));
      const ms = { opens: await instants(all.opens), clicks: await instants(all.clicks) };
      const days = [
        ...new Set(await collect([...all.opens, ...all.clicks], (e) => dayOf(e.date))),
      ].sort();
      if (days.length === 0) ctx.skip('no open or click event is visible to the credential');
      const arb = fc.record({
        kind: fc.constantFrom('opens' as const, 'clicks' as const),
        window: arbWindow(days),
      });
      // picked from the data, always tried: one-day windows on the days of the events nearest
      // a UTC midnight, per kind (a shifted day boundary or an exclusive bound shows there)
      const examples = [];
      for (const kind of ['opens', 'clicks'] as const)
        for (const window of await boundaryWindowsInSlices(all[kind].map((e) => e.date)))
          examples.push({ kind, window });
      await ctx.property(
        arb,
        async ({ kind, window }) => {
          const endpoint = kind === 'opens' ? 'opens.list' : 'clicks.list';
          const w = await ctx.walk(endpoint, { query: windowQuery(window.start, window.end) });
          const got = await collect(await flattenEventsInSlices(w.records), eventKey);
          // inDayWindow of each event's date, on the instants read once
          const { startMs, endMs } = windowBounds(window);
          const at = ms[kind];
          const events = all[kind];
          const expected = await collect(at.keys(), (i) =>
            at[i]! >= startMs && at[i]! < endMs ? eventKey(events[i]!) : undefined,
          );
          const missing = await firstNotIn(expected, await setInSlices(got));
          const extra = await firstNotIn(got, await setInSlices(expected));
          // listDifferenceKind's answer, from the sets already made
          const difference =
            extra !== undefined || got.length > expected.length
              ? 'extra'
              : missing !== undefined || got.length < expected.length
                ? 'missing'
                : 'order';
          ensure(
            got.length === expected.length && missing === undefined && extra === undefined,
            () =>
              `${describe(w.pages[0]!)}: ${got.length} ${kind}, expected the ${expected.length} of ${all[kind].length} whose own date is in the window` +
              (extra ? `; unexpected event ${extra}` : '') +
              (missing ? `; missing event ${missing}` : ''),
            { kind: difference, exchange: w.pages[0] },
          );
        },
        withPicks(ctx, examples),
      );
    },
  }),
];
