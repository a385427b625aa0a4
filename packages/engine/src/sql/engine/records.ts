/**
 * The SQL engine's rows as records: which path parameters can match a stored value, and the
 * tag, stats, contact and event records the list functions' rows become (spec §10 counters).
 */

/** A row as a query returns it. */
export type Row = Record<string, unknown>;

const UNSTORABLE = /\p{Surrogate}/u;

/**
 * Whether a path parameter can equal a stored value: PostgreSQL text holds no U+0000, and a
 * lone surrogate (not Unicode) would reach the server as U+FFFD. Such an id matches nothing
 * (404), as it does in the in-memory engine, instead of failing the query.
 */
export function storable(id: string | undefined): id is string {
  return id !== undefined && !id.includes('\u0000') && !UNSTORABLE.test(id);
}
/** An event as sql/70-events.sql writes it (JSON). */
export interface EventRow {
  readonly date: string;
  readonly counry: string;
  readonly region: string;
  readonly city: string;
  readonly latitude: string;
  readonly longitude: string;
  readonly device: string;
  readonly os: string;
  readonly browser: string;
  readonly recipientID: string;
  readonly name: string;
  readonly email: string;
}

/** An event's details (openDate or clickDate first, then the location fields). */
export function eventDetails(e: EventRow, kind: 'opens' | 'clicks') {
  const location = {
    counry: e.counry,
    region: e.region,
    city: e.city,
    latitude: e.latitude,
    longitude: e.longitude,
    device: e.device,
    os: e.os,
    browser: e.browser,
  };
  return kind === 'opens' ? { openDate: e.date, ...location } : { clickDate: e.date, ...location };
}

/** The eight counters of a tag or contact row (spec §10), in the order records show them. */
function counters(r: Row) {
  return {
    totalOpens: r.totalOpens,
    uniqueOpens: r.uniqueOpens,
    totalClicks: r.totalClicks,
    uniqueClicks: r.uniqueClicks,
    desktopOpens: r.desktopOpens,
    mobileOpens: r.mobileOpens,
    desktopClicks: r.desktopClicks,
    mobileClicks: r.mobileClicks,
  };
}
/** A row of `tagtrack_tags` as endpoints 2 and 4 return the tag (core's `renderTag`). */
export function tagRecord(r: Row) {
  return {
    tagID: r.tagID,
    subject: r.subject,
    dateSent: r.dateSent,
    recipients: r.recipients,
    stats: counters(r),
  };
}

/** A row of `tagtrack_stats_days` or `_total` as a stats record (`date` on per-day ones). */
export function statsRecord(r: Row) {
  const out: Record<string, unknown> = {
    totalSent: r.totalSent,
    totalOpens: r.totalOpens,
    totalClicks: r.totalClicks,
    uniqueOpens: r.uniqueOpens,
    uniqueClicks: r.uniqueClicks,
    dateLastSent: r.dateLastSent ?? null,
  };
  if (r.date !== undefined) out.date = r.date;
  return out;
}

/** A row of `tagtrack_contacts` as endpoints 15-17 return the contact (core's `contactOf`). */
export function contactRecord(r: Row) {
  return {
    contactID: r.contactID,
    name: r.name,
    email: r.email,
    dateLastSent: r.dateLastSent,
    stats: { ...counters(r), totalSent: r.totalSent },
  };
}
