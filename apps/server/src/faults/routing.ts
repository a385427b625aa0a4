import type { FaultInfo } from './info.ts';

/**
 * Faults of the router (paths and methods) and of the response cache in front of the answers.
 * The router faults wrap the clean `PathMatcher` (middleware/route.ts: core's catalogue), the
 * cache fault the cache's key (middleware/cache.ts).
 */
export const ROUTING_FAULTS = [
  {
    name: 'path-not-decoded',
    area: 'routing',
    description:
      'the literal path segments are matched without percent-decoding: /%74eams answers 404 (spec §6 Revision 2)',
    detectedBy: ['INPUT-PATH-SEGMENTS-DECODED'],
    wrap: {
      route: (matchPath) => (path) => {
        // bug: a router that only decodes its parameters: the literal segments must appear
        // as sent, so /%74eams is an unknown path
        const match = matchPath(path);
        if (match === undefined) return match;
        const raw = path.split('/');
        const template = match.endpoint.path.split('/');
        const literalsAsSent = template.every((t, i) => t.startsWith('{') || t === raw[i]);
        return literalsAsSent ? match : undefined;
      },
    },
  },
  {
    name: 'path-param-not-decoded',
    area: 'routing',
    description:
      'the router decodes the literal segments but not the placeholders: /teams/member/%61bc… looks for the id "%61bc…" and answers 404 (spec §6 Revision 2)',
    detectedBy: ['INPUT-PATH-SEGMENTS-DECODED'],
    wrap: {
      route: (matchPath) => (path) => {
        // bug: the router decodes the literal segments it matches but hands the placeholders
        // on as received, so /teams/member/%61bc looks for the member "%61bc"
        const match = matchPath(path);
        if (match === undefined) return match;
        const raw = path.split('/');
        const pathParams = Object.fromEntries(
          match.endpoint.path
            .split('/')
            .flatMap((t, i) => (t.startsWith('{') ? [[t.slice(1, -1), raw[i] ?? '']] : [])),
        );
        return { ...match, pathParams };
      },
    },
  },
  {
    name: 'trailing-slash-accepted',
    area: 'routing',
    description:
      'the router is not strict: /teams/ answers like /teams instead of 404 (spec §6 Revision 2, §11: a trailing slash is another path)',
    detectedBy: ['INPUT-404-UNKNOWN-PATH'],
    wrap: {
      // bug: a router in non-strict mode, where /teams/ and /teams are one route
      route: (matchPath) => (path) =>
        matchPath(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path),
    },
  },
  {
    name: 'empty-segments-collapsed',
    area: 'routing',
    description:
      'empty path segments are collapsed: /teams//tags answers like /teams/tags instead of 404 (spec §6 Revision 2: empty segments are not normalised)',
    detectedBy: ['INPUT-404-UNKNOWN-PATH'],
    wrap: {
      // bug: a router (or a proxy's merge_slashes) that collapses empty segments
      route: (matchPath) => (path) => matchPath(path.replace(/\/{2,}/g, '/')),
    },
  },
  {
    name: 'cache-key-url-only',
    area: 'routing',
    description:
      "the response cache is keyed by the URL alone, not by the caller: the same URL asked by a second credential replays the first caller's answer (spec §4)",
    detectedBy: ['SCOPE-CACHE-PER-CALLER'],
    blind: {
      unobservable:
        'one credential is the only caller: no second caller can receive its cached answer (a blind profile declaring two credentials of different scopes catches it)',
    },
    wrap: {
      // bug: the key is the URL alone, so the same URL for another caller replays the first
      // caller's answer
      cacheKey: (keyOf) => (request) => keyOf({ ...request, caller: '' }),
    },
  },
] as const satisfies readonly FaultInfo[];
