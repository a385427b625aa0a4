import { fc, test as fcTest } from '@fast-check/vitest';
import { DAY_MS, inDayWindow, parseTimestampMs } from '@tagtrack/core';
import { arbCalendarDate, arbTimestamp } from '@tagtrack/core/testing';
import { describe, expect } from 'vitest';
import {
  boundaryWindows,
  dayOf,
  middleWindow,
  nearMidnight,
  withPicks,
} from '../src/check/sample.ts';

/**
 * The picks from the data that make time-boundary detection deterministic:
 * the timestamps nearest a UTC midnight, one-day windows on their days, and the middle window.
 */
const timeOfDay = (t: string) => ((parseTimestampMs(t) % DAY_MS) + DAY_MS) % DAY_MS;
const arbTimestamps = fc.array(arbTimestamp, { minLength: 1, maxLength: 40 });

describe('picks from the data', () => {
  fcTest.prop([arbTimestamps])(
    'nearMidnight picks a timestamp with the latest and one with the earliest time of day',
    (ts) => {
      const picked = nearMidnight(ts);
      const tods = ts.map(timeOfDay);
      expect(picked.map(timeOfDay)).toContain(Math.max(...tods));
      expect(picked.map(timeOfDay)).toContain(Math.min(...tods));
      for (const p of picked) expect(ts).toContain(p);
    },
  );

  fcTest.prop([
    fc.array(fc.oneof(arbTimestamp, fc.constant('2024-03-01T23:59:59Z')), { maxLength: 60 }),
    fc.integer({ min: 1, max: 4 }),
  ])(
    'nearMidnight in one pass picks what sorting by time of day, then instant, picks (first and last n, repeats once)',
    (ts, n) => {
      const ms = new Map(ts.map((t) => [t, parseTimestampMs(t)] as const));
      const tod = (t: string) => ((ms.get(t)! % DAY_MS) + DAY_MS) % DAY_MS;
      const sorted = [...ms.keys()].sort((a, b) => tod(a) - tod(b) || ms.get(a)! - ms.get(b)!);
      const bySort = [...new Set([...sorted.slice(-n).reverse(), ...sorted.slice(0, n)])];
      expect(nearMidnight(ts, n)).toEqual(bySort);
    },
  );

  fcTest.prop([arbTimestamps, fc.integer({ min: 1, max: 3 })])(
    'every boundary window is one UTC day, both bounds inclusive, that selects a picked timestamp',
    (ts, n) => {
      const picked = nearMidnight(ts, n);
      const windows = boundaryWindows(ts, n);
      expect(new Set(windows.map((w) => w.start)).size).toBe(windows.length);
      for (const w of windows) {
        expect(w.start).toBe(w.end);
        expect(picked.some((p) => inDayWindow(p, w) && dayOf(p) === w.start)).toBe(true);
      }
      for (const p of picked) expect(windows.some((w) => inDayWindow(p, w))).toBe(true);
    },
  );

  fcTest.prop([fc.uniqueArray(arbCalendarDate, { minLength: 3, maxLength: 60 })])(
    'the middle window of three or more sorted days leaves out days on both sides',
    (unsorted) => {
      const days = [...unsorted].sort();
      const w = middleWindow(days)!;
      expect(w.start <= w.end).toBe(true);
      expect(days.some((d) => d < w.start)).toBe(true);
      expect(days.some((d) => d > w.end)).toBe(true);
    },
  );

  fcTest.prop([fc.array(fc.nat(), { maxLength: 30 }), fc.integer({ min: 1, max: 50 })])(
    'withPicks runs every pick and at least the requested number of runs',
    (examples, numRuns) => {
      const o = withPicks({ numRuns }, examples);
      expect(o.numRuns).toBeGreaterThanOrEqual(examples.length);
      expect(o.numRuns).toBeGreaterThanOrEqual(numRuns);
    },
  );
});
