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
] as const satisfies readonly FaultInfo[];
