import { type EndpointId, endpointById } from '@tagtrack/core';
import { arbHostileString } from '@tagtrack/core/testing';
import fc from 'fast-check';
import { type CheckContext, LOOP_BATCH } from '../../check/context.ts';
import { type Check, defineCheck } from '../../check/define.ts';
import { describe, Violation } from '../../check/failure.ts';
import { type Pair, type Sample, sampleCalls, setParam, showPairs } from '../../check/sample.ts';
import type { Exchange } from '../../http/client.ts';
import { expectError } from '../err.ts';
import { ALL_ENDPOINTS, sampleCallWith } from './calls.ts';
import { ensureSameAnswerInSlices } from './same-answer.ts';

/** The sampled endpoints that page (`{ data: [...], paging }`). */
function lists(samples: readonly Sample[]): Sample[] {
  return samples.filter((s) => endpointById(s.endpoint).response === 'list');
}

/** The sampled endpoints answering one record (3, 14, 16). */
function singles(samples: readonly Sample[]): Sample[] {
  return samples.filter((s) => endpointById(s.endpoint).response === 'single');
}

/**
 * Asserts `ex` answers a page past the end of the list: no records, in either paging end
 * (a 204 or a 200 with `data: []`, read by `ctx.page`). Which of the two the profile
 * declares is judged by the PAGE-END checks alone (spec §5 Revision 2), so a server
 * with the other paging end fails those, not this one.
 */
function ensurePastEnd(ctx: CheckContext, endpoint: EndpointId, ex: Exchange, what: string): void {
  const { data } = ctx.page(endpoint, ex);
  if (data.length !== 0)
    throw new Violation(
      `${describe(ex)} (${what}) answered ${data.length} records, expected none`,
      {
        kind: 'extra',
        exchange: ex,
      },
    );
}

const BAD_CURSORS = ['-1', '1.5', 'abc', '', ' 1', '1e3'];
/** A cursor of 40 digits: valid (no size limit) and past the end of any list. */
const HUGE_CURSOR = '1234567890'.repeat(4);

/** Values for `total` and `next`: anything, since both are ignored. */
const arbIgnoredValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '0', '-1', '1.5', HUGE_CURSOR, 'null', 'abc', '%', '+', '&', '=', ' 1'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  arbHostileString,
);

/** Cases of INPUT-NEXT-TOTAL-IGNORED tried on every endpoint. */
const FIXED_IGNORED: readonly (readonly Pair[])[] = [
  [['next', '250']],
  [['total', '99999']],
  [
    ['next', ''],
    ['total', ''],
  ],
  [
    ['total', '1'],
    ['next', 'abc'],
    ['total', '-1'],
    ['next', '1'],
  ],
];

/**
 * Sends `sample` with and without `extra` (`total`/`next` pairs inserted at position `at`
 * among its parameters, optionally with a `cursor`) and asserts both answer alike.
 */
async function ensureIgnored(
  ctx: CheckContext,
  sample: Sample,
  extra: readonly Pair[],
  at: number,
  cursor: string | undefined,
): Promise<void> {
  const base: Pair[] = [...(sample.call.query ?? [])];
  if (cursor !== undefined) base.push(['cursor', cursor]);
  const i = Math.min(at, base.length);
  const query = [...base.slice(0, i), ...extra, ...base.slice(i)];
  // the verdict rests on these two reads: on moving data a difference is read again (still)
  await ctx.onStillData(async (fresh) => {
    const cache = fresh ? { cache: false } : {};
    const plain = await ctx.call(sample.endpoint, { ...sampleCallWith(sample, base), ...cache });
    const ex = await ctx.call(sample.endpoint, { ...sampleCallWith(sample, query), ...cache });
    await ensureSameAnswerInSlices(sample.endpoint, plain, ex, `with ${showPairs(extra)}`, {
      urls: 'same-query',
      kept: extra,
    });
  });
}

/** Cursors, and total and next ignored (spec §5 Revision 2, §4 Revision 2). */
export const checks: readonly Check[] = [
  defineCheck({
    id: 'INPUT-400-BAD-CURSOR',
    title:
      'a cursor not matching [0-9]+ answers 400 naming cursor on every endpoint, single-object ones included; a valid cursor is ignored on them; a huge cursor is past the end',
    clause: 'spec §5 Revision 2 (cursor is [0-9]+, no size limit, on every endpoint)',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      await ctx.each(
        samples.flatMap((s) => BAD_CURSORS.map((cursor) => ({ s, cursor }))),
        async ({ s, cursor }) => {
          const ex = await ctx.call(
            s.endpoint,
            sampleCallWith(s, setParam(s.call.query ?? [], 'cursor', cursor)),
          );
          if (ex.status !== 400)
            throw new Violation(
              `${describe(ex)} answered ${ex.status} for cursor ${JSON.stringify(cursor)}, which is not [0-9]+; expected 400 naming 'cursor' (on every endpoint, ${endpointById(s.endpoint).response === 'single' ? 'single-object ones included' : 'lists included'})`,
              { kind: 'status', exchange: ex },
            );
          expectError(ex, 400, ['cursor']);
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
      // single-object endpoints: a valid cursor changes nothing
      await ctx.each(
        singles(samples).flatMap((s) =>
          ['0', '7', '00012', HUGE_CURSOR].map((cursor) => ({ s, cursor })),
        ),
        ({ s, cursor }) =>
          ctx.onStillData(async (fresh) => {
            const cache = fresh ? { cache: false } : {};
            const plain = await ctx.call(s.endpoint, { ...s.call, ...cache });
            const ex = await ctx.call(s.endpoint, {
              ...sampleCallWith(s, setParam(s.call.query ?? [], 'cursor', cursor)),
              ...cache,
            });
            await ensureSameAnswerInSlices(
              s.endpoint,
              plain,
              ex,
              `with the valid cursor=${cursor}`,
              {
                urls: 'ignore',
              },
            );
          }),
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
      await ctx.each(
        lists(samples),
        async (s) => {
          // leading zeros: cursor=000 is cursor 0 (read again on still data when they differ)
          await ctx.onStillData(async (fresh) => {
            const cache = fresh ? { cache: false } : {};
            const plain = await ctx.call(s.endpoint, { ...s.call, ...cache });
            const zeros = await ctx.call(s.endpoint, {
              ...sampleCallWith(s, setParam(s.call.query ?? [], 'cursor', '000')),
              ...cache,
            });
            await ensureSameAnswerInSlices(
              s.endpoint,
              plain,
              zeros,
              'with cursor=000, i.e. cursor 0',
              {
                urls: 'ignore',
              },
            );
          });
          // 40 digits: valid, past the end of the list
          const huge = await ctx.call(
            s.endpoint,
            sampleCallWith(s, setParam(s.call.query ?? [], 'cursor', HUGE_CURSOR)),
          );
          ensurePastEnd(ctx, s.endpoint, huge, 'a cursor of 40 digits, past the end');
        },
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
    },
  }),
  defineCheck({
    id: 'INPUT-NEXT-TOTAL-IGNORED',
    title:
      'total and next, with any value, empty or repeated, change nothing on any endpoint: same status, data, paging and X-Total-Count',
    clause: 'spec §5 Revision 2 (next accepted and ignored like total), §6 Revision 2',
    endpoints: ALL_ENDPOINTS,
    async run(ctx) {
      const samples = await sampleCalls(ctx);
      await ctx.each(
        samples.flatMap((s) => FIXED_IGNORED.map((extra) => ({ s, extra }))),
        ({ s, extra }) => ensureIgnored(ctx, s, extra, Number.POSITIVE_INFINITY, undefined),
        { readsOwn: true, concurrency: LOOP_BATCH },
      );
      await ctx.property(
        fc.record({
          s: fc.constantFrom(...samples),
          extra: fc.array(fc.tuple(fc.constantFrom('total', 'next'), arbIgnoredValue), {
            minLength: 1,
            maxLength: 4,
          }),
          at: fc.nat({ max: 2 }),
          cursor: fc.constantFrom(undefined, '1', String(ctx.profile.pageSize)),
        }),
        ({ s, extra, at, cursor }) => ensureIgnored(ctx, s, extra, at, cursor),
        { readsOwn: true },
      );
    },
  }),
];
