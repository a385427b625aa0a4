import { describe, expect, test } from 'vitest';
import {
  type CheckCause,
  type CheckVerdict,
  checkVerdict,
  tallyOf,
  withNote,
} from '../src/check/outcome.ts';
import { ConnectionError } from '../src/http/client.ts';
import { isBudgetRefusal, RunStopped } from '../src/run/guard.ts';

const fiveXx = { id: 7, method: 'GET', target: '/teams/t1/tags', status: 503 };

/** One row: a cause, whether the expected-failures file lists the check, the verdict. */
const TABLE: readonly (readonly [string, CheckCause, boolean, CheckVerdict])[] = [
  [
    'pass',
    { kind: 'passed' },
    false,
    { status: 'pass', reason: undefined, tally: 'pass', stale: false, counts: false },
  ],
  [
    'pass on a later run keeps its note',
    { kind: 'passed', note: 'passed on run 2' },
    false,
    { status: 'pass', reason: 'passed on run 2', tally: 'pass', stale: false, counts: false },
  ],
  [
    'fail',
    { kind: 'failed' },
    false,
    { status: 'fail', reason: undefined, tally: 'fail', stale: false, counts: true },
  ],
  [
    'fail after asking to be skipped keeps the skip as its reason',
    { kind: 'failed', note: 'needs two teams' },
    false,
    { status: 'fail', reason: 'needs two teams', tally: 'fail', stale: false, counts: true },
  ],
  [
    'skip',
    { kind: 'skipped', reason: 'needs fixture mode' },
    false,
    { status: 'skip', reason: 'needs fixture mode', tally: 'skip', stale: false, counts: false },
  ],
  [
    'error',
    { kind: 'errored', error: 'TypeError: x is undefined' },
    false,
    {
      status: 'error',
      reason: 'TypeError: x is undefined',
      tally: 'error',
      stale: false,
      counts: true,
    },
  ],
  [
    'expected failure: listed and failed',
    { kind: 'failed' },
    true,
    { status: 'fail', reason: undefined, tally: 'expectedFailures', stale: false, counts: false },
  ],
  [
    'expected failure: listed and errored',
    { kind: 'errored', error: 'boom' },
    true,
    { status: 'error', reason: 'boom', tally: 'expectedFailures', stale: false, counts: false },
  ],
  [
    'stale entry: listed and passed',
    { kind: 'passed' },
    true,
    { status: 'pass', reason: undefined, tally: 'pass', stale: true, counts: false },
  ],
  [
    'listed and inconclusive: neither an expected failure nor a stale entry',
    { kind: 'data-moved', reason: 'the data changed during each of 3 attempts (w1)' },
    true,
    {
      status: 'inconclusive',
      reason: 'the data changed during each of 3 attempts (w1)',
      tally: 'inconclusive',
      stale: false,
      counts: false,
    },
  ],
  [
    'listed and skipped: neither',
    { kind: 'skipped', reason: 'opt-in' },
    true,
    { status: 'skip', reason: 'opt-in', tally: 'skip', stale: false, counts: false },
  ],
  [
    '5xx: a fail',
    { kind: 'server-error', exchanges: [fiveXx] },
    false,
    { status: 'fail', reason: undefined, tally: 'fail', stale: false, counts: true },
  ],
  [
    '5xx of a listed check: an expected failure (the run still fails on the 5xx itself)',
    { kind: 'server-error', exchanges: [fiveXx] },
    true,
    { status: 'fail', reason: undefined, tally: 'expectedFailures', stale: false, counts: false },
  ],
  [
    'budget spent before it started: a skip "not run"',
    { kind: 'budget-spent', budget: 40, started: false, failed: false },
    false,
    {
      status: 'skip',
      reason: 'not run: request budget spent (--max-requests 40)',
      tally: 'skip',
      stale: false,
      counts: false,
    },
  ],
  [
    'budget spent while it ran: a skip "not finished"',
    { kind: 'budget-spent', budget: 40, started: true, failed: false },
    false,
    {
      status: 'skip',
      reason: 'not finished: request budget spent (--max-requests 40)',
      tally: 'skip',
      stale: false,
      counts: false,
    },
  ],
  [
    'budget spent after it failed: a fail',
    { kind: 'budget-spent', budget: 40, started: true, failed: true },
    false,
    {
      status: 'fail',
      reason: 'not finished: request budget spent (--max-requests 40)',
      tally: 'fail',
      stale: false,
      counts: true,
    },
  ],
  [
    'interrupted: an error naming why',
    { kind: 'interrupted', reason: '--max-duration 5 s reached' },
    false,
    {
      status: 'error',
      reason: 'interrupted: --max-duration 5 s reached',
      tally: 'error',
      stale: false,
      counts: true,
    },
  ],
  [
    'inconclusive: data moved during every run',
    { kind: 'data-moved', reason: 'the data changed during each of 1 attempt (w1)' },
    false,
    {
      status: 'inconclusive',
      reason: 'the data changed during each of 1 attempt (w1)',
      tally: 'inconclusive',
      stale: false,
      counts: false,
    },
  ],
];

describe('checkVerdict', () => {
  test.each(TABLE)('%s', (_name, cause, expected, verdict) => {
    expect(checkVerdict(cause, { expected })).toEqual(verdict);
  });

  test('tallyOf: every status counts once, a listed fail or error only as an expected failure', () => {
    for (const status of ['skip', 'pass', 'inconclusive', 'fail', 'error'] as const) {
      expect(tallyOf(status, false)).toBe(status);
      expect(tallyOf(status, true)).toBe(
        status === 'fail' || status === 'error' ? 'expectedFailures' : status,
      );
    }
  });

  test('withNote replaces the reason of a pass or fail, not of a skip, error or inconclusive', () => {
    expect(
      checkVerdict(withNote({ kind: 'failed' }, 'failed again'), { expected: false }),
    ).toMatchObject({ status: 'fail', reason: 'failed again' });
    const skip: CheckCause = { kind: 'skipped', reason: 'opt-in' };
    expect(withNote(skip, 'x')).toBe(skip);
  });
});

describe('isBudgetRefusal reads the guard typed refusal, not message text', () => {
  const refusal = new RunStopped('budget_spent', 'request budget spent (--max-requests 3)');

  test('the refusal, and a ConnectionError wrapping it as the HTTP client does', () => {
    expect(isBudgetRefusal(refusal)).toBe(true);
    expect(
      isBudgetRefusal(
        new ConnectionError('http://h/', 'cannot reach http://h/', { cause: refusal }),
      ),
    ).toBe(true);
  });

  test('a stop, or an error that merely says the words, is not a budget refusal', () => {
    expect(isBudgetRefusal(new RunStopped('run_interrupted', 'interrupted: SIGINT'))).toBe(false);
    expect(isBudgetRefusal(new Error('request budget spent (--max-requests 3)'))).toBe(false);
    expect(isBudgetRefusal('request budget spent')).toBe(false);
  });
});
