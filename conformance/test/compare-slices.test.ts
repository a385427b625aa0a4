import { fc, test as fcTest } from '@fast-check/vitest';
import { runInSlices, type Steps, TimeSlice } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { comparable, comparableData, comparableDataSteps } from '../src/check/compare.ts';
import { type CheckScope, inScope, Violation } from '../src/check/failure.ts';
import { differenceEitherWaySteps, firstDifference } from '../src/check/sample.ts';
import { ensureSameAnswer, ensureSameAnswerInSlices } from '../src/checks/input/same-answer.ts';
import type { Exchange } from '../src/http/types.ts';

/*
 * Two answers compared in time slices (their records put in comparable form and walked
 * record by record, the event loop turning between slices) give the verdict, the message and
 * the comparisons counted that comparing them at once gives. Order of events is asserted,
 * never wall time.
 */

let nextId = 70_000;

/** A 200 exchange of `body` (what the comparison reads of it). */
const answer = (body: unknown, total = '9') =>
  ({
    id: nextId++,
    method: 'GET',
    target: '/opens',
    url: 'http://x.invalid/opens',
    credential: 'c',
    status: 200,
    responseHeaders: { 'x-total-count': total },
    body: JSON.stringify(body),
  }) as unknown as Exchange;

/** One open of endpoint 11, `i` making it distinct, `at` its second. */
const open = (i: number, at: number) => ({
  recipient: { recipientID: `r${i}`, name: `Name ${i}`, email: `N${i}@X.test ` },
  details: { openDate: `2025-11-15T23:00:${String(at % 60).padStart(2, '0')}Z`, city: `c${i % 3}` },
});

/** `n` groups of endpoint 11, each with three opens (two of them at the same instant). */
const groups = (n: number) =>
  Array.from({ length: n }, (_, g) => ({
    tagID: `t${g}`,
    opens: [open(g, 1), open(g + 1, 2), open(g + 2, 2)],
  }));

const paging = { cursors: { previous: 0, next: 9, total: 9 }, previousURL: null, nextURL: null };

/** Ways the second answer may differ from the first, or not at all. */
const arbChange = fc.constantFrom(
  'none',
  'ties-reordered',
  'email-case',
  'field-changed',
  'field-dropped',
  'field-added',
  'record-dropped',
  'record-added',
  'instant-respelled',
  'total-header',
  'cursors',
);

/** The second answer's body: the first's records, changed as `change` says at group `at`. */
function changed(n: number, change: string, at: number) {
  const data: Record<string, unknown>[] = groups(n);
  const i = at % Math.max(n, 1);
  const g = data[i] as { tagID: string; opens: ReturnType<typeof open>[] } | undefined;
  if (g !== undefined) {
    if (change === 'ties-reordered') g.opens = [g.opens[0]!, g.opens[2]!, g.opens[1]!];
    if (change === 'email-case') g.opens[0]!.recipient.email = g.opens[0]!.recipient.email.trim();
    if (change === 'field-changed') g.opens[1]!.details.city = 'elsewhere';
    if (change === 'field-dropped') data[i] = { opens: g.opens };
    if (change === 'field-added') data[i] = { ...g, extra: 1 };
    if (change === 'instant-respelled')
      g.opens[0]!.details.openDate = g.opens[0]!.details.openDate.replace('Z', '.000Z');
  }
  if (change === 'record-dropped') data.pop();
  if (change === 'record-added') data.push({ tagID: 'tx', opens: [] });
  const cursors = change === 'cursors' ? { ...paging.cursors, next: 8 } : paging.cursors;
  return { data, paging: { ...paging, cursors } };
}

/** The outcome of a comparison and the comparisons it counted, in a scope of its own. */
async function judged(compare: () => unknown): Promise<unknown> {
  const scope: CheckScope = { comparisons: 0, log: [] };
  try {
    await inScope(scope, async () => {
      await compare();
    });
    return { passed: true, comparisons: scope.comparisons };
  } catch (e) {
    if (!(e instanceof Violation)) throw e;
    return { message: e.message, kind: e.kind, comparisons: scope.comparisons };
  }
}

/** How many times `steps` yields before it ends. */
function yields(steps: Steps<unknown>): number {
  let n = 0;
  while (!steps.next().done) n++;
  return n;
}

describe('answers compared in time slices', () => {
  fcTest.prop([fc.nat(30), arbChange, fc.nat(), fc.constantFrom('opens.list', 'teams.tags')], {
    numRuns: 150,
  })(
    'ensureSameAnswerInSlices gives the verdict, message and comparisons ensureSameAnswer gives',
    async (n, change, at, endpoint) => {
      const body = () => ({ data: groups(n), paging });
      const other = () => changed(n, change, at);
      const total = change === 'total-header' ? '8' : '9';
      const options = { urls: 'ignore' } as const;
      // fresh exchanges and bodies on each side: nothing parsed or put in form is shared
      const atOnce = await judged(() =>
        ensureSameAnswer(endpoint, answer(body()), answer(other(), total), 'x', options),
      );
      const sliced = await judged(() =>
        ensureSameAnswerInSlices(endpoint, answer(body()), answer(other(), total), 'x', options),
      );
      expect(sliced).toEqual(atOnce);
      // read as events (ties, emails and instants compared by meaning), the free changes pass
      // and every other change fails (nothing to change in an empty list but its length)
      const free = ['none', 'ties-reordered', 'email-case', 'instant-respelled'];
      const unchanged =
        free.includes(change) ||
        (n === 0 && !['record-added', 'total-header', 'cursors'].includes(change));
      if (endpoint === 'opens.list') expect('passed' in (sliced as object)).toBe(unchanged);
    },
  );

  fcTest.prop([fc.nat(30), arbChange, fc.nat()], { numRuns: 100 })(
    'differenceEitherWaySteps is firstDifference(a, b) ?? firstDifference(b, a) of the comparable forms, comparisons counted included',
    async (n, change, at) => {
      const a = Object.freeze(groups(n));
      const b = changed(n, change, at).data;
      const oracle = await judged(() => {
        const [x, y] = [comparable('opens.list', a), comparable('opens.list', b)];
        const d = firstDifference(x, y) ?? firstDifference(y, x);
        if (d !== undefined) throw new Violation(d, { kind: 'value' });
      });
      const sliced = await judged(async () => {
        const formA = await runInSlices(comparableDataSteps('opens.list', a));
        const formB = await runInSlices(comparableDataSteps('opens.list', b));
        expect(formA).toEqual(comparable('opens.list', a));
        expect(formB).toEqual(comparable('opens.list', b));
        const d = await runInSlices(differenceEitherWaySteps(formA, formB));
        if (d !== undefined) throw new Violation(d, { kind: 'value' });
      });
      expect(sliced).toEqual(oracle);
      // a frozen list is put in form once, in either way
      expect(await runInSlices(comparableDataSteps('opens.list', a))).toBe(
        comparableData('opens.list', a),
      );
    },
  );

  test('two lists of records alike are put in form and compared with a yield per record', () => {
    const a = groups(40);
    const b = groups(40);
    expect(yields(comparableDataSteps('opens.list', a))).toBe(40);
    const [formA, formB] = [comparableData('opens.list', a), comparableData('opens.list', b)];
    expect(yields(differenceEitherWaySteps(formA, formB))).toBe(40);
  });

  test('a long comparison lets a timer set before it fire before its verdict', async () => {
    const [a, b] = [groups(500), groups(500)];
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 0);
    const slice = new TimeSlice({ budgetMs: 0, stride: 1 });
    const formA = await runInSlices(comparableDataSteps('opens.list', a), slice);
    const formB = await runInSlices(comparableDataSteps('opens.list', b), slice);
    const d = await runInSlices(differenceEitherWaySteps(formA, formB), slice);
    order.push('compared');
    expect(d).toBeUndefined();
    expect(order).toEqual(['timer', 'compared']);
    expect(slice.pauses).toBeGreaterThanOrEqual(3 * 500);
  });
});
