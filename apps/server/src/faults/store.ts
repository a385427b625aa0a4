import type { FaultInfo } from './info.ts';

/** Faults of the store over the index: counters, scoping, windows, event records. */
export const STORE_FAULTS = [
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
    name: 'scope-leak-team',
    area: 'store',
    description: "an admin's /teams also lists the other teams' members (decisions §2)",
    detectedBy: ['SCOPE-TEAM-ISOLATION'],
    blind: {
      unobservable:
        "one admin credential sees only its own team's members, so another team's members in its answer look like its own",
    },
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
    name: 'out-of-scope-403',
    area: 'store',
    description: "ids outside the caller's scope answer 403 instead of 404 (decisions §2)",
    detectedBy: ['SCOPE-404-OUT-OF-SCOPE'],
    blind: { unobservable: 'one admin credential knows no id outside its scope to ask for' },
  },
  {
    name: 'contacts-all-team-tags',
    area: 'store',
    description:
      'contact counters are computed over all team tags, even for a manager or user (decisions §2)',
    detectedBy: ['REL-CONTACTS-TAGS', 'ORACLE-CONTACTS'],
    blind: {
      unobservable:
        "an admin's contact counters are over all team tags anyway; only a manager or user credential sees the difference",
    },
  },
  {
    name: 'clicks-window-by-send-date',
    area: 'store',
    description: "/clicks filters by the tag's dateSent instead of clickDate (decisions §4)",
    detectedBy: ['REL-EVENTS-WINDOW'],
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
    blind: {
      unobservable:
        'one admin credential knows no id outside its scope to compare with an unknown id',
    },
  },
] as const satisfies readonly FaultInfo[];
