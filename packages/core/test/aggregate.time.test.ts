import { fc, test as fcTest } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { dayNumber, dayString, parseTimestampMs } from '../src/aggregate/time.ts';
import { arbCalendarDate, arbTimestamp } from '../src/testing.ts';

fcTest.prop([fc.array(arbTimestamp, { minLength: 1, maxLength: 20 })])(
  'parseTimestampMs agrees with Date.parse on valid timestamps (in any sequence)',
  (timestamps) => {
    for (const ts of timestamps) expect(parseTimestampMs(ts)).toBe(Date.parse(ts));
  },
);

fcTest.prop([arbCalendarDate])(
  'dayString(dayNumber(d)) = d, and the day starts at d T00:00:00Z',
  (d) => {
    expect(dayString(dayNumber(d))).toBe(d);
    expect(dayNumber(d) * 86_400_000).toBe(Date.parse(`${d}T00:00:00Z`));
  },
);

it('parseTimestampMs rejects impossible or non-UTC timestamps with NaN', () => {
  expect(parseTimestampMs('2024-02-29T00:00:00Z')).toBe(Date.parse('2024-02-29T00:00:00Z'));
  for (const bad of [
    '2023-02-29T00:00:00Z',
    '2024-02-30T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-00-10T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:60:00Z',
    '2024-01-01 00:00:00Z',
    '2024-01-01T00:00:00+01:00',
    '2024-01-01',
    'not a date',
    '2024-0a-01T00:00:00Z',
  ]) {
    expect(parseTimestampMs(bad), bad).toBeNaN();
  }
  expect(parseTimestampMs('2024-03-05T14:22:01.250Z')).toBe(Date.parse('2024-03-05T14:22:01.250Z'));
});
