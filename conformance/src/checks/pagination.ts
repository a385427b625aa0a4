import { type EndpointId, endpointById } from '@tagtrack/core';
import fc from 'fast-check';
import {
  type Check,
  type CheckContext,
  defineCheck,
  describe,
  type EndpointCall,
  ensure,
} from './api.ts';
import { firstDifference, sampleCalls } from './sample.ts';

interface PagedBody {
  data: unknown[];
  paging: {
    cursors: { previous: number; next: number; total: number };
    previousURL: string | null;
    nextURL: string | null;
  };
}

/** The sampled list endpoints, largest first (by walked size). */
async function listCalls(ctx: CheckContext) {
  const calls = (await sampleCalls(ctx)).filter(
    ({ endpoint }) => endpointById(endpoint).response === 'list',
  );
  const sized: { endpoint: EndpointId; call: EndpointCall; total: number }[] = [];
  for (const c of calls) sized.push({ ...c, total: (await ctx.walk(c.endpoint, c.call)).total });
  return sized.sort((a, b) => b.total - a.total);
}

function key(record: unknown): string {
  return JSON.stringify(record);
}

function compareBy<T>(...keys: ((r: T) => string)[]) {
  return (a: T, b: T): number => {
    for (const k of keys) {
      const x = k(a);
      const y = k(b);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}

type Rec = Record<string, unknown>;
const str = (f: string) => (r: Rec) => String(r[f] ?? '');
const time = (f: string) => (r: Rec) => new Date(String(r[f])).toISOString();
const desc = (f: (r: Rec) => string) => (r: Rec) =>
  // invert an ISO timestamp so that ascending order of the result is descending time
  String(9e15 - Date.parse(f(r)));

/** The stable order of decisions §3 per endpoint (undefined: nothing to check). */
function orderOf(endpoint: EndpointId): ((a: Rec, b: Rec) => number) | undefined {
  switch (endpoint) {
    case 'teams.list':
    case 'teams.group':
      return compareBy(str('lastname'), str('firstname'), str('memberID'));
    case 'teams.tags':
    case 'teams.memberTags':
      return compareBy((r) => desc(time('dateSent'))(r).padStart(20, '0'), str('tagID'));
    case 'contacts.list':
    case 'contacts.tag':
      return compareBy((r) => String(r.email).trim().toLowerCase());
    case 'opens.tag':
      return compareBy(time('openDate'));
    case 'clicks.tag':
      return compareBy(time('clickDate'));
    case 'stats.team':
    case 'stats.teamAlias':
    case 'stats.group':
    case 'stats.member':
      return compareBy(str('date'));
    default:
      return undefined;
  }
}

/** Pagination (decisions §3): walking, cursor arithmetic, loop styles, headers, order. */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'PAGE-WALK-ONCE',
    area: 'pagination',
    title:
      'walking the cursor to the end visits every record exactly once: as many records as paging.cursors.total and X-Total-Count',
    clause: 'decisions §3 (pages never overlap or skip)',
    endpoints: [
      'teams.tags',
      'teams.list',
      'contacts.list',
      'opens.tag',
      'clicks.tag',
      'stats.team',
    ],
    async run(ctx) {
      for (const { endpoint, call } of await listCalls(ctx)) {
        const w = await ctx.walk(endpoint, call);
        const header = w.pages[0]!.responseHeaders['x-total-count'];
        if (w.records.length !== w.total) {
          ctx.fail(
            `${describe(w.pages[0]!)}: walking ${w.pages.length} pages of ${ctx.profile.pageSize} gave ${w.records.length} records, paging.cursors.total is ${w.total}`,
            { exchange: w.pages[w.pages.length - 1] },
          );
        } else if (header !== String(w.total)) {
          ctx.fail(
            `${describe(w.pages[0]!)}: X-Total-Count ${header}, paging.cursors.total ${w.total}`,
            {
              exchange: w.pages[0],
            },
          );
        }
        const seen = new Map<string, number>();
        w.records.forEach((r, i) => {
          const k = key(r);
          if (seen.has(k) && endpoint !== 'opens.tag' && endpoint !== 'clicks.tag') {
            if (!ctx.failures.some((f) => f.message.includes(endpoint)))
              ctx.fail(
                `${endpoint}: record ${i} repeats record ${seen.get(k)} while walking the pages (${k.slice(0, 80)})`,
                { exchange: w.pages[Math.floor(i / ctx.profile.pageSize)] },
              );
          }
          seen.set(k, i);
        });
      }
    },
  }),
  defineCheck({
    id: 'PAGE-CURSOR-ARITHMETIC',
    area: 'pagination',
    title:
      'a page at any cursor holds records [cursor, cursor+pageSize) of the walk, next = min(cursor+pageSize, total), previous = max(cursor-pageSize, 0)',
    clause: 'decisions §3 (cursor = offset, next, a cursor past total answers data: [])',
    endpoints: ['teams.tags', 'teams.list', 'contacts.list', 'opens.tag', 'clicks.tag'],
    async run(ctx) {
      const lists = (await listCalls(ctx)).slice(0, 4);
      const ps = ctx.profile.pageSize;
      const arb = fc
        .constantFrom(...lists)
        .chain((l) => fc.tuple(fc.constant(l), fc.integer({ min: 0, max: l.total + ps })));
      await ctx.property(arb, async ([l, cursor]) => {
        const all = (await ctx.walk(l.endpoint, l.call)).records;
        const ex = await ctx.call(l.endpoint, {
          ...l.call,
          query: [...(l.call.query ?? []), ['cursor', String(cursor)]],
        });
        const body = ctx.envelope(l.endpoint, ex) as unknown as PagedBody;
        const total = all.length;
        const expected = {
          previous: Math.max(cursor - ps, 0),
          next: Math.min(cursor + ps, total),
          total,
        };
        const diff = firstDifference(expected, body.paging.cursors);
        ensure(diff === undefined, () => `${describe(ex)}: paging.cursors ${diff}`, {
          exchange: ex,
          expected,
          actual: body.paging.cursors,
        });
        const slice = all.slice(cursor, cursor + ps);
        const d2 = firstDifference(slice, body.data);
        ensure(
          d2 === undefined,
          () =>
            `${describe(ex)}: page data is not records ${cursor}..${cursor + ps - 1} of the walk: ${d2}`,
          { exchange: ex },
        );
        ensure(
          (body.paging.nextURL === null) === cursor + ps >= total,
          () =>
            `${describe(ex)}: nextURL ${JSON.stringify(body.paging.nextURL)} with cursor ${cursor}, total ${total}`,
          { exchange: ex },
        );
        ensure(
          cursor !== 0 || body.paging.previousURL === null,
          `${describe(ex)}: previousURL is not null on the first page`,
          { exchange: ex },
        );
      });
    },
  }),
  defineCheck({
    id: 'PAGE-LOOP-ENDS',
    area: 'pagination',
    title:
      'both client loop styles end: "until the page is empty" (a cursor at total answers 200 with data []) and "while next < total"',
    clause: 'decisions §3 (both loop styles end), source: Observed client behavior',
    endpoints: ['teams.tags', 'teams.list', 'contacts.list'],
    async run(ctx) {
      for (const l of (await listCalls(ctx)).slice(0, 3)) {
        let cursor = 0;
        let rounds = 0;
        const limit = Math.ceil(l.total / ctx.profile.pageSize) + 2;
        for (;;) {
          const ex = await ctx.call(l.endpoint, {
            ...l.call,
            query: [...(l.call.query ?? []), ['cursor', String(cursor)]],
          });
          const body = ctx.envelope(l.endpoint, ex) as unknown as PagedBody;
          if (body.data.length === 0) break;
          cursor += body.data.length;
          if (++rounds > limit) {
            ctx.fail(
              `${describe(ex)}: looping until an empty page did not end after ${rounds} pages`,
              { exchange: ex },
            );
            break;
          }
        }
        const past = await ctx.call(l.endpoint, {
          ...l.call,
          query: [...(l.call.query ?? []), ['cursor', String(l.total + 7)]],
        });
        const body = ctx.envelope(l.endpoint, past) as unknown as PagedBody;
        if (body.data.length !== 0)
          ctx.fail(
            `${describe(past)}: a cursor past total gave ${body.data.length} records, expected data []`,
            { exchange: past },
          );
      }
    },
  }),
  defineCheck({
    id: 'PAGE-HEADERS',
    area: 'pagination',
    title:
      'every format carries X-Total-Count and a Link header with rel="next" exactly when there is a next page',
    clause: 'decisions §3 (Link, X-Total-Count on every format)',
    endpoints: ['teams.tags', 'teams.list', 'contacts.list', 'opens.tag', 'clicks.tag'],
    async run(ctx) {
      for (const l of (await listCalls(ctx)).slice(0, 4)) {
        for (const cursor of [0, Math.max(0, l.total - 1)]) {
          for (const rtn of ctx.profile.rtn) {
            const ex = await ctx.call(l.endpoint, {
              ...l.call,
              query: [...(l.call.query ?? []), ['rtn', rtn], ['cursor', String(cursor)]],
            });
            if (ex.status !== 200) {
              ctx.fail(`${describe(ex)} answered ${ex.status}`, { exchange: ex });
              continue;
            }
            const total = ex.responseHeaders['x-total-count'];
            if (total !== String(l.total))
              ctx.fail(
                `${describe(ex)}: X-Total-Count ${JSON.stringify(total)}, expected ${l.total}`,
                { exchange: ex },
              );
            const link = ex.responseHeaders.link ?? '';
            const hasNext = /rel="?next"?/.test(link);
            const wantNext = cursor + ctx.profile.pageSize < l.total;
            if (hasNext !== wantNext)
              ctx.fail(
                `${describe(ex)}: Link ${JSON.stringify(link)} ${wantNext ? 'lacks' : 'has'} rel="next" (cursor ${cursor}, total ${l.total})`,
                { exchange: ex },
              );
            const hasPrev = /rel="?prev"?/.test(link);
            if (cursor === 0 && hasPrev)
              ctx.fail(`${describe(ex)}: Link has rel="prev" on the first page`, { exchange: ex });
          }
        }
      }
    },
  }),
  defineCheck({
    id: 'PAGE-STABLE-ORDER',
    area: 'pagination',
    title:
      'lists come in the stable order: tags newest dateSent first then tagID; members by lastname, firstname, memberID; contacts by email; events and days oldest first',
    clause: 'decisions §3 (order)',
    endpoints: [
      'teams.tags',
      'teams.list',
      'contacts.list',
      'opens.tag',
      'clicks.tag',
      'stats.team',
      'opens.list',
      'clicks.list',
    ],
    async run(ctx) {
      const localeCompare = (a: string, b: string) => a.localeCompare(b);
      for (const { endpoint, call } of await sampleCalls(ctx)) {
        const order = orderOf(endpoint);
        if (order === undefined || endpointById(endpoint).response !== 'list') continue;
        const w = await ctx.walk(endpoint, call);
        const recs = w.records as Rec[];
        let bad = recs.findIndex((r, i) => i > 0 && order(recs[i - 1]!, r) > 0);
        if (bad > 0 && (endpoint === 'teams.list' || endpoint === 'teams.group')) {
          // accept a locale-aware collation of names as well
          const alt = (a: Rec, b: Rec) =>
            localeCompare(str('lastname')(a), str('lastname')(b)) ||
            localeCompare(str('firstname')(a), str('firstname')(b)) ||
            localeCompare(str('memberID')(a), str('memberID')(b));
          if (recs.every((r, i) => i === 0 || alt(recs[i - 1]!, r) <= 0)) bad = -1;
        }
        if (bad > 0)
          ctx.fail(
            `${describe(w.pages[0]!)}: record ${bad} comes after record ${bad - 1} out of order (${JSON.stringify(recs[bad - 1]).slice(0, 100)} then ${JSON.stringify(recs[bad]).slice(0, 100)})`,
            { exchange: w.pages[0] },
          );
      }
      // event groups follow the tag order
      const tagOrder = new Map(
        ((await ctx.walk('teams.tags')).records as Rec[]).map((t, i) => [t.tagID as string, i]),
      );
      for (const endpoint of ['opens.list', 'clicks.list'] as const) {
        const w = await ctx.walk(endpoint);
        const idx = (w.records as Rec[]).map((g) => tagOrder.get(g.tagID as string) ?? -1);
        const bad = idx.findIndex((v, i) => i > 0 && v < idx[i - 1]!);
        if (bad > 0)
          ctx.fail(
            `${describe(w.pages[0]!)}: event groups are not in the tag order at group ${bad}`,
            { exchange: w.pages[0] },
          );
      }
    },
  }),
];
