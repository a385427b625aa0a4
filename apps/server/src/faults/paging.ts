import type { FaultInfo } from './info.ts';

/**
 * Faults of the paging layer: cursors, paging URLs, Link and X-Total-Count (decisions §3).
 * One admin credential sees every one of them (its own team's lists page like any other), so
 * none declares `blind`: the blind ids are the fixture ids. `paging-url-drops-prefix` needs a
 * public URL with a path prefix (the fault matrix serves it behind a proxy stripping
 * `/api/v1`).
 */
export const PAGING_FAULTS = [
  {
    name: 'page-overlap',
    area: 'paging',
    description: 'next cursor = cursor + pageSize - 1, so pages overlap by one (decisions §3)',
    detectedBy: [
      'PAGE-WALK-ONCE',
      'PAGE-CURSOR-ARITHMETIC',
      'PAGE-URLS-KEEP-QUERY',
      'PAGE-WALK-NEXT-URL',
    ],
  },
  {
    name: 'head-total-differs',
    area: 'paging',
    description:
      'HEAD sends an X-Total-Count of the records on the page, not the total GET sends (decisions §3, §4)',
    detectedBy: ['REL-HEAD-MATCHES-GET', 'PAGE-HEADERS'],
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
    detectedBy: ['PAGE-END-NO-CONTENT', 'PAGE-HEADERS'],
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
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS', 'PAGE-TOTAL-NEXT-IGNORED'],
  },
  {
    name: 'paging-url-sorted-params',
    area: 'paging',
    description:
      'nextURL/previousURL rebuild the query with the parameters sorted by name, re-encoded (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS', 'PAGE-TOTAL-NEXT-IGNORED'],
  },
  {
    name: 'link-header-missing-text',
    area: 'paging',
    description: 'rtn=text list responses carry no Link header (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS', 'PAGE-END-NO-CONTENT'],
  },
  {
    name: 'total-count-on-single',
    area: 'paging',
    description:
      'single-object responses (3, 14, 16) carry X-Total-Count: 1 (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS', 'PAGE-SINGLE-CURSOR'],
  },
  {
    name: 'head-no-link',
    area: 'paging',
    description: 'HEAD of a list carries no Link header (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS', 'REL-HEAD-MATCHES-GET'],
  },
  {
    name: 'previous-url-on-first-page',
    area: 'paging',
    description:
      'previousURL (and Link rel="prev") point at cursor=0 on the first page instead of null (decisions §3 Revision 2)',
    detectedBy: ['PAGE-CURSOR-ARITHMETIC', 'PAGE-WALK-NEXT-URL'],
  },
  {
    name: 'paging-url-from-host',
    area: 'paging',
    description:
      'nextURL, previousURL and Link are built on the request’s X-Forwarded-Host or Host header instead of the configured public URL (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-PUBLIC-BASE'],
  },
  {
    name: 'next-url-page-aligned',
    area: 'paging',
    description:
      'nextURL and Link rel="next" snap an unaligned cursor to the next page boundary (cursor=3 links to cursor=40, not 43); paging.cursors.next stays right (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS', 'PAGE-WALK-NEXT-URL'],
  },
  {
    name: 'previous-url-unclamped',
    area: 'paging',
    description:
      'previousURL and Link rel="prev" point at cursor - pageSize without the clamp at 0 (cursor=3 links to cursor=-37); paging.cursors.previous stays right (decisions §3)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS'],
  },
  {
    name: 'prev-cursor-float',
    area: 'paging',
    description:
      'paging.cursors.previous, previousURL and Link rel="prev" computed in float arithmetic, so past a cursor above 2^53 they are off (cursor=99999999999999999999 links to cursor=100000000000000000000, not 99999999999999999749; decisions §3 Revision 2: no size limit)',
    detectedBy: ['PAGE-CURSOR-ARITHMETIC'],
  },
  {
    name: 'link-next-page-count',
    area: 'paging',
    description:
      'the Link header decides rel="next" from floor(total / pageSize) pages, so the last-but-one page and the last lack it while nextURL is set (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
  },
  {
    name: 'total-count-counts-header-row',
    area: 'paging',
    description:
      'rtn=text and rtn=html send an X-Total-Count one too high: the table’s header row is counted (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
  },
  {
    name: 'paging-url-drops-prefix',
    area: 'paging',
    description:
      'nextURL, previousURL and Link resolve the path against the public URL as an absolute path, dropping its path prefix (https://h/api/v1 gives https://h/teams) (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS', 'PAGE-WALK-NEXT-URL'],
  },
  {
    name: 'total-param-as-page-size',
    area: 'paging',
    description:
      'a numeric total parameter is read as the page size the client wants, changing data, paging and Link (decisions §3 Revision 2: total is ignored)',
    detectedBy: ['PAGE-TOTAL-NEXT-IGNORED', 'INPUT-NEXT-TOTAL-IGNORED'],
  },
  {
    name: 'next-param-as-cursor',
    area: 'paging',
    description:
      'a numeric next parameter is read as the cursor when no cursor is sent (the Node client’s option taken for an offset) (decisions §3 Revision 2: next is ignored)',
    detectedBy: ['PAGE-TOTAL-NEXT-IGNORED', 'INPUT-NEXT-TOTAL-IGNORED'],
  },
  {
    name: 'head-link-relative',
    area: 'paging',
    description:
      'HEAD of a list sends a Link with relative URLs (path and query only), GET absolute ones (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS', 'REL-HEAD-MATCHES-GET'],
  },
  {
    name: 'single-cursor-no-content',
    area: 'paging',
    description:
      'a cursor of 1 or more on a single-object endpoint (3, 14, 16) answers 204 with X-Total-Count 1: the record paged as a list of one (decisions §3 Revision 2: the cursor is ignored there)',
    detectedBy: ['PAGE-SINGLE-CURSOR', 'INPUT-400-BAD-CURSOR'],
  },
  {
    name: 'paging-path-lowercased',
    area: 'paging',
    description:
      'nextURL, previousURL and Link write the path in lower case, so /teams/group/Key%20Accounts links to /teams/group/key%20accounts, another resource (decisions §3 Revision 3: the path is free only between the path as received and its canonical form)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY'],
  },
  {
    name: 'event-groups-count-events',
    area: 'paging',
    description:
      'X-Total-Count of the event groups (9, 11) counts their events, not the groups that are the records (decisions §3 Revision 3)',
    detectedBy: ['PAGE-HEADERS'],
  },
] as const satisfies readonly FaultInfo[];
