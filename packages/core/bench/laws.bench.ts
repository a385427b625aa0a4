/**
 * Benchmark of every law of `LAWS` (`pnpm bench` in packages/core): the median time of each
 * law's check over generated inputs of about 10k, 100k and 1M records (events; a tenth as
 * many tags, each sent to up to 8 of a pool of contacts), built as the suite builds them from
 * lists read over HTTP (each input indexed once: `plainEventsByTag`, `contactsOf`). A law in
 * linear time shows about 10x from one size to the next; the table gives ns per record too.
 *
 * Environment: `BENCH_SIZES=10000,100000` picks the sizes; `BENCH_ITERATIONS=3` the timed
 * runs per law and size (median reported). Prints a Markdown table (docs/bench.md keeps one).
 */
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { contactsOf } from '../src/aggregate/contacts.ts';
import {
  compareMembers,
  compareTags,
  dailyStatsOfTags,
  statsOfTags,
  tagCounters,
} from '../src/aggregate/rules.ts';
import { dayString } from '../src/aggregate/time.ts';
import type { Contact } from '../src/contact.ts';
import type { ClickGroup, OpenGroup } from '../src/events.ts';
import {
  aggregatedIsMergeOfDays,
  contactCountersOverTheirTags,
  contactSumsEqualTagSums,
  contactsByEmail,
  dailyAreDistinctRecipients,
  dailyAtMostUnique,
  dailySumAtLeastUnique,
  dailyZeroBeforeSend,
  deviceAtMostTotal,
  eventGroupsInTagOrder,
  eventsOldestFirst,
  groupStatsAreMergeOfMemberStats,
  LAWS,
  type LawEvent,
  membersByName,
  plainEventsByTag,
  rangeSplitMerges,
  statsDaysAscending,
  statsSummariseTags,
  tagsNewestFirst,
  teamStatsAreMergeOfMemberStats,
  typedStatsMergeToUntyped,
  uniqueAtMostRecipients,
  uniqueAtMostTotal,
  uniqueOpensAreDistinctRecipients,
  uniqueZeroIffTotalZero,
} from '../src/laws.ts';
import type { TeamMember } from '../src/member.ts';
import { mergeAllStats } from '../src/stats.ts';
import type { Tag } from '../src/tag.ts';

const sizes = (process.env.BENCH_SIZES ?? '10000,100000,1000000')
  .split(',')
  .map((s) => Number(s.trim()));
const iterations = Number(process.env.BENCH_ITERATIONS ?? 3);

/** A small deterministic PRNG (mulberry32), so every run times the same inputs. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY = 86_400_000;
const START = Date.UTC(2023, 0, 1);
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** Inputs of about `n` records that obey every law (so each check reads all of them). */
function inputs(n: number) {
  const rnd = random(n);
  const pool = Math.max(50, Math.floor(n / 4));
  const devices = ['desktop', 'mobile', 'tablet', 'unknown'];
  const raw = Array.from({ length: Math.max(10, Math.floor(n / 10)) }, (_, i) => {
    const sent = START + Math.floor(rnd() * 900) * DAY + Math.floor(rnd() * DAY);
    const recipients = Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => {
      const c = Math.floor(rnd() * pool);
      return { name: `Contact ${c}`, email: `contact${c}@example.test` };
    });
    return {
      tagID: `t${i.toString(16).padStart(8, '0')}`,
      subject: 's',
      dateSent: iso(sent),
      recipients,
      sent,
    };
  });
  const openGroups: OpenGroup[] = [];
  const clickGroups: ClickGroup[] = [];
  let events = 0;
  for (const t of raw) {
    const opens: OpenGroup['opens'] = [];
    const clicks: ClickGroup['clicks'] = [];
    for (let k = 0; k < 10; k++) {
      const r = t.recipients[Math.floor(rnd() * t.recipients.length)]!;
      const at = t.sent + Math.floor(rnd() * 20 * DAY);
      const details = {
        counry: 'FR',
        region: 'IDF',
        city: 'Paris',
        latitude: '48.8',
        longitude: '2.3',
        device: devices[k % 4]!,
        os: 'Linux',
        browser: 'Firefox',
      };
      const recipient = { recipientID: r.email, name: r.name, email: r.email };
      if (k % 3 === 2) clicks.push({ recipient, details: { clickDate: iso(at), ...details } });
      else opens.push({ recipient, details: { openDate: iso(at), ...details } });
      events++;
    }
    opens.sort((a, b) => a.details.openDate.localeCompare(b.details.openDate));
    clicks.sort((a, b) => a.details.clickDate.localeCompare(b.details.clickDate));
    openGroups.push({ tagID: t.tagID, opens } as OpenGroup);
    clickGroups.push({ tagID: t.tagID, clicks } as ClickGroup);
  }
  const opensByTag = plainEventsByTag(openGroups);
  const clicksByTag = plainEventsByTag(clickGroups);
  const tags: Tag[] = raw
    .map((t) => ({
      tagID: t.tagID,
      subject: t.subject,
      dateSent: t.dateSent,
      recipients: t.recipients,
      stats: tagCounters(t, opensByTag.get(t.tagID) ?? [], clicksByTag.get(t.tagID) ?? []),
    }))
    .sort(compareTags);
  const rank = new Map(tags.map((t, i) => [t.tagID, i]));
  openGroups.sort((a, b) => rank.get(a.tagID)! - rank.get(b.tagID)!);
  clickGroups.sort((a, b) => rank.get(a.tagID)! - rank.get(b.tagID)!);
  const opens: LawEvent[] = [...opensByTag.values()].flat();
  const clicks: LawEvent[] = [...clicksByTag.values()].flat();
  const contacts: Contact[] = [...contactsOf(tags, opens, clicks).values()].sort((a, b) =>
    a.email < b.email ? -1 : 1,
  );
  const members: TeamMember[] = Array.from(
    { length: Math.max(5, Math.floor(n / 1000)) },
    (_, i) => ({
      memberID: `m${i}`,
      firstname: `F${i % 7}`,
      lastname: `L${i % 13}`,
      email: `m${i}@example.test`,
      accountType: 'user' as const,
    }),
  ).sort(compareMembers);
  const daily = dailyStatsOfTags(tags);
  const aggregated = [statsOfTags(tags)];
  const parts = Array.from({ length: 10 }, (_, p) =>
    statsOfTags(tags.filter((_, i) => i % 10 === p)),
  );
  const sortedEvents = [...openGroups.flatMap((g) => g.opens.map((e) => e.details))].sort((a, b) =>
    a.openDate.localeCompare(b.openDate),
  );
  return {
    records: events,
    tags,
    contacts,
    members,
    opens,
    clicks,
    opensByTag,
    clicksByTag,
    openGroups,
    daily,
    aggregated,
    merge: { subject: 'the team', whole: mergeAllStats(parts), parts },
    sortedEvents,
  };
}

type Inputs = ReturnType<typeof inputs>;

/** Each law of LAWS applied as the suite applies it: every record, every tag with its own events. */
const RUNS: Record<string, (x: Inputs) => unknown> = {};
for (const law of [
  uniqueAtMostTotal,
  uniqueZeroIffTotalZero,
  deviceAtMostTotal,
  uniqueAtMostRecipients,
])
  RUNS[law.id] = (x) => {
    for (const r of x.tags) law.check(r);
    for (const r of x.contacts) law.check(r);
    for (const r of x.daily) law.check(r);
  };
RUNS[uniqueOpensAreDistinctRecipients.id] = (x) => {
  for (const tag of x.tags)
    uniqueOpensAreDistinctRecipients.check({
      tag,
      opens: x.opensByTag.get(tag.tagID) ?? [],
      clicks: x.clicksByTag.get(tag.tagID) ?? [],
    });
};
const onSendDay = (x: Inputs, f: (tag: Tag, date: string) => void) => {
  for (const tag of x.tags) f(tag, dayString(Math.floor(Date.parse(tag.dateSent) / DAY)));
};
RUNS[dailyAtMostUnique.id] = (x) =>
  onSendDay(x, (tag, date) =>
    dailyAtMostUnique.check({ tag, date, daily: { opens: 0, clicks: 0 } }),
  );
RUNS[dailyZeroBeforeSend.id] = (x) =>
  onSendDay(x, (tag, date) =>
    dailyZeroBeforeSend.check({ tag, date, daily: { opens: 0, clicks: 0 } }),
  );
RUNS[dailyAreDistinctRecipients.id] = (x) =>
  onSendDay(x, (tag, date) =>
    dailyAreDistinctRecipients.check({
      tag,
      date,
      daily: { opens: 0, clicks: 0 },
      opens: x.opensByTag.get(tag.tagID) ?? [],
      clicks: x.clicksByTag.get(tag.tagID) ?? [],
    }),
  );
RUNS[dailySumAtLeastUnique.id] = (x) =>
  onSendDay(x, (tag, date) =>
    dailySumAtLeastUnique.check({
      tag,
      days: [{ date, daily: { opens: tag.stats.uniqueOpens, clicks: tag.stats.uniqueClicks } }],
    }),
  );
RUNS[statsSummariseTags.id] = (x) =>
  statsSummariseTags.check({ tags: x.tags, daily: x.daily, aggregated: x.aggregated });
RUNS[aggregatedIsMergeOfDays.id] = (x) =>
  aggregatedIsMergeOfDays.check({ daily: x.daily, aggregated: x.aggregated });
RUNS[statsDaysAscending.id] = (x) => statsDaysAscending.check({ daily: x.daily });
for (const law of [
  teamStatsAreMergeOfMemberStats,
  groupStatsAreMergeOfMemberStats,
  rangeSplitMerges,
  typedStatsMergeToUntyped,
])
  RUNS[law.id] = (x) => law.check(x.merge);
RUNS[contactCountersOverTheirTags.id] = (x) =>
  contactCountersOverTheirTags.check({
    contacts: x.contacts,
    tags: x.tags,
    opens: x.opens,
    clicks: x.clicks,
  });
RUNS[contactSumsEqualTagSums.id] = (x) =>
  contactSumsEqualTagSums.check({ contacts: x.contacts, tags: x.tags });
RUNS[contactsByEmail.id] = (x) => contactsByEmail.check({ contacts: x.contacts });
RUNS[tagsNewestFirst.id] = (x) => tagsNewestFirst.check(x.tags);
RUNS[membersByName.id] = (x) => membersByName.check(x.members);
RUNS[eventsOldestFirst.id] = (x) => eventsOldestFirst.check(x.sortedEvents);
RUNS[eventGroupsInTagOrder.id] = (x) =>
  eventGroupsInTagOrder.check({ tags: x.tags, groups: x.openGroups });

const missing = LAWS.filter((l) => RUNS[l.id] === undefined).map((l) => l.id);
if (missing.length > 0) throw new Error(`laws without a bench: ${missing.join(', ')}`);

const medians = new Map<string, Map<number, number>>();
const counts = new Map<number, number>();
for (const n of sizes) {
  const x = inputs(n);
  counts.set(n, x.records);
  // every law holds on the generated inputs, so each check reads every record
  for (const law of LAWS) {
    const v = RUNS[law.id]!(x);
    if (typeof v === 'string') throw new Error(`${law.id} fails on the bench's inputs: ${v}`);
  }
  const bench = new Bench({ name: `laws on ${n} records`, iterations, time: 0, warmup: false });
  for (const law of LAWS) bench.add(law.id, () => void RUNS[law.id]!(x));
  await bench.run();
  for (const task of bench.tasks) {
    const ms = (task.result as { latency?: { p50?: number } } | undefined)?.latency?.p50 ?? NaN;
    const row = medians.get(task.name) ?? new Map<number, number>();
    row.set(n, ms);
    medians.set(task.name, row);
  }
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `laws on generated inputs (events; tags a tenth), median of ${iterations} runs, ${cpu}, Node ${process.version}\n`,
);
console.log(
  `| law | ${sizes.map((n) => `${counts.get(n)!.toLocaleString('en')} records`).join(' | ')} | ns/record at the largest |`,
);
console.log(`| --- | ${sizes.map(() => '---:').join(' | ')} | ---: |`);
const largest = sizes.at(-1)!;
for (const [id, row] of medians) {
  const cells = sizes.map((n) => `${row.get(n)!.toFixed(2)} ms`);
  const per = (row.get(largest)! * 1e6) / counts.get(largest)!;
  console.log(`| ${id} | ${cells.join(' | ')} | ${per.toFixed(1)} |`);
}
