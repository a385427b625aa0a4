import {
  buildQueryString,
  type Endpoint,
  endpointById,
  IGNORED_PARAMS,
  type ParamName,
} from '@tagtrack/core';
import { type CheckContext, LOOP_BATCH } from '../../check/context.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import { type Pair, type Sample, sampleCalls } from '../../check/sample.ts';
import { expectError } from '../err.ts';
import { ALL_ENDPOINTS, sampleCallWith } from './calls.ts';
import { ensureSameAnswerInSlices } from './same-answer.ts';
import { VALID_VALUE } from './values.ts';

/*
 * The query string's syntax (spec §6 Revision 3): the query is
 * `application/x-www-form-urlencoded`, sent here verbatim (`rawQuery`, signed exactly as sent)
 * so that empty pieces, bare names and malformed escapes reach the implementation as written.
 * A bare `?` cannot be tested: the WHATWG fetch of Node drops an empty query from the wire.
 */

/** Malformed escapes (spec §6 Revision 3: a `%` not followed by two hex digits). */
const MALFORMED = ['%zz', '%', '%4', '%G0', '%%41'] as const;

/** Percent-encoded byte sequences that are not UTF-8 (a lone byte, a cut or overlong form, a surrogate). */
const NOT_UTF8 = ['%FF', '%C3', '%80', '%ED%A0%80', '%C0%AF', '%F8%88%80%80%80'] as const;

/** Undecodable values of the ignored `total` and `next`, which stay ignored. */
const UNDECODABLE_IGNORED: readonly [string, string][] = [
  ['total', '%zz'],
  ['next', '%FF'],
  ['total', '50%'],
  ['next', '%E9t%C3'],
];

/** The value `sample` sends for `param`, else a valid one ({@link VALID_VALUE}). */
function valueFor(s: Sample, param: ParamName): string {
  return s.call.query?.find(([name]) => name === param)?.[1] ?? VALID_VALUE[param];
}

/** The query pairs of `s` without `param`. */
function without(s: Sample, param: string): Pair[] {
  return (s.call.query ?? []).filter(([name]) => name !== param) as Pair[];
}

/** `raw` appended to the encoded `pairs` with `&` (or alone when there are none). */
function rawWith(pairs: readonly Pair[], raw: string): string {
  const q = buildQueryString(pairs);
  return q === '' ? raw : `${q}&${raw}`;
}

/** Every character of `value` as a `%XX` escape of its UTF-8 bytes (hex `upper` or lower case). */
function escapeAll(value: string, upper: boolean): string {
  const hex = [...new TextEncoder().encode(value)].map((b) => b.toString(16).padStart(2, '0'));
  return hex.map((h) => `%${upper ? h.toUpperCase() : h}`).join('');
}

/**
 * Every sampled endpoint and parameter sent with the piece `spell(param, value)` gives (the
 * raw `name=value` piece and its description) answers like the plain pair (spec §6
 * Revision 3: names and values are percent-decoded); each item confirmed on its own reads.
 */
async function escapedFormAgrees(
  ctx: CheckContext,
  spell: (param: ParamName, value: string) => readonly [piece: string, what: string],
): Promise<void> {
  const samples = await sampleCalls(ctx);
  if (samples.length === 0) return ctx.skip('no endpoint could be sampled');
  await ctx.each(
    targets(samples, checked),
    ({ s, param }) => {
      const rest = without(s, param);
      const value = valueFor(s, param);
      const [piece, what] = spell(param, value);
      return ensureSameAsPairs(ctx, s, [...rest, [param, value]], rawWith(rest, piece), what);
    },
    { readsOwn: true, concurrency: LOOP_BATCH },
  );
}

/** The name with its letter case changed: all upper case, or its first letter flipped. */
function caseVariant(name: string, i: number): string {
  if (i % 2 === 0) return name.toUpperCase();
  const first = name[0]!;
  const flipped = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase();
  return `${flipped}${name.slice(1)}`;
}

/** Every (sampled endpoint, parameter) pair for the parameters `pick` takes from the endpoint. */
function targets(samples: readonly Sample[], pick: (e: Endpoint) => readonly ParamName[]) {
  return samples.flatMap((s) => pick(endpointById(s.endpoint)).map((param) => ({ s, param })));
}

/** The parameters of `e` that are validated (all but the ignored `total` and `next`). */
function checked(e: Endpoint): ParamName[] {
  return e.query.filter((p) => !IGNORED_PARAMS.has(p));
}

/** Sends `rawQuery` verbatim to the sample's endpoint and path. */
function sendRaw(ctx: CheckContext, s: Sample, rawQuery: string) {
  return ctx.call(s.endpoint, { ...sampleCallWith(s, []), rawQuery });
}

/**
 * Asserts that `rawQuery`, sent verbatim, answers like `s` with `pairs` (sent encoded):
 * `what` says in domain words how the two queries differ.
 */
async function ensureSameAsPairs(
  ctx: CheckContext,
  s: Sample,
  pairs: readonly Pair[],
  rawQuery: string,
  what: string,
): Promise<void> {
  // the verdict rests on these two reads: on moving data a difference is read again (still)
  await ctx.onStillData(async (fresh) => {
    const cache = fresh ? { cache: false } : {};
    const plain = await ctx.call(s.endpoint, { ...sampleCallWith(s, pairs), ...cache });
    const other = await ctx.call(s.endpoint, { ...sampleCallWith(s, []), rawQuery, ...cache });
    await ensureSameAnswerInSlices(s.endpoint, plain, other, what, { urls: 'ignore' });
  });
}

/** Query-string syntax (spec §6 Revision 3). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'INPUT-QUERY-EMPTY-PIECES',
    title:
      'empty pieces of the query string (a=1&&b=2, a leading or trailing &) are ignored: the answer is that of the query without them, on every endpoint',
    clause: 'spec §6 Revision 3 (query-string syntax: an empty piece is ignored)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      if (samples.length === 0) return ctx.skip('no endpoint could be sampled');
      await ctx.each(
        samples.flatMap((s) => {
          const pairs: Pair[] = [...((s.call.query ?? []) as Pair[]), ['rtn', 'json']];
          const q = buildQueryString(pairs);
          return [`&${q}`, `${q}&`, q.split('&').join('&&'), `${q}&&&`].map((raw) => ({
            s,
            pairs,
            raw,
          }));
        }),
        ({ s, pairs, raw }) =>
          ensureSameAsPairs(ctx, s, pairs, raw, `query ${JSON.stringify(raw)}, with empty pieces`),
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-QUERY-BARE-NAME',
    title:
      'a parameter sent without = (?type) has an empty value: 400 naming it, on every endpoint and parameter; total and next sent so stay ignored',
    clause:
      'spec §6 Revision 3 (a piece without = is the name with an empty value), §6 Revision 2 (an empty value is a bad value; total and next are ignored)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      if (samples.length === 0) return ctx.skip('no endpoint could be sampled');
      await ctx.each(
        targets(samples, checked),
        async ({ s, param }) => {
          const ex = await sendRaw(ctx, s, rawWith(without(s, param), param));
          if (ex.status !== 400)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for the bare name ${param} (no =); expected 400 naming '${param}' (a bare name is the parameter with an empty value)`,
              { kind: 'status', exchange: ex, expected: 400, actual: ex.status },
            );
          expectError(ex, 400, [param]);
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
      await ctx.each(
        samples.flatMap((s) => ['total', 'next'].map((name) => ({ s, name }))),
        ({ s, name }) => {
          const pairs = (s.call.query ?? []) as Pair[];
          return ensureSameAsPairs(
            ctx,
            s,
            pairs,
            rawWith(pairs, name),
            `with the bare name ${name}, which is ignored`,
          );
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-QUERY-EMPTY-NAME',
    title:
      'a piece of the query with an empty name (=json, =) is an unknown parameter: 400 with the error body, on every endpoint',
    clause: 'spec §6 Revision 3 (a piece with an empty name is an unknown parameter)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      if (samples.length === 0) return ctx.skip('no endpoint could be sampled');
      await ctx.each(
        samples.flatMap((s) => ['=json', '=', '=1'].map((piece) => ({ s, piece }))),
        async ({ s, piece }) => {
          const ex = await sendRaw(ctx, s, rawWith((s.call.query ?? []) as Pair[], piece));
          if (ex.status !== 400)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for the piece ${JSON.stringify(piece)}; expected 400 (a parameter with an empty name is unknown)`,
              { kind: 'status', exchange: ex, expected: 400, actual: ex.status },
            );
          expectError(ex, 400);
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-QUERY-NAMES-CASE',
    title:
      'parameter names are case-sensitive: a name in another letter case (RTN, Type, isopened, TOTAL) is unknown, 400 naming it, for every parameter of every endpoint',
    clause: 'spec §6 Revision 3 (names are case-sensitive), §6 (unknown parameter: 400)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      if (samples.length === 0) return ctx.skip('no endpoint could be sampled');
      await ctx.each(
        targets(samples, (e) => e.query).map((t, i) => ({
          ...t,
          variant: caseVariant(t.param, i),
        })),
        async ({ s, param, variant }) => {
          const ex = await ctx.call(
            s.endpoint,
            sampleCallWith(s, [...without(s, param), [variant, valueFor(s, param)]]),
          );
          if (ex.status !== 400)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for ${variant}, which is not '${param}' (names are case-sensitive); expected 400 naming '${variant}'`,
              { kind: 'status', exchange: ex, expected: 400, actual: ex.status },
            );
          // a required parameter left out may be the problem named instead
          const required = endpointById(s.endpoint).requiredQuery.includes(param);
          expectError(ex, 400, required ? [variant, param] : [variant]);
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-QUERY-VALUES-DECODED',
    title:
      'values are percent-decoded: every parameter with its value written as %XX escapes (rtn=%6A%73%6F%6E) answers like the plain value, on every endpoint',
    clause: 'spec §6 Revision 3 (in values %XX is decoded)',
    endpoints: ALL_ENDPOINTS,
    run: (ctx) =>
      escapedFormAgrees(ctx, (param, value) => {
        const escaped = escapeAll(value, param.length % 2 === 0);
        return [`${param}=${escaped}`, `with ${param}=${escaped}, i.e. ${param}=${value}`];
      }),
  }),
  defineCheck({
    id: 'INPUT-QUERY-NAMES-DECODED',
    title:
      'names are percent-decoded like values: every parameter with its name written as %XX escapes (%72%74%6E=json) answers like the plain name, on every endpoint',
    clause: 'spec §6 Revision 3 (application/x-www-form-urlencoded: names and values decoded)',
    endpoints: ALL_ENDPOINTS,
    run: (ctx) =>
      escapedFormAgrees(ctx, (param, value) => {
        const escaped = escapeAll(param, param.length % 2 === 1);
        return [
          `${escaped}=${encodeURIComponent(value)}`,
          `with the name ${escaped}=, i.e. ${param}=`,
        ];
      }),
  }),
  defineCheck({
    id: 'INPUT-QUERY-UNDECODABLE',
    title:
      'a value with a malformed escape (%zz, a lone %) or with bytes that are not UTF-8 (%FF) answers 400 naming the parameter, for every parameter of every endpoint; total and next stay ignored',
    clause:
      'spec §6 Revision 3 (a malformed escape or bytes not UTF-8 make the value bad; total and next stay ignored)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      if (samples.length === 0) return ctx.skip('no endpoint could be sampled');
      // every endpoint and parameter: a malformed escape, and a valid value followed by bytes
      // that are not UTF-8 (both rotating), so a decoder that drops either fails every run
      await ctx.each(
        targets(samples, checked).flatMap(({ s, param }, i) => {
          const value = valueFor(s, param);
          const malformed = MALFORMED[i % MALFORMED.length]!;
          return [
            malformed === '%' ? `${value}%` : malformed,
            `${value}${NOT_UTF8[i % NOT_UTF8.length]!}`,
          ].map((raw) => ({ s, param, raw }));
        }),
        async ({ s, param, raw }) => {
          const ex = await sendRaw(ctx, s, rawWith(without(s, param), `${param}=${raw}`));
          if (ex.status !== 400)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for ${param}=${raw}, which does not decode to UTF-8 text; expected 400 naming '${param}'`,
              { kind: 'status', exchange: ex, expected: 400, actual: ex.status },
            );
          expectError(ex, 400, [param]);
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
      await ctx.each(
        samples.flatMap((s) => UNDECODABLE_IGNORED.map(([name, raw]) => ({ s, name, raw }))),
        ({ s, name, raw }) => {
          const pairs = (s.call.query ?? []) as Pair[];
          return ensureSameAsPairs(
            ctx,
            s,
            pairs,
            rawWith(pairs, `${name}=${raw}`),
            `with ${name}=${raw}, which is ignored whatever it holds`,
          );
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
    },
  }),
];
