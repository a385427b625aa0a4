import type { FaultInfo } from './info.ts';

/** Faults of the query parser: parameter rules of decisions §4. */
export const PARAMS_FAULTS = [
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
    name: 'bad-date-200',
    area: 'params',
    description:
      'invalid calendar dates such as 2024-02-30 are accepted and treated as absent (decisions §4)',
    detectedBy: ['INPUT-400-BAD-DATE'],
  },
  {
    name: 'unknown-param-ignored',
    area: 'params',
    description: 'unknown query parameters are accepted silently (decisions §4)',
    detectedBy: ['INPUT-400-UNKNOWN-PARAM'],
  },
  {
    name: 'alias-ignores-type',
    area: 'params',
    description: '/teams/stats ignores the `type` parameter (decisions §4)',
    detectedBy: ['REL-STATS-ALIAS'],
  },
  {
    name: 'next-param-rejected',
    area: 'params',
    description:
      'the `next` parameter is refused as unknown (400) instead of ignored (decisions §3 Revision 2)',
    detectedBy: ['INPUT-NEXT-TOTAL-IGNORED'],
  },
  {
    name: 'cursor-unchecked-single',
    area: 'params',
    description:
      'cursor is not validated on the single-object endpoints: cursor=abc answers 200 (decisions §3 Revision 2)',
    detectedBy: ['INPUT-400-BAD-CURSOR'],
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
    name: 'repeated-param-last-wins',
    area: 'params',
    description:
      'a repeated parameter (rtn=json&rtn=text) is not refused: its last value wins (decisions §4 Revision 2)',
    detectedBy: ['INPUT-400-REPEATED-PARAM'],
  },
  {
    name: 'daily-date-rolls-over',
    area: 'params',
    description:
      '/tags/daily/{tagID} reads `date` with Date.UTC: 2024-02-30 rolls over into 2024-03-01 instead of a 400; the other endpoints refuse it (decisions §4 Revision 2: the same rules on every endpoint)',
    detectedBy: ['INPUT-400-BAD-DATE'],
  },
  {
    name: 'events-start-after-end-empty',
    area: 'params',
    description:
      '/clicks and /opens never compare start and end: start after end answers an empty list instead of a 400 (decisions §4)',
    detectedBy: ['INPUT-400-START-AFTER-END'],
  },
  {
    name: 'member-tags-lenient-boolean',
    area: 'params',
    description:
      '/teams/member/{memberID}/tags reads a tag filter other than true/false/1/0 (isOpened=yes) as false instead of a 400 (decisions §4 Revision 2: the same rules on every endpoint)',
    detectedBy: ['INPUT-400-BAD-BOOLEAN'],
  },
  {
    name: 'stats-type-any-case',
    area: 'params',
    description:
      "the stats endpoints lower-case `type` before validating it: type=Admin answers the admins' stats instead of a 400 (decisions §4 Revision 2: type is case-sensitive)",
    detectedBy: ['INPUT-400-BAD-ENUM'],
  },
  {
    name: 'group-type-ignored',
    area: 'params',
    description:
      '/teams/group/{group} ignores `type`: type=manager lists every member of the group (decisions §4)',
    detectedBy: ['SCOPE-TYPE-FILTER'],
  },
  {
    name: 'cursor-leading-zeros-rejected',
    area: 'params',
    description:
      'cursor is validated as /^(0|[1-9][0-9]*)$/: cursor=000 answers 400 instead of the first page (decisions §3 Revision 2: [0-9]+, leading zeros allowed)',
    detectedBy: ['INPUT-400-BAD-CURSOR'],
  },
  {
    name: 'huge-cursor-rejected',
    area: 'params',
    description:
      'a cursor beyond 2^53 - 1 answers 400 instead of a page past the end (decisions §3 Revision 2: no size limit)',
    detectedBy: ['INPUT-400-BAD-CURSOR'],
  },
  {
    name: 'false-filter-negates',
    area: 'params',
    description:
      'a tag filter set to false selects its opposite: isOpened=false (any spelling) keeps only the unopened tags, isClicked=false only the unclicked, and back (decisions §4 Revision 3: false means absent)',
    detectedBy: ['REL-BOOLEAN-SPELLINGS'],
  },
  {
    name: 'aggregate-false-aggregates',
    area: 'params',
    description:
      'aggregateData is read by presence: aggregateData=false (or 0, False) answers the aggregated record instead of the per-day records (decisions §4 Revision 3: false means absent)',
    detectedBy: ['REL-BOOLEAN-SPELLINGS'],
  },
  {
    name: 'stats-type-ignored',
    area: 'params',
    description:
      '/stats ignores `type`: type=user answers the stats of every visible sender (decisions §4 Revision 3: type keeps the tags sent by members of that type)',
    detectedBy: ['REL-STATS-TYPES-MERGE', 'SCOPE-TYPE-FILTER', 'REL-STATS-ALIAS'],
  },
  {
    name: 'group-stats-type-ignored',
    area: 'params',
    description:
      '/teams/stats/group/{group} ignores `type`: type=user answers the stats of the whole group (decisions §4 Revision 3)',
    detectedBy: ['REL-STATS-TYPES-MERGE', 'SCOPE-TYPE-FILTER'],
  },
  {
    name: 'stats-type-per-day-ignored',
    area: 'params',
    description:
      'the stats endpoints apply `type` only to the aggregated record: with aggregateData=false the per-day records count every sender (decisions §4 Revision 3)',
    detectedBy: ['REL-STATS-TYPES-MERGE'],
  },
  {
    name: 'empty-piece-400',
    area: 'params',
    description:
      'an empty piece of the query (a=1&&b=2, a trailing &) is read as a parameter with an empty name: 400 unknown parameter instead of ignored (decisions §4 Revision 3)',
    detectedBy: ['INPUT-QUERY-EMPTY-PIECES'],
  },
  {
    name: 'bare-name-ignored',
    area: 'params',
    description:
      'a piece without = (?type) is skipped as if absent instead of read as type with an empty value, a 400 (decisions §4 Revision 3)',
    detectedBy: ['INPUT-QUERY-BARE-NAME'],
  },
  {
    name: 'empty-name-ignored',
    area: 'params',
    description:
      'a piece with an empty name (=json) is skipped instead of refused as an unknown parameter (decisions §4 Revision 3)',
    detectedBy: ['INPUT-QUERY-EMPTY-NAME'],
  },
  {
    name: 'names-case-insensitive',
    area: 'params',
    description:
      'parameter names are matched in any case: RTN=json is read as rtn instead of refused as unknown (decisions §4 Revision 3: names are case-sensitive)',
    detectedBy: ['INPUT-QUERY-NAMES-CASE'],
  },
  {
    name: 'values-not-decoded',
    area: 'params',
    description:
      'values are read without percent-decoding: rtn=%6Ason (json) and start=2024%2D01%2D01 answer 400 (decisions §4 Revision 3: %XX is decoded)',
    detectedBy: ['INPUT-QUERY-VALUES-DECODED'],
  },
  {
    name: 'names-not-decoded',
    area: 'params',
    description:
      'names are compared as sent, without percent-decoding: %72tn=json is an unknown parameter (docs/spec.md §6: names are decoded like values)',
    detectedBy: ['INPUT-QUERY-NAMES-DECODED'],
  },
  {
    name: 'malformed-escape-as-absent',
    area: 'params',
    description:
      'a parameter whose value holds a malformed escape (%zz, a lone %) is dropped as if absent instead of a 400 naming it (decisions §4 Revision 3)',
    detectedBy: ['INPUT-QUERY-UNDECODABLE'],
  },
  {
    name: 'non-utf8-bytes-dropped',
    area: 'params',
    description:
      'decoded bytes that are not UTF-8 are dropped from the value: rtn=json%FF is read as rtn=json instead of a 400 naming rtn (decisions §4 Revision 3)',
    detectedBy: ['INPUT-QUERY-UNDECODABLE'],
  },
  {
    name: 'undecodable-ignored-param-400',
    area: 'params',
    description:
      'the whole query is decoded strictly before any parameter is looked at: total=%zz or next=%FF answers 400 instead of being ignored (decisions §4 Revision 3: total and next stay ignored)',
    detectedBy: ['INPUT-QUERY-UNDECODABLE'],
  },
] as const satisfies readonly FaultInfo[];
