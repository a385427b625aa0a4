import type { ReportingEngine, ReportingIndex } from '@tagtrack/core';

/**
 * The {@link ReportingEngine} of an in-memory {@link ReportingIndex} (`buildIndex`): named
 * `memory`, with its `index`; answers whole lists (a window is ignored: `servesWindows`
 * false, the index answers a list in about the time of its length), nothing to close.
 */
export function indexEngine(index: ReportingIndex): ReportingEngine {
  return {
    name: 'memory',
    servesWindows: false,
    index,
    credential: (authId) => index.credential(authId),
    answer: async (caller, request) => index.answer(caller, request),
    close: async () => {},
  };
}
