import type { FaultInfo } from './info.ts';

/** Faults of the router (paths and methods) and of the response cache in front of the answers. */
export const ROUTING_FAULTS = [
  {
    name: 'path-not-decoded',
    area: 'routing',
    description:
      'the literal path segments are matched without percent-decoding: /%74eams answers 404 (decisions §4 Revision 2)',
    detectedBy: ['INPUT-PATH-SEGMENTS-DECODED'],
  },
  {
    name: 'path-param-not-decoded',
    area: 'routing',
    description:
      'the router decodes the literal segments but not the placeholders: /teams/member/%61bc… looks for the id "%61bc…" and answers 404 (decisions §4 Revision 2)',
    detectedBy: ['INPUT-PATH-SEGMENTS-DECODED'],
  },
  {
    name: 'trailing-slash-accepted',
    area: 'routing',
    description:
      'the router is not strict: /teams/ answers like /teams instead of 404 (decisions §4 Revision 2, §11: a trailing slash is another path)',
    detectedBy: ['INPUT-404-UNKNOWN-PATH'],
  },
  {
    name: 'empty-segments-collapsed',
    area: 'routing',
    description:
      'empty path segments are collapsed: /teams//tags answers like /teams/tags instead of 404 (decisions §4 Revision 2: empty segments are not normalised)',
    detectedBy: ['INPUT-404-UNKNOWN-PATH'],
  },
  {
    name: 'cache-key-url-only',
    area: 'routing',
    description:
      "the response cache is keyed by the URL alone, not by the caller: the same URL asked by a second credential replays the first caller's answer (decisions §2)",
    detectedBy: ['SCOPE-CACHE-PER-CALLER'],
    blind: {
      unobservable:
        'one credential is the only caller: no second caller can receive its cached answer (a blind profile declaring two credentials of different scopes catches it)',
    },
  },
] as const satisfies readonly FaultInfo[];
