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
  {
    name: 'start-day-exclusive',
    area: 'store',
    description:
      'start is an exclusive bound: the day strings are compared with > instead of >=, so the start day is left out (decisions §4)',
    detectedBy: [
      'REL-WINDOW-INCLUSIVE',
      'REL-EVENTS-WINDOW',
      'ORACLE-TAGS',
      'ORACLE-STATS',
      'ORACLE-EVENTS',
    ],
    blind: ['REL-WINDOW-INCLUSIVE', 'REL-EVENTS-WINDOW'],
  },
  {
    name: 'days-cut-utc-plus-2',
    area: 'store',
    description:
      "windows (2, 4, 9, 11) and daily counts (14) cut days at midnight UTC+2, the server's local time, instead of UTC (decisions §4, §9)",
    detectedBy: [
      'REL-WINDOW-INCLUSIVE',
      'REL-EVENTS-WINDOW',
      'REL-DAILY-DISTINCT-RECIPIENTS',
      'ORACLE-TAGS',
      'ORACLE-EVENTS',
      'ORACLE-DAILY',
    ],
    blind: ['REL-WINDOW-INCLUSIVE', 'REL-EVENTS-WINDOW', 'REL-DAILY-DISTINCT-RECIPIENTS'],
  },
  {
    name: 'tags-filtered-oldest-first',
    area: 'store',
    description:
      'tag lists (2, 4) with a filter or a window come oldest dateSent first; only the default list is newest first (decisions §3)',
    detectedBy: ['PAGE-ORDER-TAGS', 'REL-FILTER-CONJUNCTION'],
  },
  {
    name: 'windowed-events-newest-first',
    area: 'store',
    description:
      'with start or end, the events inside each group of /opens and /clicks come newest first (decisions §3)',
    detectedBy: ['PAGE-ORDER-EVENTS'],
  },
  {
    name: 'daily-no-events-404',
    area: 'store',
    description:
      'daily counts of a day without any event of the tag answer 404 instead of zeros (decisions §9)',
    detectedBy: ['AGG-DAILY-ZERO-BEFORE-SEND', 'REL-DAILY-DISTINCT-RECIPIENTS'],
  },
  {
    name: 'tables-ignore-window',
    area: 'store',
    description:
      'rtn=text and rtn=html answers are computed without start and end, so the tables list records outside the window (decisions §7)',
    detectedBy: ['REL-FORMATS-AGREE'],
  },
  {
    name: 'aggregate-absent-true',
    area: 'store',
    description:
      'the stats endpoints (6, 7, 8, 13) default aggregateData to true: absent, they answer the aggregated record (decisions §3 Revision 2)',
    detectedBy: ['REL-BOOLEAN-SPELLINGS', 'ORACLE-STATS'],
    blind: ['REL-BOOLEAN-SPELLINGS'],
  },
  {
    name: 'member-tags-digit-false',
    area: 'store',
    description:
      '/teams/member/{id}/tags reads a tag filter spelled 1 as false (decisions §4: true, false, 1, 0 in any case)',
    detectedBy: ['REL-BOOLEAN-SPELLINGS'],
  },
  {
    name: 'event-recipient-name-last',
    area: 'store',
    description:
      "an event's recipient.name (9, 11) is the name of the tag's last recipient entry with the event's normalised email, not the first (decisions §8 Revision 3); the fault matrix serves it a dataset where such an entry has events (conformance/test/revision3-dataset.ts)",
    detectedBy: ['REL-EVENT-RECIPIENT', 'ORACLE-EVENTS'],
    blind: ['REL-EVENT-RECIPIENT'],
  },
  {
    name: 'event-recipient-name-first-entry',
    area: 'store',
    description:
      "an event's recipient.name (9, 11) is the name of the tag's first recipient entry, whoever the event's recipient is (decisions §8 Revision 3)",
    detectedBy: ['REL-EVENT-RECIPIENT', 'ORACLE-EVENTS'],
    blind: ['REL-EVENT-RECIPIENT'],
  },
  {
    name: 'order-hidden-subsecond',
    area: 'store',
    description:
      'tag lists (2, 4) are ordered by a sub-second part of dateSent the response does not show (storage order), so two tags shown with the same dateSent do not come in tagID order (decisions §3 Revision 3); the fault matrix serves it the canonical dataset plus such a pair (conformance/test/revision3-dataset.ts)',
    detectedBy: ['PAGE-ORDER-TAGS'],
  },
  {
    name: 'contact-unique-opens-as-total',
    area: 'store',
    description:
      "a contact's uniqueOpens (15, 16, 17) counts its opens instead of the tags it opened (decisions §9 contact counters)",
    detectedBy: ['AGG-CONTACTS-SUM-TAGS'],
  },
  {
    name: 'members-by-firstname',
    area: 'store',
    description:
      'member lists (1, 3) come by firstname, then lastname, then memberID, instead of lastname first (decisions §3)',
    detectedBy: ['PAGE-ORDER-MEMBERS'],
  },
  {
    name: 'contacts-by-name',
    area: 'store',
    description: 'contact lists (15, 17) come by name instead of normalised email (decisions §3)',
    detectedBy: ['PAGE-ORDER-CONTACTS'],
  },
  {
    name: 'event-groups-by-tag-id',
    area: 'store',
    description:
      'the event groups of /opens and /clicks (9, 11) come by tagID instead of in the tag order, newest dateSent first (decisions §3)',
    detectedBy: ['PAGE-ORDER-EVENT-GROUPS'],
  },
  {
    name: 'stats-days-newest-first',
    area: 'store',
    description:
      'per-day stats records (6, 7, 8, 13 with aggregateData=false) come newest day first (decisions §3)',
    detectedBy: ['PAGE-ORDER-STATS-DAYS', 'REL-AGGREGATE-MERGE'],
  },
] as const satisfies readonly FaultInfo[];
