import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { CalendarDate, Latitude, Longitude, Timestamp } from '../src/values.ts';

describe('latitude and longitude (spec §9 Revision 2)', () => {
  it.each(['0', '-90', '90', '89.999999', '-33.8688', '90.0'])('latitude %j is valid', (v) => {
    expect(Latitude.safeParse(v).success).toBe(true);
  });
  it.each(['90.0001', '-91', '151.2093', '', 'N', '1e1', '+10', '10.', ' 10', '0x10'])(
    'latitude %j is rejected',
    (v) => {
      expect(Latitude.safeParse(v).success).toBe(false);
    },
  );
  it.each(['180', '-180', '151.2093', '0.5'])('longitude %j is valid', (v) => {
    expect(Longitude.safeParse(v).success).toBe(true);
  });
  it.each(['180.5', '-181', 'abc', ''])('longitude %j is rejected', (v) => {
    expect(Longitude.safeParse(v).success).toBe(false);
  });
  fcTest.prop([fc.double({ min: -90, max: 90, noNaN: true })])(
    'every decimal rendering of a degree value in [-90, 90] is a valid latitude',
    (d) => {
      expect(Latitude.safeParse(d.toFixed(6).replace(/^-0\.0+$/, '0')).success).toBe(true);
    },
  );
});

describe('timestamps and calendar days (spec §6, §9 Revision 2)', () => {
  it.each(['2024-03-05T14:22:01Z', '2024-03-05T14:22:01.5Z', '2024-03-05T14:22:01.000Z'])(
    '%j is a timestamp (fractional seconds allowed)',
    (v) => {
      expect(Timestamp.safeParse(v).success).toBe(true);
    },
  );
  it.each(['2024-03-05T14:22:01+01:00', '2024-03-05 14:22:01Z', '2024-03-05T14:22:01'])(
    '%j is not a timestamp (UTC with Z only)',
    (v) => {
      expect(Timestamp.safeParse(v).success).toBe(false);
    },
  );
  it('calendar days span the years 0001 to 9999', () => {
    expect(CalendarDate.safeParse('0001-01-01').success).toBe(true);
    expect(CalendarDate.safeParse('9999-12-31').success).toBe(true);
    expect(CalendarDate.safeParse('0000-12-31').success).toBe(false);
  });
});
