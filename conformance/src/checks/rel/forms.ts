import {
  charsetOf,
  compareTables,
  ENDPOINT_IDS,
  type EndpointId,
  endpointById,
  parseHtml,
  parseText,
  type Table,
  toTable,
} from '@tagtrack/core';
import fc from 'fast-check';
import type { Exchange } from '../../http.ts';
import { comparable, linksOf, listsEvents, mediaType, normaliseTable } from '../compare.ts';
import { type Check, defineCheck } from '../define.ts';
import { describe, ensure, type FailureKind, Violation } from '../failure.ts';
import { firstDifference, sampleCalls, windowQuery } from '../sample.ts';
import { arbWindow, members, type Pairs, windowDays } from './shared.ts';

const RTN_PARSERS: Record<'text' | 'html', (body: string) => Table> = {
  text: parseText,
  html: parseHtml,
};

/**
 * The table an rtn=text or html response carries. Throws a Violation: kind `status` unless
 * it answered 200, kind `format` when the body does not parse as the format's table.
 */
function tableOf(rtn: 'text' | 'html', ex: Exchange): Table {
  ensure(ex.status === 200, `${describe(ex)} answered ${ex.status}, expected 200`, {
    kind: 'status',
    exchange: ex,
  });
  try {
    return RTN_PARSERS[rtn](ex.body);
  } catch (err) {
    throw new Violation(`${describe(ex)}: ${(err as Error).message}`, {
      kind: 'format',
      exchange: ex,
    });
  }
}

/**
 * The same records in another form: a single record and its list, rtn=json/text/html, HEAD and
 * GET, query parameters in another order (decisions §1, §4, §7).
 */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'REL-SINGLE-MATCHES-LIST',
    title: '/teams/member/{id} and /contacts/{id} answer the record the lists carry',
    clause: 'source: endpoints 3 and 16',
    endpoints: ['teams.member', 'teams.list', 'contacts.get', 'contacts.list'],
    async run(ctx) {
      const ms = await members(ctx);
      const contacts = (await ctx.walk('contacts.list')).records;
      const arb = fc.oneof(
        ...(ms.length ? [fc.constantFrom(...ms).map((m) => ['teams.member', m] as const)] : []),
        ...(contacts.length
          ? [fc.constantFrom(...contacts).map((c) => ['contacts.get', c] as const)]
          : []),
      );
      await ctx.property(arb, async ([endpoint, record]) => {
        const pathParams =
          'contactID' in record ? { contactID: record.contactID } : { memberID: record.memberID };
        const ex = await ctx.call(endpoint, { pathParams });
        const { data } = ctx.envelope(endpoint, ex);
        const diff = firstDifference(record, data);
        ensure(
          diff === undefined,
          () => `${describe(ex)} differs from the list's record: ${diff}`,
          { kind: 'value', exchange: ex },
        );
      });
    },
  }),
  defineCheck({
    id: 'REL-FORMATS-AGREE',
    title: 'rtn=json, text and html carry the same records',
    clause: 'decisions §7 (the three formats carry the same records)',
    endpoints: [...ENDPOINT_IDS],
    skipIf: (env) =>
      env.profile.rtn.length < 2 ? 'the profile supports only one response format' : undefined,
    async run(ctx) {
      let compared = 0;
      for (const { endpoint, call } of await sampleCalls(ctx)) {
        const jsonEx = await ctx.call(endpoint, {
          ...call,
          query: [...(call.query ?? []), ['rtn', 'json']],
        });
        const e = endpointById(endpoint);
        const data =
          e.response === 'list'
            ? ctx.page(endpoint, jsonEx).data
            : [ctx.envelope(endpoint, jsonEx).data];
        // timestamps as instants, columns by name, extra columns ignored, event ties free
        const expected = normaliseTable(toTable(e, data));
        for (const rtn of ['text', 'html'] as const) {
          if (!ctx.profile.rtn.includes(rtn)) continue;
          const ex = await ctx.call(endpoint, {
            ...call,
            query: [...(call.query ?? []), ['rtn', rtn]],
          });
          // a 204 has no records (the paging end's form is PAGE-END-*'s to judge)
          const table =
            ex.status === 204 && e.response === 'list'
              ? { columns: expected.columns, rows: [] }
              : await ctx.attempt(() => tableOf(rtn, ex));
          if (table === undefined) continue;
          compared++;
          const diff = compareTables(expected, normaliseTable(table), {
            unordered: listsEvents(endpoint),
          });
          if (diff !== undefined)
            ctx.fail(`${describe(ex)} does not carry the rtn=json records: ${diff}`, {
              kind: 'value',
              exchange: ex,
            });
        }
      }
      if (compared === 0) ctx.skip('no sampled endpoint could be fetched in two formats');
    },
  }),
  defineCheck({
    id: 'REL-HEAD-MATCHES-GET',
    title:
      'HEAD answers like GET without a body: same status, Content-Type, X-Total-Count and Link',
    clause: 'decisions §4 (HEAD works like GET without a body), §3 (X-Total-Count)',
    endpoints: [...ENDPOINT_IDS],
    async run(ctx) {
      let compared = 0;
      for (const { endpoint, call } of await sampleCalls(ctx)) {
        for (const rtn of ctx.profile.rtn) {
          const c = { ...call, query: [...(call.query ?? []), ['rtn', rtn] as const] };
          const get = await ctx.call(endpoint, c);
          const head = await ctx.call(endpoint, { ...c, method: 'HEAD' });
          const problems: string[] = [];
          const kinds: FailureKind[] = [];
          if (head.status !== get.status) {
            problems.push(`status ${head.status}, GET ${get.status}`);
            kinds.push('status');
          }
          // compared by meaning: media type and charset, the count, the linked pages
          const same: Record<string, (h: string | undefined) => string> = {
            'content-type': (h) => `${mediaType(h)}; charset=${charsetOf(h) ?? ''}`,
            'x-total-count': (h) => (h ?? '').trim(),
            link: (h) => JSON.stringify(linksOf(h)),
          };
          for (const [h, norm] of Object.entries(same)) {
            if (norm(head.responseHeaders[h]) !== norm(get.responseHeaders[h])) {
              problems.push(
                `${h} ${JSON.stringify(head.responseHeaders[h])}, GET ${JSON.stringify(get.responseHeaders[h])}`,
              );
              kinds.push('header');
            }
          }
          compared++;
          if (head.body !== '') {
            problems.push(`a ${head.body.length}-character body`);
            kinds.push('extra');
          }
          if (problems.length > 0)
            ctx.fail(`${describe(head)}: ${problems.join('; ')}`, {
              kind: kinds[0]!,
              exchange: head,
            });
        }
      }
      if (compared === 0) ctx.skip('no endpoint could be sampled');
    },
  }),
  defineCheck({
    id: 'REL-PARAM-ORDER',
    title: 'the order of query parameters does not change the answer',
    clause: 'decisions §1 (parameters signed in request order), §4',
    endpoints: ['teams.tags', 'stats.team'],
    async run(ctx) {
      const days = await windowDays(ctx);
      const arb = fc
        .record({
          endpoint: fc.constantFrom<EndpointId>('teams.tags', 'stats.team'),
          window: arbWindow(days),
          flag: fc.constantFrom('isOpened', 'isUnclicked', 'aggregateData', 'type'),
        })
        .chain(({ endpoint, window, flag }) => {
          const pairs: Pairs = [...windowQuery(window.start, window.end), ['rtn', 'json']];
          if (endpoint === 'teams.tags' && (flag === 'isOpened' || flag === 'isUnclicked'))
            pairs.push([flag, 'true']);
          if (endpoint === 'stats.team' && flag === 'aggregateData')
            pairs.push(['aggregateData', 'true']);
          if (endpoint === 'stats.team' && flag === 'type') pairs.push(['type', 'user']);
          return fc.tuple(
            fc.constant(endpoint),
            fc.constant(pairs),
            fc.shuffledSubarray(pairs, { minLength: pairs.length, maxLength: pairs.length }),
          );
        });
      await ctx.property(arb, async ([endpoint, pairs, shuffled]) => {
        const a = await ctx.call(endpoint, { query: pairs });
        const b = await ctx.call(endpoint, { query: shuffled });
        ensure(
          a.status === b.status,
          `${describe(b)} answered ${b.status}, ${describe(a)} ${a.status}`,
          { kind: 'status', exchange: b },
        );
        if (a.status !== 200 && a.status !== 204)
          throw new Violation(`${describe(a)} answered ${a.status}`, {
            kind: 'status',
            exchange: a,
          });
        const diff = firstDifference(
          comparable(endpoint, ctx.page(endpoint, a).data),
          comparable(endpoint, ctx.page(endpoint, b).data),
        );
        ensure(diff === undefined, () => `${describe(b)} differs from ${describe(a)}: ${diff}`, {
          kind: 'value',
          exchange: b,
        });
      });
    },
  }),
];
