/**
 * What a scope caches (`scope.ts`), built by the modules that answer from it: its contacts
 * (`contacts.ts`) and its stats series (`series.ts`). A leaf: it imports nothing of the index.
 */
import type { Contact } from '@tagtrack/core';

/** Contacts of a scope in email order with counters over the scope's tags (spec §10). */
export interface ScopeContacts {
  /** The contacts in email order. */
  readonly order: Int32Array;
  /** Position in `order` of each contact of the scope. */
  readonly position: Map<number, number>;
  /** `CONTACT_FIELDS` counters per position: sent, to, uo, tc, uc, do, mo, dc, mc. */
  readonly counters: Int32Array;
  /** The first tag in tag order (the latest) sent to the contact. */
  readonly bestTag: Int32Array;
  readonly records: (Contact | undefined)[];
  /** Position of each contact id (spec §9), built on the scope's first endpoint 16 request. */
  byId?: Map<string, number>;
}

/** Prefix sums (length entries + 1) of totalSent, totalOpens, totalClicks, uniqueOpens, uniqueClicks. */
export type Prefix = readonly [
  Float64Array,
  Float64Array,
  Float64Array,
  Float64Array,
  Float64Array,
];

/**
 * Per-day stats of a set of tags (spec §5, §10): ascending day numbers with prefix sums
 * of the counters, so a window is two binary searches and an aggregate one subtraction.
 * Entries `[from, to)` of shared arrays.
 */
export class StatsSeries {
  constructor(
    readonly day: Int32Array,
    readonly prefix: Prefix,
    /** The newest tag of each day. */
    readonly lastTag: Int32Array,
    readonly from: number,
    readonly to: number,
  ) {}
}
