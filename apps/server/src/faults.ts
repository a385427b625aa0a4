/**
 * Fault injection: named, deliberate deviations from the `tagtrack/v1` profile that the
 * conformance suite must detect. Each fault is off by default and is implemented in the
 * layer where the real bug would live (the store over the index, the query parser, the
 * router, the paging layer, the renderer, the auth or rate-limit middleware). The
 * conformance suite uses them to prove that its checks can fail; `detectedBy` names the
 * requirement ids that catch each one.
 */

/** The layer of the server a fault is injected into. */
export type FaultArea =
  | 'store'
  | 'params'
  | 'routing'
  | 'paging'
  | 'render'
  | 'auth'
  | 'rate-limit';

/** What a fault breaks: its name, the layer it lives in, the effect, and who catches it. */
export interface FaultInfo {
  readonly name: string;
  readonly area: FaultArea;
  readonly description: string;
  /** Requirement ids of the conformance suite that fail on this fault. */
  readonly detectedBy: readonly string[];
}

/** Every injectable fault, declared once (contracts.md, server section; names exact). */
export const FAULTS = [
  {
    name: 'unique-opens-as-total',
    area: 'store',
    description: 'tag uniqueOpens reported equal to totalOpens (decisions §9)',
    detectedBy: [
      'AGG-UNIQUE-LE-RECIPIENTS',
      'AGG-DAILY-SUM-GE-UNIQUE',
      'REL-STATS-SUM-TAGS',
      'REL-TAG-COUNTERS-EVENTS',
    ],
  },
  {
    name: 'end-day-exclusive',
    area: 'params',
    description: 'the `end` day itself is excluded from the window: off by one (decisions §4)',
    detectedBy: ['REL-WINDOW-INCLUSIVE', 'REL-RANGE-SPLIT', 'REL-EVENTS-WINDOW'],
  },
  {
    name: 'ignore-is-opened',
    area: 'params',
    description: 'the isOpened filter is ignored (decisions §4)',
    detectedBy: ['REL-FILTER-CONJUNCTION'],
  },
  {
    name: 'aggregate-drops-record',
    area: 'store',
    description: 'aggregateData=true merges the daily records but skips the first (decisions §9)',
    detectedBy: [
      'REL-RANGE-SPLIT',
      'REL-AGGREGATE-MERGE',
      'REL-STATS-SUM-TAGS',
      'REL-TEAM-MERGE-MEMBERS',
      'REL-GROUP-MERGE-MEMBERS',
    ],
  },
  {
    name: 'page-overlap',
    area: 'paging',
    description: 'next cursor = cursor + pageSize - 1, so pages overlap by one (decisions §3)',
    detectedBy: ['PAGE-WALK-ONCE', 'PAGE-CURSOR-ARITHMETIC'],
  },
  {
    name: 'json-content-type-text',
    area: 'render',
    description: 'rtn=json answered with Content-Type text/plain (decisions §7)',
    detectedBy: ['SCHEMA-JSON-CONTENT-TYPE'],
  },
  {
    name: 'html-unescaped',
    area: 'render',
    description: 'rtn=html values are not HTML-escaped (decisions §7)',
    detectedBy: ['REL-FORMATS-AGREE'],
  },
  {
    name: 'bad-date-200',
    area: 'params',
    description:
      'invalid calendar dates such as 2024-02-30 are accepted and treated as absent (decisions §4)',
    detectedBy: ['INPUT-400-BAD-DATE'],
  },
  {
    name: 'scope-leak-team',
    area: 'store',
    description: "an admin's /teams also lists the other teams' members (decisions §2)",
    detectedBy: ['SCOPE-TEAM-ISOLATION'],
  },
  {
    name: 'tablet-not-mobile',
    area: 'store',
    description: 'tablet events are not counted in mobileOpens/mobileClicks (decisions §8)',
    detectedBy: ['REL-TAG-COUNTERS-EVENTS'],
  },
  {
    name: 'daily-counts-total',
    area: 'store',
    description: 'daily counts count events, not distinct recipients (decisions §9)',
    detectedBy: ['AGG-DAILY-LE-UNIQUE', 'REL-DAILY-DISTINCT-RECIPIENTS'],
  },
  {
    name: 'unknown-param-ignored',
    area: 'params',
    description: 'unknown query parameters are accepted silently (decisions §4)',
    detectedBy: ['INPUT-400-UNKNOWN-PARAM'],
  },
  {
    name: 'signature-not-checked',
    area: 'auth',
    description: 'any well-formed signature is accepted for a known authId (decisions §1)',
    detectedBy: ['AUTH-401-WRONG-KEY', 'AUTH-401-SIGNATURE-SCOPE'],
  },
  {
    name: 'out-of-scope-403',
    area: 'store',
    description: "ids outside the caller's scope answer 403 instead of 404 (decisions §2)",
    detectedBy: ['SCOPE-404-OUT-OF-SCOPE'],
  },
  {
    name: 'alias-ignores-type',
    area: 'params',
    description: '/teams/stats ignores the `type` parameter (decisions §4)',
    detectedBy: ['REL-STATS-ALIAS'],
  },
  {
    name: 'contacts-all-team-tags',
    area: 'store',
    description:
      'contact counters are computed over all team tags, even for a manager or user (decisions §2)',
    detectedBy: ['REL-CONTACTS-TAGS', 'ORACLE-CONTACTS'],
  },
  {
    name: 'error-body-not-json',
    area: 'render',
    description: 'errors rendered as text/plain "message" instead of the JSON body (decisions §5)',
    detectedBy: [
      'ERR-BODY-JSON',
      'INPUT-400-BAD-DATE',
      'INPUT-400-START-AFTER-END',
      'INPUT-400-BAD-BOOLEAN',
      'INPUT-400-BAD-ENUM',
      'INPUT-400-DATE-REQUIRED',
      'INPUT-400-UNKNOWN-PARAM',
      'INPUT-404-UNKNOWN-ID',
      'INPUT-404-UNKNOWN-PATH',
      'INPUT-NO-5XX',
      'AUTH-401-MISSING',
      'AUTH-401-WRONG-KEY',
      'AUTH-401-UNKNOWN-ID',
      'AUTH-401-MALFORMED',
      'AUTH-401-SIGNATURE-SCOPE',
    ],
  },
  {
    name: 'head-total-differs',
    area: 'paging',
    description:
      'HEAD sends an X-Total-Count of the records on the page, not the total GET sends (decisions §3, §4)',
    detectedBy: ['REL-HEAD-MATCHES-GET'],
  },
  {
    name: 'clicks-window-by-send-date',
    area: 'store',
    description: "/clicks filters by the tag's dateSent instead of clickDate (decisions §4)",
    detectedBy: ['REL-EVENTS-WINDOW'],
  },
  {
    name: 'rate-limit-no-retry-after',
    area: 'rate-limit',
    description: '429 answered without Retry-After; needs a rate limit (decisions §6)',
    detectedBy: ['RATE-429-HEADERS'],
  },
  // ---- Revision 2 ------------------------------------------------------------------------
  {
    name: 'next-param-rejected',
    area: 'params',
    description:
      'the `next` parameter is refused as unknown (400) instead of ignored (decisions §3 Revision 2)',
    detectedBy: ['INPUT-NEXT-TOTAL-IGNORED'],
  },
  {
    name: 'no-content-as-empty-page',
    area: 'paging',
    description:
      'pagingEnd no-content, but past the end answers 200 with data [] instead of 204 (decisions §3 Revision 2)',
    detectedBy: ['PAGE-END-NO-CONTENT'],
  },
  {
    name: 'no-content-without-headers',
    area: 'paging',
    description:
      'the 204 past the end carries neither X-Total-Count nor Link (decisions §3 Revision 2)',
    detectedBy: ['PAGE-END-NO-CONTENT'],
  },
  {
    name: 'last-page-next-null',
    area: 'paging',
    description:
      'pagingEnd no-content, but the last non-empty page has nextURL null instead of cursor=total (decisions §3 Revision 2)',
    detectedBy: ['PAGE-END-NO-CONTENT'],
  },
  {
    name: 'paging-url-drops-params',
    area: 'paging',
    description:
      'nextURL/previousURL carry only the cursor, dropping the other query parameters (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY'],
  },
  {
    name: 'paging-url-sorted-params',
    area: 'paging',
    description:
      'nextURL/previousURL rebuild the query with the parameters sorted by name, re-encoded (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY'],
  },
  {
    name: 'link-header-missing-text',
    area: 'paging',
    description: 'rtn=text list responses carry no Link header (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
  },
  {
    name: 'total-count-on-single',
    area: 'paging',
    description:
      'single-object responses (3, 14, 16) carry X-Total-Count: 1 (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
  },
  {
    name: 'head-no-link',
    area: 'paging',
    description: 'HEAD of a list carries no Link header (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
  },
  {
    name: 'cursor-unchecked-single',
    area: 'params',
    description:
      'cursor is not validated on the single-object endpoints: cursor=abc answers 200 (decisions §3 Revision 2)',
    detectedBy: ['INPUT-400-BAD-CURSOR'],
  },
  {
    name: 'previous-url-on-first-page',
    area: 'paging',
    description:
      'previousURL (and Link rel="prev") point at cursor=0 on the first page instead of null (decisions §3 Revision 2)',
    detectedBy: ['PAGE-CURSOR-ARITHMETIC'],
  },
  {
    name: 'unknown-auth-id-message',
    area: 'auth',
    description:
      'an unknown authId answers another 401 message than a wrong signature: an authId oracle (decisions §1 Revision 2)',
    detectedBy: ['AUTH-401-SAME-BODY'],
  },
  {
    name: 'plus-not-space',
    area: 'auth',
    description:
      'the decoded signing form decodes %XX but keeps + (PHP urldecode reads a space) (decisions §1 Revision 2)',
    detectedBy: ['AUTH-ACCEPTS-DECODED-FORM'],
  },
  {
    name: 'hex-case-sensitive',
    area: 'auth',
    description: 'an uppercase hex signature is refused (decisions §1 Revision 2)',
    detectedBy: ['AUTH-HEX-ANY-CASE'],
  },
  {
    name: 'next-not-signed',
    area: 'auth',
    description:
      'a signature over the query without its `next` parameters is accepted too (decisions §1 Revision 2)',
    detectedBy: ['AUTH-401-SIGNATURE-SCOPE'],
  },
  {
    name: 'group-name-case-insensitive',
    area: 'store',
    description:
      'the group segment (5, 7) matches a group name in any case (decisions §2 Revision 2)',
    detectedBy: ['INPUT-404-GROUP-NAME-EXACT'],
  },
  {
    name: 'group-name-prefix',
    area: 'store',
    description:
      'the group segment (5, 7) matches a group whose name starts with it (decisions §2 Revision 2)',
    detectedBy: ['INPUT-404-GROUP-NAME-EXACT'],
  },
  {
    name: 'empty-value-as-absent',
    area: 'params',
    description:
      'an empty value (type=) is read as an absent parameter, not a 400 (decisions §4 Revision 2)',
    detectedBy: ['INPUT-400-EMPTY-VALUE'],
  },
  {
    name: 'foreign-param-accepted',
    area: 'params',
    description:
      'a parameter of another endpoint (start on /contacts) is accepted and ignored, not a 400 (decisions §4 Revision 2)',
    detectedBy: ['INPUT-400-UNKNOWN-PARAM'],
  },
  {
    name: 'path-not-decoded',
    area: 'routing',
    description:
      'the literal path segments are matched without percent-decoding: /%74eams answers 404 (decisions §4 Revision 2)',
    detectedBy: ['INPUT-PATH-SEGMENTS-DECODED'],
  },
  {
    name: 'aggregate-record-has-date',
    area: 'store',
    description:
      'the aggregateData=true record keeps the `date` of the first daily record (decisions §3 Revision 2)',
    detectedBy: ['SCHEMA-STATS-DATE'],
  },
  {
    name: 'latitude-out-of-range',
    area: 'store',
    description:
      'event details carry latitude and longitude swapped, so latitudes like 151.2093 leave [-90, 90] (decisions §8 Revision 2)',
    detectedBy: ['SCHEMA-JSON-ENVELOPE'],
  },
  {
    name: 'contact-id-inconsistent',
    area: 'store',
    description:
      "events' recipient.recipientID (9, 11) is an id of the tag's recipient entry, not the contact's id of 15-17 (decisions §8 Revision 2)",
    detectedBy: ['REL-CONTACT-IDS-CONSISTENT'],
  },
  {
    name: 'out-of-scope-message',
    area: 'store',
    description:
      'the 404 of an out-of-scope id says the id exists but is not visible, unlike the 404 of an unknown id (decisions §2 Revision 2)',
    detectedBy: ['SCOPE-404-SAME-AS-UNKNOWN'],
  },
  {
    name: 'repeated-param-last-wins',
    area: 'params',
    description:
      'a repeated parameter (rtn=json&rtn=text) is not refused: its last value wins (decisions §4 Revision 2)',
    detectedBy: ['INPUT-400-REPEATED-PARAM'],
  },
  {
    name: 'auth-unpadded-accepted',
    area: 'auth',
    description:
      'an Authorization value in base64 without its = padding is accepted (decisions §1 Revision 2: strict base64)',
    detectedBy: ['AUTH-HEADER-FORMS'],
  },
  {
    name: 'params-before-auth',
    area: 'auth',
    description:
      'query parameters are validated before the credentials: a bad parameter without valid credentials answers 400, not 401 (decisions §3 Revision 2, order of checks)',
    detectedBy: ['INPUT-ORDER-OF-CHECKS'],
  },
  {
    name: 'paging-url-from-host',
    area: 'paging',
    description:
      'nextURL, previousURL and Link are built on the request’s X-Forwarded-Host or Host header instead of the configured public URL (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-PUBLIC-BASE'],
  },
] as const satisfies readonly FaultInfo[];

/** One injectable fault's name. */
export type FaultName = (typeof FAULTS)[number]['name'];

/** Names of the injectable faults, in {@link FAULTS} order. */
export const FAULT_NAMES: readonly FaultName[] = FAULTS.map((f) => f.name);

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
  /** Whether any of `names` is injected. */
  hasAny(names: readonly FaultName[]): boolean {
    return names.some((n) => this.#active.has(n));
  }
  /** The active faults, in {@link FAULT_NAMES} order. */
  list(): FaultName[] {
    return FAULT_NAMES.filter((f) => this.#active.has(f));
  }
}
