import {
  contactIdOf,
  type EndpointId,
  normaliseEmail,
  type PathParamName,
  recipientEmails,
  utcDay,
  visibleTags,
} from '@tagtrack/core';
import { arbDayFor, arbDayWindowFor } from '@tagtrack/core/testing';
import fc from 'fast-check';
import { comparable } from '../check/compare.ts';
import { type CheckContext, LOOP_BATCH } from '../check/context.ts';
import { type Check, type CheckEnv, defineCheck, type SuiteCredential } from '../check/define.ts';
import { describe, ensure, Violation } from '../check/failure.ts';
import {
  addDays,
  boundaryWindows,
  dayOf,
  firstDifference,
  nearMidnight,
  recordLabel,
  windowQuery,
  withPicks,
} from '../check/sample.ts';

/** Requirement id prefix of this file's checks (area `oracle`). */
export const prefix = 'ORACLE';

type Pairs = [string, string][];

const fixtureOnly = (env: CheckEnv) =>
  env.mode !== 'fixture' || env.oracle === undefined
    ? 'fixture mode only (needs the canonical dataset loaded)'
    : env.credentials.some((c) => env.oracle!.callerOf(c) !== undefined)
      ? undefined
      : 'none of the credentials belongs to the canonical dataset';

/** Credentials the oracle knows. */
function known(ctx: CheckContext): SuiteCredential[] {
  return ctx.credentials.filter((c) => ctx.oracle!.callerOf(c) !== undefined);
}

/**
 * Asserts the implementation's answer to one request equals the oracle's (core's
 * plain rules, `plainAnswer`, over the canonical dataset): the whole walked list, the single record, or 404.
 * Compared by meaning (compare.ts): contacts and event recipients by normalised email (the
 * dataset fixes no contact id: spec §9 Revision 2), a tag's recipients as a set, ties
 * among events free, timestamps as instants, extra fields ignored. `oraclePathParams` asks
 * the oracle with other path parameters than those sent (a contact's oracle id, when the
 * request carries the implementation's id for the same email).
 */
export async function matchesOracle(
  ctx: CheckContext,
  credential: SuiteCredential,
  endpoint: EndpointId,
  pathParams: Partial<Record<PathParamName, string>>,
  query: Pairs,
  oraclePathParams: Partial<Record<PathParamName, string>> = pathParams,
): Promise<void> {
  const expected = ctx.expected(credential, endpoint, oraclePathParams, query);
  const call = { pathParams, query, credential };
  if (expected.kind === 'not_found') {
    const ex = await ctx.call(endpoint, call);
    ensure(
      ex.status === 404,
      () => `${describe(ex)} answered ${ex.status}, expected 404 (${expected.message})`,
      {
        kind: 'status',
        exchange: ex,
      },
    );
    return;
  }
  if (expected.kind === 'single') {
    const ex = await ctx.call(endpoint, call);
    const { data } = ctx.envelope(endpoint, ex);
    const [want] = comparable(endpoint, [JSON.parse(JSON.stringify(expected.record))], 'by-email');
    const [got] = comparable(endpoint, [data], 'by-email');
    const diff = firstDifference(want, got);
    ensure(diff === undefined, () => `${describe(ex)}: ${diff}`, { kind: 'value', exchange: ex });
    return;
  }
  const w = await ctx.walk(endpoint, call);
  const want = comparable(endpoint, JSON.parse(JSON.stringify(expected.records)), 'by-email');
  const diff = firstDifference(want, comparable(endpoint, w.records, 'by-email'));
  if (diff !== undefined) {
    const i = Number(/^\[(\d+)\]/.exec(diff)?.[1] ?? Number.NaN);
    const label = Number.isNaN(i) ? '' : ` (expected ${recordLabel(want[i])})`;
    const page = Number.isNaN(i) ? 0 : Math.floor(i / ctx.profile.pageSize);
    throw new Violation(`${describe(w.pages[0]!)}: record ${diff}${label}`, {
      kind: 'value',
      exchange: w.pages[Math.min(page, w.pages.length - 1)],
    });
  }
}

/**
 * The implementation's contact id of each normalised email a credential sees (its
 * /contacts list; spec §9 Revision 2: contact ids are implementation-defined).
 */
export async function contactIdsByEmail(
  ctx: CheckContext,
  credential: SuiteCredential,
): Promise<Map<string, string>> {
  const w = await ctx.walk('contacts.list', { credential });
  const ids = new Map<string, string>();
  for (const c of w.records) ids.set(normaliseEmail(c.email), c.contactID);
  return ids;
}

/**
 * Window query pairs drawn with core's `arbDayWindowFor` (bounds on tag and event days of
 * the dataset and their neighbours, start <= end, either absent).
 */
function arbWindow(ctx: CheckContext): fc.Arbitrary<Pairs> {
  return arbDayWindowFor(ctx.oracle!.dataset).map(
    (w): Pairs => [
      ...(w.start === undefined ? [] : [['start', w.start] as [string, string]]),
      ...(w.end === undefined ? [] : [['end', w.end] as [string, string]]),
    ],
  );
}

const arbBool = fc.constantFrom('true', 'false', '1', 'True');

/** The primary credential when the oracle knows it, else the first credential it knows. */
function primaryKnown(ctx: CheckContext): SuiteCredential {
  return known(ctx).find((c) => c.label === ctx.primary.label) ?? known(ctx)[0]!;
}

/**
 * What `credential` sees of the dataset, for picks from the data: its visible tags' send
 * dates and the events of those tags, by kind.
 */
function visibleData(ctx: CheckContext, credential: SuiteCredential) {
  const ds = ctx.oracle!.dataset;
  const tags = visibleTags(ds, ctx.oracle!.callerOf(credential)!);
  const ids = new Set(tags.map((t) => t.tagID));
  return {
    sent: tags.map((t) => t.dateSent),
    opens: ds.opens.filter((e) => ids.has(e.tagID)),
    clicks: ds.clicks.filter((e) => ids.has(e.tagID)),
  };
}

/**
 * One-day windows as query pairs on the days of the timestamps nearest a UTC midnight
 * (`boundaryWindows`): a shifted day boundary or an exclusive bound fails every run.
 */
function boundaryPairs(timestamps: readonly string[]): Pairs[] {
  return boundaryWindows(timestamps).map((w) => windowQuery(w.start, w.end));
}

/** Exact answers in fixture mode: every endpoint against core's plain rules (spec §4, §5, §10). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'ORACLE-MEMBERS',
    title:
      'member endpoints answer exactly the canonical dataset’s members, for every credential and type',
    clause: 'spec §4, §5 (order), §9 (group fields); spec §2 endpoints 1, 3, 5',
    endpoints: ['teams.list', 'teams.member', 'teams.group'],
    skipIf: fixtureOnly,
    async run(ctx) {
      const ds = ctx.oracle!.dataset;
      for (const c of known(ctx)) {
        const requests: [EndpointId, Record<string, string>, Pairs][] = [];
        for (const type of [undefined, 'admin', 'manager', 'user'])
          requests.push(['teams.list', {}, type === undefined ? [] : [['type', type]]]);
        for (const team of ds.teams) {
          for (const m of team.members)
            requests.push(['teams.member', { memberID: m.memberID }, []]);
          for (const g of team.groups) {
            requests.push(['teams.group', { group: g.groupID }, []]);
            requests.push(['teams.group', { group: g.groupName }, [['type', 'user']]]);
          }
        }
        await ctx.each(
          requests,
          ([endpoint, pathParams, query]) => matchesOracle(ctx, c, endpoint, pathParams, query),
          { stopAt: 5, concurrency: LOOP_BATCH },
        );
      }
    },
  }),
  defineCheck({
    id: 'ORACLE-TAGS',
    title:
      'tag endpoints answer exactly the oracle’s tags and counters for generated windows, filters and members',
    clause: 'spec §4, §5, §6, §10 (per tag counters)',
    endpoints: ['teams.tags', 'teams.memberTags'],
    skipIf: fixtureOnly,
    async run(ctx) {
      const ds = ctx.oracle!.dataset;
      const members = ds.teams.flatMap((t) => t.members.map((m) => m.memberID));
      const arb = fc.record({
        credential: fc.constantFrom(...known(ctx)),
        member: fc.option(fc.constantFrom(...members)),
        window: arbWindow(ctx),
        filters: fc.subarray(['isOpened', 'isUnopened', 'isClicked', 'isUnclicked']),
        value: arbBool,
      });
      await ctx.property(
        arb,
        async ({ credential, member, window, filters, value }) => {
          const query: Pairs = [...window, ...filters.map((f): [string, string] => [f, value])];
          if (member === null) await matchesOracle(ctx, credential, 'teams.tags', {}, query);
          else
            await matchesOracle(ctx, credential, 'teams.memberTags', { memberID: member }, query);
        },
        // every visible tag of each credential, unfiltered, always compared
        // and one-day windows on the primary's tags sent nearest a UTC midnight
        withPicks(
          ctx,
          [
            ...known(ctx).map((credential) => ({ credential, window: [] as Pairs })),
            ...boundaryPairs(visibleData(ctx, primaryKnown(ctx)).sent).map((window) => ({
              credential: primaryKnown(ctx),
              window,
            })),
          ].map(({ credential, window }) => ({
            credential,
            member: null,
            window,
            filters: [],
            value: 'true',
          })),
        ),
      );
    },
  }),
  defineCheck({
    id: 'ORACLE-STATS',
    title:
      'stats endpoints (team, alias, group by id or name, member) answer exactly the oracle’s records',
    clause: 'spec §5 (stats lists), §6 (type), §10 (stats summary)',
    endpoints: ['stats.team', 'stats.teamAlias', 'stats.group', 'stats.member'],
    skipIf: fixtureOnly,
    async run(ctx) {
      const ds = ctx.oracle!.dataset;
      const subjects: [EndpointId, Record<string, string>][] = [
        ['stats.team', {}],
        ['stats.teamAlias', {}],
        ...ds.teams.flatMap((t) =>
          t.groups.flatMap((g): [EndpointId, Record<string, string>][] => [
            ['stats.group', { group: g.groupID }],
            ['stats.group', { group: g.groupName }],
          ]),
        ),
        ...ds.teams.flatMap((t) =>
          t.members.map((m): [EndpointId, Record<string, string>] => [
            'stats.member',
            { memberID: m.memberID },
          ]),
        ),
      ];
      const arb = fc.record({
        credential: fc.constantFrom(...known(ctx)),
        subject: fc.constantFrom(...subjects),
        window: arbWindow(ctx),
        aggregateData: fc.option(arbBool),
        type: fc.option(fc.constantFrom('admin', 'manager', 'user')),
      });
      await ctx.property(
        arb,
        async ({ credential, subject: [endpoint, pathParams], window, aggregateData, type }) => {
          const query: Pairs = [...window];
          if (aggregateData !== null) query.push(['aggregateData', aggregateData]);
          if (type !== null && endpoint !== 'stats.member') query.push(['type', type]);
          await matchesOracle(ctx, credential, endpoint, pathParams, query);
        },
        // team stats of each credential, daily and aggregated, always compared
        // and the primary's daily team stats on one-day windows at UTC midnights
        withPicks(
          ctx,
          [
            ...known(ctx).flatMap((credential) =>
              ([null, 'true'] as const).map((aggregateData) => ({
                credential,
                window: [] as Pairs,
                aggregateData,
              })),
            ),
            ...boundaryPairs(visibleData(ctx, primaryKnown(ctx)).sent).map((window) => ({
              credential: primaryKnown(ctx),
              window,
              aggregateData: null,
            })),
          ].map((e) => ({
            ...e,
            subject: ['stats.team', {}] as [EndpointId, Record<string, string>],
            type: null,
          })),
        ),
      );
    },
  }),
  defineCheck({
    id: 'ORACLE-EVENTS',
    title:
      'open and click endpoints answer exactly the oracle’s events (windows by event date, per tag)',
    clause: 'spec §5 (event order), §6 (windows on 9 and 11)',
    endpoints: ['opens.list', 'clicks.list', 'opens.tag', 'clicks.tag'],
    skipIf: fixtureOnly,
    async run(ctx) {
      const ds = ctx.oracle!.dataset;
      const tagIds = ds.tags.map((t) => t.tagID);
      const arb = fc.record({
        credential: fc.constantFrom(...known(ctx)),
        kind: fc.constantFrom('opens', 'clicks'),
        tag: fc.option(fc.constantFrom(...tagIds), { freq: 2 }),
        window: arbWindow(ctx),
      });
      await ctx.property(
        arb,
        async ({ credential, kind, tag, window }) => {
          if (tag === null)
            await matchesOracle(
              ctx,
              credential,
              kind === 'opens' ? 'opens.list' : 'clicks.list',
              {},
              window,
            );
          else
            await matchesOracle(
              ctx,
              credential,
              kind === 'opens' ? 'opens.tag' : 'clicks.tag',
              { tagID: tag },
              [],
            );
        },
        // every visible event of the primary credential, always compared
        // and one-day windows on the days of its events nearest a UTC midnight
        withPicks(
          ctx,
          (['opens', 'clicks'] as const).flatMap((kind) =>
            [
              [] as Pairs,
              ...boundaryPairs(visibleData(ctx, primaryKnown(ctx))[kind].map((e) => e.date)),
            ].map((window) => ({ credential: primaryKnown(ctx), kind, tag: null, window })),
          ),
        ),
      );
    },
  }),
  defineCheck({
    id: 'ORACLE-DAILY',
    title: '/tags/daily answers exactly the oracle’s unique opens and clicks per tag and UTC day',
    clause: 'spec §10 (daily counts)',
    endpoints: ['tags.daily'],
    skipIf: fixtureOnly,
    async run(ctx) {
      const ds = ctx.oracle!.dataset;
      const pairs: [string, string][] = [];
      for (const e of [...ds.opens, ...ds.clicks])
        pairs.push([e.tagID, utcDay(Date.parse(e.date))]);
      for (const t of ds.tags) pairs.push([t.tagID, utcDay(Date.parse(t.dateSent))]);
      const arb = fc.record({
        credential: fc.constantFrom(...known(ctx)),
        // a day with events of the tag, or any day of the dataset (core's arbDayFor)
        pair: fc.oneof(
          fc.constantFrom(...pairs),
          fc.tuple(fc.constantFrom(...ds.tags.map((t) => t.tagID)), arbDayFor(ds)),
        ),
      });
      // always tried: the days of the primary's events nearest a UTC midnight, and the next day
      const seen = visibleData(ctx, primaryKnown(ctx));
      const events = [...seen.opens, ...seen.clicks];
      const edge = nearMidnight(events.map((e) => e.date));
      const examples = events
        .filter((e) => edge.includes(e.date))
        .flatMap((e) => [0, 1].map((n) => [e.tagID, addDays(dayOf(e.date), n)] as [string, string]))
        .map((pair) => ({ credential: primaryKnown(ctx), pair }));
      await ctx.property(
        arb,
        async ({ credential, pair: [tagID, date] }) => {
          await matchesOracle(ctx, credential, 'tags.daily', { tagID }, [['date', date]]);
        },
        withPicks(ctx, examples),
      );
    },
  }),
  defineCheck({
    id: 'ORACLE-CONTACTS',
    title:
      'contact endpoints answer exactly the oracle’s contacts, counters over the caller’s visible tags',
    clause: 'spec §4 (contacts of visible tags only), §10 (contact counters)',
    endpoints: ['contacts.list', 'contacts.get', 'contacts.tag'],
    skipIf: fixtureOnly,
    async run(ctx) {
      const dataset = ctx.oracle!.dataset;
      const creds = known(ctx);
      await ctx.each(creds, (c) => matchesOracle(ctx, c, 'contacts.list', {}, []));
      // contacts are identified by normalised email: the oracle's id asks the oracle, the
      // implementation's id (from a /contacts list that has the email) goes on the wire
      const oracleIds = new Map<string, string>();
      for (const c of creds)
        for (const email of recipientEmails(visibleTags(dataset, ctx.oracle!.callerOf(c)!)))
          oracleIds.set(normaliseEmail(email), contactIdOf(email));
      const implIds = new Map<SuiteCredential, Map<string, string>>();
      for (const c of creds) implIds.set(c, await contactIdsByEmail(ctx, c));
      const idFor = (credential: SuiteCredential, email: string): string | undefined =>
        implIds.get(credential)!.get(email) ??
        [...implIds.values()].find((m) => m.has(email))?.get(email);
      const emails = [...oracleIds.keys()].filter((e) => idFor(creds[0]!, e) !== undefined);
      if (emails.length === 0 && dataset.tags.length === 0) ctx.skip('the dataset has no contacts');
      const arb = fc.record({
        credential: fc.constantFrom(...creds),
        target: fc.oneof(
          ...(emails.length > 0
            ? [fc.constantFrom(...emails).map((email) => ['contacts.get', email] as const)]
            : []),
          fc
            .constantFrom(...dataset.tags.map((t) => t.tagID))
            .map((id) => ['contacts.tag', id] as const),
        ),
      });
      await ctx.property(arb, async ({ credential, target }) => {
        const endpoint = target[0];
        const subject = target[1];
        if (endpoint === 'contacts.tag') {
          await matchesOracle(ctx, credential, endpoint, { tagID: subject }, []);
          return;
        }
        const id = idFor(credential, subject)!;
        await matchesOracle(ctx, credential, endpoint, { contactID: id }, [], {
          contactID: oracleIds.get(subject)!,
        });
      });
    },
  }),
];
