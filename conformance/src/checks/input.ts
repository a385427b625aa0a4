import { ENDPOINTS, type EndpointId, ErrorBody, REASON_PHRASES } from '@tagtrack/core';
import { arbHostileString } from '@tagtrack/core/testing';
import fc from 'fast-check';
import type { Exchange } from '../http.ts';
import { type Check, type CheckContext, defineCheck, describe, Violation } from './api.ts';
import { sampleCalls } from './sample.ts';
import { contentTypeMatches } from './schema.ts';

/**
 * Asserts `ex` is the documented error: `status`, a JSON {@link ErrorBody} with matching
 * `statusCode` and reason phrase, and (when given) a message naming `names` (decisions §5).
 */
export function expectError(ex: Exchange, status: number, names: readonly string[] = []): void {
  if (ex.status !== status)
    throw new Violation(`${describe(ex)} answered ${ex.status}, expected ${status}`, {
      exchange: ex,
      expected: status,
      actual: ex.status,
    });
  errorBodyProblem(ex);
  const message = (JSON.parse(ex.body) as ErrorBody).message;
  if (names.length > 0 && !names.some((n) => message.includes(n)))
    throw new Violation(
      `${describe(ex)}: error message ${JSON.stringify(message)} does not name ${names.map((n) => `'${n}'`).join(' or ')}`,
      { exchange: ex },
    );
}

/** Throws a {@link Violation} unless `ex` carries the error body of decisions §5. */
export function errorBodyProblem(ex: Exchange): void {
  const ct = ex.responseHeaders['content-type'];
  if (
    !contentTypeMatches(ct, 'application/json; charset=utf-8') &&
    !contentTypeMatches(ct, 'application/json')
  )
    throw new Violation(
      `${describe(ex)}: error Content-Type ${JSON.stringify(ct)}, expected application/json`,
      { exchange: ex },
    );
  let body: unknown;
  try {
    body = JSON.parse(ex.body);
  } catch {
    throw new Violation(`${describe(ex)}: error body is not JSON: ${ex.body.slice(0, 100)}`, {
      exchange: ex,
    });
  }
  const parsed = ErrorBody.safeParse(body);
  if (!parsed.success)
    throw new Violation(
      `${describe(ex)}: error body is not {statusCode, error, message}: ${ex.body.slice(0, 100)}`,
      { exchange: ex },
    );
  if (parsed.data.statusCode !== ex.status)
    throw new Violation(
      `${describe(ex)}: error body statusCode ${parsed.data.statusCode}, HTTP status ${ex.status}`,
      { exchange: ex },
    );
  const phrase = REASON_PHRASES[ex.status];
  if (phrase !== undefined && parsed.data.error !== phrase)
    throw new Violation(
      `${describe(ex)}: error ${JSON.stringify(parsed.data.error)}, expected the reason phrase ${JSON.stringify(phrase)}`,
      { exchange: ex },
    );
}

/** Runs `fn`, recording a Violation as a failure and going on. */
async function each(ctx: CheckContext, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof Violation) ctx.fail(e.message, e.details);
    else throw e;
  }
}

const BAD_DATES = [
  '2024-02-30',
  '2023-02-29',
  '2024-13-01',
  '2024-00-10',
  '2024-04-31',
  '2024-1-05',
  '20240105',
  '2024-01-05T00:00:00Z',
  '05/01/2024',
  'yesterday',
  '',
  ' 2024-01-05',
];
const BAD_BOOLEANS = ['yes', 'no', '2', 'truee', 'on', '', 'null', '-1'];

/** Bad input gets the documented 400/404 with the error body; nothing gets a 5xx (decisions §4, §5). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'INPUT-400-BAD-DATE',
    area: 'input',
    title:
      'start, end and date that are not a real calendar day as YYYY-MM-DD answer 400 naming the parameter',
    clause: 'decisions §4 (dates)',
    endpoints: ['teams.tags', 'stats.team', 'opens.list', 'tags.daily'],
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      const daily = samples.find((s) => s.endpoint === 'tags.daily');
      const targets: { endpoint: EndpointId; param: string; tagID?: string }[] = [
        { endpoint: 'teams.tags', param: 'start' },
        { endpoint: 'teams.tags', param: 'end' },
        { endpoint: 'stats.team', param: 'start' },
        { endpoint: 'opens.list', param: 'end' },
        ...(daily
          ? [
              {
                endpoint: 'tags.daily' as const,
                param: 'date',
                tagID: daily.call.pathParams!.tagID!,
              },
            ]
          : []),
      ];
      await ctx.property(
        fc.tuple(fc.constantFrom(...targets), fc.constantFrom(...BAD_DATES)),
        async ([t, value]) => {
          const ex = await ctx.call(t.endpoint, {
            ...(t.tagID ? { pathParams: { tagID: t.tagID } } : {}),
            query: [[t.param, value]],
          });
          expectError(ex, 400, [t.param]);
        },
        { numRuns: Math.max(ctx.numRuns, BAD_DATES.length) },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-START-AFTER-END',
    area: 'input',
    title: 'start after end answers 400',
    clause: 'decisions §4 (start > end: 400)',
    endpoints: ['teams.tags', 'stats.team', 'clicks.list'],
    async run(ctx) {
      for (const endpoint of ['teams.tags', 'stats.team', 'clicks.list'] as const) {
        await each(ctx, async () =>
          expectError(
            await ctx.call(endpoint, {
              query: [
                ['start', '2024-03-02'],
                ['end', '2024-03-01'],
              ],
            }),
            400,
            ['start', 'end'],
          ),
        );
      }
    },
  }),
  defineCheck({
    id: 'INPUT-400-BAD-BOOLEAN',
    area: 'input',
    title: 'a boolean other than true/false/1/0 (any case) answers 400 naming the parameter',
    clause: 'decisions §4 (booleans)',
    endpoints: ['teams.tags', 'stats.team'],
    async run(ctx) {
      const targets: [EndpointId, string][] = [
        ['teams.tags', 'isOpened'],
        ['teams.tags', 'isUnopened'],
        ['teams.tags', 'isClicked'],
        ['teams.tags', 'isUnclicked'],
        ['stats.team', 'aggregateData'],
      ];
      await ctx.property(
        fc.tuple(fc.constantFrom(...targets), fc.constantFrom(...BAD_BOOLEANS)),
        async ([[endpoint, param], value]) => {
          expectError(await ctx.call(endpoint, { query: [[param, value]] }), 400, [param]);
        },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-BAD-ENUM',
    area: 'input',
    title: 'type other than admin/manager/user and rtn other than json/text/html answer 400',
    clause: 'decisions §4 (type, rtn)',
    endpoints: ['teams.list', 'stats.team', 'teams.tags', 'contacts.list'],
    async run(ctx) {
      for (const [endpoint, param, value] of [
        ['teams.list', 'type', 'owner'],
        ['stats.team', 'type', 'Admin '],
        ['teams.tags', 'rtn', 'xml'],
        ['contacts.list', 'rtn', 'JSONP'],
        ['teams.list', 'rtn', ''],
      ] as const) {
        await each(ctx, async () =>
          expectError(await ctx.call(endpoint, { query: [[param, value]] }), 400, [param]),
        );
      }
    },
  }),
  defineCheck({
    id: 'INPUT-400-DATE-REQUIRED',
    area: 'input',
    title: '/tags/daily/{tagID} without date answers 400 naming date',
    clause: 'decisions §4 (date is required on endpoint 14)',
    endpoints: ['tags.daily'],
    async run(ctx) {
      const daily = (await sampleCalls(ctx)).find((s) => s.endpoint === 'tags.daily');
      if (daily === undefined) return ctx.skip('no tag is visible to the credential');
      expectError(await ctx.call('tags.daily', { pathParams: daily.call.pathParams! }), 400, [
        'date',
      ]);
    },
  }),
  defineCheck({
    id: 'INPUT-400-UNKNOWN-PARAM',
    area: 'input',
    title:
      'an unknown query parameter (e.g. the typo isOpen) answers 400 whose message names the allowed ones',
    clause: 'decisions §4 (unknown query parameter)',
    endpoints: ENDPOINTS.map((e) => e.id),
    async run(ctx) {
      const typos = ['isOpen', 'startDate', 'page', 'limit', 'aggregate', 'Rtn'];
      const samples = await sampleCalls(ctx);
      await ctx.property(
        fc.tuple(fc.constantFrom(...samples), fc.constantFrom(...typos)),
        async ([{ endpoint, call }, typo]) => {
          const allowed = ENDPOINTS.find((e) => e.id === endpoint)!.query;
          const ex = await ctx.call(endpoint, {
            ...call,
            query: [...(call.query ?? []), [typo, 'true']],
          });
          expectError(ex, 400, [typo]);
          const message = (JSON.parse(ex.body) as ErrorBody).message;
          if (!allowed.filter((p) => p !== 'total').some((p) => message.includes(p)))
            throw new Violation(
              `${describe(ex)}: message ${JSON.stringify(message)} does not list the allowed parameters (${allowed.join(', ')})`,
              { exchange: ex },
            );
        },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-CURSOR-TOTAL-ACCEPTED',
    area: 'input',
    title:
      'cursor and total are accepted on every endpoint (total ignored; cursor ignored where nothing pages)',
    clause: 'decisions §3 (cursor and total accepted on every endpoint)',
    endpoints: ENDPOINTS.map((e) => e.id),
    async run(ctx) {
      for (const { endpoint, call } of await sampleCalls(ctx)) {
        await each(ctx, async () => {
          const plain = await ctx.call(endpoint, call);
          const ex = await ctx.call(endpoint, {
            ...call,
            query: [...(call.query ?? []), ['cursor', '0'], ['total', '99999']],
          });
          if (ex.status !== 200 || plain.status !== 200)
            throw new Violation(`${describe(ex)} answered ${ex.status}, expected 200`, {
              exchange: ex,
            });
          const a = JSON.stringify(ctx.envelope(endpoint, plain).data);
          const b = JSON.stringify(ctx.envelope(endpoint, ex).data);
          if (a !== b)
            throw new Violation(`${describe(ex)}: cursor=0&total=99999 changed the records`, {
              exchange: ex,
            });
        });
      }
    },
  }),
  defineCheck({
    id: 'INPUT-404-UNKNOWN-ID',
    area: 'input',
    title: 'an unknown member, group, tag or contact id answers 404 with the error body',
    clause: 'decisions §2, §4 (group segment), §5',
    endpoints: ENDPOINTS.filter((e) => e.pathParams.length > 0).map((e) => e.id),
    async run(ctx) {
      const unknown = 'zz0000unknown0000id00zz';
      for (const e of ENDPOINTS.filter((x) => x.pathParams.length > 0)) {
        const pathParams = Object.fromEntries(e.pathParams.map((p) => [p, unknown]));
        const query: [string, string][] = e.requiredQuery.includes('date')
          ? [['date', '2024-01-01']]
          : [];
        await each(ctx, async () => expectError(await ctx.call(e.id, { pathParams, query }), 404));
      }
    },
  }),
  defineCheck({
    id: 'INPUT-404-UNKNOWN-PATH',
    area: 'input',
    title: 'an unknown path answers 404 with the error body',
    clause: 'decisions §4 (unknown path: 404), §5',
    endpoints: [],
    async run(ctx) {
      for (const path of ['/nothing-here', '/teams/members', '/teams/tags/extra', '/stats/']) {
        await each(ctx, async () =>
          expectError(await ctx.raw({ path, credential: ctx.primary }), 404),
        );
      }
    },
  }),
  defineCheck({
    id: 'ERR-BODY-JSON',
    area: 'input',
    title:
      'every error (400, 401, 404) is a JSON {statusCode, error, message} body, whatever rtn asked for',
    clause: 'decisions §5',
    endpoints: ['teams.tags', 'teams.member', 'contacts.list'],
    async run(ctx) {
      for (const rtn of ['json', 'text', 'html'] as const) {
        const cases: [Promise<Exchange>, number][] = [
          [
            ctx.call('teams.tags', {
              query: [
                ['rtn', rtn],
                ['isOpened', 'maybe'],
              ],
            }),
            400,
          ],
          [
            ctx.call('teams.member', {
              pathParams: { memberID: 'zz0000unknown' },
              query: [['rtn', rtn]],
            }),
            404,
          ],
          [ctx.call('contacts.list', { query: [['rtn', rtn]], credential: null }), 401],
        ];
        for (const [p, status] of cases) await each(ctx, async () => expectError(await p, status));
      }
    },
  }),
  defineCheck({
    id: 'INPUT-NO-5XX',
    area: 'input',
    title: 'no input yields a 5xx: generated query parameters answer 200, 400 or 404',
    clause: 'decisions §5 (a 5xx is always a defect)',
    endpoints: ENDPOINTS.map((e) => e.id),
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      const names = [
        'start',
        'end',
        'date',
        'type',
        'rtn',
        'cursor',
        'total',
        'isOpened',
        'aggregateData',
        'x',
      ];
      const value = fc.oneof(
        fc.string({ maxLength: 12 }),
        arbHostileString,
        fc.constantFrom(
          '2024-02-29',
          '9999-12-31',
          '0000-01-01',
          '-1',
          '1e309',
          '%',
          'true',
          '99999999999999999999',
        ),
      );
      await ctx.property(
        fc.tuple(
          fc.constantFrom(...samples),
          fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 3 }),
        ),
        async ([{ endpoint, call }, extra]) => {
          const ex = await ctx.call(endpoint, {
            ...call,
            query: [...(call.query ?? []), ...extra],
          });
          if (![200, 400, 404].includes(ex.status))
            throw new Violation(`${describe(ex)} answered ${ex.status}, expected 200, 400 or 404`, {
              exchange: ex,
            });
          if (ex.status !== 200) errorBodyProblem(ex);
        },
      );
    },
  }),
];
