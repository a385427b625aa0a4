import { type CalendarDate, DAY_MS, type Timestamp, utcDay } from '../values.ts';

/**
 * Time helpers of the aggregation indexes: timestamps are parsed to epoch milliseconds once,
 * days are integers (days since 1970-01-01 UTC), so no hot loop builds a `Date`.
 */

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Days since 1970-01-01 of the proleptic Gregorian date `y-m-d` (Hinnant's `days_from_civil`). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Two decimal digits of `s` at `i`, or -1. */
function d2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >>> 0 < 10 && b >>> 0 < 10 ? a * 10 + b : -1;
}

/** Two decimal digits of `b` at `i`, or -1. */
function b2(b: Uint8Array, i: number): number {
  const x = b[i]! - 48;
  const y = b[i + 1]! - 48;
  return x >>> 0 < 10 && y >>> 0 < 10 ? x * 10 + y : -1;
}

/** The last calendar date parsed (as `yyyymmdd`) and its day number: events cluster by day. */
let lastDateKey = -1;
let lastDays = 0;

/**
 * Epoch milliseconds of the canonical timestamp whose fields are given as two-digit numbers
 * (-1: not two digits), or NaN when a field is out of range or the date is not real.
 */
function canonicalMs(
  y1: number,
  y2: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  sec: number,
): number {
  if (y1 < 0 || y2 < 0 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) {
    return Number.NaN;
  }
  const y = y1 * 100 + y2;
  const key = (y * 100 + mo) * 100 + d;
  if (key !== lastDateKey) {
    if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return Number.NaN;
    lastDays = daysFromCivil(y, mo, d);
    lastDateKey = key;
  }
  return lastDays * DAY_MS + ((h * 60 + mi) * 60 + sec) * 1000;
}

/**
 * Epoch milliseconds of an RFC 3339 UTC timestamp (`YYYY-MM-DDTHH:MM:SS[.fff]Z`, spec §9),
 * or `NaN` when `ts` is not one or names no real instant (e.g. month 13, February 30).
 * The common 20-character form is parsed without `Date`.
 */
export function parseTimestampMs(ts: Timestamp | string): number {
  if (ts.length === 20 && ts.charCodeAt(19) === 90 && ts.charCodeAt(10) === 84) {
    if (
      ts.charCodeAt(4) !== 45 ||
      ts.charCodeAt(7) !== 45 ||
      ts.charCodeAt(13) !== 58 ||
      ts.charCodeAt(16) !== 58
    ) {
      return Number.NaN;
    }
    return canonicalMs(
      d2(ts, 0),
      d2(ts, 2),
      d2(ts, 5),
      d2(ts, 8),
      d2(ts, 11),
      d2(ts, 14),
      d2(ts, 17),
    );
  }
  if (!RFC3339_UTC.test(ts)) return Number.NaN;
  const y = Number(ts.slice(0, 4));
  const mo = Number(ts.slice(5, 7));
  const d = Number(ts.slice(8, 10));
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return Number.NaN;
  return Date.parse(ts);
}

/**
 * {@link parseTimestampMs} of the 20 UTF-8 bytes `b[from .. from + 20]` when they are the
 * canonical form `YYYY-MM-DDTHH:MM:SSZ` (the bytes the dataset JSON holds between the quotes),
 * else NaN (also for a non-canonical but valid form: parse its string instead).
 */
export function canonicalTimestampMsOfBytes(b: Uint8Array, from: number): number {
  if (
    b[from + 19] !== 90 ||
    b[from + 10] !== 84 ||
    b[from + 4] !== 45 ||
    b[from + 7] !== 45 ||
    b[from + 13] !== 58 ||
    b[from + 16] !== 58
  ) {
    return Number.NaN;
  }
  return canonicalMs(
    b2(b, from),
    b2(b, from + 2),
    b2(b, from + 5),
    b2(b, from + 8),
    b2(b, from + 11),
    b2(b, from + 14),
    b2(b, from + 17),
  );
}

/** The day number (days since 1970-01-01 UTC) containing epoch milliseconds `ms`. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** The day number of a calendar day `YYYY-MM-DD` (assumed valid, as parsed by `parseQuery`). */
export function dayNumber(day: string): number {
  return daysFromCivil(Number(day.slice(0, 4)), Number(day.slice(5, 7)), Number(day.slice(8, 10)));
}

/** The calendar day `YYYY-MM-DD` of day number `day`. */
export function dayString(day: number): CalendarDate {
  return utcDay(day * DAY_MS);
}
