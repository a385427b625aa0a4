import type { FaultInfo } from './info.ts';

/** Faults of the router: paths and methods. */
export const ROUTING_FAULTS = [
  {
    name: 'path-not-decoded',
    area: 'routing',
    description:
      'the literal path segments are matched without percent-decoding: /%74eams answers 404 (decisions §4 Revision 2)',
    detectedBy: ['INPUT-PATH-SEGMENTS-DECODED'],
  },
] as const satisfies readonly FaultInfo[];
