import {
  ENDPOINT_LIST,
  type Endpoint,
  type EndpointId,
  type ErrorBody,
  endpointById,
  IGNORED_PARAMS,
  PARAM_NAMES,
  type ParamName,
  QUERY_PARAMS,
  valueSchema,
  wireSchema,
} from '@tagtrack/core';
import fc from 'fast-check';
import * as z from 'zod';
import { LOOP_BATCH } from '../../check/context.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import { type Sample, sampleCalls, setParam } from '../../check/sample.ts';
import { expectError } from '../err.ts';
import { ALL_ENDPOINTS, sampleCallWith } from './calls.ts';

/** Endpoints taking a date parameter (2, 4, 6, 7, 8, 9, 11, 13, 14). */
const DATE_PARAMS: readonly ParamName[] = ['start', 'end', 'date'];
const DATED_ENDPOINTS: readonly EndpointId[] = ENDPOINT_LIST.filter((e) =>
  e.query.some((p) => DATE_PARAMS.includes(p)),
).map((e) => e.id);

/** Boolean parameters (their value is a boolean: `isOpened`, `aggregateData`, …), from core. */
const BOOLEAN_PARAMS: readonly ParamName[] = PARAM_NAMES.filter(
  (p) => valueSchema(QUERY_PARAMS[p]) instanceof z.ZodBoolean,
);

/** Enumerated parameters (`type`, `rtn`) and their values, from core's wire schemas. */
const ENUM_PARAMS: ReadonlyMap<ParamName, readonly string[]> = new Map(
  PARAM_NAMES.flatMap((p) => {
    const wire = wireSchema(QUERY_PARAMS[p]);
    return wire instanceof z.ZodEnum ? [[p, wire.options.map(String)] as const] : [];
  }),
);

/** Endpoints taking both `start` and `end`, from the catalogue (2, 4, 6, 7, 8, 9, 11, 13). */
const WINDOWED_ENDPOINTS: readonly EndpointId[] = ENDPOINT_LIST.filter(
  (e) => e.query.includes('start') && e.query.includes('end'),
).map((e) => e.id);

/** Every (sampled endpoint, parameter) pair where `params` holds the parameter. */
function targetsOf(samples: readonly Sample[], params: Iterable<ParamName>) {
  const wanted = new Set(params);
  return samples.flatMap((s) =>
    endpointById(s.endpoint)
      .query.filter((p) => wanted.has(p))
      .map((param) => ({ s, param })),
  );
}

/** Parameters of `e` that are validated (all but the ignored `total` and `next`). */
function checkedParams(e: Endpoint): ParamName[] {
  return e.query.filter((p) => !IGNORED_PARAMS.has(p));
}

/** Whether `message` names `name` as a word (not as part of a longer name). */
export function namesWord(message: string, name: string): boolean {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_])${esc}($|[^A-Za-z0-9_])`).test(message);
}

/** A valid value of each parameter, so that sending it where it is foreign is the only fault. */
export const VALID_VALUE: Record<ParamName, string> = {
  rtn: 'json',
  cursor: '0',
  total: '1',
  next: '1',
  start: '2024-01-01',
  end: '2024-12-31',
  date: '2024-01-01',
  isClicked: 'true',
  isUnclicked: 'false',
  isOpened: '1',
  isUnopened: '0',
  aggregateData: 'true',
  type: 'admin',
};

/** A second valid value of each parameter, other than {@link VALID_VALUE}'s. */
const OTHER_VALID_VALUE: Record<ParamName, string> = {
  rtn: 'text',
  cursor: '1',
  total: '2',
  next: '2',
  start: '2024-02-01',
  end: '2024-11-30',
  date: '2024-01-02',
  isClicked: 'false',
  isUnclicked: 'true',
  isOpened: '0',
  isUnopened: '1',
  aggregateData: 'false',
  type: 'manager',
};

/** Days past the end of their month: a lenient parser rolls them into the next month. */
const OVERFLOW_DATES = ['2024-02-30', '2023-02-29', '2024-04-31', '2024-06-31', '2024-02-31'];
const BAD_DATES = [
  '0000-01-01',
  '10000-01-01',
  '0000-12-31',
  ...OVERFLOW_DATES,
  '2024-13-01',
  '2024-00-10',
  '2024-1-05',
  '20240105',
  '2024-01-05T00:00:00Z',
  '05/01/2024',
  'yesterday',
  '',
  ' 2024-01-05',
  '+2024-01-05',
  '-2024-01-05',
  '２０２４-01-05',
];
/** Dates on the edges of years 0001–9999: valid (spec §6 Revision 2). */
const EDGE_DATES = ['0001-01-01', '9999-12-31'];
const BAD_BOOLEANS = ['yes', 'no', '2', 'truee', 'on', '', 'null', '-1'];

/** Bad values of query parameters answer 400 naming the parameter (spec §6, §6). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'INPUT-400-BAD-DATE',
    title:
      'start, end and date that are not a real calendar day of the years 0001-9999 as YYYY-MM-DD answer 400 naming the parameter, on every endpoint that takes them',
    clause: 'spec §6 (dates), §6 Revision 2 (same rules everywhere; years 0001-9999)',
    endpoints: DATED_ENDPOINTS,
    async run(ctx) {
      const samples = (await sampleCalls(ctx)).filter((s) => DATED_ENDPOINTS.includes(s.endpoint));
      const targets = samples.flatMap((s) =>
        endpointById(s.endpoint)
          .query.filter((p) => DATE_PARAMS.includes(p))
          .map((param) => ({ sample: s, param })),
      );
      if (targets.length === 0) return ctx.skip('no endpoint taking a date could be sampled');
      const send = (t: (typeof targets)[number], value: string) =>
        ctx.call(
          t.sample.endpoint,
          sampleCallWith(t.sample, setParam(t.sample.call.query ?? [], t.param, value)),
        );
      // every endpoint and parameter: the year bounds, a day past its month's end and one
      // more bad date (both rotating), so a parser lenient on one endpoint fails every run
      const others = BAD_DATES.filter((d) => !OVERFLOW_DATES.includes(d) && !d.startsWith('0000'));
      await ctx.each(
        targets.flatMap((t, i) =>
          [
            '0000-01-01',
            '10000-01-01',
            OVERFLOW_DATES[i % OVERFLOW_DATES.length]!,
            others[i % others.length]!,
          ].map((value) => ({ t, value })),
        ),
        async ({ t, value }) => expectError(await send(t, value), 400, [t.param]),
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
      // the first and last days of the range are real days: never a 400
      await ctx.each(
        targets.flatMap((t) => EDGE_DATES.map((value) => ({ t, value }))),
        async ({ t, value }) => {
          const ex = await send(t, value);
          const list = endpointById(t.sample.endpoint).response === 'list';
          const ok = ex.status === 200 || (list && ex.status === 204);
          if (!ok)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for ${t.param}=${value}, a real day of years 0001-9999; expected ${list ? '200 or 204' : '200'}`,
              { kind: 'status', exchange: ex },
            );
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
      await ctx.property(
        fc.tuple(fc.constantFrom(...targets), fc.constantFrom(...BAD_DATES)),
        async ([t, value]) => expectError(await send(t, value), 400, [t.param]),
        { readsOwn: true, numRuns: Math.max(ctx.numRuns, BAD_DATES.length) },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-START-AFTER-END',
    title:
      'start after end answers 400 naming start or end, on every endpoint that takes both; start equal to end is one day, never a 400',
    clause: 'spec §6 (start > end: 400), §6 Revision 2 (same rules on every endpoint)',
    endpoints: WINDOWED_ENDPOINTS,
    async run(ctx) {
      const samples = (await sampleCalls(ctx)).filter((s) =>
        WINDOWED_ENDPOINTS.includes(s.endpoint),
      );
      if (samples.length === 0) return ctx.skip('no endpoint taking start and end was sampled');
      const window = (s: Sample, start: string, end: string) =>
        sampleCallWith(s, [...(s.call.query ?? []), ['start', start], ['end', end]]);
      await ctx.each(
        samples.flatMap((s) =>
          [
            ['2024-03-02', '2024-03-01'],
            ['2025-01-01', '2024-12-31'],
          ].map(([start, end]) => ({ s, start: start!, end: end! })),
        ),
        async ({ s, start, end }) =>
          expectError(await ctx.call(s.endpoint, window(s, start, end)), 400, ['start', 'end']),
        { readsOwn: true },
      );
      await ctx.each(
        samples,
        async (s) => {
          const ex = await ctx.call(s.endpoint, window(s, '2024-03-01', '2024-03-01'));
          if (ex.status !== 200 && ex.status !== 204)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for start equal to end; expected 200 or 204 (the window of that one day)`,
              { kind: 'status', exchange: ex },
            );
        },
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-BAD-BOOLEAN',
    title:
      'a boolean other than true/false/1/0 (any case) answers 400 naming the parameter, for every boolean parameter on every endpoint that takes it',
    clause: 'spec §6 (booleans), §6 Revision 2 (same rules on every endpoint)',
    endpoints: ENDPOINT_LIST.filter((e) => e.query.some((p) => BOOLEAN_PARAMS.includes(p))).map(
      (e) => e.id,
    ),
    async run(ctx) {
      const targets = targetsOf(await sampleCalls(ctx), BOOLEAN_PARAMS);
      if (targets.length === 0) return ctx.skip('no endpoint taking a boolean was sampled');
      const send = async ({ s, param }: (typeof targets)[number], value: string) =>
        expectError(
          await ctx.call(s.endpoint, sampleCallWith(s, setParam(s.call.query ?? [], param, value))),
          400,
          [param],
        );
      // every endpoint and boolean parameter once (the bad values rotating), then generated
      await ctx.each(
        targets.map((t, i) => ({ t, value: BAD_BOOLEANS[i % BAD_BOOLEANS.length]! })),
        ({ t, value }) => send(t, value),
        { readsOwn: true, note: ({ value }) => ` (value ${JSON.stringify(value)})` },
      );
      await ctx.property(
        fc.tuple(fc.constantFrom(...targets), fc.constantFrom(...BAD_BOOLEANS)),
        ([t, value]) => send(t, value),
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-BAD-ENUM',
    title:
      'type other than admin/manager/user and rtn other than json/text/html (both case-sensitive) answer 400 naming the parameter, on every endpoint that takes them',
    clause:
      'spec §6 (type, rtn), §6 Revision 2 (rtn and type are case-sensitive; same rules on every endpoint)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const targets = targetsOf(await sampleCalls(ctx), ENUM_PARAMS.keys());
      if (targets.length === 0) return ctx.skip('no endpoint could be sampled');
      /** Near misses of an enum: its values in another letter case, and other words. */
      const misses = (param: ParamName) => {
        const options = ENUM_PARAMS.get(param) ?? [];
        const fresh = (vs: string[]) => vs.filter((v) => !options.includes(v));
        return {
          cased: fresh(
            options.flatMap((o) => [`${o[0]!.toUpperCase()}${o.slice(1)}`, o.toUpperCase()]),
          ),
          other: fresh([
            ...options.map((o) => `${o} `),
            param === 'type' ? 'owner' : 'xml',
            `${options[0]}s`,
          ]),
        };
      };
      const badValues = (param: ParamName) => {
        const { cased, other } = misses(param);
        return [...cased, ...other];
      };
      // every endpoint and enum parameter: a value in another case and another word (both
      // rotating), so an endpoint lenient on case fails every run
      await ctx.each(
        targets.flatMap((t, i) => {
          const { cased, other } = misses(t.param);
          return [cased[i % cased.length]!, other[i % other.length]!].map((value) => ({
            ...t,
            value,
          }));
        }),
        async ({ s, param, value }) =>
          expectError(
            await ctx.call(
              s.endpoint,
              sampleCallWith(s, setParam(s.call.query ?? [], param, value)),
            ),
            400,
            [param],
          ),
        { readsOwn: true, note: ({ param, value }) => ` (${param}=${JSON.stringify(value)})` },
      );
      await ctx.property(
        fc
          .constantFrom(...targets)
          .chain((t) => fc.tuple(fc.constant(t), fc.constantFrom(...badValues(t.param)))),
        async ([{ s, param }, value]) =>
          expectError(
            await ctx.call(
              s.endpoint,
              sampleCallWith(s, setParam(s.call.query ?? [], param, value)),
            ),
            400,
            [param],
          ),
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-EMPTY-VALUE',
    title:
      'an empty value (type=, start=, rtn=, cursor=, isOpened=, …) answers 400 naming the parameter, on every endpoint that takes it',
    clause: 'spec §6 Revision 2 (an empty value is a bad value)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      const cases = samples.flatMap((s) =>
        checkedParams(endpointById(s.endpoint)).map((param) => ({ s, param })),
      );
      await ctx.each(
        cases,
        async ({ s, param }) => {
          const ex = await ctx.call(
            s.endpoint,
            sampleCallWith(s, setParam(s.call.query ?? [], param, '')),
          );
          if (ex.status !== 400)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for the empty ${param}=; expected 400 naming '${param}' (an empty value is a bad value, not an absent one)`,
              { kind: 'status', exchange: ex },
            );
          expectError(ex, 400, [param]);
        },
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-DATE-REQUIRED',
    title: '/tags/daily/{tagID} without date answers 400 naming date',
    clause: 'spec §6 (date is required on endpoint 14)',
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
    title:
      "an unknown query parameter (a typo like isOpen, or another endpoint's parameter like start on /contacts) answers 400 whose message names it and the allowed ones",
    clause:
      'spec §6 (unknown query parameter), §6 Revision 2 (a parameter of another endpoint is unknown)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const typos = ['isOpen', 'startDate', 'page', 'limit', 'aggregate', 'Rtn', 'NEXT'];
      const samples = await sampleCalls(ctx);
      const send = async (s: Sample, name: string, value: string) => {
        const allowed = endpointById(s.endpoint).query;
        const ex = await ctx.call(
          s.endpoint,
          sampleCallWith(s, [...(s.call.query ?? []), [name, value]]),
        );
        if (ex.status !== 400)
          throw new Violation(
            `${describe(ex)} answered ${ex.status}; '${name}' is not a parameter of this endpoint (allowed: ${allowed.join(', ')}), expected 400`,
            { kind: 'status', exchange: ex },
          );
        expectError(ex, 400, [name]);
        const message = (JSON.parse(ex.body) as ErrorBody).message;
        const missing = allowed.filter((p) => !IGNORED_PARAMS.has(p) && !namesWord(message, p));
        if (missing.length > 0)
          throw new Violation(
            `${describe(ex)}: message ${JSON.stringify(message)} does not list the allowed parameters (${missing.join(', ')} missing)`,
            { kind: 'format', exchange: ex },
          );
      };
      // every parameter of the API on every endpoint that does not take it, with a valid value
      const foreign = samples.flatMap((s) => {
        const own = new Set<string>(endpointById(s.endpoint).query);
        return PARAM_NAMES.filter((p) => !own.has(p)).map((param) => ({ s, param }));
      });
      await ctx.each(foreign, ({ s, param }) => send(s, param, VALID_VALUE[param]), {
        readsOwn: true,
        concurrency: LOOP_BATCH,
      });
      await ctx.property(
        fc.tuple(fc.constantFrom(...samples), fc.constantFrom(...typos)),
        async ([s, typo]) => send(s, typo, 'true'),
        { readsOwn: true },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-400-REPEATED-PARAM',
    title:
      'a parameter other than total and next sent twice (same or different value) answers 400 naming it, on every endpoint that takes it',
    clause: 'spec §6 Revision 2 (a repeated parameter: 400)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      const cases = samples.flatMap((s) =>
        checkedParams(endpointById(s.endpoint)).flatMap((param) =>
          [VALID_VALUE[param], OTHER_VALID_VALUE[param]].map((second) => ({ s, param, second })),
        ),
      );
      if (cases.length === 0) return ctx.skip('no endpoint could be sampled');
      await ctx.each(
        cases,
        async ({ s, param, second }) => {
          const rest = (s.call.query ?? []).filter(([name]) => name !== param);
          const ex = await ctx.call(
            s.endpoint,
            sampleCallWith(s, [...rest, [param, VALID_VALUE[param]], [param, second]]),
          );
          const how = second === VALID_VALUE[param] ? 'the same value' : 'two values';
          if (ex.status !== 400)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for ${param} sent twice with ${how}; expected 400 naming '${param}' (a repeated parameter is a bad request, neither the first nor the last one wins)`,
              { kind: 'status', exchange: ex, expected: 400, actual: ex.status },
            );
          expectError(ex, 400, [param]);
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
    },
  }),
];
