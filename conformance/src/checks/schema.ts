import {
  CONTENT_TYPES,
  type CountedRecord,
  contentTypeMatches,
  Device,
  deviceAtMostTotal,
  ENDPOINT_IDS,
  type EndpointId,
  endpointById,
  htmlDocumentProblemsSteps,
  type Rtn,
  runInSlices,
  toTable,
  uniqueAtMostRecipients,
  uniqueAtMostTotal,
  uniqueZeroIffTotalZero,
} from '@tagtrack/core';
import { bodyTableInSlices } from '../check/compare.ts';
import type { CheckContext, EndpointCall } from '../check/context.ts';
import { type Check, defineCheck } from '../check/define.ts';
import { describe, ensure, Violation } from '../check/failure.ts';
import { busiestTag, dayOf, flattenEvents, sampleCalls } from '../check/sample.ts';
import type { Exchange } from '../http/client.ts';

/** Requirement id prefix of this file's checks (area `schema`). */
export const prefix = 'SCHEMA';

/**
 * Runs `judge` on every sampled endpoint call with `rtn` (absent for the default), through
 * `ctx.each`: a Violation it throws is one failure per sample. A list answering 204 No
 * Content has no body to judge here (PAGE-END-* judge the paging end) and is passed over.
 * Skips the check when no sample had a body.
 */
async function forEachSample(
  ctx: CheckContext,
  rtn: Rtn | undefined,
  judge: (endpoint: EndpointId, ex: Exchange, call: EndpointCall) => Promise<void> | void,
): Promise<void> {
  let judged = 0;
  await ctx.each(
    await sampleCalls(ctx),
    async ({ endpoint, call }) => {
      const query = [...(call.query ?? []), ...(rtn === undefined ? [] : [['rtn', rtn] as const])];
      const ex = await ctx.call(endpoint, { ...call, query });
      if (ex.status === 204 && endpointById(endpoint).response === 'list') return;
      judged++;
      await judge(endpoint, ex, call);
    },
    { readsOwn: true },
  );
  if (judged === 0) ctx.skip('no sampled endpoint answered with a body');
}

function unsupported(rtn: Rtn) {
  return (env: { profile: { rtn: readonly Rtn[] } }) =>
    env.profile.rtn.includes(rtn) ? undefined : `the profile does not support rtn=${rtn}`;
}

/** The device classes of the profile (spec §9), from core: case-sensitive. */
const DEVICES: readonly string[] = Device.options;

/** Core's laws of one counter record (spec §10 invariants), applied on every endpoint. */
const COUNTER_LAWS = [
  uniqueAtMostTotal,
  uniqueZeroIffTotalZero,
  deviceAtMostTotal,
  uniqueAtMostRecipients,
];

/**
 * The counter records of the endpoints the AGG laws do not walk (a member's tags, member,
 * group and single-contact stats, a tag's contacts), each with the response it came from.
 */
async function otherCounterRecords(
  ctx: CheckContext,
): Promise<{ record: CountedRecord; exchange: Exchange | undefined }[]> {
  const d = await ctx.discover();
  const out: { record: CountedRecord; exchange: Exchange | undefined }[] = [];
  const add = (w: { records: readonly CountedRecord[]; pages: readonly Exchange[] }) => {
    for (const record of w.records) out.push({ record, exchange: w.pages[0] });
  };
  const member = d.members[0]?.memberID;
  const group = d.groups[0]?.groupID;
  const tag = busiestTag(d.tags)?.tagID;
  const contact = d.contacts[0]?.contactID;
  if (member !== undefined) {
    add(await ctx.walk('teams.memberTags', { pathParams: { memberID: member } }));
    add(await ctx.walk('stats.member', { pathParams: { memberID: member } }));
  }
  if (group !== undefined) add(await ctx.walk('stats.group', { pathParams: { group } }));
  if (tag !== undefined) add(await ctx.walk('contacts.tag', { pathParams: { tagID: tag } }));
  if (contact !== undefined) {
    const ex = await ctx.call('contacts.get', { pathParams: { contactID: contact } });
    out.push({ record: ctx.single('contacts.get', ex), exchange: ex });
  }
  return out;
}

/** One event as the value-domain check reads it, wherever it was listed. */
interface EventValue {
  readonly tagID: string;
  readonly date: string;
  readonly device: string;
  readonly where: Exchange | undefined;
}

/** Schema checks: bodies and content types of every endpoint in every format (spec §5, §6, §8, §9). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'SCHEMA-JSON-ENVELOPE',
    title: 'JSON bodies of every endpoint match the envelope and record schemas',
    clause: 'spec §5 (envelope), spec §1 Resources and their fields, spec §9 (values)',
    endpoints: ENDPOINT_IDS,
    async run(ctx) {
      for (const rtn of [undefined, 'json'] as const) {
        await forEachSample(ctx, rtn, (endpoint, ex) => {
          ctx.envelope(endpoint, ex);
        });
      }
    },
  }),
  defineCheck({
    id: 'SCHEMA-JSON-CONTENT-TYPE',
    title: 'rtn=json (and the default) answers Content-Type application/json; charset=utf-8',
    clause: 'spec §8',
    endpoints: ENDPOINT_IDS,
    async run(ctx) {
      for (const rtn of [undefined, 'json'] as const) {
        await forEachSample(ctx, rtn, (_endpoint, ex) => {
          const ct = ex.responseHeaders['content-type'];
          ensure(
            contentTypeMatches('json', ct),
            `${describe(ex)}: Content-Type ${JSON.stringify(ct)}, expected "${CONTENT_TYPES.json}"`,
            { kind: 'header', exchange: ex, expected: CONTENT_TYPES.json, actual: ct },
          );
        });
      }
    },
  }),
  ...(['text', 'html'] as const).map((rtn) =>
    defineCheck({
      id: `SCHEMA-${rtn.toUpperCase()}-FORMAT`,
      title: `rtn=${rtn} answers ${CONTENT_TYPES[rtn]} with the endpoint's columns${rtn === 'html' ? ' in a complete HTML5 document' : ''}`,
      clause: 'spec §8',
      endpoints: ENDPOINT_IDS,
      skipIf: unsupported(rtn),
      async run(ctx) {
        await forEachSample(ctx, rtn, async (endpoint, ex, call) => {
          ensure(ex.status === 200, `${describe(ex)} answered ${ex.status}, expected 200`, {
            kind: 'status',
            exchange: ex,
          });
          const ct = ex.responseHeaders['content-type'];
          ensure(
            contentTypeMatches(rtn, ct),
            `${describe(ex)}: Content-Type ${JSON.stringify(ct)}, expected ${CONTENT_TYPES[rtn].split(';')[0]} with charset=utf-8`,
            { kind: 'header', exchange: ex },
          );
          if (rtn === 'html') {
            const problems = await runInSlices(htmlDocumentProblemsSteps(ex.body, ct));
            ensure(problems.length === 0, `${describe(ex)}: ${problems.join('; ')}`, {
              kind: 'format',
              exchange: ex,
            });
          }
          let columns: string[];
          try {
            columns = [...(await bodyTableInSlices(rtn, ex.body)).columns];
          } catch (e) {
            throw new Violation(`${describe(ex)}: ${(e as Error).message}`, {
              kind: 'format',
              exchange: ex,
            });
          }
          // columns by name, in any order; extra columns are free; a column may be left out
          // when the records have no value for it (spec §8 Revision 2)
          const duplicate = columns.find((c, i) => columns.indexOf(c) !== i);
          ensure(duplicate === undefined, `${describe(ex)}: column '${duplicate}' appears twice`, {
            kind: 'format',
            exchange: ex,
          });
          const e = endpointById(endpoint);
          const json = await ctx.call(endpoint, {
            ...call,
            query: [...(call.query ?? []), ['rtn', 'json']],
          });
          const records =
            e.response === 'list'
              ? ctx.page(endpoint, json).data
              : [ctx.envelope(endpoint, json).data];
          const expected = toTable(e, records);
          const missing = expected.columns.filter(
            (c, i) => !columns.includes(c) && expected.rows.some((r) => r[i] !== ''),
          );
          ensure(
            missing.length === 0,
            () =>
              `${describe(ex)}: no column ${missing.map((c) => `'${c}'`).join(', ')} in [${columns.join(', ')}], though the records have values for it`,
            { kind: 'missing', exchange: ex, expected: expected.columns, actual: columns },
          );
        });
      },
    }),
  ),
  defineCheck({
    id: 'SCHEMA-MEMBER-GROUP-FIELDS',
    title:
      'groupID and groupName come together; a member without a group omits them (or sends empty strings, per profile)',
    clause: 'spec §9, spec §1 Team member',
    endpoints: ['teams.list'],
    async run(ctx) {
      const w = await ctx.walk('teams.list');
      const ex = w.pages[0];
      const data = w.records;
      if (data.length === 0) ctx.skip('no member is visible to the credential');
      for (const m of data) {
        const hasId = 'groupID' in m;
        const hasName = 'groupName' in m;
        const empty = m.groupID === '' && m.groupName === '';
        // one failure per member (a member listed twice counts on the first)
        const details = { exchange: ex, key: `group fields of member ${m.memberID}` };
        if (hasId !== hasName) {
          ctx.fail(
            `member ${m.memberID} has ${hasId ? 'groupID' : 'groupName'} without the other`,
            { ...details, kind: 'missing' },
          );
        } else if (ctx.profile.memberWithoutGroup === 'omit' && hasId && empty) {
          ctx.fail(
            `member ${m.memberID} has no group but sends empty groupID/groupName; the profile says omit`,
            { ...details, kind: 'extra' },
          );
        } else if (ctx.profile.memberWithoutGroup === 'empty' && !hasId) {
          ctx.fail(`member ${m.memberID} omits groupID/groupName; the profile says empty strings`, {
            ...details,
            kind: 'missing',
          });
        } else if (hasId && !empty && (m.groupID === '' || m.groupName === '')) {
          ctx.fail(`member ${m.memberID} has one empty and one non-empty group field`, {
            ...details,
            kind: 'value',
          });
        }
      }
    },
  }),
  defineCheck({
    id: 'SCHEMA-STATS-DATE',
    title:
      'stats records carry date (YYYY-MM-DD) exactly when aggregateData is false or absent, in every spelling',
    clause: 'spec §5 (stats lists) and its Revision 2 (date iff aggregateData is false)',
    endpoints: ['stats.team', 'stats.teamAlias', 'stats.group', 'stats.member'],
    async run(ctx) {
      let compared = 0;
      const stats = (await sampleCalls(ctx)).filter(({ endpoint }) =>
        endpoint.startsWith('stats.'),
      );
      for (const { endpoint, call } of stats) {
        for (const value of [undefined, 'false', '0', 'true', '1', 'TRUE']) {
          const aggregated = value !== undefined && /^(true|1)$/i.test(value);
          const query = [
            ...(call.query ?? []),
            ...(value === undefined ? [] : [['aggregateData', value] as const]),
          ];
          const w = await ctx.walk(endpoint, { ...call, query });
          for (const r of w.records) {
            compared++;
            const has = 'date' in r;
            if (has === aggregated) {
              ctx.fail(
                `${describe(w.pages[0]!)}: ${aggregated ? `the aggregated record carries date ${JSON.stringify('date' in r ? r.date : undefined)}` : 'a daily record has no date'} (aggregateData ${value ?? 'absent'})`,
                { kind: aggregated ? 'extra' : 'missing', exchange: w.pages[0] },
              );
              break;
            }
          }
        }
      }
      if (compared === 0) ctx.skip('no stats record could be fetched');
    },
  }),
  defineCheck({
    id: 'SCHEMA-VALUE-DOMAINS',
    title:
      'values are possible, not only well-formed: counters obey the invariants on every endpoint (a member’s tags, member, group and contact stats, a tag’s contacts); device is desktop, mobile, tablet or unknown; no event is dated before its tag was sent; a stats record has dateLastSent null exactly when totalSent is 0, and a per-day record sends on its date; a contact was sent at least one tag',
    clause:
      'spec §10 (invariants), §9 (device classes), §11 (events precede nothing), spec §1 Statistics summary (dateLastSent null only when no tag matched), §5 (one record per send day), §10 (contacts are recipients)',
    endpoints: [
      'clicks.list',
      'opens.list',
      'clicks.tag',
      'opens.tag',
      'stats.team',
      'stats.member',
      'stats.group',
      'teams.memberTags',
      'contacts.list',
      'contacts.get',
      'contacts.tag',
    ],
    async run(ctx) {
      const d = await ctx.discover();
      const sent = new Map(d.tags.map((t) => [t.tagID, t.dateSent]));
      const events: EventValue[] = [];
      for (const endpoint of ['clicks.list', 'opens.list'] as const) {
        // event by event: a long list is verified on a seeded sample of its pages
        const w = await ctx.sampledList(
          endpoint,
          {},
          endpoint === 'opens.list' ? 'open groups' : 'click groups',
        );
        for (const e of flattenEvents(w.records))
          events.push({
            tagID: e.tagID,
            date: e.date,
            device: e.details.device,
            where: w.pages[0],
          });
      }
      const tag = busiestTag(d.tags);
      if (tag !== undefined) {
        const pathParams = { tagID: tag.tagID };
        const clicks = await ctx.walk('clicks.tag', { pathParams });
        for (const c of clicks.records)
          events.push({
            tagID: c.tagID,
            date: c.clickDate,
            device: c.device,
            where: clicks.pages[0],
          });
        const opens = await ctx.walk('opens.tag', { pathParams });
        for (const o of opens.records)
          events.push({
            tagID: o.tagID,
            date: o.openDate,
            device: o.device,
            where: opens.pages[0],
          });
      }
      await ctx.each(
        events,
        (e) => {
          if (!DEVICES.includes(e.device))
            throw new Violation(
              `${e.where ? describe(e.where) : 'an event'}: an event of tag ${e.tagID} at ${e.date} has device ${JSON.stringify(e.device)}, not one of ${DEVICES.join(', ')} (case-sensitive)`,
              { kind: 'value', exchange: e.where, key: `device ${e.device}` },
            );
          const dateSent = sent.get(e.tagID);
          if (dateSent !== undefined && Date.parse(e.date) < Date.parse(dateSent))
            throw new Violation(
              `${e.where ? describe(e.where) : 'an event'}: an event of tag ${e.tagID} is dated ${e.date}, before the tag was sent (${dateSent})`,
              { kind: 'value', exchange: e.where },
            );
        },
        { list: 5 },
      );
      const member = d.members[0];
      const stats = [
        ...(['false', 'true'] as const).map((aggregateData) => ({
          endpoint: 'stats.team' as const,
          call: { params: { aggregateData } },
        })),
        ...(member === undefined
          ? []
          : [
              {
                endpoint: 'stats.member' as const,
                call: { pathParams: { memberID: member.memberID } },
              },
            ]),
      ];
      for (const { endpoint, call } of stats) {
        const w =
          endpoint === 'stats.team'
            ? await ctx.walk<'stats.team'>('stats.team', call)
            : await ctx.walk<'stats.member'>('stats.member', call);
        await ctx.each(
          w.records,
          (r) => {
            const where = `${describe(w.pages[0]!)}: the ${r.date === undefined ? 'aggregated record' : `record of ${r.date}`}`;
            if ((r.dateLastSent === null) !== (r.totalSent === 0))
              throw new Violation(
                `${where} has totalSent ${r.totalSent} and dateLastSent ${JSON.stringify(r.dateLastSent)}; dateLastSent is null exactly when no tag matched`,
                { kind: 'value', exchange: w.pages[0] },
              );
            if (r.date !== undefined && r.totalSent === 0)
              throw new Violation(
                `${where} has totalSent 0; a per-day record stands for a day on which a tag was sent`,
                { kind: 'extra', exchange: w.pages[0] },
              );
            if (r.date !== undefined && r.dateLastSent !== null && dayOf(r.dateLastSent) !== r.date)
              throw new Violation(
                `${where} has dateLastSent ${r.dateLastSent}, another day: the latest tag of that day was sent that day`,
                { kind: 'value', exchange: w.pages[0] },
              );
          },
          { list: 5 },
        );
      }
      // counters on every endpoint, not only the ones the AGG laws walk (core's laws)
      await ctx.each(
        await otherCounterRecords(ctx),
        (r) => {
          for (const law of COUNTER_LAWS) {
            const problem = law.check(r.record);
            if (problem !== undefined)
              throw new Violation(`${r.exchange ? describe(r.exchange) : ''}: ${problem}`, {
                kind: 'counter',
                exchange: r.exchange,
              });
          }
        },
        { list: 5 },
      );
      const contacts = await ctx.sampledList('contacts.list', {}, 'contacts');
      await ctx.each(
        contacts.records,
        (c) => {
          if (c.stats.totalSent < 1)
            throw new Violation(
              `${describe(contacts.pages[0]!)}: contact ${c.email} has totalSent ${c.stats.totalSent}; a contact is a recipient of at least one visible tag`,
              { kind: 'counter', exchange: contacts.pages[0] },
            );
        },
        { list: 5 },
      );
      if (events.length === 0 && d.tags.length === 0) ctx.skip('no tag or event is visible');
    },
  }),
];
