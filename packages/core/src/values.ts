import * as z from 'zod';

/**
 * An RFC 3339 timestamp in UTC with a `Z` suffix, e.g. `2024-03-05T14:22:01Z`
 * (spec §9). Fractional seconds are accepted, offsets are not.
 */
export const Timestamp = z.iso
  .datetime({ offset: false, local: false })
  .meta({ id: 'Timestamp', description: 'RFC 3339 timestamp in UTC, e.g. 2024-03-05T14:22:01Z' });
export type Timestamp = z.infer<typeof Timestamp>;

/**
 * An identifier hash as the conformance suite accepts it: any non-empty string of
 * `[A-Za-z0-9_-]` (spec §9).
 */
export const Id = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'an id is a non-empty string of [A-Za-z0-9_-]')
  .meta({ id: 'Id', description: 'Identifier hash: non-empty string of [A-Za-z0-9_-]' });
export type Id = z.infer<typeof Id>;

/** An identifier as the reference profile mints it: 24 lowercase hex characters (spec §9). */
export const ReferenceId = z.string().regex(/^[0-9a-f]{24}$/, 'a reference id is 24 lowercase hex');
export type ReferenceId = z.infer<typeof ReferenceId>;

/**
 * A calendar day `YYYY-MM-DD` naming a real day of the years 0001 to 9999 (spec §5 stats
 * `date`, §4 `start`/`end`/`date`, Revision 2).
 */
export const CalendarDate = z.iso
  .date()
  .refine((d) => !d.startsWith('0000'), 'the year must be from 0001 to 9999')
  .meta({ id: 'CalendarDate', description: 'YYYY-MM-DD, years 0001 to 9999' });
export type CalendarDate = z.infer<typeof CalendarDate>;

const DECIMAL_RE = /^-?[0-9]+(\.[0-9]+)?$/;

/** A decimal-degrees string in `[-limit, limit]` (spec §9 Revision 2). */
function degrees(limit: number, what: string) {
  return z
    .string()
    .refine(
      (v) => DECIMAL_RE.test(v) && Math.abs(Number(v)) <= limit,
      `${what} must be a decimal string from -${limit} to ${limit}`,
    );
}

/** Latitude as a decimal string in [-90, 90] (spec §9 Revision 2). */
export const Latitude = degrees(90, 'latitude').meta({
  id: 'Latitude',
  description: 'Decimal degrees as a string, from -90 to 90',
});

/** Longitude as a decimal string in [-180, 180] (spec §9 Revision 2). */
export const Longitude = degrees(180, 'longitude').meta({
  id: 'Longitude',
  description: 'Decimal degrees as a string, from -180 to 180',
});

/** A non-negative integer counter. */
export const Counter = z.int().nonnegative();

/** Milliseconds in one UTC day. */
export const DAY_MS = 86_400_000;

/**
 * Formats epoch milliseconds as the profile's timestamp, `YYYY-MM-DDTHH:MM:SSZ` (seconds
 * precision, spec §9).
 */
export function formatTimestamp(epochMs: number): Timestamp {
  return `${new Date(epochMs).toISOString().slice(0, 19)}Z`;
}

/** The UTC calendar day (`YYYY-MM-DD`) containing epoch milliseconds `epochMs`. */
export function utcDay(epochMs: number): CalendarDate {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** Epoch milliseconds of midnight UTC starting the day `YYYY-MM-DD` (assumed valid). */
export function dayStartMs(day: CalendarDate): number {
  return Date.parse(`${day}T00:00:00Z`);
}
