import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  contactCountersOverTheirTags,
  contactSumsEqualTagSums,
  eventsOldestFirst,
  LAWS,
  plainEvents,
  tagsNewestFirst,
} from '../src/laws.ts';
import {
  nextLoopTurn,
  nextTurn,
  runAtOnce,
  runInSlices,
  SLICE_STRIDE,
  type Steps,
  TimeSlice,
  turnElapsedMs,
  turnGate,
} from '../src/slices.ts';
import { arbDatasetWithCaller } from '../src/testing.ts';
import { indexOf } from './indexes.ts';

/*
 * Long loops in slices: a law of a whole list, run by runInSlices, lets the event loop turn
 * while it works (a timer scheduled meanwhile fires before it ends) and gives the value the
 * plain synchronous form gives. Order of events is asserted, never wall time: slices of 0 ms
 * pause at every reading of the clock.
 */

/** A slice that pauses every `stride` steps, whatever the machine's speed. */
const everyStep = (stride = 1) => new TimeSlice({ budgetMs: 0, stride });

/** `n` events of one tag, oldest first, one per second. */
function events(n: number) {
  const t0 = Date.UTC(2024, 0, 1);
  return Array.from({ length: n }, (_, i) => ({
    openDate: new Date(t0 + i * 1000).toISOString().replace('.000Z', 'Z'),
  }));
}

describe('runInSlices', () => {
  it('a law over a large generated input yields to the event loop: a timer set before it fires before it ends', async () => {
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 0);
    const verdict = runInSlices(eventsOldestFirst.steps!(events(200_000)), everyStep(1024)).then(
      (v) => {
        order.push('law');
        return v;
      },
    );
    expect(await verdict).toBeUndefined();
    expect(order).toEqual(['timer', 'law']);
  });

  it('I/O already due runs between slices (setImmediate callbacks queued meanwhile)', async () => {
    const order: string[] = [];
    function* work(): Steps<number> {
      let sum = 0;
      for (let i = 0; i < 10; i++) {
        if (i === 3) setImmediate(() => order.push('immediate'));
        sum += i;
        order.push(`step ${i}`);
        yield;
      }
      return sum;
    }
    expect(await runInSlices(work(), everyStep(1))).toBe(45);
    // queued at step 3, run at the pause after step 3 (step 4 comes after it)
    expect(order.indexOf('immediate')).toBe(order.indexOf('step 3') + 1);
  });

  it('an exception of the steps rejects', async () => {
    function* bad(): Steps<number> {
      yield;
      throw new Error('broken');
    }
    await expect(runInSlices(bad(), everyStep())).rejects.toThrow('broken');
  });

  it('TimeSlice: a 0 ms budget is used up at every reading of the clock, every `stride` steps', () => {
    const slice = everyStep(3);
    expect([1, 2, 3, 4, 5, 6].map(() => slice.step())).toEqual([
      false,
      false,
      true,
      false,
      false,
      true,
    ]);
  });

  it('TimeSlice without a stride: steps of 5 ms on its clock use up a 20 ms slice within a few steps, not SLICE_STRIDE of them', () => {
    let clock = 0;
    const slice = new TimeSlice({ now: () => clock });
    let steps = 0;
    do {
      clock += 5;
      steps++;
    } while (!slice.step() && steps < SLICE_STRIDE);
    expect(steps).toBeLessThanOrEqual(5);
  });

  it('TimeSlice without a stride: cheap steps are counted between readings of the clock (the stride grows to SLICE_STRIDE)', () => {
    let reads = 0;
    const slice = new TimeSlice({
      now: () => {
        reads++;
        return 0;
      },
    });
    let usedUp = false;
    for (let i = 0; i < 100 * SLICE_STRIDE; i++) usedUp ||= slice.step();
    expect(usedUp).toBe(false);
    // about one reading per SLICE_STRIDE steps once grown, plus the ~log2(SLICE_STRIDE) on the way
    expect(reads).toBeLessThan(100 + 2 * Math.log2(SLICE_STRIDE) + 2);
  });

  it('TimeSlice without a stride: after cheap steps, expensive ones shrink the stride again', async () => {
    let clock = 0;
    const slice = new TimeSlice({ now: () => clock });
    for (let i = 0; i < 10 * SLICE_STRIDE; i++) slice.step();
    // the steps turn expensive (2 ms each): the grown stride runs over once, at most
    const stepsToEnd = () => {
      let steps = 0;
      do {
        clock += 2;
        steps++;
      } while (!slice.step() && steps < 10 * SLICE_STRIDE);
      return steps;
    };
    expect(stepsToEnd()).toBeLessThanOrEqual(SLICE_STRIDE);
    await slice.pause();
    // then the next slices of 20 ms end after about 10 of them
    expect(stepsToEnd()).toBeLessThanOrEqual(12);
    await slice.pause();
    expect(stepsToEnd()).toBeLessThanOrEqual(12);
  });

  it('TimeSlice: pause lets the loop turn and counts', async () => {
    const slice = everyStep();
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    await slice.pause();
    expect(ran).toBe(true);
    expect(slice.pauses).toBe(1);
    await nextTurn();
  });
});

/** Keeps the event loop busy for `ms` milliseconds (one unit of work that cannot be cut). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

describe('the budget of a turn of the event loop, shared by every loop', () => {
  /** `n` callbacks due in the same turn (immediates: like answers read in one poll of I/O). */
  const sameTurn = (n: number, f: (i: number) => Promise<void>) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        new Promise<void>((r) => setImmediate(r)).then(() => f(i)),
      ),
    );

  it('turnGate: units of work ready in the same turn spread over turns, so a timer due meanwhile runs between them', async () => {
    await nextLoopTurn();
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 0);
    await sameTurn(10, async (i) => {
      await turnGate(20);
      busy(8);
      order.push(`unit ${i}`);
    });
    // without the gate all ten run before the timer (80 ms in one turn); with it about
    // 20 ms of them, then the timer's turn
    expect(order.indexOf('timer')).toBeGreaterThan(0);
    expect(order.indexOf('timer')).toBeLessThanOrEqual(4);
  });

  it('slices of loops resumed in the same turn end when the turn is used up, not each after its own budget', async () => {
    await new Promise((r) => setTimeout(r, 0));
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 0);
    // four loops of 15 ms steps, each slice 50 ms of its own: each alone would run four steps
    // before its first pause; together they share the turn's 20 ms
    await sameTurn(4, async (i) => {
      const slice = new TimeSlice({ budgetMs: 50, stride: 1 });
      for (let k = 0; k < 4; k++) {
        busy(15);
        order.push(`loop ${i}`);
        if (slice.step()) await slice.pause();
      }
    });
    expect(order.indexOf('timer')).toBeGreaterThan(0);
    expect(order.indexOf('timer')).toBeLessThanOrEqual(8);
  });

  it('turnElapsedMs counts the work of this turn, from its first question after a quiet spell', async () => {
    await nextLoopTurn();
    await new Promise((r) => setTimeout(r, 5));
    expect(turnElapsedMs()).toBeLessThan(5);
    busy(10);
    expect(turnElapsedMs()).toBeGreaterThanOrEqual(10);
    await nextLoopTurn();
    expect(turnElapsedMs()).toBeLessThan(10);
  });
});

describe('laws written as steps', () => {
  it('every law of a whole list has steps; check is the steps run at once', () => {
    const stepped = LAWS.filter((l) => l.steps !== undefined).map((l) => l.id);
    expect(stepped).toEqual(
      expect.arrayContaining([
        'REL-CONTACTS-TAGS',
        'AGG-CONTACTS-SUM-TAGS',
        'PAGE-ORDER-CONTACTS',
        'PAGE-ORDER-TAGS',
        'PAGE-ORDER-MEMBERS',
        'PAGE-ORDER-EVENTS',
        'PAGE-ORDER-EVENT-GROUPS',
        'REL-CONTACT-CALLER-TAGS',
      ]),
    );
  });

  fcTest.prop([arbDatasetWithCaller, fc.nat(1000)], { numRuns: 30 })(
    'runInSlices(law.steps(input)) equals runAtOnce(law.steps(input)) on the index answers, broken or not',
    async ({ dataset, caller }, pick) => {
      const idx = indexOf(dataset);
      const tags = idx.tags(caller, {})!;
      const contacts = idx.contacts(caller);
      const view = {
        contacts: pick % 2 === 0 ? contacts : contacts.slice(1),
        tags,
        opens: plainEvents(idx.openGroups(caller, {})),
        clicks: plainEvents(idx.clickGroups(caller, {})),
      };
      const reversed = [...tags].reverse();
      for (const [law, input] of [
        [contactCountersOverTheirTags, view],
        [contactSumsEqualTagSums, view],
        [tagsNewestFirst, pick % 3 === 0 ? reversed : tags],
      ] as const) {
        const steps = law.steps as (i: typeof input) => Steps<string | undefined>;
        expect(await runInSlices(steps(input), everyStep(2))).toBe(runAtOnce(steps(input)));
      }
    },
  );
});
