/**
 * Fault injection: named, deliberate deviations from the `tagtrack/v1` profile that the
 * conformance suite must detect. Each fault is off by default and is implemented in the
 * layer where the real bug would live (the store over the index, the query parser, the
 * renderer, the auth or rate-limit middleware). The conformance suite uses them to prove
 * that its checks can fail.
 */

/** Names of the injectable faults (contracts.md, server section; names exact). */
export const FAULT_NAMES = [
  'unique-opens-as-total',
  'end-day-exclusive',
  'ignore-is-opened',
  'aggregate-drops-record',
  'page-overlap',
  'json-content-type-text',
  'html-unescaped',
  'bad-date-200',
  'scope-leak-team',
  'tablet-not-mobile',
  'daily-counts-total',
  'unknown-param-ignored',
  'signature-not-checked',
  'out-of-scope-403',
  'alias-ignores-type',
  'contacts-all-team-tags',
  'error-body-not-json',
  'head-total-differs',
  'clicks-window-by-send-date',
  'rate-limit-no-retry-after',
] as const;

/** One injectable fault's name. */
export type FaultName = (typeof FAULT_NAMES)[number];

/** What a fault breaks: its name, the server layer it lives in, and the observable effect. */
export interface FaultInfo {
  readonly name: FaultName;
  /** The layer of the server the fault is injected into: `store`, `params`, `render`, `paging`, `auth`, `rate-limit`, `routing`. */
  readonly area: string;
  readonly description: string;
}

/** Metadata of every fault, in {@link FAULT_NAMES} order. */
export const FAULTS: readonly FaultInfo[] = [
  {
    name: 'unique-opens-as-total',
    area: 'store',
    description: 'tag uniqueOpens reported equal to totalOpens (decisions §9)',
  },
  {
    name: 'end-day-exclusive',
    area: 'params',
    description: 'the `end` day itself is excluded from the window: off by one (decisions §4)',
  },
  {
    name: 'ignore-is-opened',
    area: 'params',
    description: 'the isOpened filter is ignored (decisions §4)',
  },
  {
    name: 'aggregate-drops-record',
    area: 'store',
    description: 'aggregateData=true merges the daily records but skips the first (decisions §9)',
  },
  {
    name: 'page-overlap',
    area: 'paging',
    description: 'next cursor = cursor + pageSize - 1, so pages overlap by one (decisions §3)',
  },
  {
    name: 'json-content-type-text',
    area: 'render',
    description: 'rtn=json answered with Content-Type text/plain (decisions §7)',
  },
  {
    name: 'html-unescaped',
    area: 'render',
    description: 'rtn=html values are not HTML-escaped (decisions §7)',
  },
  {
    name: 'bad-date-200',
    area: 'params',
    description:
      'invalid calendar dates such as 2024-02-30 are accepted and treated as absent (decisions §4)',
  },
  {
    name: 'scope-leak-team',
    area: 'store',
    description: "an admin's /teams also lists the other teams' members (decisions §2)",
  },
  {
    name: 'tablet-not-mobile',
    area: 'store',
    description: 'tablet events are not counted in mobileOpens/mobileClicks (decisions §8)',
  },
  {
    name: 'daily-counts-total',
    area: 'store',
    description: 'daily counts count events, not distinct recipients (decisions §9)',
  },
  {
    name: 'unknown-param-ignored',
    area: 'params',
    description: 'unknown query parameters are accepted silently (decisions §4)',
  },
  {
    name: 'signature-not-checked',
    area: 'auth',
    description: 'any well-formed signature is accepted for a known authId (decisions §1)',
  },
  {
    name: 'out-of-scope-403',
    area: 'store',
    description: "ids outside the caller's scope answer 403 instead of 404 (decisions §2)",
  },
  {
    name: 'alias-ignores-type',
    area: 'params',
    description: '/teams/stats ignores the `type` parameter (decisions §4)',
  },
  {
    name: 'contacts-all-team-tags',
    area: 'store',
    description:
      'contact counters are computed over all team tags, even for a manager or user (decisions §2)',
  },
  {
    name: 'error-body-not-json',
    area: 'render',
    description: 'errors rendered as text/plain "message" instead of the JSON body (decisions §5)',
  },
  {
    name: 'head-total-differs',
    area: 'routing',
    description:
      'HEAD sends an X-Total-Count of the records on the page, not the total GET sends (decisions §3, §4)',
  },
  {
    name: 'clicks-window-by-send-date',
    area: 'store',
    description: "/clicks filters by the tag's dateSent instead of clickDate (decisions §4)",
  },
  {
    name: 'rate-limit-no-retry-after',
    area: 'rate-limit',
    description: '429 answered without Retry-After; needs a rate limit (decisions §6)',
  },
];

/** Whether `name` is a fault name. */
export function isFaultName(name: string): name is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(name);
}

/** The set of active faults, with a cheap membership test. */
export class FaultSet {
  readonly #active: ReadonlySet<FaultName>;
  constructor(faults: readonly FaultName[] = []) {
    for (const f of faults) {
      if (!isFaultName(f)) {
        throw new Error(`unknown fault '${String(f)}'; known faults: ${FAULT_NAMES.join(', ')}`);
      }
    }
    this.#active = new Set(faults);
  }
  /** Whether fault `name` is injected. */
  has(name: FaultName): boolean {
    return this.#active.has(name);
  }
  /** The active faults, in {@link FAULT_NAMES} order. */
  list(): FaultName[] {
    return FAULT_NAMES.filter((f) => this.#active.has(f));
  }
}
